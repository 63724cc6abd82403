"""The trainer config in sections: every key has one section; sectioned, dotted and flat input."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from agentgym import ConfigError
from agentgym.trainers.config import TrainConfig, load_config
from agentgym.trainers.config_sections import SECTIONS, flatten_sections, to_sections


def test_every_field_has_exactly_one_section():
    owned = [key for keys in SECTIONS.values() for key in keys]
    assert len(owned) == len(set(owned)), "a key in two sections"
    assert set(owned) == {f.name for f in dataclasses.fields(TrainConfig)}


def test_sectioned_dotted_and_flat_keys_give_the_same_config(caplog):
    sectioned = {"model": {"name": "m-from-section", "device": "cpu"},
                 "rollout": {"group_size": 4, "max_new_tokens": 7},
                 "objective": {"clip_eps_high": 0.28}, "learner": {"lr": 1e-4}}
    a = load_config(sectioned, ["rollout.max_new_tokens=9", "steps=3"])
    with caplog.at_level(logging.INFO, logger="agentgym.trainers.config_sections"):
        b = load_config({"model": "m-from-section", "device": "cpu", "group_size": 4,
                         "max_new_tokens": 7, "clip_eps_high": 0.28, "lr": 1e-4},
                        ["max_new_tokens=9", "run.steps=3"])
    assert a == b
    assert (a.model, a.group_size, a.max_new_tokens, a.steps, a.lr) == (
        "m-from-section", 4, 9, 3, 1e-4)
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 1 and "flat keys read" in notes[0]  # one line, not one per key
    assert "group_size -> rollout.group_size" in notes[0] and "model -> model.name" in notes[0]
    assert load_config(to_sections(a.to_dict())) == a  # a sectioned file reads back


def test_misplaced_unknown_and_doubled_keys_are_refused_clearly():
    with pytest.raises(ConfigError, match="rollout.lr is not a key of section rollout; lr "
                                          "belongs to learner"):
        load_config({"rollout": {"lr": 1e-3}})
    with pytest.raises(ConfigError, match="unknown config section 'rolout'"):
        load_config(None, ["rolout.group_size=2"])
    with pytest.raises(ConfigError, match="group_size is set twice"):
        flatten_sections({"group_size": 2, "rollout": {"group_size": 3}})
