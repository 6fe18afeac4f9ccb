"""The generation engines behind one backend interface: Hugging Face `generate` and vLLM.

    backend = make_backend("hf", model, tokenizer, batch_size=64)   # harness.rollout.backends
    rollouts = sample_messages(backend, tokenizer, ["07+45="], n=8, params=SamplingParams(8))

`engine` holds the interface, the batch layout (`Rollouts`) and the HF engine; `backends` is the
registry by name; `vllm_backend` the optional vLLM engine. May import `harness.common` only
(never `harness.training`, `harness.reports` or the harness root's config): an engine samples,
the training loop decides what to sample. See docs/design.md.
"""
