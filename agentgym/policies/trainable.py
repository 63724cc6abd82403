"""In-process policies a trainer can share weights with: the protocol and its loader.

A trainer that trains a module in this process rolls out with a policy that decodes from that
very module (no copy, no weight push). Any backend can be that policy: it registers, beside its
``from_spec`` factory, a ``trainable`` factory building it from a module::

    @hookimpl
    def agentgym_register_policies(register):
        register("mine", "my_pkg.policy:Mine.from_spec",
                 trainable="my_pkg.policy:Mine.from_module")   # (module, tokenizer, **options)

and the trainer's ``policy: mine`` config then trains through it. The built-in ``hf`` and
``hf-vision`` backends register this way. :func:`load_trainable_policy` is what trainers call;
what it returns satisfies :class:`TrainablePolicy`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from ..errors import NameNotFound, PolicyError
from ..plugins import get_registry
from ..specs import load_entry_point
from .base import Policy
from .loader import parse_policy_spec

TRAINABLE = "trainable"
"""The registry entry's extra naming the ``(module, tokenizer, **options)`` factory."""


@runtime_checkable
class TrainablePolicy(Protocol):
    """A policy decoding from a module the trainer updates in place."""

    model: Any
    """The shared module (the trainer's, or its rollout replica)."""
    tokenizer: Any
    """The tokenizer of the module (a processor's tokenizer for vision models)."""
    version: int
    """Weights version; bumped by every :meth:`updating_weights` block."""

    def updating_weights(self) -> AbstractContextManager[Any]:
        """Hold decoding while the block changes the module; bump the version after."""
        ...

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> None:
        """Copy new weights into the module between two decode steps and bump the version."""
        ...


def trainable_backends() -> list[str]:
    """Names of the registered policy backends that can share a trainer's module."""
    return [e.name for e in get_registry("policies") if TRAINABLE in e.extra]


def load_trainable_policy(spec: str, model: Any, tokenizer: Any, **options: Any) -> Policy:
    """The backend ``spec`` names (``"hf"``, ``"hf-vision"``, ``"mine?max_batch_size=8"``),
    built around ``model`` and ``tokenizer`` (or processor); raises :class:`PolicyError` when
    the backend cannot share a module or what it builds is not a :class:`TrainablePolicy`."""
    name, arg, parsed = parse_policy_spec(spec)
    try:
        entry = get_registry("policies").get(name)
    except NameNotFound as e:
        raise PolicyError(f"no policy named {name!r}; trainable: "
                          f"{', '.join(trainable_backends()) or 'none'}") from e
    target = entry.extra.get(TRAINABLE)
    if target is None:
        raise PolicyError(f"policy backend {name!r} cannot share the trainer's weights (it "
                          f"registers no {TRAINABLE!r} factory); trainable: "
                          f"{', '.join(trainable_backends()) or 'none'}")
    if arg:
        raise PolicyError(f"a trainable policy decodes the trainer's module; drop {arg!r} "
                          f"from {spec!r}")
    if not entry.is_available():
        raise PolicyError(f"policy backend {name!r} is registered but not available here")
    factory = load_entry_point(target) if isinstance(target, str) else target
    policy = factory(model, tokenizer, **{**parsed, **options})
    if not isinstance(policy, Policy) or not isinstance(policy, TrainablePolicy):
        raise PolicyError(f"policy backend {name!r} built {type(policy).__name__}, not a "
                          "Policy with the TrainablePolicy interface")
    return policy


__all__ = ["TRAINABLE", "TrainablePolicy", "load_trainable_policy", "trainable_backends"]
