"""One owner per setting (issue 25): ``max_turns`` and ``device`` are each decided by one function
and give the same result at every entry point: ``make``, ``eval``, ``train``, ``serve`` and a
remote env. Each case counts what really happened (the turns an episode ran before it was
truncated), not what a config says.
"""

from __future__ import annotations

from typing import Any

import pytest

import agentgym
from agentgym import AgentEnv, ConfigError, Task, TaskSet, TurnLimit, make_observation
from agentgym.policies import FakePolicy
from agentgym.settings import DEFAULT_MAX_TURNS, resolve_device, resolve_max_turns

SPEC_LIMIT = 3
"""The turn limit of ``testsettings/endless-v0``'s spec."""


def endless_tasks() -> TaskSet:
    """Two tasks in each split."""
    return TaskSet([Task(f"{s}{i}", s, f"task {s}{i}") for s in ("train", "test") for i in (0, 1)],
                   name="endless")


class Endless(AgentEnv):
    """Never terminates: only a turn limit ends its episodes."""

    instructions = "Say anything, forever."

    def __init__(self, split: str = "test") -> None:
        super().__init__()
        self.task_set = endless_tasks().split(split)
        self.task_id = "test0"

    def _reset(self, options: dict[str, Any]) -> Any:
        self.task_id = str(options.get("task_id") or self.task_set.ids()[0])
        return make_observation("go"), {"task_id": self.task_id}

    def _step(self, action: Any) -> Any:
        return make_observation("more"), 0.0, False, False, {"task_id": self.task_id}


@pytest.fixture(scope="module", autouse=True)
def endless_specs() -> None:
    agentgym.register("testsettings/endless-v0", Endless, tasks=endless_tasks,
                      max_turns=SPEC_LIMIT)
    agentgym.register("testsettings/unlimited-v0", Endless, tasks=endless_tasks)


def _turns_until_truncated(env: Any, cap: int = 50) -> int:
    """Steps ``env`` until it truncates (or ``cap`` steps: 'unbounded')."""
    env.reset(options={"task_id": "test0"})
    for turn in range(1, cap + 1):
        _, _, terminated, truncated, info = env.step("hi")
        if truncated or terminated:
            assert "turn limit" in info.get("truncated_reason", "")
            return turn
    return cap


ASKED = [None, 2, 5]
"""Unset (the spec's limit), lower than the spec's, higher than the spec's."""


def _expected(asked: int | None) -> int:
    return asked if asked is not None else SPEC_LIMIT


# -- the one function ------------------------------------------------------------------------


def test_one_function_decides_the_turn_limit():
    assert resolve_max_turns(None, None) == DEFAULT_MAX_TURNS == 10
    assert [resolve_max_turns(a, SPEC_LIMIT) for a in ASKED] == [3, 2, 5]
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ConfigError, match="at least 1"):
            resolve_max_turns(bad, 3)
    from agentgym.rollout import resolve_max_turns as from_rollout

    assert from_rollout is resolve_max_turns  # the old import path is the same function


def test_make_without_a_spec_limit_stops_where_the_engine_stops():
    """Before: ``make`` of a spec without a limit ran unbounded while the engine stopped at 10."""
    env = agentgym.make("testsettings/unlimited-v0")
    assert _turns_until_truncated(env) == DEFAULT_MAX_TURNS
    engine = agentgym.rollout.Engine("testsettings/unlimited-v0", FakePolicy(("x",)), num_envs=1)
    [traj] = engine.run([agentgym.rollout.EpisodeRequest(task_id="test0")])
    assert traj.truncated and traj.turns == DEFAULT_MAX_TURNS
    assert env.unwrapped.spec.max_episode_steps == DEFAULT_MAX_TURNS


def test_the_engine_does_not_count_turns_itself():
    """The TurnLimit wrapper that make() applies is the one place that enforces the limit."""
    import inspect

    from agentgym.rollout import episode

    assert "max_turns" not in inspect.getsource(episode.Episode)


# -- every entry point -----------------------------------------------------------------------


@pytest.mark.parametrize("asked", ASKED)
def test_make(asked):
    env = agentgym.make("testsettings/endless-v0", max_turns=asked)
    assert isinstance(env, TurnLimit)
    assert _turns_until_truncated(env) == _expected(asked)


@pytest.mark.parametrize("asked", ASKED)
def test_eval(asked, tmp_path):
    from agentgym.rollout.evaluate import EvalConfig, run_eval

    config = EvalConfig(env_id="testsettings/endless-v0", policy="fake:hi", n=1, num_envs=1,
                        max_turns=asked, out=str(tmp_path / "eval"))
    results = run_eval(config)
    assert results["config"]["max_turns"] == _expected(asked)
    from agentgym.rollout.store import TrajectoryStore

    with TrajectoryStore(tmp_path / "eval" / "trajectories", resume=True) as store:
        [traj] = list(store)
    assert traj.truncated and traj.turns == _expected(asked)


