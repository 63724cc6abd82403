"""Plugins: entry-point discovery, broken plugins, block/allow lists, runtime registration."""

import logging
import textwrap

import pytest

import agentgym
from agentgym import PluginWarning, hookimpl
from agentgym.env import AgentEnv, make_observation
from agentgym.plugins import plugin_state


def _install_fake_dist(root, dist, entries, modules):
    """Write a minimal installed distribution (dist-info + modules) into ``root``."""
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "\n".join(f"{name} = {target}" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[agentgym]\n{lines}\n")
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


GOOD = """
    from agentgym import hookimpl
    from agentgym.env import AgentEnv, make_observation

    class Hello(AgentEnv):
        '''Says hello.'''
        def _reset(self, options):
            return make_observation("hello"), {}
        def _step(self, action):
            return make_observation("bye"), 1.0, True, False, {}

    @hookimpl
    def agentgym_register_envs(register):
        register("fake/hello-v0", Hello, family="test")

    @hookimpl
    def agentgym_register_rewards(register):
        register("fake.one", lambda *a: 1.0, description="always one")
"""


@pytest.fixture
def fake_plugins(tmp_path, monkeypatch, fresh_plugins):
    monkeypatch.delenv("AGENTGYM_LOAD_PLUGINS", raising=False)  # the suite's own list (conftest)
    _install_fake_dist(
        tmp_path,
        "fake_plugins",
        {"good": "good_plugin", "broken": "broken_plugin", "badhook": "badhook_plugin"},
        {
            "good_plugin": GOOD,
            "broken_plugin": "raise RuntimeError('this plugin is broken at import')\n",
            "badhook_plugin": """
                from agentgym import hookimpl

                @hookimpl
                def agentgym_register_envs(register):
                    raise ValueError('hook exploded')
            """,
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_broken_plugin_warns_and_others_work(fake_plugins):
    with pytest.warns(PluginWarning) as record:
        envs = agentgym.list_envs()
    messages = [str(w.message) for w in record]
    assert any("'broken' skipped: RuntimeError: this plugin is broken" in m for m in messages)
    assert any("'badhook' skipped: hook agentgym_register_envs raised" in m for m in messages)
    assert "fake/hello-v0" in envs
    env = agentgym.make("fake/hello-v0")
    assert env.reset()[0]["text"] == "hello"
    assert plugin_state().failures.keys() == {"broken", "badhook"}
    assert agentgym.get_registry("rewards").get("fake.one").plugin == "good"


def test_block_and_allow_lists(fake_plugins, monkeypatch):
    monkeypatch.setenv("AGENTGYM_BLOCK_PLUGINS", "broken,badhook,good")
    assert "fake/hello-v0" not in agentgym.list_envs()
    assert not plugin_state().failures
    agentgym.plugins.reset_plugins()
    monkeypatch.delenv("AGENTGYM_BLOCK_PLUGINS")
    monkeypatch.setenv("AGENTGYM_LOAD_PLUGINS", "good")
    assert [s.id for s in agentgym.all_specs() if s.plugin] == ["fake/hello-v0"]


def test_trace_plugins_logs_hook_calls(fake_plugins, monkeypatch, caplog):
    monkeypatch.setenv("AGENTGYM_TRACE_PLUGINS", "1")
    monkeypatch.setenv("AGENTGYM_LOAD_PLUGINS", "good")
    with caplog.at_level(logging.DEBUG, logger="agentgym.plugins"):
        plugin_state()
        from agentgym.plugins import get_plugin_manager

        get_plugin_manager().hook.agentgym_episode_end(
            env_id="x", task_id=None, reward=1.0, info={}
        )
    assert "agentgym_episode_end" in caplog.text


def test_runtime_plugin_object_registers_and_shapes_reward(fresh_plugins):
    from textwrap import dedent  # noqa: F401  (keeps the fixture import order explicit)

    class Shaper:
        @hookimpl
        def agentgym_episode_end(self, env_id, task_id, reward, info):
            return reward * 0.5

        @hookimpl
        def agentgym_register_tools(self, register):
            register("echo", lambda text: text, description="echo back")

    agentgym.register_plugin(Shaper(), name="shaper")
    assert "echo" in agentgym.get_registry("tools")
    env = agentgym.make("guess-number")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    result = env.step(f'<tool_call>{{"name": "guess", "arguments": {{"number": {target}}}}}')
    assert result[1] == 0.5 and result[2] is True


def test_an_episode_end_hook_that_raises_fails_the_episode_closed(fresh_plugins):
    class Broken:
        @hookimpl
        def agentgym_episode_end(self, env_id, task_id, reward, info):
            raise RuntimeError("scorer down")

    agentgym.register_plugin(Broken(), name="broken-shaper")
    env = agentgym.make("guess-number")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    _, reward, terminated, _, info = env.step(
        f'<tool_call>{{"name": "guess", "arguments": {{"number": {target}}}}}')
    assert terminated and reward == 0.0 and info["success"] is False  # never the env's 1.0
    assert "scorer down" in info["reward_fn_error"]


def test_plugin_manager_is_not_built_at_import():
    import subprocess
    import sys

    code = "import agentgym, agentgym.plugins as p; print(p._state is None)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_every_registration_hook_fills_its_registry(fresh_plugins):
    from types import ModuleType

    from agentgym.plugins import REGISTRY_KINDS

    hooks = {}
    for kind in REGISTRY_KINDS:
        def impl(register, kind=kind):
            register(f"probe-{kind}", f"probe.module:{kind}", description=kind)

        hooks[f"agentgym_register_{kind}"] = hookimpl(impl)
    probe = ModuleType("probe")
    probe.__dict__.update(hooks)
    agentgym.register_plugin(probe, name="probe")
    names = ["agentgym_register_tools", "agentgym_register_sandboxes",
             "agentgym_register_policies", "agentgym_register_rewards",
             "agentgym_register_trainers", "agentgym_register_losses",
             "agentgym_register_resolvers", "agentgym_register_services"]
    assert sorted(names) == sorted(hooks)
    for kind in REGISTRY_KINDS:
        entry = agentgym.get_registry(kind).get(f"probe-{kind}")
        assert (entry.plugin, entry.description, entry.target) == ("probe", kind,
                                                                   f"probe.module:{kind}")


def test_named_rewards_and_tools_from_the_registries_reach_make(fresh_plugins):
    seen = []

    def word_count(text: str) -> str:
        """Count the words of a text.

        Args:
            text: Any text.
        """
        return str(len(text.split()))

    def exact_target(task, answer, info):
        seen.append((task.task_id, answer, info["success"]))
        return 2.0 if info["success"] else -1.0

    def broken(task, answer, info):
        raise KeyError("no such field")

    class Named:
        @hookimpl
        def agentgym_register_tools(self, register):
            register("word_count", word_count)

        @hookimpl
        def agentgym_register_rewards(self, register):
            register("exact_target", exact_target)
            register("broken", broken)

    agentgym.register_plugin(Named(), name="named")
    env = agentgym.make("guess-number", extra_tools=["word_count"], reward_fn="exact_target")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    assert "word_count" in env.unwrapped.tools.names()
    obs, reward, *_ = env.step('<tool_call>{"name": "word_count", "arguments": {"text": "a b c"}}')
    assert obs["text"] == "3" and reward == 0.0  # an ordinary step: no final reward to replace
    result = env.step(f'<tool_call>{{"name": "guess", "arguments": {{"number": {target}}}}}')
    assert result[1] == 2.0 and result[2] is True
    assert seen == [(env.unwrapped.task.task_id, None, True)]
    env = agentgym.make("guess-number", reward_fn="broken")  # a failing function fails closed
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    result = env.step(f'<tool_call>{{"name": "guess", "arguments": {{"number": {target}}}}}')
    assert result[1] == 0.0 and "KeyError" in result[4]["reward_fn_error"]  # not the env's 1.0
    assert result[4]["success"] is False
    agentgym.register("testplug/plain-v0", PlainEnv)
    with pytest.raises(agentgym.ConfigError, match="no tool set"):
        agentgym.make("testplug/plain-v0", extra_tools=["word_count"])
    with pytest.raises(agentgym.NameNotFound, match="no reward named 'nope'"):
        agentgym.make("guess-number", reward_fn="nope")


class PlainEnv(AgentEnv):
    """An env without tools."""

    def _reset(self, options):
        return make_observation("hi"), {}

    def _step(self, action):
        return make_observation("bye"), 1.0, True, False, {}


BROKEN_THIRD_PARTY = "raise RuntimeError('a third-party plugin broken at import')\n"


def test_a_broken_third_party_plugin_does_not_break_our_suite(tmp_path):
    """Item 11 of issue 25: the suite turns PluginWarning into an error, so it must not load
    plugins it did not install. A broken plugin on sys.path (a dist-info of its own) breaks a
    plain ``list_envs`` under that filter, and leaves the project's own tests green."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    _install_fake_dist(tmp_path, "someone_elses_plugin", {"someone-else": "broken_3p"},
                       {"broken_3p": BROKEN_THIRD_PARTY})
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTGYM_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    root = Path(__file__).resolve().parents[1]
    control = subprocess.run(
        [sys.executable, "-c", "import warnings, agentgym\n"
         "warnings.simplefilter('error', agentgym.PluginWarning)\nagentgym.list_envs()"],
        capture_output=True, text=True, env=env, cwd=root, timeout=300)
    assert control.returncode != 0  # the plugin is found, and it is broken
    assert "'someone-else' skipped: RuntimeError: a third-party plugin broken" in control.stderr
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_registry.py::test_make_by_id_alias_and_unversioned",
         "tests/test_plugins.py::test_plugin_manager_is_not_built_at_import"],
        capture_output=True, text=True, env=env, cwd=root, timeout=300)
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-3000:]
    assert "2 passed" in suite.stdout
