"""``agentgym eval --out`` picks the env's own viewer writer from its spec, else the generic one."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import agentgym
from agentgym.rollout.evaluate import EvalConfig, run_eval
from agentgym.rollout.report import viewer_for
from agentgym.rollout.trajectory import Trajectory
from agentgym.rollout.viewer import write_viewer

from .fake_envs import CounterEnv, counter_tasks

CALLS: list[tuple[Path, int]] = []


def own_viewer(out: Path, trajs: list[Trajectory], image_root: Path | None = None) -> Path:
    """A viewer writer that only records its call."""
    CALLS.append((out, len(trajs)))
    return out / "index.html"


def test_spec_viewer_is_used_and_a_broken_one_falls_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agentgym.register("testview/own-v0", CounterEnv, viewer=f"{__name__}:own_viewer",
                      kwargs={"images": True}, tasks=counter_tasks)
    agentgym.register("testview/broken-v0", CounterEnv, viewer="no_such_module_x:write")
    agentgym.register("testview/plain-v0", CounterEnv)
    assert viewer_for("testview/plain-v0") is write_viewer
    with caplog.at_level(logging.WARNING):
        assert viewer_for("testview/broken-v0") is write_viewer
    assert "no_such_module_x" in caplog.text
    run_eval(EvalConfig("testview/own-v0", policy="fake:done", n=2, num_envs=1,
                        out=str(tmp_path / "eval")))  # the counter env's steps carry images
    assert CALLS == [(tmp_path / "eval" / "viewer", 2)]