@pytest.mark.parametrize("asked", ASKED)
def test_train(asked, tmp_path):
    """The GRPO trainer (a tiny model decoding for real) rolls out with the same limit."""
    from agentgym.trainers import GRPOTrainer, load_config

    overrides = ["env=testsettings/endless-v0", "model=agentgym.trainers.tiny:tiny_llama",
                 "device=cpu", "num_envs=1", "group_size=1", "tasks_per_step=1",
                 "max_new_tokens=3", "eval_every=0", "eval_at_start=false",
                 "tensorboard=false", "progress=false", "torch_threads=1",
                 f"output_dir={tmp_path / 'run'}"] + ([f"max_turns={asked}"] if asked else [])
    trainer = GRPOTrainer(load_config(None, overrides))
    trainer.setup()
    try:
        result = trainer.rollouts.groups(["train0"], round=0)
    finally:
        trainer.policy.close()
    [[traj]] = result.groups
    assert traj.truncated and traj.reason == f"turn limit {_expected(asked)}"
    assert traj.turns == _expected(asked) == trainer.max_turns


def _serve(asked: int | None):
    """A real uvicorn server on loopback serving the endless env made with ``max_turns``."""
    from serve.servers import app_in_thread

    from agentgym.serve import create_app

    kwargs = {"max_turns": asked} if asked is not None else {}
    app = create_app("testsettings/endless-v0", max_sessions=2, idle_timeout_s=None,
                     env_kwargs=kwargs)
    return app_in_thread(app)


@pytest.mark.parametrize("asked", ASKED)
def test_serve(asked):
    """``agentgym serve`` (create_app) makes its env with the asked limit; a client sees it."""
    with _serve(asked) as url:
        env = agentgym.make(f"remote:{url}/testsettings/endless-v0")
        try:
            assert _turns_until_truncated(env) == _expected(asked)
        finally:
            env.close()


@pytest.mark.parametrize("asked", ASKED)
def test_remote(asked):
    """``make("remote:URL", max_turns=N)`` against a server of the spec's limit: the client's
    limit reaches the server's ``make`` (raising it works too)."""
    with _serve(None) as url:
        env = agentgym.make(f"remote:{url}/testsettings/endless-v0", max_turns=asked)
        try:
            assert _turns_until_truncated(env) == _expected(asked)
        finally:
            env.close()


# -- device ----------------------------------------------------------------------------------


