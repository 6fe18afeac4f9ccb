"""Every configuration the harness reads, declared in one place: training and evaluation.

    config = load_train_config("tiny", "my.yaml", {"loss.beta1": 0.75})   # profile -> file -> flags
    config = build_config(EvalConfig, {"model": "runs/ce", "k": 4})

Profiles are registered in `harness.profiles` (their YAML files in `harness/configs/`). Loading
merges the layers, checks every key, type and range (the machinery is `harness.dataclass_config`)
and builds the loss with `algorithms.get_loss`, so a bad value fails before any work starts. Each
field also declares (`harness.config_fields.param`) whether a `--resume` may change it, since when
it exists, and when it applies ("only with algo.dynamic_sampling=true"), checked once for all.
Choices that a registry defines (aggregation modes, KL estimators, schedule kinds, rollout
backends) are taken from that registry, never copied.

The loss section holds the loss's name, its hyper-parameters and, next to its coefficients, an
optional schedule of the ones it declares schedulable (CE-GPPO: beta1, beta2):

    loss: {name: ce_gppo, beta1: 0.0, beta2: 1.0, schedule: {kind: switch, step: 300, beta1: 0.5}}

Batch semantics, stated once. W = run.devices x run.num_nodes data-parallel ranks.
- rollout.prompts_per_step is global: each rank takes prompts_per_step / W of them (checked to
  divide at start-up) and rolls out rollout.group_size completions of each, so a step has
  prompts_per_step x group_size sequences in all.
- algo.mini_batches counts optimizer updates per PPO epoch: each rank splits its own rows into
  that many mini-batches and the ranks step together, so a mini-batch is global (its loss is
  normalised by global token / sequence counts). Each rank needs at least mini_batches rows.
- algo.micro_batch_size, algo.logprob_chunk and rollout.batch_size are per rank (memory bounds:
  they change no result).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import reduce
from typing import TYPE_CHECKING, Any, Literal

from algorithms.names import (
    AGG_MODES,
    FLOAT32_SAFE_RANGE,
    KL_ESTIMATOR_NAMES,
    LOSS_NAMES,
    MISMATCH_VARIANTS,
    float32_safe,
    unknown_loss,
)
from harness.common.errors import ConfigError
from harness.common.uris import DEFAULT_TRACKING_URI
from harness.config_fields import Applies, check_applies, leaf_fields, param
from harness.dataclass_config import build_config, check_sections, deep_merge, dotted_to_nested, load_yaml
from harness.profiles import EVAL_TEMPERATURE, EVAL_TOP_P, get_profile
from harness.rollout.backends import ROLLOUT_BACKENDS

if TYPE_CHECKING:
    from algorithms import CoefficientSchedule, PolicyLoss

# "Only with ...": the conditions some keys declare (harness.config_fields.Applies).
DYNAMIC_SAMPLING = Applies("algo.dynamic_sampling", "=", True)
ASYNCHRONOUS = Applies("rollout.staleness", ">=", 1)
SYNCHRONOUS = Applies(
    "rollout.staleness",
    "=",
    0,
    "with staleness the behaviour log-probs are the engine's own, and staleness_correction=decoupled "
    "(rollout.behaviour_cap) covers the mismatch",
)
FSDP = Applies("run.strategy", "=", "fsdp")
VLLM = Applies("rollout.backend", "=", "vllm")
ASYNC_RL = "abb714f"  # the commit that added asynchronous rollouts: `since` of their keys
WARM_SCHEDULE = "7eac9e1"  # the commit that added the warm start's schedule keys (issue 32): `since` of their keys
ISSUE_31 = "issue-31"  # the branch that added the 80/20 rule and the mismatch corrections (after 39eb2e8)
COUNTDOWN_SCHEMES = "countdown-pm"  # the branch that added task.countdown_scheme (after 492278a)
COUNTDOWN = Applies("task.source", "=", "countdown")


@dataclass(frozen=True)
class ModelConfig:
    name: str = "tiny"
    """Built-in model name (see `harness models`), a local Hugging Face folder, or a hub id."""
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    """Parameter dtype of the policy."""


@dataclass(frozen=True)
class WarmStartConfig:
    steps: int = param(0, ge=0)
    """Most supervised steps on the task's training split before RL (0: start RL from the model as is)."""
    batch_size: int = param(64, ge=1)
    """Prompts per supervised step."""
    lr: float = param(1e-3, gt=0)
    """Peak learning rate of the supervised phase (AdamW)."""
    warmup_steps: int = param(0, ge=0, since=WARM_SCHEDULE)
    """Steps of linear learning-rate warm-up from lr/warmup_steps to lr (0: none; docs/warm-start.md)."""
    decay: Literal["constant", "cosine"] = param("constant", since=WARM_SCHEDULE)
    """Learning rate after the warm-up: constant, or cosine from lr down to lr x min_lr_ratio at `steps`."""
    min_lr_ratio: float = param(1.0, gt=0, le=1, since=WARM_SCHEDULE)
    """Final learning rate of the cosine decay as a fraction of lr (0 .. 1]; unused by decay=constant."""
    grad_clip: float | None = param(None, gt=0, since=WARM_SCHEDULE)
    """Gradient-norm clip of each supervised step (null: none)."""
    threads: int | None = param(None, ge=1, since=WARM_SCHEDULE)
    """Torch threads during the warm start, restored afterwards (null: leave as is). Pinning them makes
    the starting policy the same whatever run.threads or the machine's cores are (docs/warm-start.md)."""
    stop_at_accuracy: float | None = param(None, ge=0, le=1)
    """Target greedy held-out accuracy: stop once reached; not reached by `steps` is an error (null: run
    all steps, no target)."""
    eval_every: int = param(25, ge=1)
    """Supervised steps between held-out accuracy checks (steps)."""
    seed: int = param(0, ge=0, le=2**32 - 1)
    """Seed of the supervised phase; fixed across RL seeds so paired runs share a start (0 .. 2**32-1)."""


