"""Benchmark: forward + backward time and peak memory of every policy loss, relative to GRPO.

CE-GPPO claims to cost what PPO costs; the target is a time ratio <= 1.3 to `grpo` for every loss.
Each loss runs on the same [B, T] tensors (per-token log-probs with gradient, ragged mask,
per-sequence advantages, entropy with gradient for entropy_reg, the step start's entropy for ERC)
including `aggregate` in the loss's default mode and the clip metrics. `grpo+80/20` is GRPO with the
80/20 rule's top-entropy mask (algorithms.top_entropy, rho 0.2), computed once per step as the trainer does
(before the first update); the mask's own time is printed on its own line. Not a pass/fail test; run it with

    make perf                                        # CPU default 64 x 2048
    .venv/bin/python tests/perf/bench_losses.py --B 256 --T 4096 [--device cuda]

Time: median over interleaved rounds; wall time on CUDA, this thread's CPU time on CPU (torch
on one thread), so that a busy shared machine does not distort the ratios.
Peak memory: on CUDA, torch.cuda.max_memory_allocated during one step minus what was allocated
before it. On CPU, the peak of the running sum of tensor bytes allocated and freed during one
step, from torch.profiler's per-op memory accounting (op granularity, CPU allocator, excludes the
inputs). Both include the gradient of logp.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout without install

from algorithms import LOSSES, LossOutput, PolicyBatch, aggregate, get_loss, top_entropy_mask  # noqa: E402


def make_batch(B: int, T: int, device: torch.device, seed: int = 0) -> PolicyBatch:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    old_logp = -3 * torch.rand(B, T, generator=gen)  # [B, T]
    logp = old_logp + 0.3 * torch.randn(B, T, generator=gen)  # [B, T]  ratios spread over the clip range
    lengths = torch.randint(T // 4, T + 1, (B,), generator=gen)  # [B]
    mask = (torch.arange(T) < lengths.unsqueeze(-1)).float()  # [B, T]
    adv = torch.randn(B, generator=gen)  # [B]
    entropy = torch.rand(B, T, generator=gen)  # [B, T]
    # the step start's entropy: ratios H / H_old spread around 1, about half outside ERC's 0.95 / 1.05 band
    old_entropy = entropy * (0.9 + 0.2 * torch.rand(B, T, generator=gen))  # [B, T]
    return PolicyBatch(
        logp=logp.to(device).requires_grad_(),
        old_logp=old_logp.to(device),
        advantages=adv.to(device),
        mask=mask.to(device),
        entropy=entropy.to(device).requires_grad_(),
        old_entropy=old_entropy.to(device),
    )


class TopEntropyRule:
    """The 80/20 rule on top of a loss, as the trainer applies it: the top-entropy mask of the step start's
    entropy, computed once per step (before the first update: `main` times it separately), multiplies every
    update's per-token loss."""

    def __init__(self, base, batch: PolicyBatch, quantile: float = 0.2):
        self.base, self.default_agg = base, base.default_agg
        self.gate = top_entropy_mask(batch.old_entropy, batch.mask, quantile)  # [B, T], once per step

    def __call__(self, batch: PolicyBatch):
        out = self.base(batch)
        return dataclasses.replace(out, per_token=out.per_token * self.gate)


def step(loss_fn, batch: PolicyBatch) -> None:
    batch.logp.grad = None
    batch.entropy.grad = None
    out = loss_fn(batch)
    aggregate(out.per_token, batch.mask, loss_fn.default_agg).backward()


def time_all_ms(loss_fns: dict, batch: PolicyBatch, repeats: int, device: torch.device) -> dict[str, float]:
    """Median ms per loss; the losses take turns in every round so that drift hits all alike.

    On CUDA: wall time between synchronisations. On CPU: the CPU time of this thread
    (time.thread_time, with torch on one thread and CPU autograd running in the caller), so that
    other processes on a shared machine do not count.
    """
    clock = time.perf_counter if device.type == "cuda" else time.thread_time
    for loss_fn in loss_fns.values():
        for _ in range(3):
            step(loss_fn, batch)
    times: dict[str, list[float]] = {name: [] for name in loss_fns}
    for _ in range(repeats):
        for name, loss_fn in loss_fns.items():
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = clock()
            step(loss_fn, batch)
            if device.type == "cuda":
                torch.cuda.synchronize()
            times[name].append((clock() - start) * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def peak_mb(loss_fn, batch: PolicyBatch, device: torch.device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        step(loss_fn, batch)
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before) / 2**20
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(loss_fn, batch)
    current = peak = 0
    for event in sorted(prof.events(), key=lambda e: e.time_range.start):
        current += event.self_cpu_memory_usage
        peak = max(peak, current)
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--B", type=int, default=64, help="sequences per batch")
    parser.add_argument("--T", type=int, default=2048, help="tokens per sequence")
    parser.add_argument("--repeats", type=int, default=20, help="timed repetitions (median reported)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cpu":
        torch.set_num_threads(1)
    batch = make_batch(args.B, args.T, device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU, 1 thread, thread CPU time"
    print(f"policy losses, forward + backward (incl. aggregate and metrics), B={args.B} T={args.T}, {name}")
    print(f"{'loss':<12} {'ms':>9} {'x grpo':>7} {'peak MB':>9}")
    loss_fns = {name: get_loss(name) for name in ("grpo", *[n for n in LOSSES if n != "grpo"])}
    loss_fns["grpo+80/20"] = TopEntropyRule(get_loss("grpo"), batch)
    ms = time_all_ms(loss_fns, batch, args.repeats, device)
    peak_mb(loss_fns["grpo"], batch, device)  # throw-away: the first profiled step pays one-off allocations
    for loss_name, loss_fn in loss_fns.items():
        ratio = ms[loss_name] / ms["grpo"]
        flag = "" if ratio <= 1.3 else "  (above the 1.3 target)"
        print(f"{loss_name:<12} {ms[loss_name]:9.2f} {ratio:7.2f} {peak_mb(loss_fn, batch, device):9.1f}{flag}")
    mask_ms = time_all_ms({"mask": MaskOnce(batch)}, batch, args.repeats, device)["mask"]
    print(
        f"80/20 mask, once per step over these {args.B} rows: {mask_ms:.2f} ms = {mask_ms / ms['grpo']:.2f} x one GRPO "
        "update (a step runs ppo_epochs x mini_batches updates)"
    )


class MaskOnce:
    """The 80/20 rule's once-per-step work alone (no loss): timed through `step` with a zero loss."""

    default_agg = "token_mean"

    def __init__(self, batch: PolicyBatch):
        self.zero = torch.zeros_like(batch.mask)

    def __call__(self, batch: PolicyBatch):
        gate = top_entropy_mask(batch.old_entropy, batch.mask, 0.2)  # [B, T]
        return LossOutput(per_token=(self.zero * gate) + 0 * batch.logp, metrics={})


if __name__ == "__main__":
    main()
