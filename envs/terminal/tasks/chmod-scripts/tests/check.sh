set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
cd /app/bin
for f in start.sh stop.sh tools/sync.sh; do [ "$(stat -c %a $f)" = 755 ]; done
for f in notes.txt tools/conf.ini; do [ "$(stat -c %a $f)" = 644 ]; done
