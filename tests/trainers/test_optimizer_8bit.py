"""``optimizer: adamw8bit``: bitsandbytes' 8-bit AdamW as the learner's optimizer.

Its moments take a byte each instead of four, it follows torch's AdamW closely, its state
survives a checkpoint round trip and a phase reset, and a missing package or an unknown name
is a clear configuration error rather than a crash mid-run.
"""

from __future__ import annotations

import io
import sys

import pytest
import torch

from agentgym import ConfigError
from agentgym.trainers.config import TrainConfig, load_config
from agentgym.trainers.update import make_optimizer

pytest.importorskip("bitsandbytes")


def _params(seed: int = 0) -> list[torch.nn.Parameter]:
    g = torch.Generator().manual_seed(seed)
    # one matrix large enough for 8-bit state (bitsandbytes keeps tensors < 4096 in 32 bits)
    return [torch.nn.Parameter(torch.randn(256, 96, generator=g)),
            torch.nn.Parameter(torch.randn(32, generator=g))]


def _grads(step: int, params: list[torch.nn.Parameter]) -> list[torch.Tensor]:
    """A fixed direction plus noise, so the weights travel rather than wander."""
    g = torch.Generator().manual_seed(1000 + step)
    base = torch.Generator().manual_seed(7)
    return [torch.randn(p.shape, generator=base) + 0.5 * torch.randn(p.shape, generator=g)
            for p in params]


def _run(optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter],
         steps: range) -> None:
    for step in steps:
        for p, grad in zip(params, _grads(step, params), strict=True):
            p.grad = grad
        optimizer.step()


def _state_bytes(optimizer: torch.optim.Optimizer, p: torch.nn.Parameter) -> int:
    return sum(t.numel() * t.element_size() for t in optimizer.state[p].values()
               if torch.is_tensor(t) and t.numel() > 1)


def test_8bit_moments_take_a_quarter_of_adamws_and_follow_its_updates():
    cfg = TrainConfig(lr=1e-3)
    full, small = _params(), _params()
    adamw = make_optimizer(full, cfg)
    eight = make_optimizer(small, TrainConfig(lr=1e-3, optimizer="adamw8bit"))
    assert type(adamw).__name__ == "AdamW" and type(eight).__name__ == "AdamW8bit"
    start = full[0].detach().clone()
    _run(adamw, full, range(30))
    _run(eight, small, range(30))
    big_full, big_small = _state_bytes(adamw, full[0]), _state_bytes(eight, small[0])
    assert big_full == 2 * full[0].numel() * 4  # exp_avg + exp_avg_sq in fp32
    assert big_small <= big_full * 0.3  # two uint8 moments and their block maxima
    moved = (full[0].detach() - start).abs().mean()
    assert moved > 1e-2
    # 8-bit rounding of the moments: the weights move within a few percent of AdamW's path
    assert (small[0].detach() - full[0].detach()).abs().mean() < 0.05 * moved


def test_8bit_state_survives_a_checkpoint_round_trip_and_a_reset():
    cfg = TrainConfig(lr=1e-3, optimizer="adamw8bit")
    params = _params()
    optimizer = make_optimizer(params, cfg)
    _run(optimizer, params, range(5))
    buffer = io.BytesIO()
    torch.save({"params": [p.detach().clone() for p in params],
                "optimizer": optimizer.state_dict()}, buffer)
    _run(optimizer, params, range(5, 8))  # the uninterrupted run

    buffer.seek(0)
    saved = torch.load(buffer, weights_only=False)
    resumed = [torch.nn.Parameter(t) for t in saved["params"]]
    again = make_optimizer(resumed, cfg)
    again.load_state_dict(saved["optimizer"])
    _run(again, resumed, range(5, 8))
    for a, b in zip(params, resumed, strict=True):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=0, atol=0)

    again.state.clear()  # what Learner.reset_optimizer does entering RL after BC
    before = resumed[0].detach().clone()
    _run(again, resumed, range(8, 9))
    assert not torch.equal(before, resumed[0].detach())
    assert again.state[resumed[0]]["state1"].dtype == torch.uint8


def test_the_setting_lives_in_the_learner_section_and_unknown_names_are_refused():
    assert load_config({"learner": {"optimizer": "adamw8bit"}}).optimizer == "adamw8bit"
    assert load_config(None, ["optimizer=adamw8bit"]).optimizer == "adamw8bit"
    with pytest.raises(ConfigError, match="optimizer must be adamw or adamw8bit"):
        TrainConfig(optimizer="adam8")


def test_without_bitsandbytes_the_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "bitsandbytes", None)  # import raises ImportError
    with pytest.raises(ConfigError, match="bitsandbytes"):
        make_optimizer(_params(), TrainConfig(optimizer="adamw8bit"))
