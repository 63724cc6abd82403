"""Fixtures: the HF policy over a tiny Llama scripted to call a tool, behind a live gateway."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from agentgym.gateway import Gateway, GatewayServer
from agentgym.policies.hf import HFPolicy
from trainers.tiny import tiny_llama

TOOL_CALL = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'
FINAL = "The sum is 5."
ADD_TOOL = {"type": "function", "function": {
    "name": "add", "description": "Add two integers.",
    "parameters": {"type": "object", "properties": {"a": {"type": "integer"},
                                                    "b": {"type": "integer"}}}}}


class ScriptedLM(torch.nn.Module):
    """A real tiny Llama whose last-position logits are pushed onto a script.

    Turn k of an episode (k = tool messages seen so far) writes ``script[k]`` then EOS, so the
    HF policy's own batching, sampling and log-prob code runs while tool calls are certain.
    """

    def __init__(self, script: list[str]) -> None:
        super().__init__()
        self.module, self.tok = tiny_llama()
        self.script = [self.tok.encode(s) + [self.tok.eos_token_id] for s in script]
        self.generation_config = None
        self._rows: list[list[int]] = []
        self._turn_start = self.tok.encode("<|im_start|>assistant\n")
        self._tool = self.tok.encode("<|im_start|>tool\n")

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                **kwargs: Any) -> Any:
        out = self.module(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
        if input_ids.shape[1] > 1 or not self._rows:  # prefill: remember each row's prompt
            width = input_ids.shape[1]
            mask = attention_mask[:, :width] if attention_mask is not None else None
            self._rows = [[int(t) for t, m in zip(row, mask[i] if mask is not None else row,
                                                   strict=True) if mask is None or int(m)]
                          for i, row in enumerate(input_ids)]
        else:
            for i, t in enumerate(input_ids[:, -1]):
                self._rows[i].append(int(t))
        logits = out.logits.clone()
        for i, row in enumerate(self._rows):
            start = _rfind(row, self._turn_start) + len(self._turn_start)
            turn = min(_count(row, self._tool), len(self.script) - 1)
            done = len(row) - start
            want = self.script[turn][min(done, len(self.script[turn]) - 1)]
            logits[i, -1, :] = -30.0
            logits[i, -1, want] = 30.0
        out.logits = logits
        return out


def _rfind(row: list[int], sub: list[int]) -> int:
    for i in range(len(row) - len(sub), -1, -1):
        if row[i: i + len(sub)] == sub:
            return i
    return -len(sub)


def _count(row: list[int], sub: list[int]) -> int:
    return sum(1 for i in range(len(row) - len(sub) + 1) if row[i: i + len(sub)] == sub)


@pytest.fixture
def scripted_policy() -> HFPolicy:
    """The HF policy over :class:`ScriptedLM` (a tool call, then a final answer)."""
    model = ScriptedLM([TOOL_CALL, FINAL])
    policy = HFPolicy(model, model.tok, device="cpu", batch_wait_ms=1.0)
    yield policy
    policy.close()


@pytest.fixture
def gateway_server(scripted_policy: HFPolicy) -> GatewayServer:
    """A live loopback gateway in front of the scripted HF policy."""
    with GatewayServer(Gateway(scripted_policy, model_name="tiny")) as server:
        yield server


def evaluate_keeping_trajectories(rollouts: Any, task_ids: list[str]) -> tuple[dict, list]:
    """``rollouts.evaluate(task_ids)`` and every trajectory the gateway handed the trainer."""
    from agentgym.trainers.distributed import DistInfo

    seen: list = []
    real = rollouts.gateway.collect

    def collect(episode: str) -> list:  # keep what the trainer would get
        out = real(episode)
        seen.extend(out)
        return out

    rollouts.gateway.collect = collect
    return rollouts.evaluate(task_ids, DistInfo()), seen
