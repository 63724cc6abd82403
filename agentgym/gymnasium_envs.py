"""Importing this module registers every agentgym env (plugins included) with Gymnasium.

>>> import gymnasium
>>> env = gymnasium.make("agentgym.gymnasium_envs:sql/spider-lite-v0")   # doctest: +SKIP
>>> env.unwrapped.spec.id                                                 # doctest: +SKIP
'sql/spider-lite-v0'

``import agentgym`` alone stays light (no plugin is loaded at import); any agentgym call that
loads the specs (``agentgym.make``, ``agentgym.list_envs``) registers them with Gymnasium too.
"""

from __future__ import annotations

from .registry import register_gymnasium_envs

ENV_IDS: list[str] = register_gymnasium_envs()
"""Ids registered with Gymnasium by this import."""

__all__ = ["ENV_IDS"]