@pytest.fixture(params=[False, True], ids=["no-cuda", "cuda"])
def cuda(request, monkeypatch):
    """torch.cuda.is_available() as the parameter says (nothing is moved to the device)."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: request.param)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    return "cuda:0" if request.param else "cpu"


def test_one_function_decides_the_device(cuda, monkeypatch):
    assert resolve_device("auto") == resolve_device(None) == resolve_device() == cuda
    assert resolve_device("cpu") == "cpu" and resolve_device("cuda:1") == "cuda:1"
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert resolve_device("auto") == ("cuda:1" if cuda != "cpu" else "cpu")
    assert resolve_device("auto", local_rank=0) == cuda


def _tiny() -> tuple[Any, Any]:
    from agentgym.trainers.tiny import tiny_llama

    return tiny_llama()


def test_device_at_every_entry_point(cuda, monkeypatch):
    """``auto`` resolves to the same device in the hf policy (by object and by name, through
    the policy loader as ``eval`` uses it), the vision policy and the trainer."""
    import agentgym.models
    from agentgym.policies import HFPolicy, load_policy
    from agentgym.trainers.modeling import pick_device

    model, tokenizer = _tiny()
    asked: list[str] = []

    def fake_loader(name: str, *, device: str = "cpu") -> Any:
        asked.append(device)
        return model, tokenizer

    monkeypatch.setattr(agentgym.models, "load_model_and_tokenizer", fake_loader)
    monkeypatch.setattr(agentgym.models, "check_model_name", lambda name: None)  # "tiny": ours
    by_object = HFPolicy(model, tokenizer, device="auto")
    by_name = load_policy("hf:tiny?device=auto")
    default = load_policy("hf:tiny")
    trainer = pick_device("auto")
    assert by_object.device == "cpu"  # a given module runs where it is: nothing to decide
    found = {"hf by name": by_name.device,
             "hf default": default.device, "loader got": asked[0],
             "trainer": str(trainer), "vision": _vision_device(monkeypatch, model, tokenizer)}
    assert set(found.values()) == {cuda}, found
    for policy in (by_object, by_name, default):
        policy.close()


def _vision_device(monkeypatch: pytest.MonkeyPatch, model: Any, tokenizer: Any) -> str:
    """The device ``hf-vision:`` resolves ``auto`` to (its model loader records it)."""
    from agentgym.policies import hf_vision

    seen: list[str] = []

    class Processor:
        def __init__(self) -> None:
            self.tokenizer = tokenizer

    def fake_vision_loader(name: str, *, device: str = "cpu") -> Any:
        seen.append(device)
        return model, Processor()

    monkeypatch.setattr(hf_vision, "load_vision_model", fake_vision_loader)
    monkeypatch.setattr(hf_vision, "VisionChatFormat", lambda processor: None)
    policy = hf_vision.HFVisionPolicy("some/folder", device="auto")
    policy.close()
    assert seen == [policy.device]
    return policy.device


def test_eval_and_train_pass_the_policy_device_through():
    """The eval CLI's ``--policy hf:M?device=auto`` and the trainer's ``device: auto`` reach the
    one function; a bad device is one clear error."""
    from agentgym.trainers.config import load_config

    assert load_config(None, []).device == "auto"
    with pytest.raises(ConfigError, match="device must be"):
        resolve_device("")


# -- the trainable-policy protocol -------------------------------------------------------------


def test_a_new_in_process_backend_can_train(fresh_plugins):
    """A plugin's backend with a ``trainable`` factory is what the trainer's shared policy is
    built by; a backend without one is refused with the list of those that can."""
    from agentgym import PolicyError, hookimpl, register_plugin
    from agentgym.policies import (
        HFPolicy,
        TrainablePolicy,
        load_trainable_policy,
        trainable_backends,
    )

    class Mine(HFPolicy):
        """A new in-process backend (here: the hf decoder under another name)."""

        name = "mine"

    class Plugin:
        @hookimpl
        def agentgym_register_policies(self, register):
            register("mine", Mine.from_spec, trainable=Mine.from_module)

    register_plugin(Plugin(), name="mine-plugin")
    assert {"hf", "hf-vision", "mine"} <= set(trainable_backends())
    model, tokenizer = _tiny()
    policy = load_trainable_policy("mine?max_batch_size=4", model, tokenizer, device="cpu")
    assert isinstance(policy, Mine) and isinstance(policy, TrainablePolicy)
    assert policy.model is model and policy.max_batch_size == 4
    with policy.updating_weights():
        pass
    assert policy.version == 1
    policy.close()
    with pytest.raises(PolicyError, match="cannot share the trainer's weights.*trainable: "):
        load_trainable_policy("fake", model, tokenizer)


def test_trainers_name_no_policy_class_and_copy_no_helper():
    """Trainers build their in-process policy through the loader, and import the entry-point
    helper from agentgym instead of keeping a copy."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "trainers"
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for banned in ("HFPolicy(", "HFVisionPolicy(", "def load_entry_point",
                       "importlib.import_module(module)"):
            assert banned not in text, f"{path.name} has {banned!r}"


# -- docs agree with the code (item 9) ---------------------------------------------------------


def test_docs_say_aborted_episodes_are_not_scored():
    """docs/rollout.md, the README and ``summarize`` tell the same story: an aborted episode is
    reported apart and never scored as a failure."""
    from pathlib import Path

    from agentgym.rollout import Trajectory
    from agentgym.rollout.metrics import summarize

    root = Path(__file__).resolve().parents[1]
    rollout_doc = (root / "docs" / "rollout.md").read_text(encoding="utf-8")
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    assert "count as failures" not in rollout_doc
    assert "are not scored" in rollout_doc and "never scored as failures" in readme
    won = Trajectory(task_id="a", terminated=True, reward=1.0, info={"success": True})
    aborted = Trajectory(task_id="b", aborted=True, reason="infrastructure: container died")
    metrics = summarize([won, aborted])
    assert (metrics["success_rate"], metrics["episodes"], metrics["aborted"]) == (1.0, 1, 1)


class TwoSeats:
    """Not a gymnasium.Env (a multi-agent env): make() returns it unwrapped."""

    @property
    def unwrapped(self) -> TwoSeats:
        return self


def test_a_multi_agent_env_gets_no_turn_limit_and_refuses_one():
    agentgym.register("testsettings/two-seats-v0", TwoSeats)
    assert isinstance(agentgym.make("testsettings/two-seats-v0"), TwoSeats)
    with pytest.raises(ConfigError, match="not a single-agent gymnasium env"):
        agentgym.make("testsettings/two-seats-v0", max_turns=4)
