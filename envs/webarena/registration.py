"""Registration of the WebArena-Lite env, called from :mod:`agentgym.envs.plugin`."""

from __future__ import annotations

from agentgym.registrars import EnvRegistrar


def register_webarena(register: EnvRegistrar) -> None:
    """Register ``web/webarena-lite-v0`` (alias ``webarena-lite``)."""
    register(
        "web/webarena-lite-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena-lite",),
        max_turns=15,
        tasks="agentgym.envs.webarena.env:load_env_tasks",
        description="WebArena-Lite (165 test, 660 train tasks) on six bundled sites, or on real "
        "WebArena servers; WebArena's evaluators.",
    )
