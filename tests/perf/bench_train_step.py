"""Benchmark: one RL step of our `RLModule` (synchronous, and asynchronous at rollout.staleness K = 1)
against TRL's `GRPOTrainer` at identical settings, side by side.

    make perf
    .venv/bin/python tests/perf/bench_train_step.py [--steps 3] [--threads-total 2] [--async-split 1+1]
        [--models smol tiny-random] [--frameworks ours ours-async trl] [--no-tiny-profile]

For each model (SmolLM2-135M-Instruct, and a tiny random Llama using SmolLM2's tokenizer) and each
framework one training run: `--warmup` warm-up steps (at least 1), then `--steps` timed steps (ours
at K = 1 runs K more warm-up steps and K drain steps at the end, untimed: see `untimed_steps`). The
frameworks: TRL; ours at K = 0 (roll out, then update); ours at K = 1 (`ours-async`: a rollout
worker process generates the next step's batch while the trainer updates; staleness_correction
decoupled, its default). Every side gets the same model weights and tokenizer, the same prompts in
the same order (arithmetic level 1, natural style, chat-formatted through the tokenizer's template),
group size, temperature 1.0, top-p 1.0, no top-k, max_new_tokens, the DAPO loss (clip 0.2 / 0.28,
token-mean over the batch), one optimizer update per rollout batch (ours: mini_batches=1,
ppo_epochs=1; TRL: num_iterations=1, steps_per_generation=1), no KL / reference model, float32, no
gradient checkpointing, and the same reward (`benchmarks.grading.math_grader.grade_math_batch`). K = 1 trains on
rollouts one update old, so it is not the same algorithm: the comparison is of time per step. Our
built-in `tiny` profile (char-level model, 64 prompts x 8, 8 mini-batches) runs as extra rows, K = 0
and K = 1, without a TRL counterpart; their steps per second and ratio are printed.

Threads: every run gets the same budget, `--threads-total` (default 2), split as each design needs:
TRL and ours K = 0 run that many torch threads; ours K = 1 gives run.threads to the trainer and
rollout.worker_threads to the worker, by default (total - 1) + 1; `--async-split T+W` overrides it.
(`--threads` is the old name of `--threads-total`; it used to default to 1.)

Printed per run (means over the timed steps): s/step (wall, from one step's end to the next's; at
K = 1 the time to the first step's end, spawning the worker and waiting for batch 0, is printed
apart), CPU s/step (the run's whole process tree: the trainer's threads and the worker), the
split rollout / worker / reward / update (update = the rest of the step: old log-probs, forward,
backward, optimizer, bookkeeping; at K = 1 rollout = the trainer's wait for its batch and worker =
the worker's generation + grading of a batch, which overlaps the update), mean generated length,
truncated fraction, rollout tokens/s (generated tokens / generation s; K = 1: / worker s), update
tokens/s (prompt + response tokens of the update / update s), the trainer's RSS at the first step
and peak RSS (the run process's high-water mark, plus the worker's at K = 1: an upper bound on the
pair's combined peak, see train_step_figures.py), then ratios ours / TRL (target <= 1), ours K = 1
/ TRL (target <= 0.67) and ours K = 1 / ours K = 0, and the tiny profile's steps/s at K = 0 and
K = 1. Every side stops at EOS, so a step's cost depends on the sampled lengths: compare tokens/s as
well as s/step. Figures, not a test. On a machine whose cores other jobs share, threads stall each
other: compare runs made at a quiet moment.

Each run is its own subprocess (`--one FRAMEWORK MODEL`) so that peak RSS and caches do not leak
from one run into the next; the measurements inside a run and the tables live in train_step_figures.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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

from train_step_figures import FRAMEWORK_LABEL, boundary, memory_and_children, print_table, summarise  # noqa: E402

SMOL = "smollm2-135m-instruct"
MODELS = ("smol", "tiny-random")
FRAMEWORKS = ("ours", "ours-async", "trl")  # ours at rollout.staleness 0, ours at rollout.staleness K, TRL
SEED = 0


# ---------------------------------------------------------------------------------------------- helpers
def model_path(model: str, args) -> str:
    return SMOL if model == "smol" else str(Path(args.workdir) / "tiny-random-llama")


def build_tiny_random(path: Path) -> None:
    """A randomly initialised small Llama with SmolLM2's tokenizer (fixed seed), saved as a HF folder."""
    from harness.models import build_tiny, load_model

    _, tokenizer = load_model(SMOL)
    build_tiny(path, seed=SEED, tokenizer=tokenizer)


