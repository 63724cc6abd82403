"""WebArena-Verified-style tasks on the twin (``web/webarena-verified-twin-v0``), scored by the
``webarena-verified`` package in its worker.

Offline, every converted task's expert answer with the network log its checks describe scores
1.0 and its broken variants 0. In Chromium on the bundled sites, the scripted expert scores 1.0
(a sample of each task type in the default suite, every task under ``slow``); doing nothing, and
the right JSON without the navigation or the change, score 0.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest

from agentgym.envs.webarena.tasks import load_tasks
from agentgym.envs.webarena.verified_client import available, scorer
from agentgym.envs.webarena.verified_twin import (
    SPLITS,
    VerifiedTwinEnv,
    convert,
    converted,
    dataset_file,
)
from agentgym.envs.webarena.verified_twin_mutations import (
    intent_digest,
    network_checks,
    recorded,
)

pytestmark = pytest.mark.skipif(not available(), reason="make setup-webarena-verified not run")
ENVIRONMENTS = {s: f"http://127.0.0.1:{9100 + i}" for i, s in enumerate(
    ("shopping", "shopping_admin", "reddit", "gitlab", "map", "wikipedia"))}


def _records() -> list[dict[str, Any]]:
    return [r for split in SPLITS for r in converted()[0][split]]


def _score(record: dict[str, Any], answer: Any, har: list[dict[str, Any]]) -> float:
    reply = scorer().call({"op": "score", "task_id": record["task_id"], "response": answer,
                           "har": har, "environments": _envs(record),
                           "dataset": str(dataset_file())})
    assert reply["ok"], reply
    return float(reply["score"])


def _envs(record: dict[str, Any]) -> dict[str, str]:
    return {s: ENVIRONMENTS[s] for s in record["sites"]}


def _reference_har(record: dict[str, Any]) -> list[dict[str, Any]]:
    reply = scorer().call({"op": "reference", "task_id": record["task_id"],
                           "environments": _envs(record), "dataset": str(dataset_file())})
    assert reply["ok"], reply
    return reply["har"]


def _broken(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Variants of a right answer that must score 0."""
    wrong_type = "RETRIEVE" if answer["task_type"] != "RETRIEVE" else "NAVIGATE"
    out = {"task type": {**answer, "task_type": wrong_type},
           "status": {**answer, "status": "NOT_FOUND_ERROR"}}
    if answer["retrieved_data"] is not None:
        value = answer["retrieved_data"][0]
        out["padded"] = {**answer, "retrieved_data": [value, "and more"]}
        out["wrong value"] = {**answer, "retrieved_data": [value + " 7"]}
        out["mistyped"] = {**answer, "retrieved_data": {"value": value}}
    return out


def _wrong_form(record: dict[str, Any], har: list[dict[str, Any]]) -> list | None:
    """The log with a checked form field's value changed in its request, or None."""
    checked = {k for c in record["eval"][1:] for k in c["expected"].get("post_data", {})}
    for i, entry in enumerate(har):
        text = (entry["request"].get("postData") or {}).get("text") or ""
        form = dict(parse_qsl(text, keep_blank_values=True))
        key = next((k for k in form if k in checked), None)
        if key is not None:
            broken = copy.deepcopy(har)
            form[key] += " (changed)"
            broken[i]["request"]["postData"]["text"] = urlencode(form)
            broken[i]["request"]["postData"].pop("params", None)
            return broken
    return None


def test_the_split_counts_and_every_unconverted_task_has_a_reason() -> None:
    tasks, skipped = converted()
    twin = load_tasks()
    if "lite-test" not in twin.splits:
        pytest.skip("no lite splits (the [webarena] extra is not installed)")
    total = sum(len(twin.split(s)) for s in SPLITS.values())
    assert sum(len(v) for v in tasks.values()) + sum(skipped.values()) == total
    assert len(tasks["test"]) >= 60 and len(tasks["train"]) >= 200
    kinds = {r["eval"][0]["expected"]["task_type"] for r in _records()}
    assert kinds == {"retrieve", "navigate", "mutate"}
    assert convert({"eval": {"eval_types": ["program_html"]}, "task_id": "none"}, 0)[0] is None


def test_a_mutation_checks_the_fields_the_task_states() -> None:
    task_id, entry = next((k, v) for k, v in recorded().items()
                          if any("body" in r["form"] for r in v["requests"]))
    intent = next(t.data["config"]["intent"] for split in ("lite-test", "lite-train")
                  for t in load_tasks().split(split) if t.task_id == task_id)
    assert entry["intent_sha256"] == intent_digest(intent)  # a digest: no task text stored
    config = {"task_id": task_id, "intent": intent, "eval": {"program_html": []}}
    checks = network_checks(config)
    assert checks is not None
    fields = {k for c in checks for k in c["expected"].get("post_data", {})}
    stated = {k for r in entry["requests"] for k, v in r["form"].items()
              if v and v.lower() in intent.lower()}
    assert stated <= fields
    assert network_checks({**config, "intent": "changed"}) is None


