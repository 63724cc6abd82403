#!/usr/bin/env bash
# Sets up OpenEnv (openenv-core, its server and client) and a third-party env served with it
# (openenv-dipg-safety) in their own virtual environment, .venv-openenv: openenv-core pulls
# gradio and fastmcp, whose pins must not move the project's .venv. The interop tests start
# OpenEnv's server and run openenv-core's client from this interpreter
# (tests/envs/imported/test_openenv.py); without it they skip. docs/interop.md.
# Idempotent and quick when already done (a stamp of the specs and this script).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${OPENENV_VENV:-.venv-openenv}
PYTHON=${PYTHON:-python3}
CORE_SPEC=${OPENENV_CORE_SPEC:-openenv-core==0.3.0}
ENV_SPEC=${OPENENV_ENV_SPEC:-openenv-dipg-safety==0.1.67}

stamp="$VENV/.agentgym-openenv-installed"
want=$(printf '%s\n%s\n' "$CORE_SPEC" "$ENV_SPEC" | cat - scripts/setup_openenv_venv.sh \
       | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo "*" > "$VENV/.gitignore"  # git ignores the folder (as Python 3.13's venv does)
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" "$CORE_SPEC" "$ENV_SPEC"
# OpenEnv's server app factory and its generic client must import.
"$VENV/bin/python" -c "
from openenv.core.env_server.http_server import create_app
from openenv.core.generic_client import GenericEnvClient
import med_safety_gym
print('setup-openenv: openenv-core and med_safety_gym import')
"
echo "$want" > "$stamp"
echo "setup-openenv: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
