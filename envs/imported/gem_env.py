"""GEM's envs as agentgym envs: ``make("gem:<GEM env id>")``, e.g. ``gem:game:Sudoku-v0-easy``.

GEM (PyPI ``gem-llm``, "General Experience Maker") pins ``reasoning-gym==0.1.23`` and
``nltk==3.9.1``, which clash with ``.venv``, so it runs in ``.venv-gem``
(``bash scripts/setup_gem_venv.sh``) and a worker process (:mod:`.gem_worker`), one per
agentgym process (:mod:`.gem_client`). Its envs are Gymnasium-like: ``reset(seed)`` -> text,
``step(text)`` -> text, reward, terminated, truncated, info. The importer maps:

- **tasks and splits**: a GEM env generates its episode from the seed, so task ``i`` of
  ``train`` is GEM's episode ``seed + i`` (``train_size`` of them) and task ``i`` of ``test``
  is episode ``seed + TEST_SEED_OFFSET + i`` (``test_size``): the splits never share a seed.
  Task ids are ``<GEM id>/<split>/<i>``; ``reset(seed=s)`` draws a task of the split.
- **observation**: GEM's text (the game's instructions first, then its feedback), with the
  ``info["suffix"]`` GEM's own wrappers append ("Enter your next guess.").
- **action**: text, GEM's own protocol (``\\boxed{...}``), or a ``reply`` tool call carrying
  it. GEM's rules for a bad move stand (most games end the episode with its format-error
  reward); a non-text action or one over :data:`MAX_ACTION_CHARS` is an error observation
  GEM never sees.
- **reward**: each step's reward as GEM gives it, unchanged; success is a last reward of at
  least 1 (GEM's success reward). GEM's ``terminated``/``truncated`` are the step's.
- **turn limit**: the spec's ``max_turns`` is the one GEM registers for the id (the game's
  own limit, also in its instructions); ``-random`` variants draw theirs per episode and get
  agentgym's default.
- **faults**: a worker that dies, hangs past :data:`~.gem_client.WORKER_TIMEOUT_S` or loses
  the session ends the episode ``aborted`` (``reset`` raises
  :class:`~agentgym.InfrastructureError`); the next call starts a fresh worker.
- **refused** (:class:`~agentgym.errors.ConfigError`, naming why): ids whose env loads a Hub
  dataset (``math:``, ``code:``, ``qa:``, ``eval:``...), and any id GEM fails to make (the
  word games need NLTK's ``words`` corpus, which ``nltk.download`` fetches from outside the
  package index).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv
from agentgym.env import StepResult
from agentgym.errors import ConfigError, EnvNotFound, ToolError

from .gem_client import GemWorkerError, worker
from .text_replies import TextReplies

TEST_SEED_OFFSET = 1_000_000_007
MAX_ACTION_CHARS = 200_000
TOOL_NOTE = ("\n\nAnswer in text as the game asks, or call the `reply` tool with that text as "
             "`text`.")
_SESSIONS = itertools.count()


def env_ids() -> list[str]:
    """Every id GEM registers whose env generates its tasks (no Hub dataset), from the
    worker."""
    return [str(i) for i in _request({"op": "list"})["ids"]]


def _request(message: dict[str, Any]) -> dict[str, Any]:
    reply = worker().request(message)
    if not reply.get("ok") and not reply.get("refused"):
        raise GemWorkerError(f"the GEM worker: {reply.get('error')}")
    return reply


def spec_info(name: str) -> dict[str, Any]:
    """GEM's registered spec of ``name``: EnvNotFound / ConfigError for ids it cannot play."""
    info = _request({"op": "info", "id": name})
    if not info.get("exists"):
        raise EnvNotFound(f"GEM has no env {name!r} (agentgym importers gem lists them)")
    if info.get("dataset"):
        raise ConfigError(f"gem:{name} is not imported: it loads the dataset "
                          f"{info['dataset']!r} from the Hugging Face Hub, which the importer "
                          "does not download; GEM's game: and rg: envs generate their tasks")
    return info


