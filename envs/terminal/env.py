"""The terminal env: a multi-turn shell over a Harbor task, scored by the task's own verifier.

Tools: ``bash(command)`` (output capped and visibly truncated, a per-command deadline, the exit
status shown), ``read_file(path)``, ``write_file(path, content)`` and ``submit()``. ``submit``
copies the task's ``tests/`` in (only now: the agent never sees them), wipes ``/logs/verifier``,
runs ``tests/test.sh`` under the verifier's deadline and reads ``/logs/verifier/reward.txt`` or
``reward.json``; a missing or malformed reward is a failure, never a pass. A multi-step task
shows the next step's instruction after each ``submit`` and combines the step rewards as
``multi_step_reward_strategy`` says. A sandbox that fails (not the agent's command) aborts the
episode with its reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, ToolError
from agentgym.errors import InfrastructureError
from agentgym.sandboxes.bubblewrap_live import SandboxGone

from .backends import Limits, Session, open_session
from .harbor import HarborStep, HarborTask, get_task, load_taskset
from .rewards import KILLED, LEFTOVERS, VERIFY, read_reward, strip_paths
from .tools import ShellTools

BUNDLED = Path(__file__).resolve().parent / "tasks"
"""The bundled task folder (Harbor layout, one folder per task)."""
INSTRUCTIONS = (
    "You are working in a Linux shell. Tools: bash(command) runs a command and shows its "
    "output and exit status; read_file(path) and write_file(path, content) read and write a "
    "file; submit() ends your turn on the task and has it checked. Each command starts in the "
    "task's working directory with a fresh shell (files persist, shell variables do not)."
)


class TerminalEnv(ShellTools, TaskToolEnv):
    """A Harbor task folder (or the bundled tasks) as a shell env; see the module docstring.

    ``path``: a task folder or a folder of them (default: the bundled tasks); ``split``: a
    split of their ``[metadata] split`` or ``"all"``; ``difficulty``: keep one level only;
    ``backend``: ``"bubblewrap"`` or ``"docker"`` (``image``: its Debian image; ``warm_pool``:
    its episode containers started ahead per image, each used once; 0 starts them on demand;
    ``build_image``: True builds each task's own image from its ``environment/``, None only
    where the Dockerfile needs it (``pip``, ``curl``...), False never; see ``image_build``);
    ``command_timeout_s``: each command's deadline (capped by the task's ``[agent]
    timeout_sec``, which bounds all commands of a step together).
    """

    fork_fields = ("state", "step_index", "step_rewards", "agent_time_s")
    """The filesystem as a tar (:attr:`state`, made on demand from the live shell): a fork
    copies it and gets its own shell (the task and its session are shared)."""
    instructions = INSTRUCTIONS

    def __init__(
        self,
        path: str | Path | None = None,
        split: str = "train",
        *,
        difficulty: str | None = None,
        backend: str = "bubblewrap",
        command_timeout_s: float = 30.0,
        max_output_chars: int = 3000,
        memory_mb: int = 1024,
        disk_mb: int = 128,
        pids: int = 128,
        allow_base: tuple[str, ...] = (),
        image: str | None = None,
        warm_pool: int = 1,
        build_image: bool | None = None,
    ) -> None:
        tasks = load_taskset(path or BUNDLED, difficulty=difficulty,
                             name="terminal" if path is None else "harbor")
        self._root = str(Path(path or BUNDLED).expanduser().resolve())
        if split == "all":
            tasks = TaskSet([Task(t.task_id, "all", t.prompt, t.data) for t in tasks],
                            name=tasks.name)
        super().__init__(tasks, split)
        self.backend = backend
        self.command_timeout_s = float(command_timeout_s)
        self.max_output_chars = int(max_output_chars)
        self.limits = Limits(memory_mb=memory_mb, disk_mb=disk_mb, pids=pids)
        self.allow_base = tuple(allow_base)
        self.image = image
        self.warm_pool = int(warm_pool)
        self.build_image = build_image
        self._session_cache: dict[str, Session] = {}
        self._shared: dict[Any, Any] = {}  # the docker backend's container(s) of this env
        self._owns_sessions = True
        self.harbor: HarborTask | None = None
        self.session: Session | None = None
        self._state = b""
        self._live: Any = None
        """The episode's live shell (bubblewrap): its tmpfs holds the files; None until the
        first command, and on backends without one (the files are then :attr:`_state`)."""
        self.step_index = 0
        self.step_rewards: list[float] = []
        self.agent_time_s = 0.0

    @property
    def state(self) -> bytes:
        """The episode's filesystem as a tar: a snapshot of the live shell's roots (made only
        when asked: a fork, the verifier), or the bytes the next command will start from."""
        if self._live is not None:
            try:
                snap = self._live.snapshot()
            except SandboxGone as e:
                raise InfrastructureError(f"terminal sandbox failed: {e}") from None
            if snap is None:
                raise ToolError("the filesystem is too large to copy (too many files)")
            return bytes(snap)
        return self._state

    @state.setter
    def state(self, value: bytes) -> None:
        """Replace the filesystem: the live shell (if this env's own) is closed, the next
        command starts a new one from ``value``."""
        self._drop_live()
        self._state = value

    def _drop_live(self) -> None:
        live, self._live = self.__dict__.get("_live"), None
        if live is not None and live.owner is self:
            live.close()

    def fork_clone(self) -> TerminalEnv:
        """A copy sharing this env's sessions (closing the copy leaves them open)."""
        child = super().fork_clone()
        assert isinstance(child, TerminalEnv)
        child._owns_sessions = False
        return child

    def _close(self) -> None:
        self._drop_live()
        if not self._owns_sessions:
            return
        for owner in [*self._session_cache.values(), *self._shared.values()]:
            close = getattr(owner, "close", None)
            if close is not None:
                close()  # a container whose task failed to build has no session: closed here
        self._session_cache.clear()
        self._shared.clear()

    def make_tools(self) -> list[Any]:
        """``bash``, ``read_file``, ``write_file`` and ``submit``."""
        return [self.bash, self.read_file, self.write_file, self.submit]

    # -- episode ---------------------------------------------------------------------------

    def _open(self, harbor: HarborTask) -> Session:
        key = str(harbor.path)
        if key not in self._session_cache:
            limits = Limits(
                memory_mb=min(self.limits.memory_mb, harbor.memory_mb),
                disk_mb=min(self.limits.disk_mb, harbor.storage_mb), pids=self.limits.pids,
                cpus=min(max(harbor.cpus, 0.1), 2.0),
            )
            self._session_cache[key] = open_session(harbor, self.backend, limits,
                                                    self.allow_base, self.image, self._shared,
                                                    hide=(self._root,), warm=self.warm_pool,
                                                    build=self.build_image)
        return self._session_cache[key]

    def start(self, task: Task) -> str:
        """Build (once per task) and load the task's starting filesystem; show step 1."""
        self.harbor = get_task(task.data["path"])
        self.session = self._open(self.harbor)
        self.state = self.session.initial_state
        self.step_index = 0
        self.step_rewards = []
        self.agent_time_s = 0.0
        return self._step_text(self.harbor.steps[0])

    def _step_text(self, step: HarborStep) -> str:
        assert self.harbor is not None and self.session is not None
        head = ""
        if len(self.harbor.steps) > 1:
            head = f"Step {self.step_index + 1} of {len(self.harbor.steps)}.\n"
        return f"{head}{step.instruction.strip()}\n\n(Working directory: {self.session.workdir})"

    @property
    def current_step(self) -> HarborStep:
        """The step the agent is working on."""
        if self.harbor is None:
            raise ToolError("no task: call reset() first")
        return self.harbor.steps[self.step_index]

    def submit(self) -> str:
        """Finish the current step: its tests run now and decide the reward."""
        harbor, step = self.harbor, self.current_step
        assert harbor is not None
        reward, detail = self._verify(step)
        self.step_rewards.append(reward)
        if self.step_index + 1 < len(harbor.steps):
            self.step_index += 1
            self.agent_time_s = 0.0
            return "Submitted. Next:\n" + self._step_text(self.current_step)
        rewards = self.step_rewards
        total = rewards[-1] if harbor.reward_strategy == "final" else sum(rewards) / len(rewards)
        self.finish(total, success=total >= 1.0, step_rewards=list(rewards), verifier=detail)
        return "Submitted; the task's tests ran."

    def _verify(self, step: HarborStep) -> tuple[float, str]:
        """Run ``step``'s tests on a copy of the state; ``(reward, what happened)``."""
        assert self.session is not None
        files = {f"/tests/{name}": content for name, content in step.tests.items()}
        try:
            state = strip_paths(self.state, ("logs/verifier", "tests"))
        except (ValueError, ToolError) as e:
            return 0.0, str(e)
        out = self.session.exec(VERIFY, state=state, timeout_s=step.verifier_timeout_s,
                                files=files, env=step.verifier_env, fetch=("logs",))
        if out.error:
            raise InfrastructureError(f"the verifier's sandbox failed: {out.error}")
        if out.timed_out:
            return 0.0, f"verifier timed out after {step.verifier_timeout_s:g}s"
        if out.exit_code != 0:
            why = {KILLED: "the verifier's test.sh was killed by a signal",
                   LEFTOVERS: "processes the verifier started outlived it (they could rewrite "
                              "its reward)"}
            return 0.0, why.get(out.exit_code, f"the verifier's shell ended with exit status "
                                               f"{out.exit_code}")
        if out.state is None:
            return 0.0, "the verifier's filesystem could not be read back"
        return read_reward(out.state)

    def reward_probes(self) -> list[Any]:
        """The family's own hacks for ``check_rewards`` (:mod:`.probes`)."""
        from .probes import terminal_probes

        return terminal_probes()

    # -- oracle ----------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[str]:
        """The oracle: per step, write ``solution/`` to ``/solution``, run ``solve.sh``,
        submit (the ``oracle`` and ``scripted`` policies replay these)."""
        harbor = get_task(task.data["path"])
        actions: list[str] = []
        for step in harbor.steps:
            if "solve.sh" not in step.solution:
                raise ToolError(f"task {harbor.name} step {step.name} has no solution/solve.sh")
            for name, content in sorted(step.solution.items()):
                actions.append(_call("write_file", path=f"/solution/{name}",
                                     content=content.decode("utf-8", "surrogateescape")))
            actions.append(_call("bash", command="bash /solution/solve.sh",
                                 timeout_s=step.agent_timeout_s))
            actions.append(_call("submit"))
        return actions


def _call(name: str, **arguments: Any) -> str:
    return ToolCall(name, arguments).to_hermes()


def load_tasks(path: str | Path | None = None) -> TaskSet:
    """The bundled tasks (or those under ``path``) as a task set."""
    return load_taskset(path or BUNDLED, name="terminal" if path is None else "harbor")


__all__ = ["BUNDLED", "TerminalEnv", "load_tasks"]
