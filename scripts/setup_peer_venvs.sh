#!/usr/bin/env bash
# The peers' packages whose pins clash with .venv, each in its own environment, set up side by
# side (each is mostly waiting on the registry): OpenEnv (.venv-openenv), Harbor (.venv-harbor,
# Python >= 3.12), the OpenAI Agents SDK (.venv-agents), verifiers (.venv-verifiers) and GEM (.venv-gem). `make setup` runs this so that the
# tests driving these peers' own clients run in CI instead of skipping. Each script is
# idempotent and quick when already done; a failing one fails this script with its log.
set -euo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
names=(openenv harbor agents verifiers gem)
pids=()
for name in "${names[@]}"; do
  bash "scripts/setup_${name}_venv.sh" >"$logs/$name.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "setup-peers: scripts/setup_${names[$i]}_venv.sh failed:" >&2
    cat "$logs/${names[$i]}.log" >&2
    failed=1
  else
    grep -v '^$' "$logs/${names[$i]}.log" || true
  fi
done
exit "$failed"
