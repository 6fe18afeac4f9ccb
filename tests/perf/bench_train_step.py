"""Benchmark: one RL step of our `RLModule` against TRL's `GRPOTrainer` at identical settings, side by side.

    make perf
    .venv/bin/python tests/perf/bench_train_step.py [--steps 3] [--threads 1] [--models smol tiny-random]

For each model (SmolLM2-135M-Instruct, and a tiny random Llama using SmolLM2's tokenizer) and each
framework (ours, TRL) one training run: 1 warm-up step, then `--steps` timed steps. Both sides get
the same model weights and tokenizer, the same prompts in the same order (arithmetic level 1,
natural style, chat-formatted through the tokenizer's template), group size, temperature 1.0, top-p
1.0, no top-k, max_new_tokens, the DAPO loss (clip 0.2 / 0.28, token-mean over the batch), one
optimizer update per rollout batch (ours: mini_batches=1, ppo_epochs=1; TRL: num_iterations=1,
steps_per_generation=1), no KL / reference model, float32, no gradient checkpointing, and the same
reward (`benchmarks.grading.grade_math_batch`). Our built-in `tiny` profile (char-level model,
64 prompts x 8, 8 mini-batches) runs as an extra row without a TRL counterpart.

Printed per run (means over the timed steps): s/step (wall) and CPU s/step (process CPU time, all threads), the split
rollout / reward / update (update = the rest of the step: old log-probs, forward, backward,
optimizer, bookkeeping), mean generated length, truncated fraction, rollout tokens/s (generated
tokens / rollout s), update tokens/s (prompt + response tokens of the update / update s), RSS at the
first step and peak RSS of the process, then ratios ours / TRL. Both sides stop at EOS, so a step's
cost depends on the sampled lengths: compare tokens/s as well as s/step. Figures, not a test.
On a shared machine with other jobs on the cores, `--threads 1` gives steadier figures.

Each run is its own subprocess (`--one FRAMEWORK MODEL`) so that peak RSS (from `os.wait4`) and
caches do not leak from one run into the next.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run from a checkout without install

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))

SMOL = "smollm2-135m-instruct"
MODELS = ("smol", "tiny-random")
SEED = 0


# ---------------------------------------------------------------------------------------------- helpers
def model_path(model: str, args) -> str:
    return SMOL if model == "smol" else str(Path(args.workdir) / "tiny-random-llama")


def build_tiny_random(path: Path) -> None:
    """A randomly initialised small Llama with SmolLM2's tokenizer (fixed seed), saved as a HF folder."""
    from harness.models import build_tiny, load_model

    _, tokenizer = load_model(SMOL)
    build_tiny(path, seed=SEED, tokenizer=tokenizer)


def matched_overrides(args, steps: int) -> dict:
    """Our config for the matched comparison (smol profile as the base)."""
    n = args.prompts * args.group
    return {
        "loss": args.loss,
        "warmstart.steps": 0,
        "rollout.prompts_per_step": args.prompts,
        "rollout.group_size": args.group,
        "rollout.max_new_tokens": args.max_new_tokens,
        "rollout.temperature": 1.0,
        "rollout.top_p": 1.0,
        "rollout.batch_size": n,
        "algo.mini_batches": 1,
        "algo.ppo_epochs": 1,
        "algo.micro_batch_size": n,
        "algo.logprob_chunk": n,
        "algo.kl_coef": 0.0,
        "optim.lr": args.lr,
        "optim.warmup_steps": 0,
        "optim.grad_clip": 1.0,
        "run.steps": steps,
        "run.seed": SEED,
    }


