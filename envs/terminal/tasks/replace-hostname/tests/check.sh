set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
same /app/conf/svc0.conf /tests/expected/svc0.conf
same /app/conf/svc1.conf /tests/expected/svc1.conf
same /app/conf/svc2.conf /tests/expected/svc2.conf
same /app/conf/svc3.conf /tests/expected/svc3.conf
grep -q db.old.internal /app/README