@dataclass(frozen=True)
class TaskConfig:
    source: Literal["arithmetic", "countdown", "jsonl", "hf"] = "arithmetic"
    """Where prompts come from: the synthetic arithmetic or Countdown generator, a local JSONL file, or a hub
    dataset."""
    level: int = param(2, ge=1, le=4)
    """Arithmetic difficulty level (1: one-digit sums, 2: two-digit sums, 3: three-digit, 4: mixed); with
    source=countdown, how many numbers a problem gives (3 or 4)."""
    style: Literal["compact", "natural"] = "compact"
    """Arithmetic / Countdown prompt style: '07+45=', '3 5 7>22:' (compact) or a sentence (natural)."""
    countdown_scheme: Literal["full", "addsub"] = param("full", since=COUNTDOWN_SCHEMES, applies=COUNTDOWN)
    """Countdown's operations and numbers (benchmarks.families.countdown SCHEMES, named here so that loading a
    config imports no benchmark): full (+ - * /, numbers 1-15) or addsub (+ and - only, numbers 1-40; its
    benchmark is countdown_addsub)."""
    path: str | None = None
    """JSONL file (source=jsonl) or Hugging Face dataset id (source=hf)."""
    split: str = "train"
    """Dataset split for source=hf."""
    prompt_key: str = "problem"
    """Field holding the prompt text in JSONL / hub rows."""
    answer_key: str = "answer"
    """Field holding the reference answer in JSONL / hub rows."""
    heldout_size: int = param(200, ge=1)
    """Held-out problems used for accuracy before and after RL (never in the training prompts)."""
    suffix: str = ""
    """Text appended to every prompt (e.g. an instruction on the answer format)."""