def async_split(args) -> tuple[int, int]:
    """(trainer threads, worker threads) of ours at K >= 1: --async-split, else (total - 1) + 1."""
    if args.async_split:
        trainer, worker = (int(part) for part in args.async_split.split("+"))
        return trainer, worker
    return args.threads_total - 1, 1


def thread_plan(framework: str, args) -> tuple[int, int | None]:
    """(torch threads of the run process, the rollout worker's or None) of one framework's run."""
    return async_split(args) if framework == "ours-async" else (args.threads_total, None)


def untimed_steps(framework: str, args) -> tuple[int, int]:
    """(steps before the timed ones, steps after them) of a run. At K >= 1: --warmup, then K more
    (their batches were generated during the first step, the longest, so their waits are short),
    and K drain steps at the end (no batch is left to generate ahead: the worker idles)."""
    k = args.staleness if framework == "ours-async" else 0
    return args.warmup + k, k


def describe_threads(args) -> str:
    trainer, worker = async_split(args)
    return (
        f"thread budget {args.threads_total} a run: TRL {args.threads_total} torch threads, ours K=0 run.threads "
        f"{args.threads_total}, ours K={args.staleness} run.threads {trainer} + rollout.worker_threads {worker}"
    )


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
def run_ours(model: str, args, staleness: int) -> dict:
    import lightning as L
    import psutil
    import torch

    from harness.models import load_model
    from harness.schema import load_train_config
    from harness.tasks import build_task
    from harness.training.rl_module import RLModule
    from harness.training.train import make_trainer

    framework = "ours-async" if staleness else "ours"
    head, tail = untimed_steps(framework, args)
    steps = head + args.steps + tail
    trainer_threads, worker_threads = thread_plan(framework, args)
    # No checkpoint inside the timed steps (a real run writes one every run.checkpoint_every steps).
    run = {"run.threads": trainer_threads, "run.checkpoint_every": 10**9, "run.rollout_samples": 0}
    if staleness:
        run.update({"rollout.staleness": staleness, "rollout.worker_threads": worker_threads})
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
    weights_mb = sum(t.numel() * t.element_size() for t in policy.state_dict().values()) / 2**20

    timer = {"reward": 0.0, "old_logp": 0.0}

    def timed(name, fn):
        def wrapper(*a, **k):
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                timer[name] += time.perf_counter() - start

        return wrapper

    # Instrumentation only: the same callables, timed (at K >= 1 the worker grades with its own).
    if not staleness:
        module.rollouts.reward_fn = timed("reward", module.rollouts.reward_fn)
    module.policy_update.score = timed("old_logp", module.policy_update.score)  # old (and reference) log-probs
    records: list[dict] = []
    marks: dict = {}

    class StepTimer(L.Callback):
        def on_train_start(self, trainer, pl_module):  # before the module's, which spawns the worker
            marks["train_start"] = boundary()

        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            timer.update(reward=0.0, old_logp=0.0, threads=torch.get_num_threads())
            timer["rss_start_mb"] = psutil.Process().memory_info().rss / 2**20
            timer["start"] = boundary()

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            end = boundary()
            h = pl_module.history[-1]
            n_seqs = config.rollout.prompts_per_step * config.rollout.group_size
            record = {
                "start": timer["start"],
                "end": end,
                # rollout_seconds covers generation and grading at K = 0, the wait for the batch at K >= 1
                "rollout_s": h["rollout_seconds"] - timer["reward"],
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
            if staleness:
                record.update(worker_s=h["worker_seconds"], staleness_mean=h["staleness_mean"])
            records.append(record)

    with tempfile.TemporaryDirectory(dir=args.workdir) as out:
        trainer = make_trainer(config, Path(out), logger=False)
        trainer.callbacks.append(StepTimer())
        trainer.fit(module)
        module.rollouts.close()  # done by on_train_end already; joined, so getrusage counts it
    return {
        "load_s": load_s,
        "records": records,
        "weights_mb": weights_mb,
        "worker_threads": worker_threads,
        **marks,
        **memory_and_children(),
    }


# ---------------------------------------------------------------------------------------------- one run: TRL
def run_trl(model: str, args) -> dict:
    import datasets
    import psutil
    import torch
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from benchmarks.grading.math_grader import grade_math_batch
    from harness.models import load_model
    from harness.rollout.engine import chat_prompt
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
            timer["start"] = boundary()

        def on_step_end(self, a, state, control, **kwargs):
            records.append(
                {
                    "start": timer["start"],
                    "end": boundary(),
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
    torch.set_num_threads(args.threads_total)  # after Accelerate's set-up, which may change it
    trainer.train()
    return {
        "load_s": load_s,
        "records": records,
        "same_prompt_ids": list(ours_ids) == list(trl_ids),
        **memory_and_children(),
    }


def run_one(framework: str, model: str, args) -> None:
    import torch

    torch.set_num_threads(thread_plan(framework, args)[0])
    if model == "tiny-random" and not (Path(model_path(model, args)) / "config.json").is_file():
        build_tiny_random(Path(model_path(model, args)))
    if framework == "prep":
        return
    if framework == "trl":
        result = run_trl(model, args)
    else:
        result = run_ours(model, args, args.staleness if framework == "ours-async" else 0)
    Path(args.result).write_text(json.dumps(result))


# ---------------------------------------------------------------------------------------------- the parent
def child(framework: str, model: str, args, workdir: str) -> dict | None:
    """Run one configuration in a fresh process; returns its figures."""
    result = Path(workdir) / f"{framework}-{model}.json"
    log = Path(workdir) / f"{framework}-{model}.log"
    cmd = [sys.executable, __file__, "--one", framework, model, "--result", str(result), "--workdir", workdir]
    names = ("steps", "warmup", "threads_total", "staleness", "prompts", "group", "max_new_tokens", "loss", "lr")
    for name in names:
        cmd += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    if args.async_split:
        cmd += ["--async-split", args.async_split]
    if args.trl_gradient_checkpointing:
        cmd.append("--trl-gradient-checkpointing")
    start = time.perf_counter()
    with log.open("w") as sink:
        code = subprocess.run(cmd, stdout=sink, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - start
    if code != 0:
        tail = "\n".join(log.read_text().splitlines()[-30:])
        print(f"[{framework} {model}] failed (exit {code}); last lines of {log}:\n{tail}", file=sys.stderr)
        return None
    if framework == "prep":
        return {}
    out = json.loads(result.read_text())
    out["wall_s"] = wall
    return out


def done_line(model: str, framework: str, run: dict, s: dict) -> str:
    line = f"  done {model} / {framework}: {run['wall_s']:.0f} s wall (model load {run['load_s']:.1f} s), "
    line += f"threads {s['threads']}"
    if "same_prompt_ids" in run:
        line += f", same prompt tokens as ours: {run['same_prompt_ids']}"
    if run.get("worker_threads"):
        peaks = " + ".join(f"{mb:.0f}" for mb in run["children_peaks_mb"])
        line += (
            f", worker threads {run['worker_threads']}; worker CPU {run['children_cpu_total_s']:.1f} s in all "
            f"(getrusage of the joined worker, start-up included; {s['cpu_children'] * s['steps']:.1f} s in the "
            f"timed steps); peak RSS {run['peak_rss_self_mb']:.0f} trainer + {peaks} in {run['children']} child "
            f"process(es) MB (worker, resource tracker; the {run['weights_mb']:.0f} MB shared weight buffer is in "
            "trainer and worker)"
        )
    elif run["children"]:
        line += f", peak RSS of child processes {run['peak_rss_children_mb']:.0f} MB (added)"
    return line


def parent(args) -> None:
    workdir = tempfile.mkdtemp(prefix="bench_train_step.")
    args.workdir = workdir
    FRAMEWORK_LABEL["ours-async"] = f"ours K={args.staleness}"
    plan = [(m, f) for m in args.models for f in args.frameworks]
    if args.tiny_profile:
        plan += [("tiny-profile", f) for f in args.frameworks if f != "trl"]
    version = trl_version() if "trl" in args.frameworks else "(not run)"
    print(
        f"RL train step, ours (K=0 and K={args.staleness}) vs TRL {version}: {args.prompts} prompts x {args.group} "
        f"completions, max_new_tokens {args.max_new_tokens}, loss {args.loss}, 1 update per rollout batch, "
        f"{args.warmup} warm-up + {args.steps} timed steps per run (ours K={args.staleness}: {args.warmup} + "
        f"{args.staleness} warm-up, {args.steps} timed, {args.staleness} drain)"
    )
    print(describe_threads(args))
    if "tiny-random" in args.models:
        child("prep", "tiny-random", args, workdir)
    rows = []
    start = time.perf_counter()
    for model, framework in plan:
        run = child(framework, model, args, workdir)
        if run is None:
            continue
        s = summarise(run, untimed_steps(framework, args)[0], args.steps)
        rows.append((model, framework, s))
        print(done_line(model, framework, run, s), flush=True)
    print(f"total {time.perf_counter() - start:.0f} s\n")
    if len(rows) == len(plan):
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"some runs failed; their logs are in {workdir}\n")
    if args.tiny_profile:
        print("tiny-profile: our built-in char-level `tiny` (random init, warm start off), profile batch 64 x 8,")
        print("max_new_tokens 4, 8 mini-batch updates per step; no TRL counterpart.\n")
    print_table(rows, list(args.models) + ["tiny-profile"])


def trl_version() -> str:
    from importlib.metadata import version

    return version("trl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3, help="timed steps per run (after the warm-up)")
    parser.add_argument(
        "--warmup", type=int, default=1, help="untimed warm-up steps per run (>= 1: K=1's first fills the pipeline)"
    )
    parser.add_argument(
        "--threads-total",
        "--threads",
        type=int,
        default=2,
        help="CPU threads a run may use: TRL's and ours K=0's torch threads, split trainer + worker at K=1",
    )
    parser.add_argument("--async-split", help="K=1: TRAINER+WORKER threads (default: (total - 1) + 1)")
    parser.add_argument("--staleness", type=int, default=1, help="rollout.staleness K of ours-async")
    parser.add_argument("--prompts", type=int, default=2, help="prompts per step")
    parser.add_argument("--group", type=int, default=4, help="completions per prompt (TRL num_generations)")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="TRL max_completion_length")
    parser.add_argument("--loss", default="dapo", help="our loss name; TRL runs loss_type='dapo'")
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--models", nargs="*", choices=MODELS, default=list(MODELS), help="none: the tiny rows only")
    parser.add_argument("--frameworks", nargs="+", choices=FRAMEWORKS, default=list(FRAMEWORKS))
    parser.add_argument("--no-tiny-profile", dest="tiny_profile", action="store_false", help="skip the tiny rows")
    parser.add_argument(
        "--trl-gradient-checkpointing", action="store_true", help="TRL's default; off here since ours has none"
    )
    parser.add_argument("--one", nargs=2, metavar=("FRAMEWORK", "MODEL"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.warmup < 1:
        parser.error("--warmup must be at least 1 (at K=1 the first step spawns the worker and fills the pipeline)")
    if args.staleness < 1:
        parser.error("--staleness is ours-async's K, at least 1 (ours runs K=0)")
    if args.async_split:
        parts = args.async_split.split("+")
        if len(parts) != 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
            parser.error(f"--async-split {args.async_split!r}: give TRAINER+WORKER threads, e.g. 1+1")
    elif "ours-async" in (args.frameworks if not args.one else [args.one[0]]) and args.threads_total < 2:
        parser.error(
            f"--threads-total {args.threads_total} leaves no thread for the rollout worker: give --async-split "
            "(e.g. 1+1, over the budget) or leave ours-async out of --frameworks"
        )
    if args.one:
        run_one(*args.one, args)
    else:
        parent(args)


if __name__ == "__main__":
    main()
