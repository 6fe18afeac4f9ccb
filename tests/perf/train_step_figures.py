"""What `bench_train_step.py` measures inside a run (step boundaries, the process tree's CPU, peak
memory) and the tables it prints from the runs' records.

CPU: a step's CPU seconds are those of the run's whole process tree between two step boundaries:
the run process itself (`time.process_time`, all its threads) plus its descendants (the rollout
worker at rollout.staleness >= 1): the live ones read from /proc (psutil: user + system, and their
own reaped children), the exited ones that this process has reaped from `getrusage(RUSAGE_CHILDREN)`.

Peak RSS: each process's own high-water mark as the kernel keeps it (VmHWM in /proc/PID/status):
the run process's at the end, plus each descendant's as last read at a step boundary (the rollout
worker's last batch is done before the last step ends; multiprocessing's resource tracker, a few
MB, is a descendant too). With a worker the sum is an upper bound on the combined peak: the peaks
need not coincide, and the pages both map (the shared weight buffer, torch's libraries) count twice.
Not used: the ru_maxrss of `getrusage(RUSAGE_CHILDREN)` or `os.wait4`, which is the largest of the
processes' (not their sum), and in which Linux folds a child's address space before its exec: a
spawned worker, or the `uname -p` that TRL's imports run, reports its parent's RSS at the spawn.
`getrusage(RUSAGE_CHILDREN)`'s CPU seconds are exact, and are printed as the worker's CPU in all.
"""

from __future__ import annotations

import os
import resource
import statistics
import time

FRAMEWORK_LABEL = {"ours": "ours K=0", "ours-async": "ours K=1", "trl": "TRL"}
ASYNC_TARGET = 0.67  # the issue's target: ours at K = 1 <= 0.67x TRL's s/step


# ---------------------------------------------------------------------------------------------- inside a run
DESCENDANT_HWM_MB: dict[int, float] = {}  # pid -> VmHWM (MB) as last read at a step boundary


def vm_hwm_mb(pid: int | str = "self") -> float:
    """The process's peak resident set (VmHWM) in MB; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return 0.0


def descendants_cpu() -> float:
    """CPU seconds (user + system) of this process's descendants, live or exited and reaped; notes
    the live ones' peak RSS on the way."""
    import psutil

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    for proc in psutil.Process().children(recursive=True):
        try:
            t = proc.cpu_times()
        except psutil.Error:  # exited meanwhile (and, once reaped, counted by getrusage next time)
            continue
        total += t.user + t.system + t.children_user + t.children_system
        DESCENDANT_HWM_MB[proc.pid] = max(DESCENDANT_HWM_MB.get(proc.pid, 0.0), vm_hwm_mb(proc.pid))
    return total


def boundary() -> dict:
    """A step boundary: wall clock, this process's CPU seconds, its descendants' CPU seconds."""
    return {"t": time.perf_counter(), "cpu_self": time.process_time(), "cpu_children": descendants_cpu()}


