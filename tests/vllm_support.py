"""What the vLLM tests share: find vLLM's interpreter or command, skip without it, fail under
``make test-vllm`` (``AGENTGYM_REQUIRE_VLLM``: there it must be installed)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


def _require(find: Callable[[], str | None]) -> str:
    found = find()
    if found is None:
        if os.environ.get("AGENTGYM_REQUIRE_VLLM"):
            pytest.fail("vLLM is not installed: scripts/setup_vllm_cpu.sh")
        pytest.skip("vLLM is not installed (make setup-vllm)")
    return found


def require_vllm() -> str:
    """vLLM's interpreter (``.venv-vllm``)."""
    from agentgym.policies.vllm_runtime import vllm_python

    return _require(lambda: None if (p := vllm_python()) is None else str(p))


def require_vllm_bin() -> str:
    """The ``vllm`` command."""
    from agentgym.policies.vllm_runtime import vllm_bin

    return _require(lambda: None if (p := vllm_bin()) is None else str(p))


STUB_WORKER_START = """
import json, os, sys
from multiprocessing.connection import Client
key = sys.stdin.buffer.readline().strip()
conn = Client(os.environ["AGENTGYM_VLLM_ADDRESS"], family="AF_UNIX", authkey=key)
conn.send_bytes(json.dumps({"op": "ready", "ok": True, "vllm": "stub"}).encode())
"""
"""The start of a stand-in worker that plays by the rules: the key from standard input, the
connection, the ready message; a script goes on with ``conn``."""


def stub_interpreter(folder: Path, code: str) -> str:
    """An 'interpreter' that runs ``code`` whatever it is asked to run: a stand-in for vLLM's
    worker (``WorkerClient(python=...)``) in the tests that need no vLLM."""
    script = folder / "stub.py"
    script.write_text(code)
    exe = folder / "python"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    exe.chmod(0o755)
    return str(exe)