@dataclass(frozen=True)
class RolloutConfig:
    backend: Literal[ROLLOUT_BACKENDS] = "hf"
    """Rollout engine: Hugging Face generate on the policy (CPU or GPU), or vLLM (optional extra) with its
    own copy of the weights, synced in memory after each step's updates; one engine per rank."""
    prompts_per_step: int = param(64, ge=1)
    """Prompts sampled per RL step (global, across all data-parallel ranks)."""
    group_size: int = param(8, ge=2)
    """Completions per prompt (G); advantages are computed within each group."""
    max_new_tokens: int = param(8, ge=1)
    """Longest completion (tokens); longer ones are cut and flagged as truncated."""
    temperature: float = param(1.0, gt=0)
    """Sampling temperature of the rollouts."""
    top_p: float = param(1.0, gt=0, le=1)
    """Nucleus sampling mass of the rollouts."""
    gen_batch_prompts: int | None = param(None, ge=1, applies=DYNAMIC_SAMPLING)
    """Prompts rolled out per generation batch with algo.dynamic_sampling (global; null: prompts_per_step). The
    official CE-GPPO recipe rolls out 256 to train on the first 128 whose answers are not all equally correct."""
    max_prompt_tokens: int | None = param(None, ge=1)
    """Longest prompt (chat-formatted tokens); longer task problems are dropped at start-up (null: whatever the
    model's context leaves beside max_new_tokens)."""
    batch_size: int = param(512, ge=1, resumable=True)
    """Sequences generated at once per rank: per `generate` call (hf), in flight (vllm max_num_seqs)."""
    tis_cap: float | None = param(None, ge=1, applies=SYNCHRONOUS)
    """Train/inference mismatch: null keeps the trainer's old log-probs as they are; C weights each token's
    loss by min(pi_old / pi_engine, C) from the engine's sampling log-probs (truncated importance sampling)."""
    mismatch: Literal[("none", *MISMATCH_VARIANTS)] = param("none", since=ISSUE_31)
    """Train/inference mismatch correction from the sampling log-probs, on fresh (vLLM, hf) and stale rollouts alike
    (algorithms.corrections.mismatch): none; token_truncate, token_mask, sequence_truncate, sequence_mask
    (per-token or whole-sequence pi_prox / pi_engine, truncated at mismatch_high or masked outside the bounds),
    icepop (tokens outside the bounds masked, the others weighted), geometric_mask (sequences whose geometric-mean
    ratio leaves the bounds masked). With staleness it replaces decoupled's weight."""
    mismatch_low: float | None = param(None, gt=0, le=1, since=ISSUE_31)
    """rollout.mismatch's lower bound (null: 1 / mismatch_high; icepop 0.5)."""
    mismatch_high: float | None = param(None, ge=1, since=ISSUE_31)
    """rollout.mismatch's upper bound (null: 2; geometric_mask 1.001; icepop 5)."""
    staleness: int = param(0, ge=0, since=ASYNC_RL)
    """Asynchronous RL (see harness.training.async_rollout): 0 rolls out, then updates, one after the other;
    K >= 1 lets a rollout worker process generate the next K steps' batches while the trainer updates, each by
    the policy exactly min(K, steps since start) updates old."""
    staleness_correction: Literal["decoupled", "behaviour"] = param("decoupled", since=ASYNC_RL, applies=ASYNCHRONOUS)
    """With staleness >= 1: decoupled PPO (AReaL) clips against the proximal policy (the trainer's weights at the
    step's start) and weights each token by min(pi_prox / pi_behaviour, behaviour_cap); behaviour clips the loss's
    ratio against the generating policy itself (no recomputed log-probs). See docs/async-rl.md."""
    behaviour_cap: float = param(2.0, ge=1, since=ASYNC_RL, applies=ASYNCHRONOUS)
    """decoupled: truncation C of the per-token weight min(pi_prox / pi_behaviour, C)."""
    worker_threads: int = param(1, ge=1, resumable=True, since=ASYNC_RL, applies=ASYNCHRONOUS)
    """With staleness >= 1: torch CPU threads of each rank's rollout worker (the trainer keeps run.threads)."""
    worker_device: str | None = param(None, resumable=True, since=ASYNC_RL, applies=ASYNCHRONOUS)
    """With staleness >= 1: where each rank's worker generates, e.g. cpu or cuda:1 (null: cpu on a CPU run, else
    the GPU after the ranks' own, cuda:{run.devices + local rank})."""
    gpu_memory_utilization: float = param(0.3, gt=0, le=1, resumable=True)
    """vllm: share of the GPU's memory its engine may take beside the trainer (colocated)."""
    kv_cache_gb: float | None = param(None, gt=0, resumable=True)
    """vllm: KV-cache size of each engine (GiB; null: from gpu_memory_utilization on a GPU, 1 on CPU)."""
    tensor_parallel_size: int = param(1, ge=1, applies=VLLM)
    """vllm: GPUs each engine shards the model over (tensor parallelism, for models too large for one)."""


