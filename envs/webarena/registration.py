"""Registration of the WebArena envs, called from :mod:`agentgym.envs.plugin`."""

from __future__ import annotations

from agentgym.registrars import EnvRegistrar


def register_webarena(register: EnvRegistrar) -> None:
    """Register the WebArena envs.

    Strict scoring changed the reward (issue 35), so the ids that score strictly are new
    versions: ``web/webarena-lite-v1`` and ``web/webarena-v1`` (the aliases ``webarena-lite``
    and ``webarena`` name them); the ``-v0`` ids keep WebArena's own semantics, the reward the
    documented learning figures were measured with. ``web/webarena-verified-v0`` is scored by
    the webarena-verified package (its own semantics) and has no strict mode.
    """
    lite = ("Offline: stand-in tasks (165 test, 660 train) on six bundled sites. With WebArena "
            "servers (--sites, WA_*): WebArena-Lite's 165 official tasks, ids 0-164.")
    full = ("WebArena's 812 official tasks (ids 0-811) on your WebArena servers (--sites, "
            "WA_*); needs the webarena extra.")
    strict = (" Strict scoring (exact normalised URLs, bounded answers: for training; "
              "docs/webarena.md).")
    official = (" WebArena's own scoring semantics (substring URL match, unbounded "
                "must_include), for numbers comparable with published ones.")
    register(
        "web/webarena-lite-v1",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena-lite",),
        max_turns=15,
        kwargs={"eval_mode": "strict"},
        tasks="agentgym.envs.webarena.env:load_env_tasks",
        description=lite + strict,
    )
    register(
        "web/webarena-lite-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        max_turns=15,
        kwargs={"eval_mode": "official"},
        tasks="agentgym.envs.webarena.env:load_env_tasks",
        description=lite + official,
    )
    register(
        "web/webarena-v1",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        aliases=("webarena",),
        max_turns=30,
        kwargs={"task_set": "webarena", "eval_mode": "strict"},
        tasks="agentgym.envs.webarena.official:load_webarena",
        description=full + strict,
    )
    register(
        "web/webarena-v0",
        "agentgym.envs.webarena.env:WebArenaEnv",
        family="web",
        max_turns=30,
        kwargs={"task_set": "webarena", "eval_mode": "official"},
        tasks="agentgym.envs.webarena.official:load_webarena",
        description=full + official,
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
    register(
        "web/webarena-verified-twin-v0",
        "agentgym.envs.webarena.verified_twin:VerifiedTwinEnv",
        family="web",
        aliases=("webarena-verified-twin",),
        max_turns=15,
        tasks="agentgym.envs.webarena.verified_twin:load_verified_twin",
        description="Offline: the twin's ports converted to WebArena-Verified's format (JSON "
        "answers, network-event checks; splits test, train), scored by the webarena-verified "
        "package (make setup-webarena-verified).",
    )
