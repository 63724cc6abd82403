"""The trainer's parts and the capabilities they may have, as ``typing.Protocol`` types.

A step is the same short function for every algorithm (:meth:`GRPOTrainer.step`)::

    collected = phase.source.collect(state)          # RolloutSource: trajectories
    scored = phase.objective.score(collected)        # PhaseObjective: advantages, a batch
    update = learner.update(scored.batch, ...)       # Learner: micro-batches, optimizer, push
    phase.source.after_update(state.step + 1)        # an asynchronous source admits a round

A :class:`RolloutSource` never computes a loss, a :class:`PhaseObjective` never touches the
model or the env, and the :class:`~agentgym.trainers.learner.Learner` never knows which
algorithm it serves. What an object *can* do (push weights, guard a shared module, report a
version) is one of the ``runtime_checkable`` protocols below, checked once when a part is built,
never probed with ``getattr`` inside a step.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from agentgym.rollout import Trajectory

TrainState = Any
"""The trainer's :class:`~agentgym.trainers.state.TrainState` (not imported: state.py imports
this module's protocols)."""


@dataclass
class Collected:
    """What a source gathered for one step: engine groups, or a phase's own samples."""

    groups: list[list[Trajectory]] = field(default_factory=list)
    """Groups of trajectories of one task each (the engine, the gateway, the async engine)."""
    result: Any = None
    """The engine's :class:`~agentgym.trainers.rollouts.RolloutResult` (its cost and counts)."""
    samples: list[Any] = field(default_factory=list)
    """A phase's own samples: expert trajectories (BC), semi-online copies by task."""


@dataclass
class Scored:
    """What an objective made of a step's samples: the batch and how to update on it."""

    batch: Any
    """The padded :class:`~agentgym.trainers.batch.TrainBatch` (advantages, masks)."""
    trajectories: list[Trajectory]
    """The trajectories the batch holds (kept in the checkpoint as the step's samples)."""
    trained: bool = True
    """False when no rank has data (every rank still joins the update's collectives)."""
    update: bool = True
    """False: skip the update altogether this step (no collective is entered)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The phase's update overrides: ``lr``, ``loss_fn``, ``cfg`` (see ``Learner.update``)."""
    figures: dict[str, float] = field(default_factory=dict)
    """Counts the objective summed over ranks before the update (for its metrics)."""


@runtime_checkable
class RolloutSource(Protocol):
    """Where a phase's trajectories come from (engine, async engine, gateway, expert replay)."""

    def collect(self, state: TrainState) -> Collected:
        """This rank's samples for one step (advances ``state.round`` as it rolls out)."""

    def after_update(self, version: int) -> None:
        """Called after each update with the version the weights now have."""

    def step_metrics(self, state: TrainState) -> dict[str, float]:
        """The source's own figures for the step just finished (staleness, idle share)."""

    def close(self) -> None:
        """Release what the source started."""


@runtime_checkable
class PhaseObjective(Protocol):
    """How a phase turns samples into a batch and a step's metrics."""

    def score(self, collected: Collected) -> Scored:
        """Rewards -> advantages (or targets) -> a batch with its masks."""

    def metrics(self, collected: Collected, scored: Scored, update: dict[str, float],
                times: tuple[float, float, float]) -> dict[str, float]:
        """The step's metrics; ``times`` are the step's start, end of scoring, end of update."""


@runtime_checkable
class EvalHook(Protocol):
    """Adds figures to every held-out evaluation (self-play win rates and Elo, SOP)."""

    def evaluate(self, task_ids: list[str]) -> dict[str, float]:
        """Metrics of the current weights on this rank's held-out ``task_ids``."""