def test_expert_answers_score_one_and_broken_ones_zero_offline() -> None:
    failures = []
    for record in _records():
        har = _reference_har(record)
        answer = json.loads(record["expert"][-1]["answer"])
        if _score(record, json.dumps(answer), har) != 1.0:
            failures.append(f"{record['task_id']}: expert")
        for name, variant in _broken(answer).items():
            if _score(record, json.dumps(variant), har) != 0.0:
                failures.append(f"{record['task_id']}: {name}")
        if _score(record, "", []) != 0.0:
            failures.append(f"{record['task_id']}: do-nothing")
        if answer["task_type"] != "RETRIEVE" and _score(record, json.dumps(answer), []) != 0.0:
            failures.append(f"{record['task_id']}: no request")
        wrong_form = _wrong_form(record, har)
        if wrong_form is not None and _score(record, json.dumps(answer), wrong_form) != 0.0:
            failures.append(f"{record['task_id']}: a checked form field wrong")
    assert failures == []


def test_the_worker_refuses_a_missing_task_file_and_the_file_is_written_again() -> None:
    reply = scorer().call({"op": "score", "task_id": 0, "response": "", "har": [],
                           "environments": {}, "dataset": "/nonexistent/tasks.json"})
    assert not reply["ok"] and "no task file" in reply["error"]
    dataset_file().unlink()
    record = _records()[0]
    assert _score(record, record["expert"][-1]["answer"], _reference_har(record)) == 1.0


async def _play(split: str, ids: list[str], mode: str) -> list[str]:
    """Task ids whose episode did not score as ``mode`` wants: ``expert`` 1.0; ``nothing``
    (stop at once, empty answer) and ``answer-only`` (the expert's JSON, no steps) 0."""
    env = VerifiedTwinEnv(split, prefetch=False)
    bad: list[str] = []
    try:
        for task_id in ids:
            obs, _ = await env.areset(options={"task_id": task_id})
            assert env.task is not None
            steps = env.expert_actions(env.task) or []
            if mode != "expert":
                expert = env.task.data["config"]["expert"]
                answer = "" if mode == "nothing" else expert[-1]["answer"]
                steps = [lambda _t, a=answer: f"stop [{a}]"]
            reward, info = 0.0, {}
            try:
                for step in steps:
                    obs, reward, terminated, _, info = await env.astep(step(obs["text"]))
                    if "error" in info or terminated:
                        break
            except LookupError as e:
                info = {"error": str(e)}
            if reward != (1.0 if mode == "expert" else 0.0):
                bad.append(f"{task_id}: reward {reward} {info.get('eval_notes', '')}"
                           f" {info.get('error', '')}")
    finally:
        await env.aclose()
    return bad


def _sample(split: str, kind: str, n: int) -> list[str]:
    ids = [str(r["task_id"]) for r in converted()[0][split]
           if r["eval"][0]["expected"]["task_type"] == kind]
    return ids[:: max(1, len(ids) // n)][:n]


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium", "site_server")
def test_expert_scores_one_and_doing_nothing_zero_in_chromium() -> None:
    ids = [*_sample("test", "navigate", 3), *_sample("test", "retrieve", 3),
           *_sample("test", "mutate", 3)]
    assert asyncio.run(_play("test", ids, "expert")) == []
    assert asyncio.run(_play("test", ids[:1] + ids[-1:], "nothing")) == []
    only = _sample("test", "navigate", 1) + _sample("test", "mutate", 2)
    assert asyncio.run(_play("test", only, "answer-only")) == []


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium", "site_server")
def test_check_env_on_the_registered_id() -> None:
    from agentgym.testing import check_registered_env

    check_registered_env("web/webarena-verified-twin-v0", n_malformed=50, prefetch=False)


SHARD = 60
"""Tasks per slow test (test has 99, train 334: 2 and 6 shards)."""


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium", "site_server")
@pytest.mark.parametrize(("split", "shard"), [("test", k) for k in range(2)]
                         + [("train", k) for k in range(6)])
def test_expert_scores_one_on_every_task_in_chromium(split: str, shard: int) -> None:
    ids = [str(r["task_id"]) for r in converted()[0][split]][shard * SHARD:(shard + 1) * SHARD]
    if not ids:
        pytest.skip(f"{split} has fewer than {shard * SHARD + 1} tasks")
    assert asyncio.run(_play(split, ids, "expert")) == []
