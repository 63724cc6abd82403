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
# pyenv's shims answer `command -v` even when no selected version has the command: a candidate
# counts only when it runs.
for cand in python3.13 python3.12 ${PYENV_ROOT:-$HOME/.pyenv}/versions/3.1[2-9]*/bin/python3; do
  if "$cand" -c 'import sys; assert sys.version_info >= (3, 12)' >/dev/null 2>&1; then
    py=$cand; break
  fi
done
if [ -z "$py" ]; then
  echo "harbor venv: needs python3.12 or newer (apt install python3.12, or pyenv)" >&2; exit 2
fi
"$py" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "harbor==$VERSION"
echo "harbor venv: $VENV with harbor $VERSION"
