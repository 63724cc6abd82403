set -eu
# (no pipefail: `producer | grep -q` would fail at random when grep exits first: SIGPIPE)
# helpers: ans FILE = the file without whitespace; same A B = equal up to trailing blanks
ans() { tr -d '[:space:]' < "$1"; }
norm() { sed -e 's/[[:space:]]*$//' "$1" | awk 'NF{for(i=0;i<b;i++)print "";b=0;print;next}{b++}'; }
same() { diff <(norm "$1") <(norm "$2") >/dev/null; }
# py: run the Python check on stdin in /tmp, isolated (-I: neither the working directory nor
# PYTHON* variables reach sys.path); it passes only by reaching its end, which prints this run's
# nonce (the agent's code it imports could otherwise end the process with status 0)
py() {
  local nonce
  nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  [ "$( { cat; printf '\nprint("passed", __import__("sys").argv[1])\n'; } \
      | (cd /tmp && timeout 10 python3 -I - "$nonce") | tail -n 1)" = "passed $nonce" ]
}
cd /tmp
printf '1\n\n2\n\n6\n\n' > /tmp/n.txt
[ "$(timeout 10 python3 /app/avg.py /tmp/n.txt)" = 3.0 ]
printf '10\n\n\n20\n' > /tmp/m.txt
[ "$(timeout 10 python3 /app/avg.py /tmp/m.txt)" = 15.0 ]
