"""Rollout source ``gateway``: external agent programs play the episodes, the gateway records them.

``rollout_source: gateway`` in a train config replaces the engine's rollouts by this one. For
every (task, sample) the trainer opens a gateway episode (with its own keys) and starts one copy
of the agent command (any program) in its own jail (``gateway.sandbox``; see
:mod:`agentgym.gateway.agent_jail`) with only::

    OPENAI_BASE_URL     http://127.0.0.1:PORT/episodes/<episode>/v1   (the gateway)
    OPENAI_API_KEY      the episode's agent key: model calls of this episode only
    AGENTGYM_MCP_URL    http://127.0.0.1:PORT/mcp  (the env's tools, `agentgym serve --mcp`)
    AGENTGYM_TASK_ID    the task to play (the agent calls MCP ``reset`` with it)
    AGENTGYM_EPISODE_ID the gateway episode id

plus ``PATH``, ``LANG``, ``HOME``/``TMPDIR`` (a fresh folder) and the variables named in
``gateway.pass_env``. The run's token and the trainer's environment never reach an agent, and
no key an agent holds can set a reward.

The reward (``gateway.reward``):

- ``env`` (default): each branch's model turns, as the gateway recorded them, are replayed in a
  fresh env on the same task; its return is that branch's reward. The agent cannot claim a
  reward: only what the model generated counts, whatever the agent did with the MCP tools.
- ``posted``: the ``gateway.scorer`` program, started after the agent's jail is gone, posts the
  reward with the episode's reward key (``AGENTGYM_REWARD_URL``, ``AGENTGYM_REWARD_KEY``); 0 when
  it posts nothing.
- ``module:function``: ``function(trajectory, task_id)`` returns the reward.

An agent that exits non-zero, or is still running after ``gateway.timeout_s``, is an aborted
episode with the reason; so is every agent still running when the run closes. Either way the
whole jail is killed (with ``sandbox: none`` only the agent's process group: an agent that
leaves its group, ``setsid``, escapes that). Every branch of an episode is a row of its task's
group, scored on its own turns.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import Any

import agentgym
from agentgym.gateway import (
    AgentJail,
    Gateway,
    GatewayError,
    GatewayLimits,
    GatewayServer,
    bubblewrap_works,
    mcp_command,
    minimal_env,
)
from agentgym.policies import Policy
from agentgym.rollout import Trajectory

from .config import TrainConfig
from .distributed import DistInfo, all_sum
from .gateway_replay import replay_reward
from .gateway_settings import AgentSettings, sandbox_available
from .rollouts import RolloutResult

logger = logging.getLogger(__name__)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group the agent leads (it and every process it started there)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class GatewayRollouts:
    """Train and eval rollouts played by agent programs through a gateway over ``policy``."""

    def __init__(self, cfg: TrainConfig, policy: Policy, max_turns: int) -> None:
        self.cfg, self.max_turns = cfg, max_turns
        self.settings = AgentSettings.from_config(cfg.gateway)
        self._reward_fn = None
        if self.settings.reward not in ("env", "posted"):
            self._reward_fn = agentgym.load_entry_point(self.settings.reward)
        self.token = secrets.token_urlsafe(32)
        self.gateway = Gateway(policy, limits=GatewayLimits(
            max_new_tokens=cfg.max_new_tokens, max_context_tokens=cfg.max_tokens,
            max_episodes_per_client=max(256, self.settings.concurrency)),
            temperature=cfg.temperature, top_p=cfg.top_p,
            describe_tools=self.settings.describe_tools)
        self.server = GatewayServer(self.gateway, token=self.token).start()
        self._mcp: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        self._mcp_lock = threading.Lock()  # agents of one split share one server
        self._agents: set[subprocess.Popen[bytes]] = set()
        """Agents running now: :meth:`close` kills their process groups."""
        self._agents_lock = threading.Lock()
        self._closing = False
        jailed = self.settings.sandbox == "bubblewrap" or (
            self.settings.sandbox == "auto" and sandbox_available())
        if self.settings.sandbox == "auto" and not jailed:
            logger.warning("gateway agents run without a jail (bubblewrap: %s): only their "
                           "environment, keys and process group are contained",
                           bubblewrap_works())
        self.jail = AgentJail(memory_mb=self.settings.memory_mb, binds=self.settings.binds) \
            if jailed else None

    # -- MCP env servers -----------------------------------------------------------------------

    def _mcp_url(self, split: str) -> str:
        if not self.settings.mcp:
            return ""
        with self._mcp_lock:
            return self._start_mcp(split)

    def _start_mcp(self, split: str) -> str:
        if split not in self._mcp:
            port = _free_port()
            # in the trainer's process group: a kill of the run's group ends it too
            proc = subprocess.Popen(mcp_command(self.cfg.env, port=port, split=split),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self._mcp[split] = (proc, f"http://127.0.0.1:{port}/mcp")
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise RuntimeError(f"the MCP server of {self.cfg.env} exited "
                                       f"({proc.returncode})")
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.2)
        return self._mcp[split][1]

    # -- one episode ---------------------------------------------------------------------------

    def _play(self, task_id: str, episode: str, split: str) -> tuple[str, str]:
        """Open ``episode``, run the agent in its jail, then the scorer (``reward: posted``);
        returns ``(abort reason or "", stderr tail)``."""
        try:
            keys = self.gateway.open_episode(episode, task_id=task_id, client="trainer")
        except GatewayError as e:  # the gateway's limits: an infrastructure fault, aborted
            return f"the gateway refused the episode: {e}", ""
        home = tempfile.mkdtemp(prefix="agentgym-agent-")
        try:
            env = minimal_env({
                **{k: os.environ[k] for k in self.settings.pass_env if k in os.environ},
                "OPENAI_BASE_URL": self.server.base_url(episode), "OPENAI_API_KEY": keys.agent,
                "AGENTGYM_MCP_URL": self._mcp_url(split), "AGENTGYM_TASK_ID": task_id,
                "AGENTGYM_EPISODE_ID": episode}, home)
            argv = list(self.settings.agent)
            if self.jail is not None:
                argv = self.jail.argv(argv, home)
            reason, tail = self._run_program("agent", argv, env,
                                             self.jail.preexec() if self.jail else None)
            if reason or self.settings.reward != "posted":
                return reason, tail
            scorer_env = {**os.environ, "AGENTGYM_REWARD_URL":
                          f"{self.server.url}/episodes/{episode}/reward",
                          "AGENTGYM_REWARD_KEY": keys.reward, "AGENTGYM_TASK_ID": task_id,
                          "AGENTGYM_EPISODE_ID": episode}
            reason, _ = self._run_program("scorer", list(self.settings.scorer), scorer_env, None)
            return reason, tail
        finally:
            shutil.rmtree(home, ignore_errors=True)

    def _run_program(self, what: str, argv: list[str], env: dict[str, str],
                     preexec: Any) -> tuple[str, str]:
        """Run one program in its own process group; ``(abort reason or "", stderr tail)``.

        Its stderr goes to a file, not a pipe: a child that keeps it open cannot make the
        episode wait for it. The whole group (the jail, with everything in it) is killed after.
        """
        with tempfile.TemporaryFile() as err:
            with self._agents_lock:
                if self._closing:
                    return "the run is closing", ""
                proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                        start_new_session=True, preexec_fn=preexec)
                self._agents.add(proc)
            try:
                proc.wait(timeout=self.settings.timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                proc.wait()
                return f"{what} hung: still running after {self.settings.timeout_s:g}s " \
                       "(killed)", ""
            finally:
                _kill_group(proc)  # leftovers of its process group (the jail and all in it)
                with self._agents_lock:
                    self._agents.discard(proc)
            err.seek(max(0, os.fstat(err.fileno()).st_size - 4000))
            tail = err.read().decode("utf-8", "replace")[-400:].strip()
        if proc.returncode != 0:
            return f"{what} exited with status {proc.returncode}: {tail}", tail
        return "", tail

    def _reward(self, traj: Trajectory, task_id: str,
                split: str) -> tuple[float, dict[str, Any], str]:
        """The episode's reward from the env replay or the reward function, and the reason the
        replay itself failed (empty when it did not: the episode is then aborted, not 0)."""
        if self._reward_fn is not None:
            try:
                return float(self._reward_fn(traj, task_id)), {}, ""
            except Exception as e:  # fails closed: 0, the reason kept on the trajectory
                logger.exception("gateway reward function failed; the episode scores 0")
                return 0.0, {"success": False,
                             "reward_fn_error": f"{type(e).__name__}: {e}"[:500]}, ""
        texts = traj.info.get("gateway", {}).get("texts", [])  # the model's own turns
        return replay_reward(self.cfg.env, {**self.cfg.env_kwargs, "split": split,
                                            "max_turns": self.max_turns}, task_id, texts)

    def _episode(self, task_id: str, sample: int, group: str, split: str) -> list[Trajectory]:
        episode = f"{group.replace(':', '-').replace('/', '-')}-{sample}-{secrets.token_hex(4)}"
        reason, _ = self._play(task_id, episode, split)
        trajs = self.gateway.collect(episode)
        if not trajs:
            reason = reason or "the agent made no model call"
            trajs = [Trajectory(aborted=True)]
        elif not reason:
            posted = trajs[0].reward
            for t in trajs:  # each branch scored on its own turns, never on another branch's
                reward, info, failed = ((posted, dict[str, Any](), "")
                                        if self.settings.reward == "posted"
                                        else self._reward(t, task_id, split))
                t.reward, t.step_rewards, t.terminated = reward, [reward], True
                t.info = {**info, **t.info}
                reason = reason or (f"reward replay: {failed}"[:500] if failed else "")
        for t in trajs:
            t.task_id, t.sample_idx, t.group_id, t.env_id = task_id, sample, group, self.cfg.env
            if reason:
                t.aborted, t.reason, t.reward, t.step_rewards = True, reason, 0.0, [0.0]
        return trajs

    def _run(self, jobs: list[tuple[str, int, str]], split: str) -> list[Trajectory]:
        workers = min(self.settings.concurrency, max(1, len(jobs)))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = [pool.submit(self._episode, t, i, g, split) for t, i, g in jobs]
            return [t for f in futures for t in f.result()]

    # -- the Rollouts interface ----------------------------------------------------------------

    def groups(self, task_ids: list[str], round: int,
               sizes: list[int] | None = None) -> RolloutResult:
        """``group_size`` agent episodes of each task, grouped per task."""
        t0 = time.perf_counter()
        counts = sizes if sizes is not None else [self.cfg.group_size] * len(task_ids)
        jobs = [(t, i, f"r{round}:{t}") for t, n in zip(task_ids, counts, strict=True)
                for i in range(n)]
        trajs = self._run(jobs, self.cfg.train_split)
        by_group: dict[str, list[Trajectory]] = {}
        for t in trajs:
            by_group.setdefault(t.group_id, []).append(t)
        return RolloutResult(
            groups=list(by_group.values()), seconds=time.perf_counter() - t0,
            generated_tokens=sum(t.num_generated_tokens for t in trajs),
            aborted=sum(t.aborted for t in trajs),
            extra={"branches": len(trajs), "mismatches": sum(
                len(t.info.get("gateway", {}).get("mismatches", [])) for t in trajs)})

    def play_greedy(self, task_ids: list[str], split: str) -> list[Trajectory]:
        """One greedy agent episode per task (the gateway at temperature 0): every branch."""
        saved = self.gateway.temperature
        self.gateway.temperature = 0.0
        try:
            return self._run([(t, 0, f"eval:{t}") for t in task_ids], split)
        finally:
            self.gateway.temperature = saved

    def evaluate(self, task_ids: list[str], dist_info: DistInfo) -> dict[str, float]:
        """Held-out success of the agent, greedy (the gateway forces temperature 0)."""
        t0 = time.perf_counter()
        trajs = self.play_greedy(task_ids, self.cfg.eval_split)
        firsts = {t.task_id: t for t in trajs}.values()  # one per episode (its last branch)
        done = [t for t in firsts if not t.aborted]
        wins, reward, count, aborted = all_sum(
            [sum(t.success for t in done), sum(t.reward for t in done), len(done),
             len(firsts) - len(done)], dist_info)
        return {"success_greedy": wins / count if count else 0.0,
                "reward_greedy": reward / count if count else 0.0,
                "episodes_greedy": count, "aborted_greedy": aborted,
                "eval_s": time.perf_counter() - t0}

    def close(self) -> None:
        """Kill the agents still running (their whole process groups; their episodes end
        aborted), then stop the gateway and the MCP servers."""
        with self._agents_lock:
            self._closing = True
            running = list(self._agents)
        for proc in running:
            if proc.poll() is None:
                _kill_group(proc)
        self.server.stop()
        for proc, _ in self._mcp.values():
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def play_held_out(env_id: str, policy: Policy, task_ids: list[str], *, split: str,
                  gateway: dict[str, Any], max_turns: int, max_new_tokens: int,
                  max_tokens: int, env_kwargs: dict[str, Any]) -> list[Trajectory]:
    """``agentgym eval --agent``'s collector (the ``gateway-eval`` service): one greedy
    episode per task through :class:`GatewayRollouts`, as the trainer's evaluations play them."""
    cfg = TrainConfig(env=env_id, env_kwargs=dict(env_kwargs), eval_split=split,
                      gateway=dict(gateway), max_new_tokens=max_new_tokens,
                      max_tokens=max_tokens, rollout_source="gateway")
    rollouts = GatewayRollouts(cfg, policy, max_turns)
    try:
        return rollouts.play_greedy(task_ids, split)
    finally:
        rollouts.close()


__all__ = ["GatewayRollouts", "play_held_out"]
