set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
[ "$(head -1 /app/parts/part1.txt)" = 'record 1 alpha' ]
[ "$(wc -l < /app/parts/part1.txt)" = 10 ]
[ "$(head -1 /app/parts/part2.txt)" = 'record 11 coral' ]
[ "$(wc -l < /app/parts/part2.txt)" = 10 ]
[ "$(head -1 /app/parts/part3.txt)" = 'record 21 sigma' ]
[ "$(wc -l < /app/parts/part3.txt)" = 10 ]
[ ! -e /app/parts/part4.txt ]