@dataclass(frozen=True)
class RewardConfig:
    correct: float = 1.0
    """Reward of a correct answer."""
    incorrect: float = 0.0
    """Reward of a wrong or unparsable answer."""
    overlong_buffer: int | None = param(None, ge=1)
    """DAPO overlong shaping: length of the soft-penalty zone before max_new_tokens (tokens; null: off)."""
    grading_timeout_s: float = param(5.0, gt=0)
    """Longest time one answer may take to grade before it counts as wrong (seconds)."""
    strict: bool = True
    """Grade in strict mode: also refuse an answer left unevaluated (\\frac{24}{2}), a decimal for an exact value,
    or not in the form the question asks for; false: lenient, any equal value (see benchmarks.grading.math_grader)."""
    suspect_sample: int = param(32, ge=0, resumable=True)  # the online reward check only reads the completions
    """Completions of each step the reward-hack detectors read (seeded sample; 0: off); see
    harness.training.reward_check."""
    suspect_warn: float = param(0.25, ge=0, le=1, resumable=True)
    """Share of the checked completions flagged as suspect above which the terminal gets a warning."""


@dataclass(frozen=True)
class AlgoConfig:
    advantage: Literal["group_std", "group_mean"] = "group_std"
    """Group advantage: (R-mean)/(std+1e-6) as in GRPO, or R-mean as in Dr.GRPO."""
    agg_mode: Literal[AGG_MODES] | None = None
    """Loss aggregation (null: the loss's own default)."""
    dynamic_sampling: bool = False
    """DAPO dynamic sampling: train only on groups whose answers are not all equally correct (see
    harness.training.step_batch: generation batches of rollout.gen_batch_prompts, the first prompts_per_step kept)."""
    filter_metric: Literal["acc", "reward"] = param("acc", applies=DYNAMIC_SAMPLING)
    """Dynamic sampling: what must vary within a group to keep it: correctness (acc, as DAPO and the official
    recipes) or the shaped reward (reward: also keeps groups whose lengths differ under overlong shaping)."""
    max_gen_batches: int = param(1, ge=1, le=64, applies=DYNAMIC_SAMPLING)
    """Dynamic sampling: generation batches a step may roll out to fill prompts_per_step kept groups (at most 64:
    a policy that gets every group all right or all wrong would otherwise roll out for hours; a step that keeps
    no group makes no update and says so)."""
    positive_nll_coef: float = param(0.0, ge=0)
    """Weight of an NLL term on the rewarded responses (graded correct, reward == reward.correct), reduced like the
    policy loss and added to it; the official CE-GPPO recipe uses 0.1 (verl's actor.positive_loss_coeff)."""
    top_entropy_quantile: float | None = param(None, gt=0, le=1, since=ISSUE_31)
    """The 80/20 rule (arXiv 2506.01939, TRL's top_entropy_quantile): the share of each step's response tokens,
    those of highest entropy under the policy at the step's start, that keep the policy gradient (0.2 in the
    paper; null: all tokens). The others stay in the loss's denominator with value 0."""
    ppo_epochs: int = param(1, ge=1)
    """Passes over each rollout batch."""
    mini_batches: int = param(8, ge=1)
    """Optimizer updates per pass (the rollout batch is split into this many mini-batches)."""
    micro_batch_size: int = param(64, ge=1, resumable=True)
    """Sequences per forward/backward inside a mini-batch (gradient accumulation)."""
    logprob_chunk: int = param(64, ge=1, resumable=True)
    """Sequences per chunk when computing log-probs/entropy (bounds the [B, T, V] float32 tensor)."""
    kl_coef: float = param(0.0, ge=0)
    """Weight of the KL penalty to the reference (initial) policy; 0 turns the reference off."""
    kl_estimator: Literal[KL_ESTIMATOR_NAMES] = "k3"
    """Per-token KL estimator against the reference policy."""
    quadrant_threshold: float = param(0.5, gt=0, lt=1)
    """Token probability below which a token counts as low-probability (LP) in quadrant stats."""


@dataclass(frozen=True)
class OptimConfig:
    lr: float = param(5e-5, gt=0)
    """Peak learning rate of AdamW."""
    weight_decay: float = param(0.0, ge=0)
    """AdamW weight decay."""
    warmup_steps: int = param(0, ge=0)
    """Linear learning-rate warm-up (optimizer updates)."""
    grad_clip: float = param(1.0, gt=0)
    """Global gradient-norm clip."""


