#!/usr/bin/env bash
# Harbor's own package (Python >= 3.12) in .venv-harbor, for the test that checks agentgym's
# Harbor task parser against Harbor's task model (tests/envs/terminal/test_harbor_package.py).
# Optional: without it that test is skipped. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${HARBOR_VENV:-.venv-harbor}
VERSION=${HARBOR_VERSION:-0.25.0}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import harbor" 2>/dev/null; then
  echo "harbor venv: $VENV already has harbor"; exit 0
fi
py=""
for cand in python3.13 python3.12; do
  if command -v "$cand" >/dev/null 2>&1; then py=$(command -v "$cand"); break; fi
done
if [ -z "$py" ]; then
  echo "harbor venv: needs python3.12 or newer (apt install python3.12, or pyenv)" >&2; exit 2
fi
"$py" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "harbor==$VERSION"
echo "harbor venv: $VENV with harbor $VERSION"