# ---------------------------------------------------------------------------------------------- one run: ours
def run_ours(model: str, args) -> dict:
    import lightning as L
    import psutil
    import torch

    from harness.models import load_model
    from harness.module import RLModule
    from harness.schema import load_train_config
    from harness.tasks import build_task
    from harness.train import make_trainer

    steps = args.warmup + args.steps
    # No checkpoint inside the timed steps (a real run writes one every run.checkpoint_every steps).
    run = {"run.threads": args.threads, "run.checkpoint_every": 10**9, "run.rollout_samples": 0}
    if model == "tiny-profile":
        overrides = {"loss": args.loss, "warmstart.steps": 0, "run.steps": steps, "run.seed": SEED}
        config = load_train_config("tiny", None, {**overrides, **run})
    else:
        overrides = {**matched_overrides(args, steps), "model.name": model_path(model, args)}
        config = load_train_config("smol", None, {**overrides, **run})
    L.seed_everything(SEED, verbose=False)
    t0 = time.perf_counter()
    policy, tokenizer = load_model(config.model.name)
    task = build_task(config.task)
    module = RLModule(config, policy, tokenizer, task)
    load_s = time.perf_counter() - t0

    timer = {"reward": 0.0, "old_logp": 0.0}

    def timed(name, fn):
        def wrapper(*a, **k):
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                timer[name] += time.perf_counter() - start

        return wrapper

    # Instrumentation only: the same callables, timed.
    module.reward_fn = timed("reward", module.reward_fn)
    module.logprobs = timed("old_logp", module.logprobs)  # behaviour (and reference) log-probs
    records: list[dict] = []

    class StepTimer(L.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            timer.update(reward=0.0, old_logp=0.0, threads=torch.get_num_threads())
            timer["rss_start_mb"] = psutil.Process().memory_info().rss / 2**20
            timer["cpu"] = time.process_time()
            timer["start"] = time.perf_counter()

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            seconds = time.perf_counter() - timer["start"]
            cpu = time.process_time() - timer["cpu"]
            h = pl_module.history[-1]
            n_seqs = config.rollout.prompts_per_step * config.rollout.group_size
            records.append(
                {
                    "seconds": seconds,
                    "cpu_s": cpu,
                    "rollout_s": h["rollout_seconds"],
                    "reward_s": timer["reward"],
                    "old_logp_s": timer["old_logp"],
                    "harness_update_s": h["update_seconds"],
                    "rollout_tokens": h["rollout_tokens"],
                    "update_tokens": h["update_tokens"],
                    "sequences": n_seqs,
                    "truncated_frac": h["truncated_frac"],
                    "threads": timer["threads"],
                    "rss_start_mb": timer["rss_start_mb"],
                }
            )

    with tempfile.TemporaryDirectory(dir=args.workdir) as out:
        trainer = make_trainer(config, Path(out), logger=False)
        trainer.callbacks.append(StepTimer())
        trainer.fit(module)
    return {"load_s": load_s, "records": records}


# ---------------------------------------------------------------------------------------------- one run: TRL
def run_trl(model: str, args) -> dict:
    import datasets
    import psutil
    import torch
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from benchmarks.grading import grade_math_batch
    from harness.models import load_model
    from harness.rollout import chat_prompt
    from harness.schema import load_train_config
    from harness.tasks import build_task

    steps = args.warmup + args.steps
    ours = load_train_config("smol", None, matched_overrides(args, steps))
    task = build_task(ours.task)
    # Step s sees exactly our step-s prompts: the dataset is our prompt sequence, read in order.
    problems = [p for s in range(steps) for p in task.train_batch(s, args.prompts, ours.run.seed)]
    dataset = datasets.Dataset.from_list(
        [{"prompt": [{"role": "user", "content": p.prompt}], "answer": p.answer} for p in problems]
    )
    t0 = time.perf_counter()
    policy, tokenizer = load_model(model_path(model, args))
    load_s = time.perf_counter() - t0
    # Both sides must see the same prompt tokens.
    text = problems[0].prompt
    ours_ids = tokenizer(chat_prompt(tokenizer, text), add_special_tokens=False).input_ids
    trl_ids = tokenizer.apply_chat_template(
        [[{"role": "user", "content": text}]], add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"][0]
    timeout = ours.reward.grading_timeout_s

    def math_reward(completions, answer, **kwargs):
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        return [1.0 if ok else 0.0 for ok in grade_math_batch(texts, answer, timeout_s=timeout)]

    loss = ours.loss
    config = GRPOConfig(
        output_dir=str(Path(args.workdir) / "trl-out"),
        per_device_train_batch_size=args.prompts * args.group,
        gradient_accumulation_steps=1,
        steps_per_generation=1,
        num_generations=args.group,
        num_iterations=1,
        max_completion_length=args.max_new_tokens,
        temperature=1.0,
        top_p=1.0,
        top_k=0,
        loss_type="dapo",
        epsilon=loss.get("eps_low", 0.2),
        epsilon_high=loss.get("eps_high", 0.28),
        scale_rewards="group",
        beta=0.0,
        learning_rate=args.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        weight_decay=0.0,
        max_grad_norm=1.0,
        max_steps=steps,
        shuffle_dataset=False,
        gradient_checkpointing=args.trl_gradient_checkpointing,
        bf16=False,
        fp16=False,
        use_cpu=True,
        report_to="none",
        logging_strategy="no",
        save_strategy="no",
        disable_tqdm=True,
        seed=SEED,
        dataloader_num_workers=0,
    )
    timer: dict = {}

    class TimedGRPOTrainer(GRPOTrainer):
        def _generate(self, prompts):
            start = time.perf_counter()
            out = super()._generate(prompts)
            timer["rollout"] = timer.get("rollout", 0.0) + time.perf_counter() - start
            return out

        def _calculate_rewards(self, *a, **k):
            start = time.perf_counter()
            out = super()._calculate_rewards(*a, **k)
            timer["reward"] = timer.get("reward", 0.0) + time.perf_counter() - start
            return out

        def _generate_and_score_completions(self, inputs):
            start = time.perf_counter()
            out = super()._generate_and_score_completions(inputs)
            timer["score"] = timer.get("score", 0.0) + time.perf_counter() - start
            timer["rollout_tokens"] = float(out["completion_mask"].sum())
            timer["update_tokens"] = float(out["completion_mask"].sum() + out["prompt_mask"].sum())
            timer["sequences"] = int(out["completion_mask"].shape[0])
            eos = torch.tensor(self.eos_token_ids)
            ids = out["completion_ids"]
            timer["truncated_frac"] = float((~torch.isin(ids, eos).any(dim=1)).float().mean())
            return out

    records: list[dict] = []

    class StepTimer(TrainerCallback):
        def on_step_begin(self, a, state, control, **kwargs):
            timer.clear()
            timer["threads"] = torch.get_num_threads()
            timer["rss_start_mb"] = psutil.Process().memory_info().rss / 2**20
            timer["cpu"] = time.process_time()
            timer["start"] = time.perf_counter()

        def on_step_end(self, a, state, control, **kwargs):
            seconds = time.perf_counter() - timer["start"]
            cpu = time.process_time() - timer["cpu"]
            records.append(
                {
                    "seconds": seconds,
                    "cpu_s": cpu,
                    "rollout_s": timer["rollout"],
                    "reward_s": timer["reward"],
                    "score_other_s": timer["score"] - timer["rollout"] - timer["reward"],
                    "rollout_tokens": timer["rollout_tokens"],
                    "update_tokens": timer["update_tokens"],
                    "sequences": timer["sequences"],
                    "truncated_frac": timer["truncated_frac"],
                    "threads": timer["threads"],
                    "rss_start_mb": timer["rss_start_mb"],
                }
            )

    trainer = TimedGRPOTrainer(
        model=policy,
        reward_funcs=math_reward,
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=[StepTimer()],
    )
    torch.set_num_threads(args.threads)  # after Accelerate's set-up, which may change it
    trainer.train()
    return {"load_s": load_s, "records": records, "same_prompt_ids": list(ours_ids) == list(trl_ids)}


def run_one(framework: str, model: str, args) -> None:
    import torch

    torch.set_num_threads(args.threads)
    if model == "tiny-random" and not (Path(model_path(model, args)) / "config.json").is_file():
        build_tiny_random(Path(model_path(model, args)))
    if framework == "prep":
        return
    result = run_ours(model, args) if framework == "ours" else run_trl(model, args)
    Path(args.result).write_text(json.dumps(result))


# ---------------------------------------------------------------------------------------------- the parent
def child(framework: str, model: str, args, workdir: str) -> dict | None:
    """Run one configuration in a fresh process; returns its figures plus its peak RSS."""
    result = Path(workdir) / f"{framework}-{model}.json"
    log = Path(workdir) / f"{framework}-{model}.log"
    cmd = [sys.executable, __file__, "--one", framework, model, "--result", str(result), "--workdir", workdir]
    for name in ("steps", "warmup", "threads", "prompts", "group", "max_new_tokens", "loss", "lr"):
        cmd += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    if args.trl_gradient_checkpointing:
        cmd.append("--trl-gradient-checkpointing")
    start = time.perf_counter()
    with log.open("w") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-30:])
        print(f"[{framework} {model}] failed (exit {proc.returncode}); last lines of {log}:\n{tail}", file=sys.stderr)
        return None
    if framework == "prep":
        return {}
    out = json.loads(result.read_text())
    out["peak_rss_mb"] = usage.ru_maxrss / 1024  # KiB on Linux
    out["wall_s"] = wall
    return out


