#!/usr/bin/env bash
# Sets up the agent frameworks the gateway tests run unchanged that cannot share the project's
# .venv, in their own virtual environment, .venv-agents (tests/gateway/test_real_agents.py).
# The OpenAI Agents SDK (openai-agents 0.24) requires websockets<17, which would downgrade the
# serve package's websockets 17 in .venv; an agent is a subprocess the trainer starts with any
# command, so it runs from its own interpreter: gateway.agent: [.venv-agents/bin/python, ...].
# Idempotent and quick when already done (a stamp of the specs and this script).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${AGENTS_VENV:-.venv-agents}
PYTHON=${PYTHON:-python3}
AGENTS_SPEC=${AGENTS_SPEC:-openai-agents==0.24.0}
MCP_SPEC=${MCP_SPEC:-mcp>=1.19,<3}

stamp="$VENV/.agentgym-agents-installed"
want=$(printf '%s\n%s\n' "$AGENTS_SPEC" "$MCP_SPEC" | cat - scripts/setup_agents_venv.sh \
       | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
echo "*" > "$VENV/.gitignore"  # git ignores the folder (as Python 3.13's venv does)
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" "$AGENTS_SPEC" "$MCP_SPEC" anyio
# The SDK must import with its MCP client classes and its chat-completions model.
"$VENV/bin/python" -c "
import agents, mcp
from agents import Agent, Runner, OpenAIChatCompletionsModel
from agents.mcp import MCPServerStreamableHttp
print('setup-agents: openai-agents', agents.__version__ if hasattr(agents, '__version__') else '?')
"
echo "$want" > "$stamp"
echo "setup-agents: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
