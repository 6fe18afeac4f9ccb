"""`harness train`: build everything from a TrainConfig, run Lightning, end with a readable result.

    harness train --profile tiny --loss ce_gppo --loss.beta1 0.75 --output-dir runs/ce

What the output directory holds is described in `harness.training.run_dir`. The order of work is chosen
so that a mistake costs seconds and loses nothing: the config, the model's kind (a decoder-only
causal LM), the output directory and the tracking store are checked before any model is loaded;
the MLflow run is created only once the model and the task are ready; from then on every way out
(finished, stopped on non-finite losses, an exception, Ctrl-C) terminates the run with its
outcome, and a run killed with SIGKILL is marked KILLED by the next command that uses its
directory. A write that fails (a full disk) names its file: the CLI reports it in one line and
the run ends FAILED with the reason.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.utilities import rank_zero_only

from harness.common.environment import environment_tags
from harness.common.errors import ConfigError
from harness.common.files import atomic_directory, atomic_write_text, finite_or_null, naming
from harness.common.uris import MASK, redact
from harness.models import cache_dir, check_causal_lm, load_model
from harness.rollout.backends import require_backend
from harness.rollout.engine import prompt_fits
from harness.schema import TrainConfig
from harness.tasks import build_task
from harness.tracking import STARTING_POLICY_TAG, artifact_root, check_store, close_orphan, flatten
from harness.training.async_checks import check_worker_settings
from harness.training.checkpoints import StreamingCheckpointIO, steps_in
from harness.training.heldout import heldout_report
from harness.training.peer_failure import peer_failure
from harness.training.progress import RLProgress
from harness.training.rl_module import RLModule
from harness.training.run_dir import RolloutLog, RunDirectory, shown_config
from harness.training.run_environment import training_environment
from harness.training.run_logger import RunLogger
from harness.training.summary import print_train_summary, train_summary
from harness.training.validation import ValidationCallback
from harness.training.warmstart import load_or_warm_start, starting_policy, starting_policy_label


class TrainingStopped(RuntimeError):
    """Training ended early for a reason the user must see (e.g. repeated non-finite losses)."""


class StopRun(Exception):
    """Raised by a caller's callback to end a run on purpose (a sweep pruning a trial): the MLflow
    run is terminated with `status` and `reason`, and the exception reaches the caller."""

    def __init__(self, reason: str, status: str = "KILLED"):
        super().__init__(reason)
        self.reason, self.status = reason, status


def load_policy(config: TrainConfig, task, log=print):
    dtype = getattr(torch, config.model.dtype)

    def loader(name):
        return load_model(name, dtype=dtype)

    if config.warmstart.steps > 0:
        return load_or_warm_start(loader, task, config, cache_dir(), log)
    model, tokenizer = loader(config.model.name)
    return model, tokenizer, None


def check_parallel_layout(config: TrainConfig) -> None:
    """Start-up checks of the batch semantics (see harness.schema) and of the strategy choice."""
    run, rollout = config.run, config.rollout
    ranks = run.devices * run.num_nodes
    if rollout.prompts_per_step % ranks:
        raise ConfigError(
            f"rollout.prompts_per_step={rollout.prompts_per_step} is not divisible by the {ranks} data-parallel "
            f"ranks (run.devices={run.devices} x run.num_nodes={run.num_nodes}); every rank takes an equal share"
        )
    gen = rollout.gen_batch_prompts
    if gen is not None and gen % ranks:
        raise ConfigError(
            f"rollout.gen_batch_prompts={gen} is not divisible by the {ranks} data-parallel ranks; every rank rolls "
            "out an equal share"
        )
    rows = rollout.prompts_per_step // ranks * rollout.group_size
    if rows < config.algo.mini_batches:
        raise ConfigError(
            f"algo.mini_batches={config.algo.mini_batches} exceeds the {rows} sequences each of the {ranks} ranks "
            "holds per step (prompts_per_step / ranks x group_size)"
        )
    check_worker_settings(config)  # the asynchronous worker's threads and device
    if run.strategy == "fsdp" and rollout.backend != "vllm":
        raise ConfigError(
            "run.strategy=fsdp needs rollout.backend=vllm: HF generate on sharded weights would make every rank "
            "wait for the others' generation steps"
        )


def decoder_layers(policy) -> set[type]:
    """The model's repeated block classes (Hugging Face `_no_split_modules`): FSDP's wrapping units."""
    names = set(getattr(policy, "_no_split_modules", None) or [])
    layers = {type(module) for module in policy.modules() if type(module).__name__ in names}
    if not layers:
        raise ConfigError(f"run.strategy=fsdp: {type(policy).__name__} names no decoder layer class to shard by")
    return layers


def make_strategy(config: TrainConfig, policy=None):
    """Lightning's strategy for run.strategy: "auto" (one process), DDPStrategy or FSDPStrategy."""
    run = config.run
    ranks = run.devices * run.num_nodes
    kind = run.strategy if run.strategy != "auto" else ("ddp" if ranks > 1 else "auto")
    backend = "gloo" if run.accelerator == "cpu" else "nccl"
    if kind == "auto":
        return "auto"
    if kind == "ddp":
        from lightning.pytorch.strategies import DDPStrategy

        return DDPStrategy(process_group_backend=backend, find_unused_parameters=False)
    from lightning.pytorch.strategies import FSDPStrategy

    layers = decoder_layers(policy)
    return FSDPStrategy(
        process_group_backend=backend,
        sharding_strategy=run.fsdp_sharding,
        auto_wrap_policy=layers,  # one FSDP unit per decoder layer: gathered one at a time
        activation_checkpointing_policy=layers if run.activation_checkpointing else None,
        state_dict_type="full",  # checkpoints hold ordinary full tensors
        # HYBRID_SHARD: shard within a node (devices), replicate across nodes.
        device_mesh=(run.num_nodes, run.devices) if run.fsdp_sharding == "HYBRID_SHARD" else None,
    )


