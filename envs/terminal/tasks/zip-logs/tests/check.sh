set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
cd /tmp && unzip -q /app/logs.zip -d /tmp/z
[ "$(cat /tmp/z/logs/day1.log)" = 'day 1 ok 37' ]
[ "$(cat /tmp/z/logs/day2.log)" = 'day 2 ok 74' ]
[ "$(cat /tmp/z/logs/day3.log)" = 'day 3 ok 111' ]
[ "$(cat /tmp/z/logs/day4.log)" = 'day 4 ok 148' ]
