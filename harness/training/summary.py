"""What a finished training run reports: summary.json, the stability figures, and the terminal summary.

`stability_figures(history)` is the one definition of the figures the CE-GPPO paper discusses
(entropy, KL to the behaviour policy, gradient norm), used by summary.json, sweeps and tables:

    end_entropy       mean entropy (nats per token) over the last `tail` steps: the last tenth of
                      the run, at least 1 and at most 20 steps, which smooths step-to-step noise
    min_entropy       the lowest per-step entropy
    max_ppo_kl        the largest per-step ppo_kl (mean of old_logp - logp over tokens); mean_ppo_kl
    max_grad_norm     the largest gradient norm (before clipping) of any update
    grad_norm_spikes  steps whose largest gradient norm exceeds 5x the run's median step gradient norm
    skipped_updates   updates skipped because the loss or the gradient was not finite
    steps_without_update  steps that updated nothing: dynamic sampling kept no group
    clip_frac_low / clip_frac_high   mean share of tokens clipped below 1-eps_low (A<0) / above 1+eps_high (A>0)

and, only for runs whose loss or options have the mechanism, the mean share of tokens each other
masking / clipping mechanism took out, one figure each (ERC masks far more than PPO's clip does):

    dual_clip_frac           capped by the dual clip (A<0, r > c)
    entropy_mask_frac        outside ERC's entropy-ratio band (grpo_erc, gppo_erc)
    top_entropy_masked_frac  outside the 80/20 rule's top-entropy share (algo.top_entropy_quantile)
    cov_clip_frac / kl_cov_frac  selected by Clip-Cov / KL-Cov's covariance rule
"""

from __future__ import annotations

import shlex
import statistics
from pathlib import Path

from harness.common.uris import redact, sqlite_path, sqlite_url
from harness.training.run_dir import shown_config
from harness.training.run_environment import training_environment
from harness.training.warmstart import starting_policy, starting_policy_label

SPIKE_FACTOR = 5.0
MECHANISM_SHARES = ("dual_clip_frac", "entropy_mask_frac", "top_entropy_masked_frac", "cov_clip_frac", "kl_cov_frac")


