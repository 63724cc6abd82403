"""Registers the ``remote:`` env-id resolver through the ``agentgym_register_resolvers`` hook.

A core plugin (:data:`agentgym.plugins.CORE_PLUGINS`): ``make("remote:http://host:port/ENV")``
reaches :class:`agentgym.serve.client.RemoteResolver` through the resolver registry, like a
third-party prefix would, so the registry never imports the serving code.
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..registrars import NamedRegistrar


@hookimpl
def agentgym_register_resolvers(register: NamedRegistrar) -> None:
    """Register ``remote``: an env served by ``agentgym serve --http``."""
    register("remote", "agentgym.serve.client:RemoteResolver",
             description="An env served by `agentgym serve --http` (remote:http://host:port/ENV).")
