"""Registration of the WebArena envs, called from :mod:`agentgym.envs.plugin`."""

from __future__ import annotations

from agentgym.registrars import EnvRegistrar


def register_webarena(register: EnvRegistrar) -> None:
    """Register ``web/webarena-lite-v0``, ``web/webarena-v0`` and ``web/webarena-verified-v0``."""
    register(
        "web/webarena-lite-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena-lite",),
        max_turns=15,
        tasks="agentgym.envs.webarena.env:load_env_tasks",
        description="Offline: stand-in tasks (165 test, 660 train) on six bundled sites. With "
        "WebArena servers (--sites, WA_*): WebArena-Lite's 165 official tasks, ids 0-164.",
    )
    register(
        "web/webarena-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena",),
        max_turns=30,
        kwargs={"task_set": "webarena"},
        tasks="agentgym.envs.webarena.official:load_webarena",
        description="WebArena's 812 official tasks (ids 0-811) on your WebArena servers "
        "(--sites, WA_*); needs the webarena extra.",
    )
    register(
        "web/webarena-verified-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena-verified",),
        max_turns=30,
        kwargs={"task_set": "webarena-verified"},
        tasks="agentgym.envs.webarena.official:load_verified",
        description="WebArena-Verified's 812 tasks (ids 0-811; splits hard, non-hard; test = "
        "both) on your WebArena servers; needs the webarena extra.",
    )
