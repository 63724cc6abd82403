set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
[ "$(cat /app/photos/2024/img0.jpg)" = "jpeg 0" ]
[ ! -e /app/photos/2024/img0.jpeg ]
[ "$(cat /app/photos/2024/img1.jpg)" = "jpeg 1" ]
[ ! -e /app/photos/2024/img1.jpeg ]
[ "$(cat /app/photos/2025/img2.jpg)" = "jpeg 2" ]
[ ! -e /app/photos/2025/img2.jpeg ]
[ "$(cat /app/photos/2025/img3.jpg)" = "jpeg 3" ]
[ ! -e /app/photos/2025/img3.jpeg ]
[ "$(cat /app/photos/2025/img4.jpg)" = "jpeg 4" ]
[ ! -e /app/photos/2025/img4.jpeg ]
[ -f /app/photos/keep.png ]