def summarise(run: dict, warmup: int) -> dict:
    recs = run["records"][warmup:]
    s = {
        "steps": len(recs),
        "s_step": statistics.fmean(r["seconds"] for r in recs),
        "cpu_step": statistics.fmean(r["cpu_s"] for r in recs),
        "rollout_s": statistics.fmean(r["rollout_s"] for r in recs),
        "reward_s": statistics.fmean(r["reward_s"] for r in recs),
        "gen_len": sum(r["rollout_tokens"] for r in recs) / sum(r["sequences"] for r in recs),
        "truncated": statistics.fmean(r["truncated_frac"] for r in recs),
        "peak_rss_mb": run["peak_rss_mb"],
        "rss_start_mb": run["records"][0]["rss_start_mb"],
        "threads": sorted({r["threads"] for r in recs}),
    }
    update_s = [r["seconds"] - r["rollout_s"] - r["reward_s"] for r in recs]
    s["update_s"] = statistics.fmean(update_s)
    s["rollout_tps"] = sum(r["rollout_tokens"] for r in recs) / sum(r["rollout_s"] for r in recs)
    s["update_tps"] = sum(r["update_tokens"] for r in recs) / sum(update_s)
    s["update_tokens"] = statistics.fmean(r["update_tokens"] for r in recs)
    if "old_logp_s" in recs[0]:
        s["old_logp_s"] = statistics.fmean(r["old_logp_s"] for r in recs)
        s["fwd_bwd_opt_s"] = statistics.fmean(r["harness_update_s"] - r["old_logp_s"] for r in recs)
    if "score_other_s" in recs[0]:
        s["score_other_s"] = statistics.fmean(r["score_other_s"] for r in recs)
    return s


