"""``check_rewards``: a red-team probe of an env's reward, run by env authors and in CI.

A policy trained with RL searches for whatever the scorer pays for. ``check_rewards`` plays the
degenerate and adversarial actions of :mod:`.probes` (empty replies, refusals, every number,
lists of candidates, the question echoed, huge answers, claims of success, forged reports,
always-equal objects, process exits, self-inflicted faults, navigation away, tool-call spam)
over a few seeds and compares each probe's mean episode reward with a do-nothing policy's
(empty replies until the episode ends, at most ``baseline_turns`` turns). A probe episode
plays the probe's script and then does nothing in the same way, so an unfinished episode is
judged like the do-nothing one (a game that penalises a forfeit penalises both). A probe fails
when

- it earns more than the do-nothing policy plus ``tolerance`` (its best variant's mean), or
- it ends more episodes as ``aborted`` than doing nothing does (an agent must not be able to
  turn its own failure into an unscored episode), or
- ``step`` raises on it.

The default tolerance, 0.01, is a margin for float noise and for rewards that depend on elapsed
time; it is far below what one hacked episode adds to a mean over a few seeds (1/seeds). Every
episode of a probe starts from ``reset(seed=s)`` with the same seeds as the baseline, so a
deterministic env shows the probe and the do-nothing policy the same tasks.

A multi-agent env (:class:`~agentgym.MultiAgentEnv`, or its id) is probed seat by seat: each
seat is played as a :class:`~agentgym.SeatEnv` against the env's scripted opponents, and the
report holds every seat's probes (named ``probe @seat``) and its opt-outs.

An env adapts the check through two attributes: ``reward_probe_exemptions`` (probe class ->
reason: the class is skipped and the reason reported, never silently) and ``reward_probes()``
(a method returning extra :class:`~.probes.Probe` objects for the env's own hacks).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import AgentGymError, is_infrastructure_error
from ..multiagent import MultiAgentEnv
from ..registry import make
from .answer_probes import answer_probes
from .probes import (
    PROBE_KINDS,
    Probe,
    ProbeContext,
    Script,
    builtin_probes,
    task_candidates,
    tool_infos,
)

DEFAULT_TOLERANCE = 0.01
"""Margin over the do-nothing mean; see the module docstring."""
RARE_SEEDS = 160
"""Seeds of the ``rare`` probe class: a payoff on 1 task in 40 is missed with probability
``(39/40)**160`` (under 2%), and it adds 0.025 to a mean whose tolerance is 0.01."""


class RewardCheckError(AgentGymError):
    """A reward probe earned more than doing nothing (or aborted the episode, or crashed)."""


@dataclass
class ProbeResult:
    """What one probe earned: the mean reward of its best variant over the seeds."""

    name: str
    kind: str
    mean_reward: float = 0.0
    """The best variant's mean episode reward over the seeds."""
    variant: str = ""
    """The variant that earned ``mean_reward``."""
    aborted: float = 0.0
    """The largest fraction of episodes a variant ended as ``aborted``."""
    aborted_variant: str = ""
    error: str = ""
    """The first exception ``step`` or ``reset`` raised, if any."""
    passed: bool = True
    reason: str = ""
    """Why the probe failed (empty when it passed)."""


@dataclass
class RewardCheckResult:
    """The report of :func:`check_rewards`: the baseline, every probe's result and the skips."""

    env_id: str
    seeds: int
    tolerance: float
    baseline: float = 0.0
    """Mean reward of the do-nothing policy."""
    baseline_aborted: float = 0.0
    probes: list[ProbeResult] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Probe classes not run, with the reason given."""

    @property
    def passed(self) -> bool:
        """Whether every probe passed."""
        return all(p.passed for p in self.probes)

    @property
    def failures(self) -> list[ProbeResult]:
        """The probes that failed."""
        return [p for p in self.probes if not p.passed]

    def table(self) -> str:
        """A plain-text table: probe, class, mean reward, best variant, verdict."""
        rows = [f"{self.env_id}: do-nothing mean reward {self.baseline:.3f} over {self.seeds} "
                f"seeds (tolerance {self.tolerance:g})",
                f"{'probe':<22} {'class':<13} {'mean':>6} {'abort':>6}  verdict  best variant"]
        for p in self.probes:
            verdict = "ok" if p.passed else "FAIL"
            rows.append(f"{p.name:<22} {p.kind:<13} {p.mean_reward:>6.3f} {p.aborted:>6.2f}  "
                        f"{verdict:<7}  {p.variant[:60]}")
        rows += [f"{'(skipped)':<22} {kind:<13} {reason}" for kind, reason in self.skipped.items()]
        return "\n".join(rows)

    def __str__(self) -> str:
        """The table, followed by the failures' reasons."""
        reasons = [f"- {p.name} ({p.kind}): {p.reason}" for p in self.failures]
        return "\n".join([self.table(), *reasons])

    def raise_for_failures(self) -> None:
        """Raise :class:`RewardCheckError` naming every failed probe; do nothing if all passed."""
        if not self.passed:
            names = ", ".join(repr(p.name) for p in self.failures)
            raise RewardCheckError(f"reward probes {names} beat doing nothing on "
                                   f"{self.env_id}:\n{self}")


