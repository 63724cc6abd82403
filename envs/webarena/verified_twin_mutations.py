"""The requests that make the twin's changes, recorded once, for MUTATE tasks in WebArena-Verified's
format (:mod:`.verified_twin`).

A twin task that changes something is checked on the page afterwards (``program_html``); the
request that makes the change is not in the task. This module plays each such task's scripted
expert in Chromium on the bundled sites and keeps the requests that change state (every method
but GET, logins aside) from the episode's network log, when the expert's episode scores 1.0:
``python -m agentgym.envs.webarena.verified_twin_mutations`` rewrites :data:`RECORDED`.

A recorded request becomes a ``NetworkEventEvaluator`` check: its URL (site placeholder for the
base), method, response status and the form fields whose value the task states (the value is in
the intent or in the page check's expected text); other fields (a body the task leaves open) are
not checked. A task whose intent changed since the recording is not converted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .official_verified import norm

RECORDED = Path(__file__).parent / "data" / "verified_twin_mutations.json"
"""Twin task id -> ``{"intent_sha256", "requests": [{"method", "url", "form", "status"}]}`` (a
digest of the intent, not its text: the repository holds no official task text)."""
SKIPPED_PATHS = ("/login", "/logout")


@cache
def recorded() -> dict[str, Any]:
    """The recorded requests (empty when the file is missing)."""
    if not RECORDED.exists():
        return {}
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def intent_digest(intent: str) -> str:
    """What the recording keeps of a task's intent: enough to see that it changed."""
    return hashlib.sha256(intent.encode("utf-8")).hexdigest()[:16]


def _stated(value: str, config: dict[str, Any]) -> bool:
    texts = [config.get("intent", "")]
    for check in (config.get("eval") or {}).get("program_html") or []:
        contents = check.get("required_contents") or {}
        for v in contents.values():
            texts += v if isinstance(v, list) else [v]
    want = norm(value)
    return bool(want) and any(want in norm(t) for t in texts)


def network_checks(config: dict[str, Any]) -> list[dict[str, Any]] | None:
    """``NetworkEventEvaluator`` checks for a twin task from its recorded requests, or None."""
    entry = recorded().get(str(config.get("task_id")))
    if (not entry or entry.get("intent_sha256") != intent_digest(str(config.get("intent", "")))
            or not entry.get("requests")):
        return None
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for req in entry["requests"]:  # the package compares only the last request to a URL
        last[(req["method"], req["url"])] = req
    checks = []
    for (method, url), req in last.items():
        expected: dict[str, Any] = {"url": url, "http_method": method,
                                    "response_status": req["status"]}
        form = {k: v for k, v in req.get("form", {}).items() if _stated(v, config)}
        if form:
            expected["post_data"] = form
        checks.append({"evaluator": "NetworkEventEvaluator", "expected": expected})
    return checks


def _requests(log: list[dict[str, Any]], site_urls: dict[str, str]) -> list[dict[str, Any]]:
    bases = {url.rstrip("/"): f"__{site.upper()}__" for site, url in site_urls.items()}
    out = []
    for entry in log:
        req = entry["request"]
        url = req["url"]
        base = next((b for b in bases if url.startswith(b + "/")), None)
        if req["method"] == "GET" or base is None or urlsplit(url).path in SKIPPED_PATHS:
            continue
        text = (req.get("postData") or {}).get("text") or ""
        out.append({"method": req["method"], "url": bases[base] + url[len(base):],
                    "form": dict(parse_qsl(text, keep_blank_values=True)),
                    "status": entry["response"]["status"]})
    return out


async def record(splits: tuple[str, ...] = ("lite-test", "lite-train")) -> dict[str, Any]:
    """Play every ``program_html`` task's expert and keep its state-changing requests."""
    from .env import WebArenaEnv
    from .tasks import load_tasks

    out: dict[str, Any] = {}
    for split in splits:
        env = WebArenaEnv(split, prefetch=False)
        try:
            for task in load_tasks().split(split):
                if "program_html" not in task.data["config"]["eval"]["eval_types"]:
                    continue
                obs, _ = await env.areset(options={"task_id": task.task_id})
                reward, info = 0.0, {}
                for step in env.expert_actions(task) or []:
                    obs, reward, terminated, _, info = await env.astep(step(obs["text"]))
                    if terminated or "error" in info:
                        break
                requests = _requests(info.get("network_log") or [], env.site_urls)
                if reward == 1.0 and requests:
                    out[task.task_id] = {
                        "intent_sha256": intent_digest(task.data["config"]["intent"]),
                        "requests": requests}
        finally:
            await env.aclose()
    return out


if __name__ == "__main__":
    found = asyncio.run(record(tuple(sys.argv[1:]) or ("lite-test", "lite-train")))
    RECORDED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
