"""SOP (Semi-Online Performance): an offline proxy for online success (UI-S1).

The model runs on held-out expert trajectories with its own history and the expert's
observations, one greedy copy, no patching, stopping at the first mismatch
(:class:`~agentgym.rollout.semionline.SemiOnlineRollout` with ``patch_threshold=0``):

- TSR (task success rate) = share of trajectories matched at every step;
- PG (progress) = mean over trajectories of ``steps matched / steps``;
- SOP = (TSR + PG) / 2.

Report it beside the true online success on the same tasks (``agentgym eval --semi-online``,
the trainer's evaluations) so the reader sees how well it tracks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..policies.base import Policy, SamplingParams
from .experts import ExpertTrajectory
from .semionline import ActionMatcher, CopyResult, SemiOnlineRollout


def sop_metrics(results: Sequence[CopyResult]) -> dict[str, Any]:
    """TSR, PG and SOP of one copy per expert trajectory (see the module docstring)."""
    if not results:
        return {"tsr": 0.0, "pg": 0.0, "sop": 0.0, "sop_tasks": 0}
    tsr = sum(r.fully_matched for r in results) / len(results)
    pg = sum(r.matched_steps / max(r.num_expert_steps, 1) for r in results) / len(results)
    return {"tsr": tsr, "pg": pg, "sop": (tsr + pg) / 2, "sop_tasks": len(results)}


def evaluate_sop(
    policy: Policy,
    experts: Sequence[ExpertTrajectory],
    matcher: ActionMatcher,
    *,
    max_new_tokens: int = 256,
    max_tokens: int = 4096,
    seed: int = 0,
) -> dict[str, Any]:
    """Greedy, unpatched semi-online pass over ``experts``; returns TSR, PG and SOP."""
    rollout = SemiOnlineRollout(
        policy, matcher, sampling=SamplingParams(max_tokens=max_new_tokens, temperature=0.0),
        patch_threshold=0, max_tokens=max_tokens, seed=seed)
    groups = rollout.run(experts, n_copies=1)
    return sop_metrics([g[0] for g in groups])


def sop_for_tasks(
    env_id: str,
    policy_spec: str,
    task_ids: Sequence[str],
    *,
    split: str = "test",
    experts: str | None = None,
    max_new_tokens: int = 256,
    seed: int = 0,
) -> dict[str, Any]:
    """SOP of ``policy_spec`` on ``task_ids`` (``agentgym eval --semi-online``).

    ``experts`` is a store folder or demonstration JSONL; None records the env's scripted
    expert on ``split`` into a temporary folder first. Tasks without an expert are left out
    (``sop_tasks`` says how many were scored).
    """
    import tempfile

    from ..policies import load_policy
    from .experts import load_experts, record_experts
    from .semionline import matcher_for_env

    with tempfile.TemporaryDirectory(prefix="agentgym-experts-") as tmp:
        if experts is None:
            record_experts(env_id, tmp, split=split)
            experts = tmp
        by_id = {e.task_id: e for e in load_experts(experts)}
    chosen = [by_id[t] for t in task_ids if t in by_id]
    policy = load_policy(policy_spec)
    if policy.tokenizer is None:
        raise ValueError(f"SOP needs a policy with a tokenizer (hf, vllm), not {policy_spec!r}")
    matcher = matcher_for_env(env_id, {"split": split})
    try:
        return evaluate_sop(policy, chosen, matcher, max_new_tokens=max_new_tokens, seed=seed)
    finally:
        policy.close()


__all__ = ["evaluate_sop", "sop_for_tasks", "sop_metrics"]
