#!/usr/bin/env bash
# Sets up GEM (PyPI gem-llm, "General Experience Maker") in its own virtual environment,
# .venv-gem: gem-llm 0.1.0 pins reasoning-gym==0.1.23, nltk==3.9.1 and msgspec==0.19.0, which
# clash with .venv (reasoning-gym 0.1.25 for the reasoning-gym importer), so
# `agentgym.make("gem:...")` plays its envs in a worker process (envs/imported/gem_worker.py,
# started by envs/imported/gem_env.py). Without it the GEM tests skip (docs/interop.md).
# Network: the package index only. Idempotent and quick when already done (a stamp of the specs
# and this script, written last).
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'echo "setup-gem: FAILED (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

VENV=${GEM_VENV:-.venv-gem}
# gem-llm 0.1.0 wants Python 3.10-3.12: the first such interpreter found.
PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for candidate in python3 python3.12 python3.11 python3.10; do
    if "$candidate" -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 12))' \
        2>/dev/null; then
      PYTHON=$candidate
      break
    fi
  done
fi
if [ -z "$PYTHON" ] && [ ! -x "$VENV/bin/python" ]; then
  echo "setup-gem: skipped (gem-llm needs Python 3.10-3.12; none found): the GEM tests skip"
  exit 0
fi
SPECS=(${GEM_SPECS:-gem-llm==0.1.0})

stamp="$VENV/.agentgym-gem-installed"
want=$(printf '%s\n' "${SPECS[@]}" | cat - scripts/setup_gem_venv.sh | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo "*" > "$VENV/.gitignore"  # git ignores the folder (as Python 3.13's venv does)
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${SPECS[@]}" 2>&1 \
  | grep -v "^WARNING: Location" || true
# GEM must import and make one of its games.
"$VENV/bin/python" -c "
import gem
gem.make('game:GuessTheNumber-v0-easy')
print('setup-gem: gem-llm imports')
"
echo "$want" > "$stamp"
echo "setup-gem: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
