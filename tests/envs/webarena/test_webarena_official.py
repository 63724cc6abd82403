"""Real-WebArena mode: an official-format task file, site URLs and storage states from a config.

The bundled sites stand in for the real servers: the test writes a slice of tasks in the exact
format of VisualAgentBench's ``test_webarena_lite.raw.json`` (official keys only, ``old_task_id``
included, ``__SHOPPING__``-style placeholders), a storage state per site with a login cookie (as
WebArena's ``auto_login.py`` writes them), and a YAML config naming both; the env runs in its
external mode (no per-episode site session) and scores with the same evaluators.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from agentgym.envs.webarena.env import ACCOUNTS, WebArenaEnv
from agentgym.envs.webarena.expert import ExpertStep
from agentgym.envs.webarena.sites.server import SiteServer
from agentgym.envs.webarena.tasks import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium")]
OFFICIAL_KEYS = ("sites", "task_id", "require_login", "storage_state", "start_url",
                 "geolocation", "intent_template", "instantiation_dict", "intent",
                 "require_reset", "eval", "intent_template_id", "old_task_id")
SLICE_TEMPLATES = (101, 201, 405, 506)  # string, string + login, url, url on the forum


def official_slice() -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Official-format records (no extra keys) and, aside, the bundled experts by intent."""
    records, experts = [], {}
    for tid in SLICE_TEMPLATES:
        config = next(t.data["config"] for t in load_tasks().split("test")
                      if t.data["config"]["intent_template_id"] == tid)
        rec = {k: config.get(k) for k in OFFICIAL_KEYS if k != "old_task_id"}
        rec["old_task_id"] = 500 + len(records)
        rec["task_id"] = len(records)
        records.append({k: rec[k] for k in OFFICIAL_KEYS})
        experts[rec["intent"]] = config["expert"]
    return records, experts


def storage_state(base: str, site: str) -> dict[str, Any]:
    """A Playwright storage state holding the site's login cookie."""
    user, password = ACCOUNTS[site]
    resp = httpx.post(f"{base}/login", data={"username": user, "password": password})
    assert resp.status_code == 303
    return {"cookies": [{"name": f"wa_login_{site}", "value": resp.cookies[f"wa_login_{site}"],
                         "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": True,
                         "secure": False, "sameSite": "Lax"}], "origins": []}


def test_official_task_file_runs_against_servers_from_a_config(
        site_server: SiteServer, tmp_path: Path) -> None:
    records, experts = official_slice()
    (tmp_path / "test_webarena_lite.raw.json").write_text(json.dumps(records))
    states = {}
    for site in ("shopping_admin", "reddit"):
        path = tmp_path / f"{site}_state.json"
        path.write_text(json.dumps(storage_state(site_server.url(site), site)))
        states[site] = str(path)
    (tmp_path / "webarena.yaml").write_text(yaml.safe_dump({
        "task_file": "test_webarena_lite.raw.json", "sites": dict(site_server.urls),
        "storage_states": states}))

    async def main() -> list[float]:
        env = WebArenaEnv("test", config=tmp_path / "webarena.yaml", prefetch=False)
        rewards = []
        try:
            assert env.external and len(env.task_set) == len(SLICE_TEMPLATES)
            for task in env.task_set:
                obs, _ = await env.areset(options={"task_id": task.task_id})
                assert env.session_id == ""  # external servers: no bundled site session
                reward = 0.0
                for raw in experts[task.prompt]:
                    step = ExpertStep.from_json(raw, env.placeholders())
                    obs, reward, done, _, info = await env.astep(step(obs["text"]))
                    assert "error" not in info, info
                    if done:
                        break
                rewards.append(reward)
            await env.areset(options={"task_id": "0"})
            _, reward, _, _, _ = await env.astep("stop [no idea]")
            rewards.append(reward)
        finally:
            await env.aclose()
        return rewards

    assert asyncio.run(main()) == [1.0] * len(SLICE_TEMPLATES) + [0.0]