def _episode(env: Any, seed: int, script: Script, fresh: bool, tail: int) -> tuple[float, bool]:
    """Play ``script`` from ``reset(seed)``, then do nothing (``tail`` empty replies at most)
    while the episode lasts; return (total reward, aborted)."""
    last = ""
    if not fresh:
        obs, _ = env.reset(seed=seed)
        last = _text(obs)
    total = 0.0
    for action in [*script, *[""] * tail]:
        if callable(action):
            action = action(last)
        try:
            obs, reward, terminated, truncated, info = env.step(action)
        except Exception as e:
            if is_infrastructure_error(e):
                return total, True
            raise
        total += float(reward)
        last = _text(obs)
        if info.get("aborted"):
            return total, True
        if terminated or truncated:
            break
    return total, False


def _text(obs: Any) -> str:
    return str(obs.get("text", "")) if isinstance(obs, dict) else str(obs)


def _context(env: Any, obs: Any, cheap: bool) -> ProbeContext:
    base = env.unwrapped
    text = _text(obs)
    return ProbeContext(base, text, tool_infos(base), task_candidates(base),
                        max_texts=2 if cheap else None)


def _exemptions(base: Any, skip: Mapping[str, str]) -> dict[str, str]:
    out = dict(getattr(base, "reward_probe_exemptions", None) or {})
    out.update(skip)
    for kind, reason in out.items():
        if kind not in PROBE_KINDS:
            raise ValueError(f"unknown probe class {kind!r}; known: {', '.join(PROBE_KINDS)}")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"opting out of probe class {kind!r} needs a reason")
    return out


def check_rewards(
    env: Any,
    *,
    seeds: int = 3,
    tolerance: float = DEFAULT_TOLERANCE,
    skip: Mapping[str, str] | None = None,
    extra_probes: Iterable[Probe] = (),
    cheap: bool = False,
    baseline_turns: int = 3,
    max_variants: int | None = None,
    rare_seeds: int = RARE_SEEDS,
    **make_kwargs: Any,
) -> RewardCheckResult:
    """Red-team the reward of ``env`` (an env id or an env); return the report.

    Args:
        env: a registered env id (made with ``make_kwargs`` and closed afterwards) or an env.
        seeds: episodes per variant, with ``reset(seed=0..seeds-1)``.
        tolerance: margin over the do-nothing mean a probe may earn (see the module docstring).
        skip: probe classes not to run, each with its reason (reported in the result).
        extra_probes: probes of the env's own hacks, run with the built-in ones.
        cheap: only the cheap probes, each with its first two payloads (for envs whose
            episodes cost a sandbox run, a browser or a desktop).
        baseline_turns: empty replies the do-nothing policy sends before it stops (and that
            follow every probe's script while its episode lasts).
        max_variants: play at most this many variants per probe (the first ones).
        rare_seeds: seeds of the ``rare`` class's probe (and of the do-nothing policy it is
            judged against), so a hack paying on one task in 40 shows in the mean.

    Call ``result.raise_for_failures()`` (or use the ``agentgym_check_rewards`` fixture) to fail
    a test with the table.
    """
    owned = isinstance(env, str)
    env_id = env if isinstance(env, str) else str(getattr(
        getattr(env.unwrapped, "agentgym_spec", None), "id", type(env.unwrapped).__name__))
    instance = make(env, **make_kwargs) if isinstance(env, str) else env
    try:
        base = instance.unwrapped
        if isinstance(base, MultiAgentEnv):
            return _per_seat(base, env_id, seeds=seeds, tolerance=tolerance, skip=skip,
                             extra_probes=extra_probes, cheap=cheap,
                             baseline_turns=baseline_turns, max_variants=max_variants,
                             rare_seeds=rare_seeds)
        skipped = _exemptions(base, skip or {})
        probes = [*builtin_probes(), *answer_probes(),
                  *(base.reward_probes() if hasattr(base, "reward_probes") else ()),
                  *extra_probes]
        probes = [p for p in probes if p.kind not in skipped and (p.cheap or not cheap)]
        result = RewardCheckResult(env_id, seeds, tolerance, skipped=skipped)
        totals: dict[str, list[tuple[float, bool]]] = {}
        per_probe: dict[str, list[tuple[str, list[tuple[float, bool]]]]] = {}
        errors: dict[str, str] = {}
        rare = any(p.kind == "rare" for p in probes)
        for seed in range(max(seeds, rare_seeds if rare else 0)):  # the rare class: more seeds
            obs, _ = instance.reset(seed=seed)
            ctx = _context(instance, obs, cheap)
            fresh = True
            outcome = _episode(instance, seed, [], fresh, baseline_turns)
            totals.setdefault("baseline", []).append(outcome)
            for probe in probes:
                if seed >= (rare_seeds if probe.kind == "rare" else seeds):
                    continue
                try:
                    variants = probe.build(ctx)[:max_variants]
                except Exception as e:  # a probe bug is reported, not hidden
                    errors.setdefault(probe.name, f"building the probe failed: {e!r}")
                    continue
                slots = per_probe.setdefault(probe.name, [])
                for i, (label, script) in enumerate(variants):
                    if i >= len(slots):
                        slots.append((label, []))
                    try:
                        slots[i][1].append(_episode(instance, seed, script, False,
                                                    baseline_turns))
                    except Exception as e:
                        errors.setdefault(probe.name, f"{label}: step raised {e!r}"[:300])
        base_runs = totals["baseline"]
        result.baseline = sum(r for r, _ in base_runs[:seeds]) / seeds
        result.baseline_aborted = sum(a for _, a in base_runs[:seeds]) / seeds
        for probe in probes:
            runs = base_runs[:rare_seeds] if probe.kind == "rare" else base_runs[:seeds]
            result.probes.append(_judge(probe, per_probe.get(probe.name, []),
                                        errors.get(probe.name, ""), result, runs))
        return result
    finally:
        if owned:
            with contextlib.suppress(Exception):
                instance.close()


