"""Every registered env, plugin envs included, passes check_env and survives malformed input."""

import pytest

import agentgym
from agentgym.multiagent import MultiAgentEnv
from agentgym.testing import PROBE_KINDS, check_registered_env, check_rewards, malformed_actions

ENV_IDS = agentgym.list_envs()
HEAVY_FAMILIES = {"web", "gui", "terminal"}
"""Families that start a browser or a desktop per instance (seconds per reset), or run a fresh
sandbox per shell command (the terminal family)."""
REPRESENTATIVES = {"miniwob": "miniwob/click-button-v0", "terminal": "terminal/easy-test-v0"}
"""The id that stands for a heavy namespace in the default suite (else its first id)."""
COSTLY_FAMILIES = HEAVY_FAMILIES | {"code"}
"""Families whose episodes cost a sandbox run, a browser or a desktop. In the default suite the
reward probe runs the code family's code probes (always-equal, exit, forged reports, faults) on
one seed; web, GUI and terminal envs take minutes per probe run (a browser or desktop step, or
a fresh sandbox per shell command, per probe episode), so their probe runs are slow tests
(tests/envs/terminal probes the easy split with the family's own probes in the default suite).
The slow test runs every probe on three seeds."""
CODE_PROBES = {"always_equal", "exit", "forged", "fault"}


def _cases(heavy_all_slow: bool = False) -> list:
    """Every env id; a heavy namespace's ids other than its representative are marked slow.

    The families' own suites step their envs 1,000 times cheaply (without resets that relaunch
    a browser or a desktop); here the default run checks one env per heavy namespace.
    """
    cases, seen = [], set()
    for env_id in ENV_IDS:
        namespace = env_id.split("/")[0]
        heavy = agentgym.spec(env_id).family in HEAVY_FAMILIES
        if namespace in REPRESENTATIVES:
            chosen = env_id == REPRESENTATIVES[namespace]
        else:
            chosen = namespace not in seen
        seen.add(namespace)
        slow = heavy and (heavy_all_slow or not chosen)
        cases.append(pytest.param(env_id, marks=pytest.mark.slow) if slow else env_id)
    return cases


def _make_or_skip(env_id, single_agent=False):
    try:
        env = agentgym.make(env_id)
    except agentgym.MissingExtra as e:
        pytest.skip(f"{env_id}: {e}")
    if single_agent and isinstance(env.unwrapped, MultiAgentEnv):
        env.close()
        pytest.skip(f"{env_id} is multi-agent: check_env runs check_multiagent_env on it "
                    "(PettingZoo's api_test, determinism and malformed actions per agent)")
    return env


@pytest.mark.parametrize("env_id", _cases())
def test_check_env(env_id):
    env = _make_or_skip(env_id)
    env.close()
    check_registered_env(env_id, n_malformed=100)


@pytest.mark.parametrize("env_id", _cases(heavy_all_slow=True))
def test_thousand_malformed_actions_never_escape_step(env_id):
    env = _make_or_skip(env_id, single_agent=True)
    env.reset(seed=0)
    errors = 0
    names = env.unwrapped.tools.names()
    for i, action in enumerate(malformed_actions(1000, seed=7, tool_names=names)):
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs["text"], str) and obs["text"]
        errors += "error" in info
        if terminated or truncated:
            env.reset(seed=i)
    env.close()
    assert errors > 500, "malformed actions should mostly be reported as errors in info"


@pytest.mark.parametrize("env_id", _cases())
def test_seeded_rollout_is_deterministic(env_id):
    def run():
        env = _make_or_skip(env_id, single_agent=True)
        obs, info = env.reset(seed=123)
        texts = [obs["text"], info.get("task_id")]
        for action in ["hello", '<tool_call>{"name": "nothing", "arguments": {}}</tool_call>']:
            obs, reward, terminated, truncated, _ = env.step(action)
            texts += [obs["text"], reward]
            if terminated or truncated:
                break
        env.close()
        return texts

    assert run() == run()


def _reward_cases(costly_only: bool = False) -> list:
    """Every env id, but one per heavy namespace (its MiniWoB ids share one env class and
    scorer; a probe run takes minutes); those are slow (see ``COSTLY_FAMILIES``)."""
    cases = []
    for case in _cases(heavy_all_slow=True):
        env_id = case if isinstance(case, str) else case.values[0]
        family = agentgym.spec(env_id).family
        if costly_only and family not in COSTLY_FAMILIES:
            continue
        if family in HEAVY_FAMILIES and not _is_representative(env_id):
            continue
        cases.append(case)
    return cases


def _is_representative(env_id: str) -> bool:
    namespace = env_id.split("/")[0]
    if namespace in REPRESENTATIVES:
        return env_id == REPRESENTATIVES[namespace]
    return env_id == next(e for e in ENV_IDS if e.split("/")[0] == namespace)


@pytest.mark.parametrize("env_id", _reward_cases())
def test_check_rewards(env_id):
    """No degenerate or adversarial policy earns more than doing nothing (issue 24); a
    multi-agent id is probed seat by seat (its cheap probes here, every class in the slow
    tests)."""
    env = _make_or_skip(env_id)
    costly = agentgym.spec(env_id).family in COSTLY_FAMILIES
    if isinstance(env.unwrapped, MultiAgentEnv):
        try:
            result = check_rewards(env, cheap=True, skip={"rare": "the slow test runs it"})
        finally:
            env.close()
        result.raise_for_failures()
        return
    skip: dict[str, str] = {"rare": "default suite: the slow test runs this class over "
                                    "160 seeds (test_check_rewards_rare)"}
    if costly:
        skip = {k: "default suite: the slow test runs this class" for k in PROBE_KINDS
                if k not in CODE_PROBES}
    try:
        result = check_rewards(env, seeds=1 if costly else 3, cheap=costly, skip=skip)
    finally:
        env.close()
    result.raise_for_failures()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [*_reward_cases(costly_only=True), *(
    e for e in ("games/tictactoe-v0", "games/kuhn-poker-v0", "sql/team-v0") if e in ENV_IDS)])
def test_check_rewards_every_probe(env_id):
    """The full probe set on three seeds for the families the default run probes cheaply."""
    env = _make_or_skip(env_id)
    try:
        result = check_rewards(env)
    finally:
        env.close()
    result.raise_for_failures()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", _reward_cases())
def test_check_rewards_rare(env_id):
    """The rare class (a payoff on one task in 40) over its 160 seeds, on every env."""
    env = _make_or_skip(env_id)
    try:
        result = check_rewards(env, skip={k: "this test runs the rare class alone"
                                          for k in PROBE_KINDS if k != "rare"})
    finally:
        env.close()
    result.raise_for_failures()


def test_example_plugin_is_found_through_its_entry_point():
    spec = agentgym.spec("guess-number")
    assert spec.plugin == "textgames"
    assert {"textgames/guess-number-v0", "textgames/wordle-v0"} <= set(ENV_IDS)
