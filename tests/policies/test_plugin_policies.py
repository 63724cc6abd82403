"""A third-party policy backend registered through ``agentgym_register_policies``."""

from __future__ import annotations

from typing import Any

import agentgym.policies as policies_pkg
import agentgym.rollout as rollout_pkg
from agentgym import hookimpl, register_plugin
from agentgym.policies import FakePolicy, load_policy
from agentgym.registrars import NamedRegistrar


class EchoPolicy(FakePolicy):
    """Answers with its argument."""

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> EchoPolicy:
        """``echo:TEXT``."""
        return cls((arg or "",), **options)


class EchoPlugin:
    """A plugin object registering one policy backend."""

    @hookimpl
    def agentgym_register_policies(self, register: NamedRegistrar) -> None:
        """Register ``echo``."""
        register("echo", EchoPolicy.from_spec, description="echoes its argument")


def test_plugin_policy_is_selectable_by_string(fresh_plugins: None) -> None:
    register_plugin(EchoPlugin(), name="echo-plugin")
    policy = load_policy("echo:bonjour?logprob=-1.0")
    assert isinstance(policy, EchoPolicy) and policy.responses == ("bonjour",)
    assert policy.generate([{"role": "user", "content": "x"}]).text == "bonjour"


def test_public_names_are_sorted_and_documented() -> None:
    for pkg in (policies_pkg, rollout_pkg):
        assert pkg.__all__ == sorted(pkg.__all__)
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            assert obj.__doc__ and obj.__doc__.strip(), f"{pkg.__name__}.{name}"
