"""`harness train`: build everything from a TrainConfig, run Lightning, write summary.json.

    harness train --profile tiny --loss ce_gppo --loss.beta1 0.75 --output-dir runs/ce

The output directory holds `checkpoints/last.ckpt` (every `run.checkpoint_every` steps),
`run_state.json` (the MLflow run id, so `--resume` continues the same run), `rollouts.jsonl`,
`config.yaml`, the final `model/` and `summary.json` (resolved config, MLflow run id, held-out
accuracy before and after RL, per-step metrics).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import lightning as L
import torch
import yaml

from harness.checkpoints import StreamingCheckpointIO
from harness.config import ConfigError, to_dict
from harness.models import cache_dir, load_model
from harness.module import RLModule
from harness.progress import RLProgress
from harness.tasks import build_task
from harness.tracking import flatten, make_logger
from harness.train_config import TrainConfig
from harness.validation import ValidationCallback
from harness.warmstart import heldout_accuracy, load_or_warm_start


class TrainingStopped(RuntimeError):
    """Training ended early for a reason the user must see (e.g. repeated non-finite losses)."""


def load_policy(config: TrainConfig, task):
    dtype = getattr(torch, config.model.dtype)

    def loader(name):
        return load_model(name, dtype=dtype)

    if config.warmstart.steps > 0:
        return load_or_warm_start(loader, task, config, cache_dir())
    model, tokenizer = loader(config.model.name)
    return model, tokenizer, None


def heldout_report(module: RLModule) -> dict:
    """Greedy and sampled accuracy of the current policy on the held-out problems."""
    rollout = module.config.rollout
    problems = module.task.heldout()
    args = (module.policy, module.tokenizer, problems, rollout.max_new_tokens)
    return {
        "greedy_accuracy": heldout_accuracy(*args, greedy=True),
        "sampled_accuracy": heldout_accuracy(*args, greedy=False, temperature=rollout.temperature),
    }


def make_trainer(config: TrainConfig, output: Path, logger) -> L.Trainer:
    run = config.run
    # The policy stays in eval mode on purpose (no dropout: old and new log-probs must agree).
    warnings.filterwarnings("ignore", message=r"Found \d+ module\(s\) in eval mode")
    strategy = "auto"
    if run.devices > 1:
        from lightning.pytorch.strategies import DDPStrategy

        backend = "gloo" if run.accelerator == "cpu" else "nccl"
        strategy = DDPStrategy(process_group_backend=backend, find_unused_parameters=False)
    checkpoints = L.pytorch.callbacks.ModelCheckpoint(
        dirpath=output / "checkpoints",
        filename="step{epoch}",
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
    return L.Trainer(
        max_epochs=run.steps,
        accelerator=run.accelerator,
        devices=run.devices,
        strategy=strategy,
        logger=logger,
        callbacks=callbacks,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        log_every_n_steps=1,
        use_distributed_sampler=False,
        plugins=[StreamingCheckpointIO()],
    )


def train(config: TrainConfig, resume: bool = False) -> dict:
    """Run RL training as configured; returns the summary written to summary.json."""
    output = Path(config.run.output_dir)
    last = output / "checkpoints" / "last.ckpt"
    state_file = output / "run_state.json"
    if resume and not last.is_file():
        raise ConfigError(f"--resume: no checkpoint at {last}")
    if not resume and last.is_file():
        raise ConfigError(f"{output} already holds a run; pass --resume to continue it or choose another --output-dir")
    if config.run.threads:
        torch.set_num_threads(config.run.threads)
    output.mkdir(parents=True, exist_ok=True)
    L.seed_everything(config.run.seed, verbose=False)

    task = build_task(config.task)
    policy, tokenizer, warm_info = load_policy(config, task)
    reference = None
    if config.algo.kl_coef > 0:
        reference, _ = load_model(policy.name_or_path, dtype=policy.dtype)
        reference.requires_grad_(False).eval()
    module = RLModule(config, policy, tokenizer, task, reference)

    run_id = json.loads(state_file.read_text())["mlflow_run_id"] if resume and state_file.is_file() else None
    loss_name = config.loss["name"]
    run_name = config.run.run_name or f"{loss_name}-seed{config.run.seed}"
    logger = make_logger(config.run.tracking_uri, config.run.experiment, run_name, run_id)
    trainer = make_trainer(config, output, logger)
    if trainer.is_global_zero:
        state_file.write_text(json.dumps({"mlflow_run_id": logger.run_id}))
        if not resume:
            logger.log_hyperparams(flatten(to_dict(config)))
            (output / "config.yaml").write_text(yaml.safe_dump(to_dict(config), sort_keys=False))
            module.heldout_before = heldout_report(module)
            logger.log_metrics({f"heldout_before_{k}": v for k, v in module.heldout_before.items()}, step=0)
    trainer.fit(module, ckpt_path=str(last) if resume else None)
    if not trainer.is_global_zero:
        return {}
    return finish(config, module, logger, output, warm_info)


def finish(config: TrainConfig, module: RLModule, logger, output: Path, warm_info) -> dict:
    """Held-out accuracy after RL, final model, artifacts and summary.json (rank 0 only)."""
    after = heldout_report(module)
    last_step = module.history[-1]["step"] if module.history else 0
    logger.log_metrics({f"heldout_after_{k}": v for k, v in after.items()}, step=last_step)
    module.policy.save_pretrained(output / "model")
    module.tokenizer.save_pretrained(output / "model")
    with (output / "rollouts.jsonl").open("a") as sink:
        for row in module.rollout_log:
            sink.write(json.dumps(row) + "\n")
    summary = {
        "config": to_dict(config),
        "mlflow_run_id": logger.run_id,
        "tracking_uri": config.run.tracking_uri,
        "status": "stopped" if module.stop_reason else "completed",
        "stop_reason": module.stop_reason,
        "steps_completed": len(module.history),
        "warm_start": warm_info,
        "heldout_before": module.heldout_before,
        "heldout_after": after,
        "history": module.history,
    }
    (output / "summary.json").write_text(json.dumps(summary, indent=1))
    for name in ("summary.json", "config.yaml", "rollouts.jsonl"):
        if (output / name).is_file():
            logger.experiment.log_artifact(logger.run_id, str(output / name))
    if module.stop_reason:
        logger.finalize("FAILED")
        raise TrainingStopped(module.stop_reason)
    logger.finalize("FINISHED")
    return summary


def main() -> None:
    """`python -m harness.train` is `harness train` (used by DDP's process launcher too)."""
    from harness.cli import main as cli_main

    sys.exit(cli_main(["train", *sys.argv[1:]]))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
