"""Weight push to a rollout policy that does not share the trained module (vLLM, a server)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from safetensors.torch import load_file

from agentgym import PolicyError
from agentgym.trainers.tiny import tiny_llama
from agentgym.trainers.weight_sync import WeightSync


class _Server:
    """A loopback HTTP server recording each POST (body None when empty); answers ``status``,
    or 500 to a collective_rpc whose method is in ``unknown`` (a server without the extension).
    """

    def __init__(self, status: int = 200, unknown: tuple[str, ...] = ()) -> None:
        posts: list[tuple[str, dict[str, Any] | None]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw else None
                posts.append((self.path, body))
                self.send_response(500 if (body or {}).get("method") in unknown else status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.posts = posts
        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ServerPolicy:
    """Stands for an OpenAI-compatible server policy: no module, no reload method."""

    version = 3


VLLM_PUSH = [("/collective_rpc", {"method": "reload_weights"}),
             ("/collective_rpc", {"method": "agentgym_refresh_heads"}),  # the tied head
             ("/reset_prefix_cache", None)]  # cached prompts hold the old weights' keys
"""What a push to a vLLM server (``VLLM_SERVER_DEV_MODE=1``) posts, in order."""


@pytest.mark.parametrize(("path", "posts"), [
    ("/collective_rpc", VLLM_PUSH),
    ("/update_weights_from_disk", None),  # SGLang: the folder to read
])
def test_push_saves_the_weights_then_asks_the_server_to_reload(tmp_path: Path, path: str,
                                                               posts: list | None) -> None:
    model, tokenizer = tiny_llama()
    server = _Server()
    try:
        policy = ServerPolicy()
        sync = WeightSync(policy, tmp_path / "weights", server.url(path))
        sync.push(model, tokenizer)
    finally:
        server.close()
    assert server.posts == (posts or [(path, {"model_path": str(tmp_path / "weights")})])
    saved = load_file(tmp_path / "weights" / "model.safetensors")
    for name, tensor in model.state_dict().items():
        if name in saved:
            assert (saved[name] == tensor).all()
    assert saved and policy.version == 4  # the next trajectories carry the new version


def test_a_failed_reload_is_a_policy_error_and_keeps_the_version(tmp_path: Path) -> None:
    model, _ = tiny_llama()
    server = _Server(status=500)
    policy = ServerPolicy()
    try:
        with pytest.raises(PolicyError, match="weight reload at .* failed"):
            WeightSync(policy, tmp_path / "w", server.url("/collective_rpc")).push(model)
    finally:
        server.close()
    assert policy.version == 3
    with pytest.raises(PolicyError, match="weight_sync_url is empty"):
        WeightSync(policy, tmp_path / "w").push(model)


def test_a_vllm_server_without_the_extension_is_warned_once_and_still_reloaded(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    model, _ = tiny_llama()
    server = _Server(unknown=("agentgym_refresh_heads",))
    policy = ServerPolicy()
    sync = WeightSync(policy, tmp_path / "w", server.url("/collective_rpc"))
    try:
        with caplog.at_level("WARNING", logger="agentgym.trainers.weight_sync"):
            sync.push(model)
            sync.push(model)
    finally:
        server.close()
    assert policy.version == 5  # both pushes reloaded the weights
    warned = [r for r in caplog.records if "worker extension" in r.getMessage()]
    assert len(warned) == 1 and "tied lm_head" in warned[0].getMessage()
    assert server.posts == VLLM_PUSH + [VLLM_PUSH[0], VLLM_PUSH[2]]  # not asked twice


def test_an_in_process_engine_reloads_the_folder_itself(tmp_path: Path) -> None:
    model, _ = tiny_llama()
    calls = []

    class EnginePolicy:
        version = 0

        def reload_weights(self, folder: str) -> None:
            calls.append(sorted(p.name for p in Path(folder).iterdir()))

        def set_version(self, version: int) -> None:
            self.version = version

    policy = EnginePolicy()
    WeightSync(policy, tmp_path / "w", "http://127.0.0.1:9/unused").push(model)
    assert calls and "model.safetensors" in calls[0] and policy.version == 1