def memory_and_children() -> dict:
    """After the run (the worker joined): peak RSS of this process and of its descendants (as last
    seen at a step boundary), and the reaped children's CPU seconds in all."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "peak_rss_self_mb": vm_hwm_mb(os.getpid()),
        "peak_rss_children_mb": sum(DESCENDANT_HWM_MB.values()),
        "children": len(DESCENDANT_HWM_MB),
        "children_peaks_mb": sorted(DESCENDANT_HWM_MB.values(), reverse=True),
        "children_cpu_total_s": kids.ru_utime + kids.ru_stime,
        "children_maxrss_getrusage_mb": kids.ru_maxrss / 1024,  # not a peak (see the docstring): a check
    }


# ---------------------------------------------------------------------------------------------- per run
def summarise(run: dict, warmup: int, steps: int) -> dict:
    """Means over the timed steps, records [warmup, warmup + steps): after the warm-up, before any
    drain steps (see bench_train_step.untimed_steps). A step's wall and CPU seconds run from the
    previous step's end boundary to its own (whatever happens between steps, e.g. the worker
    generating ahead, counts); the very first step runs from its own start."""
    recs = run["records"]
    for i, r in enumerate(recs):
        before = recs[i - 1]["end"] if i else r["start"]
        r["seconds"] = r["end"]["t"] - before["t"]
        r["cpu_self_s"] = r["end"]["cpu_self"] - before["cpu_self"]
        r["cpu_children_s"] = r["end"]["cpu_children"] - before["cpu_children"]
    timed = recs[warmup : warmup + steps]

    def mean(key: str) -> float:
        return statistics.fmean(r[key] for r in timed)

    s = {
        "steps": len(timed),
        "s_step": mean("seconds"),
        "cpu_self": mean("cpu_self_s"),
        "cpu_children": mean("cpu_children_s"),
        "rollout_s": mean("rollout_s"),
        "reward_s": mean("reward_s"),
        "gen_len": sum(r["rollout_tokens"] for r in timed) / sum(r["sequences"] for r in timed),
        "truncated": mean("truncated_frac"),
        "update_tokens": mean("update_tokens"),
        "rss_start_mb": recs[0]["rss_start_mb"],
        "peak_rss_mb": run["peak_rss_self_mb"] + run["peak_rss_children_mb"],
        "threads": sorted({r["threads"] for r in timed}),
        "async": "worker_s" in recs[0],
    }
    s["cpu_step"] = s["cpu_self"] + s["cpu_children"]
    update_s = [r["seconds"] - r["rollout_s"] - r["reward_s"] for r in timed]
    s["update_s"] = statistics.fmean(update_s)
    s["update_tps"] = sum(r["update_tokens"] for r in timed) / sum(update_s)
    # Generation throughput: the seconds that generated the tokens (K=1: the worker's, grading included).
    gen_key = "worker_s" if s["async"] else "rollout_s"
    s["rollout_tps"] = sum(r["rollout_tokens"] for r in timed) / sum(r[gen_key] for r in timed)
    if s["async"]:
        s["worker_s"] = mean("worker_s")
        s["staleness_mean"] = mean("staleness_mean")
        first = recs[0]
        s["first_step_s"] = first["end"]["t"] - run["train_start"]["t"]
        s["first_wait_s"] = first["rollout_s"]
    if "old_logp_s" in timed[0]:
        s["old_logp_s"] = mean("old_logp_s")
        s["fwd_bwd_opt_s"] = statistics.fmean(r["harness_update_s"] - r["old_logp_s"] for r in timed)
    if "score_other_s" in timed[0]:
        s["score_other_s"] = mean("score_other_s")
    return s


# ---------------------------------------------------------------------------------------------- tables
def print_table(rows: list[tuple[str, str, dict]], models: list[str]) -> None:
    head = (
        f"{'model':<12} {'framework':<9} {'s/step':>7} {'cpu s':>6} {'rollout s':>9} {'worker s':>8} "
        f"{'reward s':>8} {'update s':>8} {'gen len':>7} {'trunc':>5} {'upd tok':>7} {'rollout tok/s':>13} "
        f"{'update tok/s':>12} {'RSS@start':>9} {'peak RSS MB':>11}"
    )
    print(head)
    print("-" * len(head))
    for model, framework, s in rows:
        worker = f"{s['worker_s']:8.2f}" if s["async"] else f"{'-':>8}"
        print(
            f"{model:<12} {FRAMEWORK_LABEL[framework]:<9} {s['s_step']:7.2f} {s['cpu_step']:6.2f} "
            f"{s['rollout_s']:9.2f} {worker} {s['reward_s']:8.3f} {s['update_s']:8.2f} {s['gen_len']:7.1f} "
            f"{s['truncated']:5.2f} {s['update_tokens']:7.0f} {s['rollout_tps']:13.1f} {s['update_tps']:12.1f} "
            f"{s['rss_start_mb']:9.0f} {s['peak_rss_mb']:11.0f}"
        )
    print(
        "ours K=1: rollout s = the trainer's wait for its batch, worker s = the worker's generation + grading of\n"
        "a batch (it overlaps the update), rollout tok/s = generated tokens / worker s; cpu s and peak RSS\n"
        "include the worker process.\n"
    )
    by = {(m, f): s for m, f, s in rows}
    print_ratios(by, models, "ours", "trl", 1.0)
    print_ratios(by, models, "ours-async", "trl", ASYNC_TARGET)
    print_ratios(by, models, "ours-async", "ours", None)
    print_async(rows)
    print_tiny(by)
    print_breakdown(rows)


def print_ratios(by: dict, models: list[str], top: str, bottom: str, target: float | None) -> None:
    models = [m for m in models if (m, top) in by and (m, bottom) in by]
    if not models:
        return
    print(
        f"{FRAMEWORK_LABEL[top]} / {FRAMEWORK_LABEL[bottom]}   (time ratios < 1: {FRAMEWORK_LABEL[top]} faster; "
        f"tokens/s ratios > 1: {FRAMEWORK_LABEL[top]} faster)"
    )
    print(
        f"{'model':<12} {'s/step':>7} {'cpu s':>6} {'update s':>8} {'rollout tok/s':>13} "
        f"{'update tok/s':>12} {'peak RSS':>8}" + (f"  target (s/step <= {target:g})" if target else "")
    )
    for m in models:
        o, t = by[(m, top)], by[(m, bottom)]
        ratio = o["s_step"] / t["s_step"]
        verdict = f"  {'met' if ratio <= target else 'NOT met'}" if target else ""
        print(
            f"{m:<12} {ratio:7.2f} {o['cpu_step'] / t['cpu_step']:6.2f} {o['update_s'] / t['update_s']:8.2f} "
            f"{o['rollout_tps'] / t['rollout_tps']:13.2f} {o['update_tps'] / t['update_tps']:12.2f} "
            f"{o['peak_rss_mb'] / t['peak_rss_mb']:8.2f}{verdict}"
        )
    print()


def print_async(rows: list[tuple[str, str, dict]]) -> None:
    runs = [(m, s) for m, f, s in rows if f == "ours-async"]
    if not runs:
        return
    print(
        "ours K=1 in detail (steady state: the first 1 + K steps (warm-up: the worker's start, then batches\n"
        "generated during the first, longest step) and the last K (drain: nothing left to generate ahead) are\n"
        "run, not timed):"
    )
    for m, s in runs:
        pad = " " * 14
        print(
            f"  {m:<12} warm-up (the first step): ended {s['first_step_s']:.1f} s after training started, "
            f"{s['first_wait_s']:.1f} s of it\n"
            f"{pad}waiting for batch 0 (the worker spawns, imports torch, builds its model copy, generates)\n"
            f"{pad}steady state: worker {s['worker_s']:.2f} s/batch; trainer wait {s['rollout_s']:.2f} + update "
            f"{s['update_s']:.2f} = {s['s_step']:.2f} s/step; staleness_mean {s['staleness_mean']:.2f}\n"
            f"{pad}CPU s/step: trainer {s['cpu_self']:.2f} + worker {s['cpu_children']:.2f}"
        )
    print()


def print_tiny(by: dict) -> None:
    k0, k1 = by.get(("tiny-profile", "ours")), by.get(("tiny-profile", "ours-async"))
    if not (k0 and k1):
        return
    a, b = 1 / k0["s_step"], 1 / k1["s_step"]
    print(
        f"tiny-profile steps/s: K=0 {a:.2f}, K=1 {b:.2f}; K=1 / K=0 = {b / a:.2f} "
        f"(cpu s/step {k0['cpu_step']:.2f} vs {k1['cpu_step']:.2f})\n"
    )


def print_breakdown(rows: list[tuple[str, str, dict]]) -> None:
    print("breakdown of 'update s' (the step minus rollout and reward; ours K=1: the step minus the wait):")
    for model, framework, s in rows:
        if "old_logp_s" in s:
            rest = s["update_s"] - s["old_logp_s"] - s["fwd_bwd_opt_s"]
            publish = " (+ weight publish)" if s["async"] else ""
            detail = (
                f"old log-probs {s['old_logp_s']:.2f} s + forward/backward/optimizer{publish} "
                f"{s['fwd_bwd_opt_s']:.2f} s + other {rest:.2f} s"
            )
        else:
            detail = (
                f"scoring bookkeeping {s['score_other_s']:.2f} s (padding, advantages; no old log-probs at "
                f"num_iterations=1) + forward/backward/optimizer {s['update_s'] - s['score_other_s']:.2f} s"
            )
        print(f"  {model:<12} {FRAMEWORK_LABEL[framework]:<9} {detail}")
