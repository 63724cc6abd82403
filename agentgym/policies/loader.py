"""Select a policy by a string: ``openai:http://host:8000/v1``, ``hf:smollm2-135m``, ``scripted``.

The part before the first ``:`` names a backend in the ``policies`` registry (filled through the
``agentgym_register_policies`` hook, built-ins included); the rest is the backend's argument.
Options go after a ``?`` as a query string (``hf:smollm2-135m?device=cuda&max_batch_size=32``)
or as keyword arguments; a URL argument keeps its own query except the options a backend reads.
"""

from __future__ import annotations

import difflib
from typing import Any
from urllib.parse import parse_qsl

from ..errors import NameNotFound, PolicyError
from ..plugins import get_registry
from .base import Policy


def _coerce(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


def parse_policy_spec(spec: str) -> tuple[str, str | None, dict[str, Any]]:
    """Split ``"name:arg?k=v"`` into ``(name, arg or None, options)``."""
    name, sep, rest = spec.partition(":")
    if not name:
        raise PolicyError(f"policy spec {spec!r} has no backend name before ':'")
    if not sep:
        name, _, query = name.partition("?")
        return name, None, {k: _coerce(v) for k, v in parse_qsl(query)}
    arg, _, query = rest.partition("?")
    return name, arg or None, {k: _coerce(v) for k, v in parse_qsl(query)}


def load_policy(spec: str | Policy, **options: Any) -> Policy:
    """Build the policy named by ``spec``; a :class:`Policy` instance is returned unchanged."""
    if isinstance(spec, Policy):
        return spec
    name, arg, parsed = parse_policy_spec(spec)
    registry = get_registry("policies")
    try:
        entry = registry.get(name)
    except NameNotFound as e:
        names = list(registry.names())
        close = difflib.get_close_matches(name, names, n=2, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise PolicyError(f"no policy named {name!r}; registered: {', '.join(names) or 'none'}"
                          f"{hint}") from e
    if not entry.is_available():
        raise PolicyError(f"policy backend {name!r} is registered but not available here")
    factory = entry.load()
    try:
        policy = factory(arg, **{**parsed, **options})
    except TypeError as e:
        raise PolicyError(f"bad options for policy {spec!r}: {e}") from e
    if not isinstance(policy, Policy):
        raise PolicyError(f"policy backend {name!r} returned {type(policy).__name__}, not a Policy")
    return policy


__all__ = ["load_policy", "parse_policy_spec"]
