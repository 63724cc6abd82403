set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
printf 'a\nb\n' > /tmp/x1
printf 'a\n' > /tmp/x2
printf '1\n2\n3\n' > /tmp/x3
[ "$(bash /app/count.sh /tmp/x1 /tmp/x2 /tmp/x3 | tr '\n' ';')" = 'x1 2;x2 1;x3 3;' ]
