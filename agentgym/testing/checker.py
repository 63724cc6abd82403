"""``check_env``: API conformance, seeded determinism and robustness to malformed actions."""

from __future__ import annotations

import contextlib
from typing import Any, NoReturn

import gymnasium

from ..errors import AgentGymError, ForkError
from ..multiagent import MultiAgentEnv
from ..registry import make
from ..tools import ToolSet
from .fork_check import check_fork
from .malformed import malformed_actions


class EnvCheckError(AgentGymError):
    """An environment broke the agentgym env contract."""


def _fail(msg: str) -> NoReturn:
    raise EnvCheckError(msg)


def _check_obs(env: Any, obs: Any, where: str) -> None:
    if not isinstance(obs, dict) or not isinstance(obs.get("text"), str):
        _fail(f"{where}: observation must be a dict with a str 'text', got {type(obs).__name__}")
    if not env.observation_space.contains(obs):
        _fail(f"{where}: observation {str(obs)[:200]!r} is not in the observation space")


def _check_step_result(env: Any, result: Any, where: str) -> tuple[bool, bool]:
    if not isinstance(result, tuple) or len(result) != 5:
        _fail(f"{where}: step must return a 5-tuple (obs, reward, terminated, truncated, info)")
    obs, reward, terminated, truncated, info = result
    _check_obs(env, obs, where)
    if not isinstance(reward, int | float) or isinstance(reward, bool):
        _fail(f"{where}: reward must be a float, got {type(reward).__name__}")
    if not isinstance(terminated, bool) or not isinstance(truncated, bool):
        _fail(f"{where}: terminated and truncated must be bools")
    if not isinstance(info, dict):
        _fail(f"{where}: info must be a dict")
    return terminated, truncated


def check_env(env: gymnasium.Env, *, seed: int = 0, n_malformed: int = 200,
              fork: bool = True) -> None:
    """Check ``env`` against the agentgym contract; raise :class:`EnvCheckError` on a breach.

    Checks: the API shape (spaces, reset/step types, tools and instructions), that the same seed
    gives the same first observation, that a random action and ``n_malformed`` malformed actions
    all return observations instead of raising, and that ``reset`` works after every episode end.
    A :class:`~agentgym.MultiAgentEnv` gets :func:`check_multiagent_env` instead. With
    ``fork`` (an env made by :func:`agentgym.make`), the fork contract too
    (:func:`agentgym.testing.fork_check.check_fork`).
    """
    base = env.unwrapped
    if isinstance(base, MultiAgentEnv):
        check_multiagent_env(base, seed=seed, n_malformed=n_malformed)
        return
    if not isinstance(base.observation_space, gymnasium.spaces.Space):
        _fail("observation_space is not a gymnasium Space")
    if not isinstance(base.action_space, gymnasium.spaces.Space):
        _fail("action_space is not a gymnasium Space")
    tools = getattr(base, "tools", None)
    if not isinstance(tools, ToolSet):
        _fail("env.tools must be an agentgym.ToolSet")
    toolset: ToolSet = tools
    if not isinstance(getattr(base, "instructions", None), str):
        _fail("env.instructions must be a str")
    for t in toolset:
        schema = t.to_openai()
        if schema["function"]["parameters"].get("type") != "object":
            _fail(f"tool {t.name!r} parameters schema is not an object")

    obs1, info1 = env.reset(seed=seed)
    _check_obs(env, obs1, "reset")
    if not isinstance(info1, dict):
        _fail("reset: info must be a dict")
    obs2, _ = env.reset(seed=seed)
    if obs1["text"] != obs2["text"]:
        _fail("reset(seed=s) twice gave different observations: the env is not deterministic")

    result = env.step(env.action_space.sample())
    _check_step_result(env, result, "step(random action)")
    if fork:
        try:
            check_fork(env, "a first action", seed=seed)
        except (AssertionError, ForkError) as e:
            _fail(f"fork contract: {e}")

    env.reset(seed=seed + 1)
    names = toolset.names()
    for i, action in enumerate(malformed_actions(n_malformed, seed=seed, tool_names=names)):
        try:
            result = env.step(action)
        except Exception as e:
            _fail(f"step raised {type(e).__name__} on malformed action #{i} {str(action)[:120]!r}")
        terminated, truncated = _check_step_result(env, result, f"malformed action #{i}")
        if terminated or truncated:
            env.reset(seed=seed + 2 + i)
    with contextlib.suppress(Exception):
        env.close()


def check_multiagent_env(env: MultiAgentEnv, *, seed: int = 0, n_malformed: int = 200) -> None:
    """Check a multi-agent env: PettingZoo's own ``api_test``, every agent's instructions and
    tools, seeded determinism, and ``n_malformed`` malformed actions from whichever agent is
    selected (each must be answered with an observation, never an exception)."""
    import warnings

    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # text observations are not numpy arrays
        try:
            api_test(env, num_cycles=20)
        except Exception as e:
            _fail(f"PettingZoo api_test failed: {type(e).__name__}: {e}")
    for agent in env.possible_agents:
        if not isinstance(env.instructions_for(agent), str):
            _fail(f"instructions_for({agent!r}) must be a str")
        if not isinstance(env.tools_for(agent), ToolSet):
            _fail(f"tools_for({agent!r}) must be an agentgym.ToolSet")
    env.reset(seed=seed)
    first = {a: env.observe(a)["text"] for a in env.agents}
    env.reset(seed=seed)
    if first != {a: env.observe(a)["text"] for a in env.agents}:
        _fail("reset(seed=s) twice gave different observations: the env is not deterministic")
    env.reset(seed=seed + 1)
    for i, action in enumerate(malformed_actions(n_malformed, seed=seed, tool_names=[])):
        agent = env.agent_selection
        try:
            env.step(None if env.terminations[agent] or env.truncations[agent] else action)
            obs = env.observe(agent)
            if not isinstance(obs, dict) or not env.observation_space(agent).contains(obs):
                _fail(f"malformed action #{i}: {agent}'s observation is not in its space")
        except EnvCheckError:
            raise
        except Exception as e:
            _fail(f"step raised {type(e).__name__} on malformed action #{i} {str(action)[:120]!r}")
        if not env.agents or env.done:
            env.reset(seed=seed + 2 + i)
    with contextlib.suppress(Exception):
        env.close()


def check_registered_env(env_id: str, *, n_malformed: int = 200, **make_kwargs: Any) -> None:
    """``make`` the env registered as ``env_id`` and run :func:`check_env` on it."""
    env = make(env_id, **make_kwargs)
    try:
        check_env(env, n_malformed=n_malformed)
    finally:
        with contextlib.suppress(Exception):
            env.close()
