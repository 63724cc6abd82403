"""The trainer's configuration: one dataclass, every field documented, YAML plus CLI overrides.

Values are resolved in this order, later ones winning:

1. the dataclass defaults below;
2. the preset of the chosen ``algorithm`` (``grpo``, ``dr_grpo``, ``dapo``, ``gspo``, or one a
   plugin registered through ``agentgym_register_trainers`` with ``preset={...}``);
3. the YAML file;
4. ``key=value`` overrides from the command line (values parsed as YAML: ``lr=3e-6``,
   ``lora=true``, ``lora_target_modules=[q_proj,v_proj]``).

>>> cfg = load_config(None, ["algorithm=dapo", "steps=5"])
>>> cfg.loss_agg, cfg.clip_eps_high, cfg.dynamic_sampling, cfg.steps
('token_mean', 0.28, True, 5)
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentgym import ConfigError, get_registry
from agentgym.rollout import SummaryConfig
from agentgym.settings import parse_overrides, read_config_file, read_settings, resolve_max_turns

from .config_sections import flatten_sections
from .schedule import resolve_phases


@dataclass
class TrainConfig:
    """Everything a GRPO-family run needs; see ``docs/training.md`` for worked examples."""

    # -- what to train on ----------------------------------------------------------------------
    algorithm: str = "grpo"
    """The learning phase's algorithm (``agentgym_register_trainers``): grpo, dr_grpo, dapo,
    gspo, rloo...; ``bc_grpo`` and ``semi_online`` as before (see ``phases``)."""
    phases: list[Any] = field(default_factory=list)
    """The phase schedule, e.g. ``[{bc: 4}, {grpo: 8}]``: an optional behaviour-cloning phase
    then one learning phase (:mod:`agentgym.trainers.schedule`). It sets ``algorithm``,
    ``bc_steps`` and ``steps``; empty = those keys as given."""
    env: str = "arith/add-v0"
    """Env id or alias passed to :func:`agentgym.make`."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for the env constructor (the split is set by the trainer)."""
    train_split: str = "train"
    """Task split that rollouts sample from."""
    eval_split: str = "test"
    """Held-out split for evaluation; never trained on."""
    eval_tasks: int = 0
    """Evaluate on the first N tasks of the eval split; 0 = all of them."""
    rollout_source: str = "engine"
    """``engine`` (agentgym runs the agent loop) or ``gateway``: agent programs named in
    ``gateway`` play through an OpenAI-compatible gateway (trainers/gateway_rollouts.py)."""
    gateway: dict[str, Any] = field(default_factory=dict)
    """With ``rollout_source: gateway``: ``agent`` (command), ``reward`` (env, posted or
    module:function), ``timeout_s``, ``mcp``, ``concurrency``; see docs/gateway.md."""

    # -- model and rollout policy -------------------------------------------------------------
    model: str = "smollm2-135m"
    """Model to train: an alias known to ``agentgym.models`` or a local transformers folder."""
    policy: str = ""
    """Rollout policy spec (``vllm:<folder>``); empty = in-process ``hf`` sharing the weights."""
    weight_sync_url: str = ""
    """Reload endpoint of an inference server, when the policy has no ``reload_weights``."""
    weight_sync_dir: str = ""
    """Folder a non-shared policy reloads weights from; empty = ``<output_dir>/weights``."""
    device: str = "auto"
    """``cpu``, ``cuda``, ``cuda:1``...; ``auto`` = the local rank's CUDA device when present,
    else CPU (:func:`agentgym.settings.resolve_device` decides)."""
    dtype: str = "auto"
    """``auto`` (fp32 on CPU; on a bf16 GPU fp32 master weights with bf16 autocast), ``float32``,
    ``bfloat16`` (bf16 weights, no autocast) or ``float16``."""
    lora: bool = False
    """Train LoRA adapters through ``peft`` instead of every weight (full fine-tuning default)."""
    lora_r: int = 16
    """LoRA rank."""
    lora_alpha: int = 32
    """LoRA scaling numerator (scale = alpha / r)."""
    lora_dropout: float = 0.0
    """Dropout on the LoRA branch."""
    lora_target_modules: list[str] = field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"]
    )
    """Module names that get adapters."""
    parallel: str = "ddp"
    """With several ranks (torchrun): ``ddp`` (every rank holds the whole model) or ``fsdp``
    (FSDP2: weights, gradients and optimizer state sharded over the ranks)."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass (less memory, about 30% slower)."""
    host_malloc_threshold_kb: int = 0
    """Blocks of this many KiB and more are ``mmap``-ed and given back to the OS when freed
    (glibc's ``mallopt``, :mod:`agentgym.trainers.host_memory`); 0 keeps glibc's own rising
    threshold, under which freed activations stay resident. 1024 on a CPU: an update's peak
    5.06 -> 2.99 GiB at 1.33x its time (``benchmarks/host_malloc.py``)."""

    # -- rollouts ------------------------------------------------------------------------------
    steps: int = 30
    """Number of optimizer steps (one rollout batch each)."""
    tasks_per_step: int = 16
    """Distinct tasks (groups) per step, summed over every data-parallel rank."""
    group_size: int = 8
    """Rollouts per task (G); advantages are normalised within each group."""
    rollout_mode: str = "chain"
    """``chain``: G independent episodes per task. ``tree``: the group is grown as a tree of
    forked episodes (:mod:`agentgym.rollout.tree`): G / tree_width^len(tree_branch_turns)
    roots, each live episode forked ``tree_width`` ways after each turn in
    ``tree_branch_turns``, shared prefixes trained once
    (:mod:`agentgym.trainers.tree_advantages`)."""
    tree_width: int = 2
    """Tree rollouts: copies each live episode forks into at a branch turn."""
    tree_branch_turns: list[int] = field(default_factory=lambda: [1])
    """Tree rollouts: the turns after which every live episode forks."""
    max_new_tokens: int = 12
    """Most tokens the model generates per turn."""
    max_turns: int | None = None
    """Model turns per episode; unset = the env spec's limit (or
    :data:`agentgym.settings.DEFAULT_MAX_TURNS` when it has none)."""
    max_tokens: int = 2048
    """Longest whole episode in tokens (prompt, generated and env); reaching it truncates."""
    temperature: float = 1.0
    """Sampling temperature of training rollouts."""
    top_p: float = 1.0
    """Nucleus sampling mass of training rollouts (1.0 = off)."""
    policy_timeout_s: float = 300.0
    """Longest wait for one policy generation before the episode is aborted."""
    env_timeout_s: float = 60.0
    """Longest wait for one env reset or step before the episode is aborted."""
    episode_timeout_s: float = 600.0
    """Wall-clock limit of one episode (reaching it truncates the episode)."""
    num_envs: int = 32
    """Env instances in the rollout pool (episodes run concurrently up to this many)."""
    env_backend: str = "asyncio"
    """Where env workers run: ``asyncio`` (threads of this process) or ``ray`` (Ray actors;
    started on first use, or the cluster of ``RAY_ADDRESS``)."""
    max_batch_size: int = 64
    """Most concurrent requests the in-process policy batches into one ``generate``."""

    # -- summarised context (SUPO; agentgym/rollout/summary.py) ------------------------------
    summary_budget: int = 0
    """Context length in tokens past which the policy writes a summary that replaces the history
    (task + summary, then the episode goes on); 0 = off. Every context is trained, each with
    the episode's advantage."""
    summary_max_tokens: int = 128
    """Most tokens of one summary."""
    summary_max: int = 4
    """Summaries per episode; reaching the budget once more truncates the episode."""
    summary_instruction: str = ""
    """The summary request; empty = :data:`agentgym.rollout.summary.INSTRUCTION`."""

    # -- advantages and loss -------------------------------------------------------------------
    advantage: str = "grpo"
    """Advantage estimator registered as ``advantage/<name>``: grpo, dr_grpo."""
    adv_eps: float = 1e-6
    """Added to the group std before dividing (GRPO)."""
    advantage_scope: str = "group"
    """``group``: normalise within each task's group (every agent together); ``agent``: Dr.
    MAS's agent-wise normalisation, within each (group, seat) pair (multi-agent seat envs)."""

    # -- multi-agent seat envs (trainers/selfplay.py) ------------------------------------------
    opponent: str = ""
    """Who plays the other seats: "" (the env's default), ``scripted``, ``random``, ``self``
    (the live policy: self-play) or ``pool`` (scripted + frozen past checkpoints)."""
    opponent_pool_every: int = 5
    """With ``opponent: pool``: steps between checkpoints added to the pool."""
    opponent_pool_size: int = 3
    """With ``opponent: pool``: most frozen checkpoints kept (the oldest leaves first)."""
    eval_opponents: list[str] = field(default_factory=list)
    """Held-out win rate (and Elo) against each: ``scripted``, ``random``, ``start`` (the weights
    before training), ``self``."""
    loss: str = "ppo_clip"
    """Policy loss registered as ``loss/<name>``: ppo_clip, gspo."""
    loss_agg: str = "seq_mean_token_mean"
    """Reduction: seq_mean_token_mean (GRPO), token_mean (DAPO), seq_mean_token_sum_norm (Dr.)."""
    loss_max_length: int = 0
    """Dr. GRPO's constant normaliser; 0 = ``max_new_tokens * max_turns``."""
    clip_eps_low: float = 0.2
    """Lower clip range: the ratio is clipped at ``1 - clip_eps_low``."""
    clip_eps_high: float = 0.2
    """Upper clip range (DAPO clip-higher uses 0.28)."""
    kl_coef: float = 0.0
    """Weight of the k3 KL penalty to the frozen initial model; 0 = off (no reference kept)."""
    tis_cap: float = 0.0
    """Truncated importance sampling cap C in ``min(pi_old/pi_behav, C)``; 0 = off."""
    decoupled_ppo: bool = False
    """Decoupled PPO (AReaL): recompute the proximal policy's log-probs before each update and
    clip against them; the behaviour weight ``pi_prox/pi_behav`` is capped at ``tis_cap``
    (trainers/offpolicy.py)."""
    behav_weight_mode: str = "cap"
    """Behaviour weights above ``tis_cap``: ``cap`` (truncated at C) or ``mask`` (token dropped;
    recomputes the proximal log-probs like ``decoupled_ppo``)."""
    max_version_lag: int = -1
    """Drop tokens generated more than this many policy versions before the trainer's; -1 = keep
    all (asynchronous rollouts record each token's version)."""
    async_rollouts: bool = False
    """Roll out on a background thread while the trainer updates (trainers/async_grpo.py); the
    generator runs up to ``staleness_eta`` steps ahead."""
    staleness_eta: int = 0
    """AReaL's staleness bound eta: at most ``(eta + v + 1) * B`` episodes started at trainer
    version v (trainers/staleness.py); 0 = synchronous."""
    partial_rollouts: int = 0
    """APRIL (needs ``async_rollouts``): spare groups started per step; once ``tasks_per_step``
    groups are complete the rest stop between turns and continue first next step; 0 = off."""
    task_sampling: str = "uniform"
    """Task order: ``uniform`` (seeded epochs) or ``vade`` (Thompson draws from each task's Beta
    posterior of success, most informative tasks first; trainers/curation.py)."""
    dars_max_group_size: int = 0
    """DARS: hard tasks get up to this many rollouts (0 = every task gets ``group_size``)."""
    dart_buffer: int = 0
    """DART: successes kept per rarely-solved task and mixed into its all-fail groups; 0 = off."""
    dynamic_sampling: bool = False
    """DAPO: drop groups whose rewards are all equal and roll out more tasks to refill."""
    max_refill_rounds: int = 3
    """Most extra rollout rounds per step when dynamic sampling refills the batch."""
    overlong_buffer: int = 0
    """DAPO overlong shaping buffer in tokens; 0 = off, -1 = a fifth of the max response length."""
    ppo_epochs: int = 1
    """Passes over each rollout batch; above 1 the old log-probs are recomputed once first."""

    # -- behaviour cloning and semi-online RL (trainers/bc.py, trainers/semionline.py) ------------
    expert_data: str = ""
    """Expert trajectories (store folder or JSONL, agentgym.rollout.experts); empty = record
    the env's scripted expert on ``train_split`` into ``<output_dir>/experts`` once."""
    expert_failures: bool = False
    """Keep the expert episodes that did not succeed too (a game's draws: the scripted player
    against itself shows blocking, which its wins against a random player rarely need)."""
    bc_steps: int = 0
    """Behaviour-cloning steps run first (they count in ``steps``); 0 = no warm-up."""
    bc_lr: float = 1e-4
    """Learning rate of the behaviour-cloning steps."""
    bc_batch_size: int = 16
    """Expert trajectories per behaviour-cloning step."""
    bc_optimizer: str = "reset"
    """What the first step after the warm-up starts from: ``reset`` (fresh AdamW moments, as an
    RL run started from the BC checkpoint would) or ``keep`` (BC's moments carry on, so BC's
    momentum keeps moving the weights even through RL steps without a gradient; the runs
    documented before 2026-11-26 were made this way)."""
    patch_threshold: int = 2
    """Semi-online: patch a mismatched step while error_num < this; 0 = never, -1 = always."""
    patch_mode: str = "thought_free"
    """Semi-online patch variant: thought_free, off_policy or on_policy."""
    semi_gamma: float = 0.5
    """Semi-online discount of the step returns."""
    semi_w_episode: float = 1.0
    """Semi-online weight of the episode-level advantage."""
    semi_w_step: float = 1.0
    """Semi-online weight of the step-level advantage."""
    semi_filter_std: float = 0.3
    """Semi-online: keep a task only if its step-0 returns' std exceeds this; -1 = keep all."""
    sop_eval: bool = False
    """Also report SOP (TSR, PG) on the eval split's expert trajectories at each evaluation."""
    eval_expert_data: str = ""
    """Expert trajectories of ``eval_split`` for SOP; empty = record the scripted expert."""

    # -- optimisation ---------------------------------------------------------------------------
    lr: float = 1e-5
    """Peak learning rate (AdamW)."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    adam_betas: list[float] = field(default_factory=lambda: [0.9, 0.99])
    """AdamW betas."""
    optimizer: str = "adamw"
    """``adamw`` (torch's, fp32 moments: twice the weights) or ``adamw8bit`` (bitsandbytes'
    block-wise 8-bit moments: half the weights; for runs that must fit a memory bound)."""
    lr_schedule: str = "constant"
    """``constant``, ``linear`` (decay to 0) or ``cosine``, after the warm-up."""
    warmup_steps: int = 0
    """Linear warm-up steps."""
    max_grad_norm: float = 1.0
    """Gradient clipping norm; 0 = no clipping."""
    micro_batch_size: int = 16
    """Trajectories per forward/backward pass; gradients accumulate over the whole batch."""
    logprobs: str = "auto"
    """How the update gets token log-probs: ``chunked`` (from the final hidden states and the LM
    head, a chunk of tokens at a time, never the whole ``(B, T, V)`` logits; see
    trainers/head_logprobs.py), ``full`` (the model's logits) or ``auto`` (chunked where the
    model's head is a plain linear layer, else full)."""
    share_prompt: str = "auto"
    """Run each group's common prompt once per micro-batch in the update (exact): ``true``,
    ``false`` or ``auto`` (on for CPU, where it is 1.8x faster; off on GPUs, where the extra
    kernel launches make it slower). Always off with gradient checkpointing."""

    # -- evaluation, checkpoints, logging -----------------------------------------------------
    eval_every: int = 10
    """Evaluate on the held-out split every N steps (and after the last); 0 = never."""
    eval_at_start: bool = True
    """Evaluate the untrained model before step 1."""
    eval_greedy: bool = True
    """Run a greedy (temperature 0) pass in each evaluation."""
    eval_samples: int = 1
    """Sampled passes (at the training temperature) per eval task; 0 = greedy only."""
    output_dir: str = "runs/grpo"
    """Run folder: checkpoints, TensorBoard events, metrics.jsonl, report.png."""
    save_every: int = 1
    """Checkpoint every N steps (and after the last); 0 = only at the end."""
    keep_checkpoints: int = 2
    """Newest checkpoints kept on disk."""
    resume: bool = False
    """Continue from the newest checkpoint in ``output_dir`` (the CLI's ``--resume``)."""
    overwrite: bool = False
    """Replace an earlier run in ``output_dir`` (the CLI's ``--overwrite``); without it or
    ``resume`` a folder that already holds a run is refused."""
    save_optimizer: bool = True
    """Keep the optimizer state (twice the weights with AdamW) in the newest checkpoint, so a
    resumed run continues exactly; older kept checkpoints hold weights only. False: weights only
    everywhere (a resumed run restarts the optimizer's moments)."""
    seed: int = 0
    """Seed of the task order, sampling, dropout and initialisation."""
    tensorboard: bool = True
    """Write TensorBoard events under ``output_dir/tb``."""
    wandb: bool = False
    """Also log to Weights & Biases (needs ``wandb`` installed and configured)."""
    progress: bool = True
    """Show a rich progress bar on stderr."""
    torch_threads: int = 0
    """``torch.set_num_threads`` for CPU runs; 0 = leave torch's default."""

    def __post_init__(self) -> None:
        for name in POSITIVE:
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in NON_NEGATIVE:
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be 0 or more, got {getattr(self, name)}")
        if self.max_turns is not None:
            resolve_max_turns(self.max_turns, None)  # the one check: an integer of at least 1
        if self.lr <= 0:
            raise ConfigError(f"lr must be positive, got {self.lr}")
        if self.advantage_scope not in ("group", "agent"):
            raise ConfigError(f"advantage_scope must be group or agent, not "
                              f"{self.advantage_scope!r}")
        if self.behav_weight_mode not in ("cap", "mask"):
            raise ConfigError(
                f"behav_weight_mode must be cap or mask, not {self.behav_weight_mode!r}")
        if self.behav_weight_mode == "mask" and self.tis_cap <= 0:
            raise ConfigError("behav_weight_mode=mask needs tis_cap > 0 (the weight above which "
                              "tokens are dropped)")
        if self.optimizer not in ("adamw", "adamw8bit"):
            raise ConfigError(f"optimizer must be adamw or adamw8bit, not {self.optimizer!r}")
        if self.bc_optimizer not in ("reset", "keep"):
            raise ConfigError(f"bc_optimizer must be reset or keep, not {self.bc_optimizer!r}")
        if self.task_sampling not in ("uniform", "vade"):
            raise ConfigError(f"task_sampling must be uniform or vade, not {self.task_sampling!r}")
        if self.max_version_lag < -1:
            raise ConfigError(
                f"max_version_lag must be -1 (off) or more, got {self.max_version_lag}")
        if self.rollout_source not in ("engine", "gateway"):
            raise ConfigError(f"rollout_source must be engine or gateway, not "
                              f"{self.rollout_source!r}")
        if self.rollout_source == "gateway" and self.async_rollouts:  # docs/gateway.md
            raise ConfigError("rollout_source: gateway runs with the synchronous trainer only "
                              "(async_rollouts: false); async_rollouts needs rollout_source: "
                              "engine")
        if self.rollout_source == "gateway" and self.summary_budget:
            raise ConfigError("summary_budget (summarised context) needs rollout_source: engine; "
                              "an external agent keeps its own history through the gateway")
        if self.rollout_mode not in ("chain", "tree"):
            raise ConfigError(f"rollout_mode must be chain or tree, not {self.rollout_mode!r}")
        if self.rollout_mode == "tree":
            self._check_tree()
        if self.env_backend not in ("asyncio", "ray"):
            raise ConfigError(f"env_backend must be asyncio or ray, not {self.env_backend!r}")
        if self.partial_rollouts and not self.async_rollouts:
            raise ConfigError("partial_rollouts needs async_rollouts: true (with staleness_eta: 0 "
                              "the schedule stays synchronous)")
        if self.summary_budget:
            self.summary_config()  # the one check of the summary settings
        if self.resume and self.overwrite:
            raise ConfigError("resume and overwrite exclude each other")

    def _check_tree(self) -> None:
        """Tree rollouts: a shape that fits the group, and the parts they cannot run with."""
        from agentgym.rollout import TreeShape

        TreeShape.for_group(self.group_size, self.tree_width, tuple(self.tree_branch_turns))
        clash = [name for name, on in (
            ("rollout_source: gateway", self.rollout_source == "gateway"),
            ("async_rollouts", self.async_rollouts), ("summary_budget", self.summary_budget),
            ("env_backend: ray", self.env_backend == "ray"),
            ("dars_max_group_size", self.dars_max_group_size)) if on]
        if clash:
            raise ConfigError(f"rollout_mode: tree does not run with {', '.join(clash)}")

    def summary_config(self) -> SummaryConfig | None:
        """The rollouts' summarised-context setting (None when ``summary_budget`` is 0)."""
        if not self.summary_budget:
            return None
        extra = {"instruction": self.summary_instruction} if self.summary_instruction else {}
        return SummaryConfig(budget=self.summary_budget, max_tokens=self.summary_max_tokens,
                             max_summaries=self.summary_max, **extra)

    def resolved_max_turns(self, spec_max_turns: int | None) -> int:
        """The turn limit: this config's, else the env spec's, else agentgym's default."""
        return resolve_max_turns(self.max_turns, spec_max_turns)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (YAML-safe)."""
        return dataclasses.asdict(self)


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
POSITIVE = ("steps", "tasks_per_step", "group_size", "max_new_tokens", "max_tokens", "num_envs",
            "max_batch_size", "micro_batch_size", "ppo_epochs", "lora_r")
"""Fields that must be at least 1."""
NON_NEGATIVE = ("eval_every", "eval_tasks", "eval_samples", "save_every",
                "keep_checkpoints", "warmup_steps", "max_refill_rounds", "kl_coef", "tis_cap",
                "torch_threads", "weight_decay", "max_grad_norm", "loss_max_length",
                "staleness_eta", "dars_max_group_size", "dart_buffer", "partial_rollouts",
                "summary_budget", "host_malloc_threshold_kb")
"""Fields that must be 0 or more (0 usually means off or the default)."""


def preset(algorithm: str) -> dict[str, Any]:
    """Config values preset by the trainer registered as ``algorithm``."""
    entry = get_registry("trainers").get(algorithm)
    return dict(entry.extra.get("preset", {}))


def _coerce(name: str, value: Any) -> Any:
    default = getattr(TrainConfig(), name)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, got {value!r}")
        return value
    if isinstance(default, float) and isinstance(value, int):
        return float(value)
    if isinstance(default, float) and isinstance(value, str):
        try:
            return float(value)  # YAML reads "1e-5" as a string
        except ValueError as e:
            raise ConfigError(f"{name} must be a number, got {value!r}") from e
    if isinstance(default, str) and isinstance(value, bool):
        return "true" if value else "false"  # YAML reads true/false as booleans
    if default is not None and not isinstance(value, type(default)):
        raise ConfigError(f"{name} must be {type(default).__name__}, got {value!r}")
    return value


KEY_SYNONYMS = {"learning_rate": "lr", "max_steps": "steps", "num_generations": "group_size",
                "num_steps": "steps", "max_completion_length": "max_new_tokens"}
"""Names other trainers (TRL, cleanrl) give to a key, for the unknown-key suggestion."""


def unknown_keys_message(unknown: list[str]) -> str:
    """``unknown config keys: ...`` with the nearest real key of each (``step`` -> steps)."""
    parts = []
    for key in unknown:
        close = [KEY_SYNONYMS[key]] if key in KEY_SYNONYMS else \
            difflib.get_close_matches(key, list(FIELDS), n=1, cutoff=0.7)
        parts.append(f"{key}; did you mean {close[0]}?" if close else key)
    return f"unknown config keys: {', '.join(parts)}"


def load_config(
    path: str | Path | Mapping[str, Any] | None,
    overrides: list[str] | None = None,
    *,
    preset_values: Mapping[str, Any] | None = None,
) -> TrainConfig:
    """Build a :class:`TrainConfig` from defaults, the algorithm's preset, YAML and overrides.

    ``path`` is a YAML file or its already parsed mapping (the CLI reads the file once);
    ``preset_values`` is the chosen trainer's preset when the caller already looked it up.
    """
    # the one reader of YAML and key=value overrides; sections (rollout: {group_size: 8}) and
    # dotted keys (rollout.group_size=8) made flat, the command line's winning over the file's
    data = flatten_sections(read_settings(path, None))
    data.update(flatten_sections(read_settings({}, overrides), note_flat=False))
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ConfigError(unknown_keys_message(unknown))
    data = resolve_phases(data)  # phases: [{bc: 4}, {grpo: 8}] -> algorithm, bc_steps, steps
    algorithm = str(data.get("algorithm", TrainConfig.algorithm))
    values = dict(preset_values) if preset_values is not None else preset(algorithm)
    merged = {**values, **data}
    return TrainConfig(**{k: _coerce(k, v) for k, v in merged.items()})


def save_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write ``cfg`` as YAML."""
    Path(path).write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False), encoding="utf-8")


__all__ = ["TrainConfig", "load_config", "parse_overrides", "preset", "read_config_file",
           "save_config"]
