"""The gateway's reward by replay: the model's recorded turns played again on a fresh env in the
trainer's process, through the one episode driver (:class:`~agentgym.rollout.episode.Episode`).

An external agent's process runs model-influenced code, so its own idea of the reward is never
taken (``reward: env``): the trainer makes the task's env, replays each model turn the gateway
recorded, in order, and keeps the env's return. The driver sums it (one place, as for every
episode), bounds each step, and tells an infrastructure failure of the replay (a dead env
server, a crashed browser) from the model's failure: such a replay returns its reason and the
episode is aborted, never scored 0. Turns left over after the env ends the episode are not
played; an env that has not ended when the turns run out keeps what it paid so far.
"""

from __future__ import annotations

import asyncio
from typing import Any

import agentgym
from agentgym.policies import ReplayPolicy
from agentgym.rollout import Episode, EpisodeRequest, LocalEnvWorker, RolloutConfig

REPLAY_LIMITS = RolloutConfig(max_tokens=1 << 30, env_timeout_s=600.0, policy_timeout_s=60.0,
                              episode_timeout_s=3600.0)
"""A replay's limits: no token cap (the turns were already generated within the agent's),
generous per-step and per-episode bounds."""


async def _replay(env_id: str, env_kwargs: dict[str, Any], task_id: str,
                  texts: list[str]) -> tuple[float, dict[str, Any], str]:
    policy = ReplayPolicy([{"task_id": task_id, "sample_idx": 0,
                            "messages": [{"role": "assistant", "content": t} for t in texts]}])
    episode = Episode(EpisodeRequest(task_id=task_id), policy, REPLAY_LIMITS, env_id=env_id)
    try:
        env = await asyncio.to_thread(agentgym.make, env_id, **env_kwargs)
    except Exception as e:  # the env cannot be made: the trainer's fault, not the model's
        return 0.0, {}, f"infrastructure: replay env creation failed: {type(e).__name__}: {e}"
    try:
        await episode.begin(LocalEnvWorker(env, env_id))
        for _ in texts:
            if episode.done:
                break
            gen = await episode.policy_turn()
            if gen is None:
                break
            await episode.env_turn(gen)
        episode.stop(f"the agent's {len(texts)} recorded turns ran out")
    finally:
        try:
            await env.aclose()
        except Exception:  # closing a broken env must not hide the episode's outcome
            pass
    traj = episode.result()
    return traj.reward, dict(traj.info), traj.reason if traj.aborted else ""


def replay_reward(env_id: str, env_kwargs: dict[str, Any], task_id: str,
                  texts: list[str]) -> tuple[float, dict[str, Any], str]:
    """``(reward, last info, abort reason)`` of replaying ``texts`` (the model's turns, in order)
    on task ``task_id`` of a fresh ``agentgym.make(env_id, **env_kwargs)``; the reason is empty
    unless the replay itself failed. Runs its own event loop (call it from a worker thread)."""
    return asyncio.run(_replay(env_id, env_kwargs, task_id, list(texts)))


__all__ = ["REPLAY_LIMITS", "replay_reward"]
