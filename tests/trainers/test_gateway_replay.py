"""The gateway's reward by replay runs through the episode driver: the env's return, turns that
run out, and an infrastructure failure of the replay told apart from the model's failure."""

from __future__ import annotations

import agentgym
from agentgym.errors import InfrastructureError
from agentgym.rollout import env_expert_actions
from agentgym.trainers.gateway_replay import replay_reward


def _expert_texts(task_id: str) -> list[str]:
    env = agentgym.make("sql")
    try:
        env.reset(options={"task_id": task_id})
        return [call.to_hermes() for call in env_expert_actions(env)]
    finally:
        env.close()


def _task() -> str:
    env = agentgym.make("sql")
    try:
        return str(env.unwrapped.task_set.ids()[4])
    finally:
        env.close()


def test_the_model_turns_replayed_earn_the_env_return() -> None:
    task = _task()
    texts = _expert_texts(task)
    reward, info, failed = replay_reward("sql", {}, task, texts)
    assert (reward, failed) == (1.0, "") and info.get("success") is True
    # the same turns with a wrong last answer earn nothing, and that is the model's failure
    wrong = [*texts[:-1], "I give up."]
    reward, _, failed = replay_reward("sql", {}, task, wrong)
    assert reward == 0.0 and failed == ""


def test_turns_that_run_out_keep_what_the_env_paid() -> None:
    task = _task()
    reward, _, failed = replay_reward("sql", {}, task, _expert_texts(task)[:1])
    assert reward == 0.0 and failed == ""


def test_a_replay_whose_env_dies_reports_an_infrastructure_failure(monkeypatch) -> None:
    task = _task()
    made = agentgym.make

    def dying(*args, **kwargs):
        env = made(*args, **kwargs)

        async def dead(action):
            raise InfrastructureError("the database server is gone")

        env.astep = dead
        return env

    monkeypatch.setattr(agentgym, "make", dying)
    reward, _, failed = replay_reward("sql", {}, task, _expert_texts(task))
    assert reward == 0.0 and "the database server is gone" in failed
    assert failed.startswith("infrastructure")