@dataclass(frozen=True)
class RunConfig:
    steps: int = param(300, ge=1, resumable=True)
    """RL steps (one rollout batch each)."""
    seed: int = param(0, ge=0, le=2**32 - 1)
    """Seed of rollouts and data order (0 .. 2**32-1, the range Lightning's seed_everything accepts)."""
    output_dir: str = "runs/train"
    """Where checkpoints, summary.json and the final model go."""
    tracking_uri: str = DEFAULT_TRACKING_URI
    """MLflow tracking URI (local SQLite store by default, or http://host:port of a server)."""
    artifact_root: str | None = param(None, resumable=True)  # an existing experiment keeps its location
    """Where a new MLflow experiment keeps its runs' files (summary.json, config.yaml, rollouts.jsonl): a folder
    (made absolute) or a URI (s3://...). null: mlartifacts/ beside a SQLite store's file, the server's own store
    for http(s)://, and for a database store (postgresql://, mysql://) mlartifacts/ beside run.output_dir. An
    existing experiment keeps the location it was created with."""
    experiment: str = "ce-gppo-harness"
    """MLflow experiment name."""
    run_name: str | None = None
    """MLflow run name (null: derived from loss and seed)."""
    tags: dict[str, str] = param(default_factory=dict, resumable=True)
    """MLflow tags set on the run when it is created (e.g. {project: betas}; the leaderboard filters on them)."""
    checkpoint_every: int = param(50, ge=1, resumable=True)
    """RL steps between checkpoints."""
    max_bad_steps: int = param(3, ge=1, resumable=True)
    """Stop after this many consecutive steps with a non-finite loss or gradient."""
    eval_every: int = param(0, ge=0, resumable=True)
    """RL steps between validation checks during training (0: only held-out accuracy before and after)."""
    eval_suite: str | None = param(None, resumable=True)
    """Benchmarks (a suite or comma-separated names) scored on a small subset at each validation check."""
    eval_limit: int = param(8, ge=1, resumable=True)
    """Problems per benchmark at each validation check."""
    eval_max_new_tokens: int = param(256, ge=1, resumable=True)
    """Longest completion at validation checks (tokens)."""
    devices: int = param(1, ge=1)
    """Processes per node, one per GPU (or CPU processes, gloo); data-parallel ranks = devices x num_nodes."""
    num_nodes: int = param(1, ge=1)
    """Machines; each runs the same command (torchrun or SLURM, see the README)."""
    strategy: Literal["auto", "ddp", "fsdp"] = "auto"
    """Data parallelism: auto (DDP with more than one rank), ddp (replicated weights), fsdp (sharded)."""
    precision: Literal["32-true", "bf16-mixed", "bf16-true", "16-mixed"] = "32-true"
    """Lightning precision (under FSDP it also sets FSDP's mixed-precision policy)."""
    fsdp_sharding: Literal["FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "NO_SHARD"] = param(
        "FULL_SHARD", applies=FSDP
    )
    """fsdp: what is sharded (HYBRID_SHARD: fully within a node, replicated across nodes)."""
    activation_checkpointing: bool = param(False, applies=FSDP)
    """fsdp: recompute each decoder layer's activations in the backward pass (less memory, more compute)."""
    accelerator: Literal["cpu", "gpu", "auto"] = "cpu"
    """Lightning accelerator."""
    threads: int = param(0, ge=0, resumable=True)
    """torch CPU threads per process (0: torch's default)."""
    rollout_samples: int = param(16, ge=0, resumable=True)
    """Rollouts (prompt, completion, reward) saved per logged step as an MLflow artifact."""


