"""A killed, hanging or crashing env aborts its own episode only; its worker is replaced."""

from __future__ import annotations

from typing import Any

from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig

from .fake_envs import LIVE_PROCS, TASKS, turns_of


def test_killing_an_env_process_mid_run(echo_env: str) -> None:
    killed = []

    def respond(messages: list[dict[str, Any]], episode: Any) -> str:
        if episode.task_id == "t3" and episode.turn == 2 and not killed:
            proc = LIVE_PROCS["t3"]
            proc.kill()  # the env's process dies while its episode is mid-run
            proc.wait(5)
            killed.append(proc.pid)
        return "done"

    engine = Engine(echo_env, FakePolicy(respond, latency=0.02), num_envs=4)
    trajs = engine.run([EpisodeRequest(task_id=t) for t in TASKS])
    engine.close()
    assert killed
    by_task = {t.task_id: t for t in trajs}
    victim = by_task.pop("t3")
    assert victim.aborted and not victim.terminated
    assert victim.reason.startswith("env step failed")
    assert "Broken pipe" in victim.reason or "subprocess died" in victim.reason
    assert victim.turns == 3  # it got through two steps before the kill
    for task_id, t in by_task.items():
        assert t.terminated and not t.aborted and t.turns == turns_of(task_id), t.reason
        assert t.success
    assert engine.stats.env_replacements == 1 and engine.stats.aborted == 1


def test_hanging_and_crashing_envs(faulty_env: str) -> None:
    config = RolloutConfig(env_timeout_s=0.5)
    engine = Engine(faulty_env, FakePolicy(("done",)), num_envs=3, config=config)
    trajs = engine.run([EpisodeRequest(task_id=t) for t in TASKS])
    by_task = {t.task_id: t for t in trajs}
    assert by_task["t3"].aborted and by_task["t3"].reason == "env step timed out after 0.5s"
    assert by_task["t4"].aborted
    assert by_task["t4"].reason == "env step failed: RuntimeError: simulated env crash"
    others = [t for k, t in by_task.items() if k not in ("t3", "t4")]
    assert len(others) == 8 and all(t.terminated and t.success for t in others)
    assert engine.pool.stats.discarded == 2
    # broken workers were replaced by fresh envs; never more than 3 live at once
    stats = engine.pool.stats
    assert stats.created >= 4 and stats.created - stats.discarded <= 3



def test_eval_passes_its_env_timeout_to_the_episodes(counter_env: str, monkeypatch) -> None:
    """``agentgym eval --env-timeout``: the limit of one reset or step reaches the episodes (a
    reset that builds a task's Docker image needs minutes, not the default 60 s)."""
    import agentgym.rollout.evaluate as evaluate

    seen: list[float] = []
    real = evaluate.RolloutConfig

    def capture(*args: Any, **kwargs: Any) -> Any:
        config = real(*args, **kwargs)
        seen.append(config.env_timeout_s)
        return config

    monkeypatch.setattr(evaluate, "RolloutConfig", capture)
    results = evaluate.run_eval(evaluate.EvalConfig(counter_env, n=2, env_timeout_s=900.0),
                                policy=FakePolicy(("done",)))
    assert results["metrics"]["episodes"] == 2 and seen == [900.0]
    evaluate.run_eval(evaluate.EvalConfig(counter_env, n=2), policy=FakePolicy(("done",)))
    assert seen == [900.0, 60.0]
