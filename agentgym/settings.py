"""One owner per setting: the functions that decide a run's turn limit, device and config.

Each setting is decided here, once, at the edge (``make()``, the CLI, a policy's or trainer's
constructor); inner code receives the resolved value and never re-derives a default:

- :func:`resolve_max_turns`: the turn limit. What was asked, else the env spec's, else
  :data:`DEFAULT_MAX_TURNS`. :func:`agentgym.make` calls it and its
  :class:`~agentgym.TurnLimit` wrapper alone enforces the result; the rollout engine, ``eval``,
  the trainers, ``serve`` and remote envs pass the value asked down to ``make``.
- :func:`resolve_device`: ``"auto"`` -> ``"cuda:<local rank>"`` when CUDA is there, else
  ``"cpu"``; the in-process policies and the trainers call it, nothing else looks at ``auto``.
- :func:`read_settings`: a YAML mapping plus ``key=value`` overrides (values parsed as YAML),
  read once by ``agentgym train`` and by the trainers' own runner.

>>> resolve_max_turns(None, 6), resolve_max_turns(3, 6), resolve_max_turns(20, None)
(6, 3, 20)
>>> resolve_max_turns(None, None) == DEFAULT_MAX_TURNS
True
>>> read_settings({"steps": 30, "lr": 1e-5}, ["steps=5", "--lora=true"])
{'steps': 5, 'lr': 1e-05, 'lora': True}
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError

DEFAULT_MAX_TURNS = 10
"""Turn limit of an env whose spec sets none, when the caller does not ask for one."""

DEFAULT_DEVICE = "auto"
"""Device of the in-process policies and the trainers when none is named."""


def resolve_max_turns(asked: int | None, spec_limit: int | None) -> int:
    """The turn limit: ``asked`` when given (it wins, raising or lowering the spec's), else
    ``spec_limit``, else :data:`DEFAULT_MAX_TURNS`.

    Raises :class:`~agentgym.errors.ConfigError` for a limit below 1 or not an integer.
    """
    for name, value in (("max_turns", asked), ("the spec's max_turns", spec_limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise ConfigError(f"{name} must be an integer of at least 1 (leave it unset for "
                              f"the env's limit), got {value!r}")
    if asked is not None:
        return asked
    return spec_limit if spec_limit is not None else DEFAULT_MAX_TURNS


def resolve_device(name: str | None = DEFAULT_DEVICE, local_rank: int | None = None) -> str:
    """The device to run on: ``auto`` (or None) -> ``cuda:<local_rank>`` when CUDA is
    available, else ``cpu``; any other name is returned as given.

    ``local_rank`` defaults to the ``LOCAL_RANK`` variable torchrun sets (0 without it).
    """
    if name is not None and name != "auto":
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"device must be auto, cpu, cuda or cuda:N, got {name!r}")
        return name
    try:
        import torch
    except ImportError:
        return "cpu"
    if not torch.cuda.is_available():
        return "cpu"
    rank = int(os.environ.get("LOCAL_RANK", "0")) if local_rank is None else local_rank
    return f"cuda:{rank}"


def parse_overrides(overrides: list[str]) -> dict[str, Any]:
    """``["steps=5", "--lora=true"]`` -> ``{"steps": 5, "lora": True}`` (values parsed as YAML;
    ``-`` in a key reads as ``_``)."""
    import yaml

    out: dict[str, Any] = {}
    for item in overrides:
        key, sep, raw = item.partition("=")
        key = key.strip().lstrip("-").replace("-", "_")
        if not sep or not key:
            raise ConfigError(f"override {item!r} is not of the form key=value")
        try:
            out[key] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as e:
            raise ConfigError(f"override {item!r}: cannot parse value: {e}") from e
    return out


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping in YAML file ``path`` (one clear :class:`ConfigError` otherwise)."""
    import yaml

    try:
        loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"cannot read config {path}: {e}") from e
    if loaded is not None and not isinstance(loaded, dict):
        raise ConfigError(f"config {path} must be a YAML mapping")
    return dict(loaded or {})


def read_settings(source: str | Path | Mapping[str, Any] | None,
                  overrides: list[str] | None = None) -> dict[str, Any]:
    """A YAML file (or an already read mapping) with ``key=value`` overrides applied on top."""
    if isinstance(source, Mapping):
        data = dict(source)
    else:
        data = read_config_file(source) if source is not None else {}
    data.update(parse_overrides(list(overrides or [])))
    return data


__all__ = ["DEFAULT_DEVICE", "DEFAULT_MAX_TURNS", "parse_overrides", "read_config_file",
           "read_settings", "resolve_device", "resolve_max_turns"]