def print_table(rows: list[tuple[str, str, dict]], args) -> None:
    head = (
        f"{'model':<12} {'framework':<9} {'s/step':>7} {'cpu s':>6} {'rollout s':>9} {'reward s':>8} {'update s':>8} "
        f"{'gen len':>7} {'trunc':>5} {'upd tok':>7} {'rollout tok/s':>13} {'update tok/s':>12} "
        f"{'RSS@start':>9} {'peak RSS MB':>11}"
    )
    print(head)
    print("-" * len(head))
    for model, framework, s in rows:
        print(
            f"{model:<12} {framework:<9} {s['s_step']:7.2f} {s['cpu_step']:6.2f} {s['rollout_s']:9.2f} "
            f"{s['reward_s']:8.3f} "
            f"{s['update_s']:8.2f} {s['gen_len']:7.1f} {s['truncated']:5.2f} {s['update_tokens']:7.0f} "
            f"{s['rollout_tps']:13.1f} {s['update_tps']:12.1f} {s['rss_start_mb']:9.0f} {s['peak_rss_mb']:11.0f}"
        )
    print()
    by = {(m, f): s for m, f, s in rows}
    models = [m for m in args.models if (m, "ours") in by and (m, "trl") in by]
    if models:
        print("ours / TRL   (time ratios < 1: ours faster; tokens/s ratios > 1: ours faster)")
        print(
            f"{'model':<12} {'s/step':>7} {'cpu s':>6} {'rollout s':>9} {'update s':>8} {'rollout tok/s':>13} "
            f"{'update tok/s':>12} {'peak RSS':>8}  target (s/step <= 1)"
        )
        for m in models:
            o, t = by[(m, "ours")], by[(m, "trl")]
            ratio = o["s_step"] / t["s_step"]
            print(
                f"{m:<12} {ratio:7.2f} {o['cpu_step'] / t['cpu_step']:6.2f} {o['rollout_s'] / t['rollout_s']:9.2f} "
                f"{o['update_s'] / t['update_s']:8.2f} "
                f"{o['rollout_tps'] / t['rollout_tps']:13.2f} {o['update_tps'] / t['update_tps']:12.2f} "
                f"{o['peak_rss_mb'] / t['peak_rss_mb']:8.2f}  {'met' if ratio <= 1 else 'NOT met'}"
            )
        print()
    print("breakdown of 'update s' (the step minus rollout and reward):")
    for model, framework, s in rows:
        if "old_logp_s" in s:
            rest = s["update_s"] - s["old_logp_s"] - s["fwd_bwd_opt_s"]
            detail = (
                f"old log-probs {s['old_logp_s']:.2f} s + forward/backward/optimizer {s['fwd_bwd_opt_s']:.2f} s "
                f"+ other {rest:.2f} s"
            )
        else:
            detail = (
                f"scoring bookkeeping {s['score_other_s']:.2f} s (padding, advantages; no old log-probs at "
                f"num_iterations=1) + forward/backward/optimizer {s['update_s'] - s['score_other_s']:.2f} s"
            )
        print(f"  {model:<12} {framework:<5} {detail}")


