"""The trainer config in sections: where each key lives, and reading sectioned or flat input.

A config file may group its keys by the part of the trainer they set::

    model: {name: smollm2-135m, device: cpu}
    rollout: {group_size: 8, max_new_tokens: 12}
    objective: {advantage: grpo, clip_eps_high: 0.28}
    learner: {lr: 2.0e-5, micro_batch_size: 16}

and an override may name a key by its section (``rollout.group_size=8``). The flat keys of
earlier configs (``group_size: 8``) are still read; one log line (INFO) names each one's section.
:data:`SECTIONS` is the one table of which section owns which key (every field of
:class:`~agentgym.trainers.config.TrainConfig` is in exactly one, a test checks it).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from agentgym import ConfigError

logger = logging.getLogger(__name__)

SECTIONS: dict[str, tuple[str, ...]] = {
    "run": ("algorithm", "phases", "env", "env_kwargs", "train_split", "steps", "seed",
            "output_dir", "torch_threads"),
    "model": ("model", "device", "dtype", "lora", "lora_r", "lora_alpha", "lora_dropout",
              "lora_target_modules", "parallel"),
    "rollout": ("rollout_source", "gateway", "policy", "weight_sync_url", "weight_sync_dir",
                "tasks_per_step", "group_size", "rollout_mode", "tree_width",
                "tree_branch_turns", "max_new_tokens", "max_turns", "max_tokens",
                "temperature", "top_p", "policy_timeout_s", "env_timeout_s",
                "episode_timeout_s", "num_envs", "env_backend", "max_batch_size",
                "summary_budget", "summary_max_tokens", "summary_max", "summary_instruction",
                "task_sampling", "dars_max_group_size", "dart_buffer", "dynamic_sampling",
                "max_refill_rounds"),
    "objective": ("advantage", "adv_eps", "advantage_scope", "loss", "loss_agg",
                  "loss_max_length", "clip_eps_low", "clip_eps_high", "kl_coef", "tis_cap",
                  "decoupled_ppo", "behav_weight_mode", "overlong_buffer", "ppo_epochs"),
    "learner": ("lr", "weight_decay", "adam_betas", "optimizer", "lr_schedule", "warmup_steps",
                "max_grad_norm", "micro_batch_size", "logprobs", "share_prompt",
                "gradient_checkpointing", "host_malloc_threshold_kb"),
    "async": ("async_rollouts", "staleness_eta", "partial_rollouts", "max_version_lag"),
    "bc": ("expert_data", "expert_failures", "bc_steps", "bc_lr", "bc_batch_size",
           "bc_optimizer", "patch_threshold", "patch_mode", "semi_gamma", "semi_w_episode",
           "semi_w_step", "semi_filter_std", "sop_eval", "eval_expert_data"),
    "selfplay": ("opponent", "opponent_pool_every", "opponent_pool_size", "eval_opponents"),
    "eval": ("eval_split", "eval_tasks", "eval_every", "eval_at_start", "eval_greedy",
             "eval_samples"),
    "checkpoint": ("save_every", "keep_checkpoints", "resume", "overwrite", "save_optimizer"),
    "logging": ("tensorboard", "wandb", "progress"),
}
"""Section -> the config keys it owns."""

ALIASES = {("model", "name"): "model", ("rollout", "mode"): "rollout_mode"}
"""Keys spelled differently inside their section (``model: {name: ...}`` sets ``model``)."""

HOME = {key: section for section, keys in SECTIONS.items() for key in keys}
"""Config key -> its section."""


def flatten_sections(data: Mapping[str, Any], *, note_flat: bool = True) -> dict[str, Any]:
    """``data`` with sections (``rollout: {...}``) and dotted keys (``rollout.x``) made flat.

    A section key whose value is not a mapping is a plain key (``model: smollm2-135m`` is the
    model's name). A key inside a section that the section does not own is refused, naming the
    section that does. Flat keys pass through, and each logs one line naming its section
    (``note_flat``); a key set both flat and in its section is refused.
    """
    flat: dict[str, Any] = {}
    origin: dict[str, str] = {}
    moved: list[str] = []

    def put(key: str, value: Any, where: str) -> None:
        if key in flat and origin[key] != where:
            raise ConfigError(f"{key} is set twice: as {origin[key]} and as {where}")
        flat[key], origin[key] = value, where

    for key, value in data.items():
        section, dot, inner = key.partition(".")
        if dot:  # rollout.group_size=8
            put(_owned(section, inner), value, key)
        elif key in SECTIONS and isinstance(value, Mapping):
            for inner_key, inner_value in value.items():
                put(_owned(key, str(inner_key)), inner_value, f"{key}.{inner_key}")
        else:
            if key in HOME:
                moved.append(f"{key} -> {HOME[key]}.{_spelling(HOME[key], key)}")
            put(key, value, key)
    if note_flat and moved:  # one line for the whole file, never one per key
        logger.info("config: %d flat keys read; their sections: %s", len(moved), ", ".join(moved))
    return flat


def _spelling(section: str, key: str) -> str:
    """How ``key`` is written inside ``section``."""
    return next((inner for (sec, inner), field in ALIASES.items()
                 if sec == section and field == key), key)


def _owned(section: str, inner: str) -> str:
    """The field ``section.inner`` sets; a clear error when the section does not own it."""
    if section not in SECTIONS:
        raise ConfigError(f"unknown config section {section!r}; sections: "
                          f"{', '.join(SECTIONS)}")
    key = ALIASES.get((section, inner), inner)
    if key not in SECTIONS[section]:
        home = HOME.get(key)
        hint = f"; {key} belongs to {home}" if home else ""
        raise ConfigError(f"{section}.{inner} is not a key of section {section}{hint}")
    return key


def to_sections(flat: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A flat config mapping grouped by section (the layout of a sectioned config file)."""
    out: dict[str, dict[str, Any]] = {section: {} for section in SECTIONS}
    for key, value in flat.items():
        section = HOME[key]
        out[section][_spelling(section, key)] = value
    return {section: values for section, values in out.items() if values}


__all__ = ["ALIASES", "HOME", "SECTIONS", "flatten_sections", "to_sections"]
