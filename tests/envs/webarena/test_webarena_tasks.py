"""The bundled task files: WebArena's schema, WebArena-Lite's distribution, clean splits, and gold
answers that agree with the site data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agentgym.envs.webarena.expert import ExpertError, ExpertStep, elements, find_element
from agentgym.envs.webarena.tasks import DATA, TEMPLATES, generate, load_tasks, read_raw

KEYS = {"sites", "task_id", "require_login", "storage_state", "start_url", "geolocation",
        "intent_template", "instantiation_dict", "intent", "require_reset", "intent_template_id",
        "eval"}
EVAL_KEYS = {"eval_types", "reference_answers", "reference_url", "program_html"}


@pytest.fixture(scope="module")
def test_split() -> list[dict]:
    return read_raw(DATA / "test.raw.json")


@pytest.fixture(scope="module")
def train_split() -> list[dict]:
    return read_raw(DATA / "train.raw.json")


def test_schema(test_split: list[dict], train_split: list[dict]) -> None:
    for rec in test_split + train_split:
        assert KEYS <= set(rec), rec["task_id"]
        assert EVAL_KEYS <= set(rec["eval"])
        assert rec["start_url"].startswith("__")
        intent = rec["intent_template"]
        for k, v in rec["instantiation_dict"].items():
            intent = intent.replace("{{" + k + "}}", v)
        assert intent == rec["intent"]


def test_test_split_has_webarena_lite_distribution(test_split: list[dict]) -> None:
    assert len(test_split) == 165
    single = Counter(r["sites"][0] for r in test_split if len(r["sites"]) == 1)
    assert single == {"shopping": 45, "shopping_admin": 35, "gitlab": 30, "map": 26,
                      "reddit": 19}
    per_site = Counter(s for r in test_split for s in r["sites"])
    assert per_site == {"shopping": 46, "shopping_admin": 36, "gitlab": 34, "map": 31,
                        "reddit": 24, "wikipedia": 4}
    types = Counter("+".join(r["eval"]["eval_types"]) for r in test_split)
    assert types == {"string_match": 78, "program_html": 48, "url_match+program_html": 19,
                     "url_match": 18, "string_match+url_match": 2}
    answers = Counter(k for r in test_split for k in (r["eval"]["reference_answers"] or {}))
    assert answers == {"must_include": 38, "fuzzy_match": 35, "exact_match": 7}


def test_train_split_uses_the_same_templates_and_never_a_test_instantiation(
        test_split: list[dict], train_split: list[dict]) -> None:
    assert len(train_split) >= 600
    assert {r["intent_template_id"] for r in train_split} == {
        r["intent_template_id"] for r in test_split}
    seen = {(r["intent_template_id"], json.dumps(r["instantiation_dict"], sort_keys=True))
            for r in test_split}
    for rec in train_split:
        key = (rec["intent_template_id"], json.dumps(rec["instantiation_dict"], sort_keys=True))
        assert key not in seen, rec["intent"]
    assert not {r["intent"].lower() for r in test_split} & {r["intent"].lower()
                                                            for r in train_split}
    load_tasks().check()  # the task-set leak check agrees


def test_files_match_a_fresh_generation_from_the_site_data(tmp_path: Path) -> None:
    fresh = generate()
    for split in ("test", "train"):
        assert fresh[split] == read_raw(DATA / f"{split}.raw.json"), split


def test_every_task_has_expert_steps_ending_in_stop(test_split: list[dict],
                                                    train_split: list[dict]) -> None:
    for rec in test_split + train_split:
        steps = rec["expert"]
        assert steps and steps[-1]["op"] == "stop"
        assert {s["op"] for s in steps} <= {"goto", "click", "type", "select", "stop"}
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES)


TREE = """[1] RootWebArea 'Shop'
\t[12] link 'Orchid Smart Speaker'
\t[13] searchbox 'Search'
\t[14] button "Add to Cart"
\t[15] spinbutton 'Qty' value: '1'
\t[16] combobox 'Status' hasPopup: menu
\t[17] link 'orchid smart speaker (part 2)'"""


def test_expert_steps_resolve_against_the_accessibility_tree() -> None:
    assert elements(TREE)[0] == (1, "RootWebArea", "Shop")
    assert find_element(TREE, "Orchid Smart Speaker", frozenset({"link"})) == 12
    assert ExpertStep("click", name="Add to Cart", role="button")(TREE) == "click [14]"
    assert ExpertStep("type", name="Qty", text="3")(TREE) == "type [15] [3] [0]"
    assert ExpertStep("type", name="Search", text="x", enter=True)(TREE) == "type [13] [x] [1]"
    assert ExpertStep("select", name="Status", option="On Hold")(TREE) == "select [16] [On Hold]"
    step = ExpertStep.from_json({"op": "goto", "url": "__SHOPPING__/cart"},
                                {"__SHOPPING__": "http://h:1"})
    assert step(TREE) == "goto [http://h:1/cart]"
    assert ExpertStep("stop", answer="$5")(TREE) == "stop [$5]"
    with pytest.raises(ExpertError):
        ExpertStep("click", name="Checkout", role="button")(TREE)