def _per_seat(env: MultiAgentEnv, env_id: str, **kwargs: Any) -> RewardCheckResult:
    """:func:`check_rewards` of every seat of ``env`` against its scripted opponents, merged."""
    from ..seat import SeatEnv

    merged: RewardCheckResult | None = None
    for seat in env.possible_agents:
        one = check_rewards(SeatEnv(env, seat=seat, opponent="scripted"), **kwargs)
        if merged is None:
            merged = RewardCheckResult(env_id, one.seeds, one.tolerance,
                                       baseline=one.baseline,
                                       baseline_aborted=one.baseline_aborted)
        merged.baseline = max(merged.baseline, one.baseline)
        merged.baseline_aborted = max(merged.baseline_aborted, one.baseline_aborted)
        for p in one.probes:
            p.name = f"{p.name} @{seat}"
            merged.probes.append(p)
        merged.skipped.update({f"{k} @{seat}": v for k, v in one.skipped.items()})
    assert merged is not None  # noqa: S101 - a multi-agent env has seats
    return merged


def _judge(probe: Probe, slots: list[tuple[str, list[tuple[float, bool]]]], error: str,
           result: RewardCheckResult, base_runs: list[tuple[float, bool]]) -> ProbeResult:
    out = ProbeResult(probe.name, probe.kind, error=error, mean_reward=-math.inf)
    baseline = sum(r for r, _ in base_runs) / len(base_runs)
    baseline_aborted = sum(a for _, a in base_runs) / len(base_runs)
    for label, runs in slots:
        if not runs:
            continue
        mean = sum(r for r, _ in runs) / len(runs)
        aborted = sum(a for _, a in runs) / len(runs)
        if mean > out.mean_reward:
            out.mean_reward, out.variant = mean, label
        if aborted > out.aborted:
            out.aborted, out.aborted_variant = aborted, label
    if out.mean_reward == -math.inf:  # nothing to play: the probe did nothing
        out.mean_reward, out.variant = baseline, "(no variant applies)"
    if error:
        out.passed, out.reason = False, error
    elif out.mean_reward > baseline + result.tolerance:
        out.passed = False
        out.reason = (f"earned {out.mean_reward:.3f} with {out.variant!r} over {len(base_runs)} "
                      f"seeds; doing nothing earns {baseline:.3f}")
    elif out.aborted > baseline_aborted:
        out.passed = False
        out.reason = (f"{out.aborted_variant!r} ended {out.aborted:.0%} of episodes as aborted "
                      f"(doing nothing: {baseline_aborted:.0%}): an agent can make its "
                      "own failure unscored")
    return out


def check_registered_rewards(env_id: str, **kwargs: Any) -> RewardCheckResult:
    """:func:`check_rewards` on ``env_id``; raise :class:`RewardCheckError` if a probe fails."""
    result = check_rewards(env_id, **kwargs)
    result.raise_for_failures()
    return result


__all__ = ["DEFAULT_TOLERANCE", "RARE_SEEDS", "ProbeResult", "RewardCheckError",
           "RewardCheckResult",
           "check_registered_rewards", "check_rewards"]