def tail_length(steps: int) -> int:
    return max(1, min(20, steps // 10))


def stability_figures(history: list[dict]) -> dict[str, float]:
    """The stability figures of a run's per-step history (see the module docstring)."""
    if not history:
        return {}

    def column(name: str) -> list[float]:
        return [h[name] for h in history if name in h]

    entropy = column("entropy")
    grad_norm = column("grad_norm")
    grad_max = column("grad_norm_max")
    median = statistics.median(grad_norm) if grad_norm else 0.0
    figures = {
        "end_entropy": statistics.fmean(entropy[-tail_length(len(entropy)) :]) if entropy else float("nan"),
        "min_entropy": min(entropy, default=float("nan")),
        "max_ppo_kl": max(column("ppo_kl"), default=float("nan")),
        "mean_ppo_kl": statistics.fmean(column("ppo_kl")) if column("ppo_kl") else float("nan"),
        "max_grad_norm": max(grad_max, default=float("nan")),
        "grad_norm_spikes": float(sum(g > SPIKE_FACTOR * median for g in grad_max) if median > 0 else 0),
        "skipped_updates": float(sum(column("skipped_updates"))),
        "steps_without_update": float(sum(column("without_update"))),
    }
    for side in ("low", "high"):
        values = column(f"clip_frac_{side}")
        figures[f"clip_frac_{side}"] = statistics.fmean(values) if values else float("nan")
    for name in MECHANISM_SHARES:
        if column(name):
            figures[name] = statistics.fmean(column(name))
    return figures


def train_summary(config, module, logger, run_dir, warm_info, heldout_after: dict, seconds: float) -> dict:
    """The content of summary.json."""
    return {
        "config": shown_config(config),
        "mlflow_run_id": logger.run_id,
        "mlflow_experiment_id": logger.experiment_id,
        "tracking_uri": redact(config.run.tracking_uri),
        "output_dir": str(run_dir.path),
        "status": "stopped" if module.stop_reason else "completed",
        "stop_reason": module.stop_reason,
        "steps_completed": len(module.history),
        "wall_seconds": seconds,
        "warm_start": warm_info,
        "starting_policy": starting_policy(config, warm_info),
        "heldout_before": module.heldout_before,
        "heldout_after": heldout_after,
        "environment": training_environment(config, module.policy),
        "stability": stability_figures(module.history),
        "history": module.history,
    }


def mlflow_ui_hint(tracking_uri: str, experiment_id: str | None, run_id: str) -> str:
    """The exact command (or address) that shows this run in the MLflow UI, quoted for a POSIX
    shell so that it can be pasted whatever the path holds; a password shows as ***."""
    db = sqlite_path(tracking_uri)
    if db is not None:
        plain = f"sqlite:///{db}"
        store = plain if sqlite_path(plain) == db else sqlite_url(db)  # '?', '#' or '%' in the path: encoded
        return f"mlflow ui --backend-store-uri {shlex.quote(store)} --port 5000   # then open http://127.0.0.1:5000"
    if tracking_uri.startswith(("http://", "https://")):
        return f"open {redact(tracking_uri).rstrip('/')}/#/experiments/{experiment_id}/runs/{run_id}"
    return f"mlflow ui --backend-store-uri {shlex.quote(redact(tracking_uri))} --port 5000"


def _accuracy(before: dict | None, after: dict, key: str) -> str:
    start = f"{before[key]:.3f}" if before else "?"
    return f"{start} -> {after[key]:.3f}"


def print_train_summary(summary: dict, log=print) -> None:
    """The short result a user reads when `harness train` ends."""
    config, figures = summary["config"], summary["stability"]
    loss = config["loss"]["name"]
    minutes, seconds = divmod(int(summary["wall_seconds"]), 60)
    outcome = "completed" if summary["status"] == "completed" else f"STOPPED ({summary['stop_reason']})"
    out = Path(summary["output_dir"])
    before, after = summary["heldout_before"], summary["heldout_after"]
    lines = [
        f"harness train: {outcome}: {summary['steps_completed']} steps of {loss} "
        f"(seed {config['run']['seed']}) in {minutes}m{seconds:02d}s",
        f"  held-out accuracy   greedy {_accuracy(before, after, 'greedy_accuracy')}"
        f"   sampled {_accuracy(before, after, 'sampled_accuracy')}",
    ]
    if summary.get("starting_policy"):
        lines.append(f"  starting policy     {starting_policy_label(summary['starting_policy'])}")
    if figures:
        lines += [
            f"  entropy             end {figures['end_entropy']:.4f}   min {figures['min_entropy']:.4f} nats/token",
            f"  max ppo_kl {figures['max_ppo_kl']:.4g}   max grad norm {figures['max_grad_norm']:.4g}   "
            f"grad-norm spikes {figures['grad_norm_spikes']:.0f}   skipped updates {figures['skipped_updates']:.0f}",
        ]
        if figures.get("steps_without_update"):
            idle = figures["steps_without_update"]
            lines.append(f"  steps without update {idle:.0f} (dynamic sampling kept no group)")
    lines += staleness_lines(config, summary.get("history") or [])
    ui = mlflow_ui_hint(summary["tracking_uri"], summary.get("mlflow_experiment_id"), summary["mlflow_run_id"])
    lines += [
        f"  summary             {out / 'summary.json'}",
        f"  checkpoints         {out / 'checkpoints'}    final model {out / 'model'}",
        f"  MLflow run          {summary['mlflow_run_id']} in experiment {config['run']['experiment']!r} "
        f"at {summary['tracking_uri']}",
        f"  open the MLflow UI  {ui}",
    ]
    log("\n".join(lines))


def staleness_lines(config: dict, history: list[dict]) -> list[str]:
    """With rollout.staleness >= 1: the lags, the behaviour ratios and the overlap, over the run's steps."""
    bound = config["rollout"].get("staleness", 0)
    steps = [h for h in history if "staleness_mean" in h]
    if not bound or not steps:
        return []

    def mean(name: str) -> float:
        values = [h[name] for h in steps if name in h]
        return sum(values) / len(values) if values else float("nan")

    worst = max(h.get("behaviour_ratio_max", 0.0) for h in steps)
    lag_max = max(h["staleness_max"] for h in steps)
    out_low, out_high = 100 * mean("behaviour_out_low"), 100 * mean("behaviour_out_high")
    correction = config["rollout"].get("staleness_correction")
    run_steps = config.get("run", {}).get("steps", bound + 1)
    shown = f"{bound} (lags <= run.steps - 1 = {run_steps - 1})" if bound >= run_steps else f"{bound}"
    return [
        f"  staleness K={shown}       mean lag {mean('staleness_mean'):.2f}   max {lag_max:.0f}"
        f"   pi_prox/pi_behav mean {mean('behaviour_ratio_mean'):.4f} max {worst:.3g}   "
        f"outside the clip lo {out_low:.2f}% hi {out_high:.2f}%",
        f"  overlap             worker {mean('worker_seconds'):.2f} s/batch beside update "
        f"{mean('update_seconds'):.2f} s/step, waited {mean('rollout_seconds'):.2f} s/step ({correction} correction)",
    ]
