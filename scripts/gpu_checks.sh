#!/usr/bin/env bash
# The trainer's GPU checks in one pass (docs/training.md "On GPUs"), for a lent GPU machine whose
# Python already has torch and transformers but no index: wheels the project needs that the
# machine lacks travel in .whl/ (python3 -m pip download ... -d .whl; see docs/training.md).
# Each check has its own time limit and log under $OUT (default gpu-logs/), so one that fails or
# runs long never costs the others. Usage: bash scripts/gpu_checks.sh [fast]
set -u
OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.log"; }
check() {  # check NAME SECONDS CMD...: run with a limit, keep the log, record the status
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout -k 5 "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  log "$name rc=$rc in $(( SECONDS - start )) s: $(tail -n 1 "$OUT/$name.log")"
}

if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >"$OUT/install.log" 2>&1
log "install rc=$? $(python3 -c 'import torch, transformers; print(torch.__version__, transformers.__version__, torch.cuda.get_device_name())' 2>&1 | tail -1)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$OUT/summary.log"

# 1. the GPU tests and the CPU twins of the paths they cover
check tests 140 python3 -m pytest -q -p no:cacheprovider -o addopts="" \
  tests/trainers/test_gpu.py tests/trainers/test_head_logprobs.py tests/trainers/test_device_paths.py
# 3. the memory-lean update against the full logits (49,152 and 151,936 words, 16 x 2,048)
check update_memory 90 python3 benchmarks/update_memory.py --device cuda --tokens 2048
# 2. the GRPO step against TRL, and decode against model.generate (random weights: no GGUF here)
check gpu_trainer 190 python3 benchmarks/gpu_trainer.py --trl --models "${GPU_MODELS:-smollm2}"
# 1. a short learning smoke run (arith; the tiny model: SmolLM2's weights do not travel)
check smoke 60 python3 -m agentgym.cli train configs/grpo_arith_cpu.yaml device=auto \
  model=agentgym.trainers.tiny:tiny_llama steps=3 eval_every=3 eval_tasks=8 eval_samples=1 \
  output_dir=/tmp/smoke progress=false tensorboard=false torch_threads=8
# 4. the asynchronous trainer against the synchronous one on the GPU
check async 70 python3 benchmarks/async_training.py device=cuda steps=6
log done