@dataclass(frozen=True)
class TrainConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    warmstart: WarmStartConfig = field(default_factory=WarmStartConfig)
    task: TaskConfig = field(default_factory=TaskConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    loss: dict[str, Any] = field(default_factory=lambda: {"name": "ce_gppo"})
    """The policy loss: `name`, its hyper-parameters (see `algorithms.get_loss`) and an optional
    `schedule` of its schedulable coefficients."""
    algo: AlgoConfig = field(default_factory=AlgoConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def __post_init__(self):
        loss_and_schedule(self.loss)
        check_float32_fields(self)
        if not self.run.output_dir.strip():
            raise ConfigError("run.output_dir='' is empty; give the run a directory of its own")
        if self.rollout.prompts_per_step * self.rollout.group_size < self.algo.mini_batches:
            raise ConfigError(
                f"algo.mini_batches={self.algo.mini_batches} exceeds the rollout batch "
                f"({self.rollout.prompts_per_step} x {self.rollout.group_size} sequences)"
            )
        check_applies(self)  # the keys that apply only with dynamic sampling, only with(out) staleness
        gen = self.rollout.gen_batch_prompts
        if gen is not None and gen < self.rollout.prompts_per_step:
            raise ConfigError(
                f"rollout.gen_batch_prompts={gen} is below rollout.prompts_per_step={self.rollout.prompts_per_step}; "
                "a generation batch must be able to fill the step"
            )
        rollout = self.rollout
        if rollout.mismatch != "none" and rollout.tis_cap is not None:
            raise ConfigError(
                f"rollout.tis_cap={rollout.tis_cap} and rollout.mismatch={rollout.mismatch} are two corrections of the "
                "same mismatch; keep one (tis_cap C is mismatch=token_truncate with mismatch_high=C)"
            )
        if rollout.mismatch != "none" and rollout.staleness and rollout.staleness_correction == "behaviour":
            raise ConfigError(
                f"rollout.mismatch={rollout.mismatch} weights pi_prox / pi_behaviour, but "
                "rollout.staleness_correction=behaviour has no pi_prox; use staleness_correction=decoupled"
            )
        if self.rollout.staleness and self.run.strategy == "fsdp":
            raise ConfigError("rollout.staleness >= 1 works with run.strategy auto or ddp, not fsdp")
        if self.run.eval_suite:
            check_suite("run.eval_suite", self.run.eval_suite)
        if self.task.source in ("jsonl", "hf") and not self.task.path:
            raise ConfigError(f"task.path is required when task.source={self.task.source!r}")


@dataclass(frozen=True)
class EvalConfig:
    model: str = "tiny"
    """Built-in model name, local model folder, training run directory, or hub id."""
    suite: str = "math"
    """Suite (math, code, if, all) or comma-separated benchmark names."""
    k: int = param(4, ge=1, le=1024)
    """Samples per problem (avg@k and pass@k; at most 1024: the paper's evaluations use up to 64)."""
    limit: int | None = param(None, ge=1)
    """Evaluate only the first N problems of each benchmark."""
    max_new_tokens: int = param(1024, ge=1)
    """Longest completion (tokens)."""
    temperature: float = param(EVAL_TEMPERATURE, ge=0)
    """Sampling temperature (0: greedy)."""
    top_p: float = param(EVAL_TOP_P, gt=0, le=1)
    """Nucleus sampling mass."""
    seed: int = param(0, ge=0, le=2**32 - 1)
    """Sampling seed (0 .. 2**32-1)."""
    batch_size: int = param(64, ge=1)
    """Sequences per generate call (hf), or in flight at once (vllm)."""
    backend: Literal[ROLLOUT_BACKENDS] = "hf"
    """Generation engine: Hugging Face generate, or vLLM (the optional `vllm` extra)."""
    output_dir: str = "runs/eval"
    """Where results.json and samples.jsonl are written."""
    data_dir: str | None = None
    """Benchmark data folder (default: $HARNESS_BENCHMARK_DIR, else the Hugging Face Hub)."""
    tracking_uri: str = DEFAULT_TRACKING_URI
    """MLflow tracking URI ('none' to skip tracking)."""
    artifact_root: str | None = None
    """Where a new MLflow experiment keeps its runs' files (results.json, samples.jsonl): a folder (made
    absolute) or a URI (s3://...). null: mlartifacts/ beside a SQLite store's file, the server's own store for
    http(s)://, and for a database store (postgresql://, mysql://) mlartifacts/ beside --output-dir."""
    experiment: str = "ce-gppo-eval"
    """MLflow experiment name."""
    lm_eval: str | None = None
    """Run this lm-eval task (comma-separated) through lm-eval's own evaluator instead."""
    tags: dict[str, str] = field(default_factory=dict)
    """MLflow tags of the evaluation run, as YAML: --tags "{project: betas, seed: 1}"."""

    def __post_init__(self):
        if self.lm_eval is None:
            check_suite("--suite", self.suite)
        elif not [task for task in self.lm_eval.split(",") if task.strip()]:
            raise ConfigError(f"--lm-eval={self.lm_eval!r} names no task")


def check_float32_fields(config: TrainConfig) -> None:
    """Every float key of a training config feeds float32 tensors (rewards, the behaviour cap, the NLL
    weight, the learning rate): a value float64 accepts but float32 turns into inf or 0 is refused here,
    with the same rule the losses apply to their parameters (algorithms.float32_safe)."""
    for key, _ in leaf_fields(type(config)):
        value = reduce(getattr, key.split("."), config)
        if isinstance(value, float) and math.isfinite(value) and not float32_safe(value):
            raise ConfigError(f"{key}={value!r} is out of float32's safe range; allowed: {FLOAT32_SAFE_RANGE}")


def check_suite(key: str, suite: str) -> None:
    from benchmarks import resolve_suite

    try:
        resolve_suite(suite)
    except ValueError as err:
        raise ConfigError(f"{key}: {err}") from None


def loss_and_schedule(section: dict) -> tuple[PolicyLoss, CoefficientSchedule | None]:
    """(the built loss, the schedule of its coefficients or None) from a loss section.

    The rules live with their owners: `algorithms.get_loss` knows the registered losses (those
    registered after import too) and their parameters' ranges, `algorithms.schedule_for` the
    schedule's kinds and step, the loss which coefficients it lets a schedule move. Here their
    refusals only get the config key they belong to. The losses (and torch) are imported here, when a
    config is built, not when the schema is read (`--help`). A name that is no built-in, while no other
    loss can have been registered (the registry is not even imported), is refused before that."""
    params = dict(section)
    name = params.pop("name", None)
    if "algorithms.loss_registry" not in sys.modules and name not in LOSS_NAMES:
        raise ConfigError(f"loss: {unknown_loss(name, LOSS_NAMES)}")
    from algorithms import get_loss, registered_losses, schedule_for

    schedule = params.pop("schedule", None)
    try:
        loss = get_loss(name, **params)
    except (TypeError, ValueError) as err:
        where = f"loss {name}" if name in registered_losses() else "loss"
        raise ConfigError(f"{where}: {err}") from None
    if schedule is None:
        return loss, None
    if not isinstance(schedule, dict):
        raise ConfigError(f"loss.schedule must be a section (kind, step and target values), got {schedule!r}")
    targets = dict(schedule)
    kind, step = targets.pop("kind", "constant"), targets.pop("step", 0)
    try:
        return loss, schedule_for(loss, kind, step, **targets)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"loss.schedule: {err}") from None


def load_train_config(
    profile: str | None = None,
    config_file: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> TrainConfig:
    """Profile defaults, then a YAML file, then dotted overrides (`{"loss.beta1": 0.75}`)."""
    layers = []
    if profile is not None:
        layers.append(load_yaml(get_profile(profile).config_file))
    if config_file is not None:
        layers.append(load_yaml(config_file))
        check_sections(TrainConfig, layers[-1], f"config file {config_file}")
    overrides = dict(overrides or {})
    new_loss = overrides.pop("loss", None)
    nested = dotted_to_nested(overrides)
    if new_loss is not None:
        if not isinstance(nested.get("loss", {}), dict):
            raise ConfigError("--loss takes a loss name; its parameters go in --loss.PARAM VALUE")
        nested["loss"] = {"name": new_loss, **nested.get("loss", {})}
    layers.append(nested)
    # A layer that names another loss replaces the loss section instead of merging into it, so
    # that one loss's hyper-parameters never leak into another's.
    loss: dict = {}
    for layer in layers:
        section = layer.pop("loss", None)
        if section is None:
            continue
        if not isinstance(section, dict):
            raise ConfigError(f"loss must be a section with a 'name' key, got {section!r}")
        same = section.get("name") in (None, loss.get("name"))
        loss = deep_merge(loss, section) if same else dict(section)
    return build_config(TrainConfig, *layers, {"loss": loss} if loss else {})