def parent(args) -> None:
    workdir = tempfile.mkdtemp(prefix="bench_train_step.")
    args.workdir = workdir
    plan = [(m, f) for m in args.models for f in ("ours", "trl")]
    if args.tiny_profile:
        plan.append(("tiny-profile", "ours"))
    print(
        f"RL train step, ours vs TRL {trl_version()}: {args.prompts} prompts x {args.group} completions, "
        f"max_new_tokens {args.max_new_tokens}, loss {args.loss}, 1 update per rollout batch, "
        f"torch threads {args.threads}, {args.warmup} warm-up + {args.steps} timed steps per run"
    )
    if "tiny-random" in args.models:
        child("prep", "tiny-random", args, workdir)
    rows = []
    start = time.perf_counter()
    for model, framework in plan:
        run = child(framework, model, args, workdir)
        if run is None:
            continue
        s = summarise(run, args.warmup)
        rows.append((model, framework, s))
        note = f", same prompt tokens as ours: {run['same_prompt_ids']}" if "same_prompt_ids" in run else ""
        print(
            f"  done {model} / {framework}: {run['wall_s']:.0f} s wall (model load {run['load_s']:.1f} s), "
            f"threads {s['threads']}{note}",
            flush=True,
        )
    print(f"total {time.perf_counter() - start:.0f} s\n")
    if len(rows) == len(plan):
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"some runs failed; their logs are in {workdir}\n")
    if args.tiny_profile:
        print("tiny-profile: our built-in char-level `tiny` (random init, warm start off), profile batch 64 x 8,")
        print("max_new_tokens 4, 8 mini-batch updates per step; no TRL counterpart.\n")
    print_table(rows, args)


def trl_version() -> str:
    from importlib.metadata import version

    return version("trl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3, help="timed steps per run (after the warm-up)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed warm-up steps per run")
    parser.add_argument("--threads", type=int, default=1, help="torch threads, both sides (1: steadier)")
    parser.add_argument("--prompts", type=int, default=2, help="prompts per step")
    parser.add_argument("--group", type=int, default=4, help="completions per prompt (TRL num_generations)")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="TRL max_completion_length")
    parser.add_argument("--loss", default="dapo", help="our loss name; TRL runs loss_type='dapo'")
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--no-tiny-profile", dest="tiny_profile", action="store_false", help="skip the tiny row")
    parser.add_argument(
        "--trl-gradient-checkpointing", action="store_true", help="TRL's default; off here since ours has none"
    )
    parser.add_argument("--one", nargs=2, metavar=("FRAMEWORK", "MODEL"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(*args.one, args)
    else:
        parent(args)


if __name__ == "__main__":
    main()
