"""The twin's instantiations of the official WebArena-Lite templates: coverage, clean splits,
official wording read at run time (never stored in the repository), gold from the site data."""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import pytest

from agentgym.envs.webarena.tasks import load_tasks

try:
    metadata.distribution("browsergym-webarenalite")
except metadata.PackageNotFoundError:
    pytest.skip("browsergym-webarenalite (the [webarena] extra) is not installed",
                allow_module_level=True)

from agentgym.envs.webarena.twin_official import (  # noqa: E402
    coverage,
    coverage_markdown,
    lite_records,
    official_templates,
    render,
)
from agentgym.envs.webarena.twin_ports import PORTS, UNCOVERED  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def test_every_official_template_is_ported_or_has_a_reason() -> None:
    official = set(official_templates())
    assert len(official) == 165
    assert set(PORTS) | set(UNCOVERED) == official
    assert not set(PORTS) & set(UNCOVERED)
    assert all(len(reason) > 20 for reason in UNCOVERED.values())


def test_docs_hold_the_computed_coverage_table() -> None:
    docs = (ROOT / "docs" / "webarena.md").read_text(encoding="utf-8")
    assert coverage_markdown() in docs, "regenerate: python -m agentgym.envs.webarena.twin_official"
    covered = sum(row[4].startswith("covered") for row in coverage())
    assert covered == len(PORTS)


def test_one_test_instantiation_per_covered_template_and_no_instantiation_in_two_splits() -> None:
    records = lite_records()
    test, train = records["lite-test"], records["lite-train"]
    assert sorted(r["intent_template_id"] for r in test) == sorted(PORTS)

    def key(r: dict) -> tuple:
        return r["intent_template_id"], json.dumps(r["instantiation_dict"], sort_keys=True)

    assert not {key(r) for r in test} & {key(r) for r in train}
    assert len({key(r) for r in train}) == len(train)
    tasks = load_tasks()
    tasks.check()  # no task content in two splits, learn-* and the stand-in splits included
    for split in ("lite-test", "lite-train", "learn-test", "learn-train", "test", "train"):
        assert tasks.splits[split] > 0
    assert tasks.splits["learn-test"] >= 40  # a held-out figure in steps of 2.5 points at most


def test_intents_are_the_official_templates_filled_with_bundled_values() -> None:
    official = official_templates()
    for r in lite_records()["lite-test"]:
        o = official[r["intent_template_id"]]
        assert r["intent_template"] == o["intent_template"]
        assert r["intent"] == render(o["intent_template"], r["instantiation_dict"])
        assert r["eval"]["eval_types"] and r["expert"][-1]["op"] == "stop"
        if "string_match" in r["eval"]["eval_types"]:
            answers = r["eval"]["reference_answers"]
            expert_answer = r["expert"][-1]["answer"].lower()
            for want in answers.get("must_include", []) + answers.get("fuzzy_match", []):
                assert want.lower() in expert_answer


def test_the_repository_holds_no_official_task_text() -> None:
    templates = [o["intent_template"] for o in official_templates().values()]
    probes = {re.sub(r"\{\{.*?\}\}", "\0", t).split("\0")[0].strip() for t in templates}
    probes = {p for p in probes if len(p) >= 25}
    assert len(probes) > 40
    files = [*(ROOT / "envs" / "webarena").glob("twin_*.py"),
             *(ROOT / "envs" / "webarena").glob("templates_*.py"),
             *(ROOT / "envs" / "webarena" / "data").glob("*.json")]
    for path in files:
        text = path.read_text(encoding="utf-8")
        leaked = [p for p in probes if p in text]
        assert not leaked, f"{path.name} holds official task text: {leaked[:3]}"