def make_trainer(config: TrainConfig, output: Path, logger, extra_callbacks=(), policy=None) -> L.Trainer:
    run = config.run
    # The policy stays in eval mode on purpose (no dropout: old and new log-probs must agree).
    warnings.filterwarnings("ignore", message=r"Found \d+ module\(s\) in eval mode")
    strategy = make_strategy(config, policy)
    checkpoints = L.pytorch.callbacks.ModelCheckpoint(
        dirpath=output / "checkpoints",
        filename="rl-step{epoch}",
        auto_insert_metric_name=False,
        every_n_epochs=run.checkpoint_every,
        save_top_k=1,
        save_last=True,
        save_on_train_epoch_end=True,
    )
    callbacks = [checkpoints, RLProgress(run.steps)]
    if run.eval_every:
        callbacks.append(
            ValidationCallback(run.eval_every, output, run.eval_suite, run.eval_limit, run.eval_max_new_tokens)
        )
    callbacks += list(extra_callbacks)  # after validation: they see this step's validation figures
    return L.Trainer(
        max_epochs=run.steps,
        accelerator=run.accelerator,
        devices=run.devices,
        num_nodes=run.num_nodes,
        strategy=strategy,
        precision=run.precision,
        logger=logger,
        callbacks=callbacks,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        log_every_n_steps=1,
        use_distributed_sampler=False,
        plugins=[StreamingCheckpointIO()],
    )


def close_checkpointless_run(run_dir: RunDirectory, tracking_uri: str, log=print) -> None:
    """An earlier run of this folder that died before its first checkpoint is marked KILLED.

    run_state.json holds its store's URI with the password masked: when that is this command's
    store, the URI given now (password included) connects."""
    previous = run_dir.state()
    if not previous:
        return
    stored, run_id = previous.get("tracking_uri"), previous.get("mlflow_run_id")
    uri = tracking_uri if stored in (tracking_uri, redact(tracking_uri)) else stored
    if not isinstance(uri, str) or not run_id:
        return
    if MASK in uri:
        log(f"the earlier run {run_id} in {run_dir.path} is tracked at {uri}; pass that --tracking-uri to close it")
        return
    if close_orphan(uri, run_id, "killed before a checkpoint"):
        log(f"marked the earlier run {run_id} in {run_dir.path} as KILLED (no checkpoint)")


