#!/usr/bin/env bash
# Sets up the webarena-verified package with its own pins in its own virtual environment,
# .venv-webarena-verified (`make setup-webarena-verified`, run by `make setup`): it pins
# pydantic==2.12.0 and python-dateutil 2.9, which the project's .venv does not meet, so its
# evaluator runs in a worker process (envs/webarena/verified_worker.py, started by
# envs/webarena/verified_client.py). exrex writes the strings the tasks' reference patterns
# match (the reference episodes the tests score). Network: the package index only.
# Idempotent and quick when already done (a stamp of the specs and this script, written last).
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'echo "setup-webarena-verified: FAILED (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

VENV=${WEBARENA_VERIFIED_VENV:-.venv-webarena-verified}
PYTHON=${PYTHON:-python3}
SPECS=(${WEBARENA_VERIFIED_SPECS:-webarena-verified==1.2.3 exrex==0.12.0})

stamp="$VENV/.agentgym-webarena-verified-installed"
want=$(printf '%s\n' "${SPECS[@]}" | cat - scripts/setup_webarena_verified_venv.sh \
       | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo "*" > "$VENV/.gitignore"  # git ignores the folder (as Python 3.13's venv does)
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${SPECS[@]}" 2>&1 \
  | grep -v "^WARNING: Location" || true
# The worker must answer: the package loads its 812 tasks.
echo '{"op": "ping"}' | "$VENV/bin/python" envs/webarena/verified_worker.py \
  | grep -q '"tasks": 812'
echo "$want" > "$stamp"
echo "setup-webarena-verified: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
