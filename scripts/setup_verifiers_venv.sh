#!/usr/bin/env bash
# Sets up verifiers (Prime Intellect's environment library) in its own virtual environment,
# .venv-verifiers (`make setup-verifiers`): verifiers pins openai<3 and mcp==2.0.0, which the
# project's .venv does not meet, so `agentgym.make("verifiers:...")` drives its environments in
# a worker process (envs/imported/verifiers_worker.py, started by envs/imported/verifiers_env.py),
# and verifiers' own loop (vf-eval, which needs uv) runs here for the tests that compare it with
# the importer. Without it the verifiers tests skip (docs/interop.md). Network: the package
# index only (uv fetches a harness program's dependencies from it on first use).
# Idempotent and quick when already done (a stamp of the specs and this script, written last).
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'echo "setup-verifiers: FAILED (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

VENV=${VERIFIERS_VENV:-.venv-verifiers}
PYTHON=${PYTHON:-python3}
# uv: verifiers' own loop (vf-eval) prepares each harness program with `uv sync --script`.
SPECS=(${VERIFIERS_SPECS:-verifiers==0.4.0 uv==0.13.9})

stamp="$VENV/.agentgym-verifiers-installed"
want=$(printf '%s\n' "${SPECS[@]}" | cat - scripts/setup_verifiers_venv.sh \
       | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo "*" > "$VENV/.gitignore"  # git ignores the folder (as Python 3.13's venv does)
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${SPECS[@]}" 2>&1 \
  | grep -v "^WARNING: Location" || true
# verifiers must import (its top-level API and v1).
"$VENV/bin/python" -c "
import verifiers as vf
print('setup-verifiers: verifiers', vf.__version__, 'imports')
"
"$VENV/bin/uv" --version >/dev/null
echo "$want" > "$stamp"
echo "setup-verifiers: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
