set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
mkdir -p '/tmp/in dir'
echo one > '/tmp/in dir/a b.txt'
echo two > '/tmp/in dir/c.txt'
echo no > '/tmp/in dir/d.log'
timeout 10 bash /app/backup.sh '/tmp/in dir' '/tmp/out dir'
[ "$(cat '/tmp/out dir/a b.txt')" = one ]
[ "$(cat '/tmp/out dir/c.txt')" = two ]
[ ! -e '/tmp/out dir/d.log' ]