def prepare_run_directory(config: TrainConfig, resume: bool, log=print) -> tuple[RunDirectory, Path | None, int]:
    """Claim the output directory and find what to resume: (run dir, checkpoint, steps it holds)."""
    run_dir = RunDirectory(config.run.output_dir)
    run_dir.claim()
    found = run_dir.checkpoint()
    if not resume:
        if found is not None or run_dir.has_checkpoint_files():
            raise ConfigError(
                f"{run_dir.path} already holds a run; pass --resume to continue it or choose another --output-dir"
            )
        close_checkpointless_run(run_dir, config.run.tracking_uri, log)
        return run_dir, None, 0
    if found is None:
        close_checkpointless_run(run_dir, config.run.tracking_uri, log)  # nothing can continue it: not RUNNING
        what = "only damaged checkpoints" if run_dir.has_checkpoint_files() else "no checkpoint"
        raise ConfigError(f"--resume: {run_dir.checkpoints} holds {what}; start a new run without --resume")
    checkpoint, note = found
    if note:
        log(note)
    steps_done = steps_in(checkpoint)
    run_dir.check_resumable(config, steps_done)
    return run_dir, checkpoint, steps_done


def train(
    config: TrainConfig,
    resume: bool = False,
    log=print,
    *,
    run_id: str | None = None,
    tags: dict[str, str] | None = None,
    callbacks=(),
) -> dict:
    """Run RL training as configured; returns the summary written to summary.json.

    `run_id` logs into an MLflow run the caller created (a sweep's nested trial run) instead of a
    new one; `tags` are set on a new run; `callbacks` are extra Lightning callbacks, which may end
    the run on purpose by raising `StopRun`."""
    started = time.monotonic()
    rank_zero = rank_zero_only.rank == 0  # DDP's other ranks re-run this command: they own nothing
    require_backend(config.rollout.backend)
    check_parallel_layout(config)
    task = build_task(config.task)  # a bad data file fails before anything is created
    check_causal_lm(config.model.name)  # so does an encoder or encoder-decoder model (its config only)
    run_dir, checkpoint, steps_done = (None, None, 0)
    if rank_zero:
        run_dir, checkpoint, steps_done = prepare_run_directory(config, resume, log)
        check_store(config.run.tracking_uri)
    if config.run.threads:
        torch.set_num_threads(config.run.threads)
    L.seed_everything(config.run.seed, verbose=False)

    policy, tokenizer, warm_info = load_policy(config, task, log)
    dropped = task.drop_unfit(
        prompt_fits(policy, tokenizer, config.rollout.max_new_tokens, config.rollout.max_prompt_tokens)
    )
    if dropped and rank_zero:
        log(
            f"dropped {dropped} task problems whose prompt does not fit the model's context "
            "or rollout.max_prompt_tokens"
        )
    reference = None
    if config.algo.kl_coef > 0:
        reference, _ = load_model(policy.name_or_path, dtype=policy.dtype)
        reference.requires_grad_(False).eval()

    rollout_log = RolloutLog(run_dir.rollouts_file) if rank_zero else None
    suspects_file = run_dir.suspects_file if rank_zero else None  # the online reward check's examples
    if rank_zero:
        for log_file in (run_dir.rollouts_file, run_dir.suspects_file):
            RolloutLog(log_file).restart_at(steps_done)
    module = RLModule(config, policy, tokenizer, task, reference, rollout_log, suspects_file)
    state = run_dir.state() if rank_zero and resume else None
    run_name = config.run.run_name or f"{config.loss['name']}-seed{config.run.seed}"
    resumed_run = state["mlflow_run_id"] if state else None
    identity = starting_policy(config, warm_info)  # which policy RL starts from: params, a tag, summary.json
    run_tags = {str(k): str(v) for k, v in {**config.run.tags, **(tags or {})}.items()}
    run_tags[STARTING_POLICY_TAG] = starting_policy_label(identity)
    logger = RunLogger(
        config.run.tracking_uri,
        config.run.experiment,
        run_name,
        resumed_run or run_id,
        run_tags,
        fresh=resumed_run is None,
        artifact_location=artifact_root(config.run.tracking_uri, config.run.artifact_root, config.run.output_dir),
        log=log if rank_zero else None,
    )
    try:
        trainer = make_trainer(config, Path(config.run.output_dir), logger, callbacks, policy)
        if rank_zero:
            if resume:
                logger.reopen()
            else:
                run_dir.write_state(config.run.tracking_uri, config.run.experiment, logger.run_id)
                for key, value in environment_tags(training_environment(config, policy)).items():
                    logger.experiment.set_tag(logger.run_id, key, value)  # env.*: beside every score
                logger.log_hyperparams({**flatten(shown_config(config)), **flatten({"starting_policy": identity})})
                run_dir.write_config(config)
                module.heldout_before = heldout_report(module.policy, module.tokenizer, task, config.rollout)
                logger.log_metrics({f"heldout_before_{k}": v for k, v in module.heldout_before.items()}, step=0)
        trainer.fit(module, ckpt_path=str(checkpoint) if checkpoint else None)
        if not trainer.is_global_zero:
            return {}
        summary = finish(config, module, logger, run_dir, warm_info, time.monotonic() - started)
    except StopRun as stop:
        logger.terminate(stop.status, stop.reason)
        raise
    except (KeyboardInterrupt, SystemExit):  # Lightning turns Ctrl-C and SIGTERM into SystemExit(1)
        logger.terminate("KILLED", "interrupted (Ctrl-C or SIGTERM)")
        raise KeyboardInterrupt from None  # the CLI says "interrupted" and exits 130, not 1 in silence
    except BaseException as error:
        logger.terminate("FAILED", f"{type(error).__name__}: {error}")
        peer = peer_failure(error, config.run.devices * config.run.num_nodes)  # a rank died: one line, not a traceback
        if peer is not None:
            raise peer from None
        raise
    finally:
        module.rollouts.close()  # asynchronous rollouts: no worker outlives its run, however it ended
    print_train_summary(summary, log)
    if module.stop_reason:
        raise TrainingStopped(module.stop_reason)
    return summary


