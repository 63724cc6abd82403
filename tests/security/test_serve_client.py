"""A hostile or broken env server against ``RemoteEnv``: a bad answer aborts, never crashes."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI, WebSocket
from serve.servers import app_in_thread

from agentgym import make
from agentgym.serve import RemoteEnvError

ANSWERS = {
    "text": "not json at all",
    "list": "[1, 2, 3]",
    "data": json.dumps({"type": "observation", "data": "x"}),
    "image": json.dumps({"type": "observation", "data": {"observation": {"images": ["!!"]}}}),
    "nested": "[" * 100_000 + "]" * 100_000,
}


def _hostile_app(answer: str) -> FastAPI:
    app = FastAPI()

    @app.get("/metadata")
    async def metadata() -> dict:
        return {"name": "hostile", "tools": [], "max_turns": 3}

    @app.get("/tasks")
    async def tasks() -> dict:
        return {"split": "train", "task_ids": ["t"]}

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            await websocket.receive_text()
            await websocket.send_text(answer)

    return app


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_a_malformed_server_answer_is_a_remote_env_error(kind):
    with app_in_thread(_hostile_app(ANSWERS[kind])) as url:
        env = make(f"remote:{url}")
        with pytest.raises(RemoteEnvError, match="malformed"):
            env.reset()
        env.close()