@runtime_checkable
class ProvidesEnvArgs(Protocol):
    """Adds objects to ``make``'s arguments for training episodes (a self-play opponent)."""

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for the training envs."""


@runtime_checkable
class Versioned(Protocol):
    """A policy that numbers its weights (every token keeps the version that produced it)."""

    version: int


@runtime_checkable
class GuardsWeights(Protocol):
    """A policy sharing the trained module: an update holds its decoding and bumps the version."""

    def updating_weights(self) -> AbstractContextManager[Any]:
        """A block in which the shared weights may change."""


@runtime_checkable
class PushesWeights(Protocol):
    """Moves the learner's weights to where rollouts run (a folder + reload, a server)."""

    def push(self, model: Any, tokenizer: Any = None) -> None:
        """Save, make the rollout side load them, bump its version."""


@runtime_checkable
class ReloadsWeights(Protocol):
    """A policy that reloads its weights from a folder (in-process vLLM)."""

    def reload_weights(self, folder: str) -> None:
        """Load the weights saved in ``folder``."""


@runtime_checkable
class SetsVersion(Protocol):
    """A policy whose version is set through a method (a proxy to another process)."""

    def set_version(self, version: int) -> None:
        """Set the weights' version."""


@runtime_checkable
class HasTokenizer(Protocol):
    """A policy with a tokenizer (its trajectories carry exact token ids)."""

    tokenizer: Any


@runtime_checkable
class HasImageProcessor(Protocol):
    """A vision-language processor: a tokenizer plus an image processor."""

    tokenizer: Any
    image_processor: Any


@runtime_checkable
class HasTaskSet(Protocol):
    """An env that knows its own task set (after its ``env_kwargs`` filtered it)."""

    task_set: Any


@runtime_checkable
class WaitsForSlot(Protocol):
    """A policy with a timeout on its wait for a batch slot (the in-process hf policy)."""

    timeout_s: float


@runtime_checkable
class Closeable(Protocol):
    """Anything holding processes, threads or files until closed."""

    def close(self) -> Any:
        """Release them."""


@runtime_checkable
class SavesPretrained(Protocol):
    """A Hugging Face model or tokenizer that writes itself to a folder."""

    def save_pretrained(self, folder: Any) -> Any:
        """Write to ``folder``."""


@runtime_checkable
class MergesAdapters(Protocol):
    """A PEFT model whose LoRA adapters merge into a plain model."""

    def merge_and_unload(self) -> Any:
        """The base model with the adapters merged in."""


@runtime_checkable
class WrapsModule(Protocol):
    """A wrapper around the trained module (``DistributedDataParallel``)."""

    module: Any


@runtime_checkable
class SkipsGradSync(Protocol):
    """DDP: a context in which backward passes accumulate without the all-reduce."""

    def no_sync(self) -> AbstractContextManager[Any]:
        """Skip the gradient reduction inside the block."""


@runtime_checkable
class TogglesGradSync(Protocol):
    """FSDP2: the gradient reduce-scatter switched off and on."""

    def set_requires_gradient_sync(self, requires: bool) -> None:
        """Switch the reduction."""


@runtime_checkable
class SelectsBatch(Protocol):
    """A KV cache whose rows can be gathered (``DynamicCache``)."""

    def batch_select_indices(self, indices: Any) -> None:
        """Keep (repeat) the rows ``indices``."""


@runtime_checkable
class HasModelConfig(Protocol):
    """A Hugging Face model with its ``config``."""

    config: Any


@runtime_checkable
class HasPadToken(Protocol):
    """A tokenizer with a pad token id (None when it has none)."""

    pad_token_id: Any


__all__ = ["Closeable", "Collected", "EvalHook", "GuardsWeights", "HasImageProcessor",
           "HasTaskSet", "HasTokenizer", "MergesAdapters", "PhaseObjective", "ProvidesEnvArgs",
           "PushesWeights", "ReloadsWeights", "RolloutSource", "SavesPretrained", "Scored",
           "SelectsBatch", "SetsVersion", "SkipsGradSync", "TogglesGradSync", "Versioned",
           "WaitsForSlot", "WrapsModule", "HasModelConfig", "HasPadToken"]