def load_tasks(name: str, seed: int = 0, train_size: int = 1000, test_size: int = 100,
               **_: Any) -> TaskSet:
    """Seed-numbered tasks (GEM generates each episode from its seed)."""
    for label, size in (("train_size", train_size), ("test_size", test_size)):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(f"{label} must be a positive integer, got {size!r}")
    tasks = [Task(f"{name}/train/{i}", "train", f"GEM {name} episode seed {seed + i}",
                  {"seed": seed + i}) for i in range(train_size)]
    tasks += [Task(f"{name}/test/{i}", "test", f"GEM {name} episode seed "
                   f"{seed + TEST_SEED_OFFSET + i}", {"seed": seed + TEST_SEED_OFFSET + i})
              for i in range(test_size)]
    return TaskSet(tasks, name=f"gem:{name}")


class GemEnv(TextReplies, TaskToolEnv):
    """One GEM env, played in the worker; one worker session per instance."""

    def __init__(self, name: str, split: str = "train", seed: int = 0, train_size: int = 1000,
                 test_size: int = 100, env_kwargs: dict[str, Any] | None = None) -> None:
        spec_info(name)
        self.name = name
        self.env_kwargs = dict(env_kwargs or {})
        self.session = f"g{next(_SESSIONS)}-{id(self):x}"
        self.instructions = f"You are playing GEM's {name}." + TOOL_NOTE
        self._step_reward = 0.0
        self._truncated = False
        self._suffix = ""
        super().__init__(load_tasks(name, int(seed), train_size, test_size), split)
        if len(self.task_set):  # an env GEM cannot make is a ConfigError now, not at reset
            self.start(self.task_set[0])

    def make_tools(self) -> list[Any]:
        """The single ``reply`` tool (the text GEM parses)."""
        return [self.reply]

    def start(self, task: Task) -> str:
        """A fresh GEM env in the worker, reset with the task's seed."""
        reply = _request({"op": "reset", "session": self.session, "id": self.name,
                          "kwargs": self.env_kwargs, "seed": task.data["seed"]})
        if reply.get("refused"):
            why = " ".join(re.sub(r"\x1b\[[0-9;]*m|\*+", "", str(reply.get("error"))).split())
            raise ConfigError(f"GEM cannot make {self.name!r} with {self.env_kwargs}: {why}"
                              [:600])
        self._truncated = False
        return self._text(reply, done=False)

    def _text(self, reply: dict[str, Any], done: bool) -> str:
        text = str(reply.get("observation", ""))
        suffix = (reply.get("info") or {}).get("suffix")
        return f"{text}\n{suffix}" if suffix and not done else text

    def reply(self, text: str) -> str:
        """Send your move to the game (in the format it asks for).

        Args:
            text: The move, as text.
        """
        if len(text) > MAX_ACTION_CHARS:
            raise ToolError(f"the reply is over {MAX_ACTION_CHARS} characters")
        out = worker().request({"op": "step", "session": self.session, "action": text})
        if out.get("lost"):  # a restarted worker: the game is gone
            raise GemWorkerError(f"the GEM worker lost the episode: {out.get('error')}")
        if not out.get("ok"):  # the game raised on this text: GEM's bug, shown to the model
            raise ToolError(f"GEM could not take the move: {out.get('error')}"[:500])
        reward = float(out["reward"])
        self._step_reward = reward
        done = bool(out["terminated"] or out["truncated"])
        if done:
            self._truncated = bool(out["truncated"]) and not out["terminated"]
            self.finish(reward, success=reward >= 1.0, gem_info=out.get("info") or {})
        return self._text(out, done)

    def _step(self, action: Any) -> StepResult:
        self._step_reward = 0.0
        obs, reward, terminated, truncated, info = super()._step(action)
        if not terminated and not truncated:  # GEM's per-turn reward
            reward = self._step_reward
        if terminated and self._truncated:  # GEM's own time limit
            terminated, truncated = False, True
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        """End the worker session."""
        try:
            from .gem_client import GEM

            live = GEM.current()
            if live is not None and live.pid is not None:
                live.request({"op": "close", "session": self.session})
        except GemWorkerError:  # a dead worker holds no session
            pass
        super().close()


def make_env(name: str, **kwargs: Any) -> GemEnv:
    """``make("gem:<id>", **kwargs)``'s factory."""
    return GemEnv(name, **kwargs)


__all__ = ["TEST_SEED_OFFSET", "GemEnv", "env_ids", "load_tasks", "make_env", "spec_info"]