def finish(config: TrainConfig, module: RLModule, logger: RunLogger, run_dir: RunDirectory, warm_info, seconds):
    """Held-out accuracy after RL, final model, artifacts, summary.json, and the run's outcome."""
    after = heldout_report(module.policy, module.tokenizer, module.task, config.rollout)
    last_step = module.history[-1]["step"] if module.history else 0
    logger.log_metrics({f"heldout_after_{k}": v for k, v in after.items()}, step=last_step)
    with naming(run_dir.model_dir), atomic_directory(run_dir.model_dir) as folder:
        module.policy.save_pretrained(folder)
        module.tokenizer.save_pretrained(folder)
    summary = train_summary(config, module, logger, run_dir, warm_info, after, seconds)
    # The stability figures as metrics too, so that leaderboards can query them without artifacts.
    logger.log_metrics({f"stability/{k}": v for k, v in summary["stability"].items()}, step=last_step)
    with naming(run_dir.summary_file):
        atomic_write_text(run_dir.summary_file, json.dumps(finite_or_null(summary), indent=1))
    with naming(logger.experiment.get_run(logger.run_id).info.artifact_uri):  # a full artifact store
        for path in (run_dir.summary_file, run_dir.config_file, run_dir.rollouts_file, run_dir.suspects_file):
            if path.is_file():
                logger.experiment.log_artifact(logger.run_id, str(path))
    if module.stop_reason:
        logger.terminate("FAILED", module.stop_reason)
    else:
        logger.terminate("FINISHED")
    return summary
