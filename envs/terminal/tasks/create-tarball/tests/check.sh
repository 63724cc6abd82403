set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
mkdir -p /tmp/x && tar -xzf /app/docs.tar.gz -C /tmp/x
[ "$(cat /tmp/x/docs/a.md)" = '# A 5512' ]
[ "$(cat /tmp/x/docs/guide/b.md)" = '# B 7781' ]
