"""The vLLM backend against Hugging Face generate: same tokens when greedy, the sampling settings
mapped, log-probs of the sampled distribution, and weights synced in memory after an update."""

import copy

import pytest
import torch

pytest.importorskip("vllm")

from harness.models import load_model  # noqa: E402
from harness.rollout.backends import make_backend  # noqa: E402
from harness.rollout.engine import EngineOptions, HFGenerateBackend, SamplingParams, chat_prompt  # noqa: E402
from harness.training.logprobs import response_logprobs  # noqa: E402

TINY_MESSAGES = ["12+34=", "7+8=", "99+1=", "05+50=", "31+13="]
SMOL_MESSAGES = [
    "What is 7 + 5?",
    "Name a colour of the sky.",
    "Write one sentence about cats.",
    "What is the capital of France?",
]


def greedy_pair(engine, model, tokenizer, messages, tokens=32, n=1):
    prompts = [chat_prompt(tokenizer, m) for m in messages]
    params = SamplingParams(tokens, greedy=True)
    return engine.generate(prompts, n, params), HFGenerateBackend(model, tokenizer).generate(prompts, n, params)


def assert_same_tokens(vllm_out, hf_out):
    assert vllm_out.response_mask.tolist() == hf_out.response_mask.tolist()
    assert vllm_out.response_ids.tolist() == hf_out.response_ids.tolist()
    assert vllm_out.texts == hf_out.texts
    assert vllm_out.truncated.tolist() == hf_out.truncated.tolist()
    assert torch.equal(vllm_out.prompt_ids, hf_out.prompt_ids)


def test_greedy_tokens_equal_hf_on_the_tiny_model(tiny, tiny_engine):
    model, tokenizer = tiny
    vllm_out, hf_out = greedy_pair(tiny_engine, model, tokenizer, TINY_MESSAGES, n=2)
    assert vllm_out.prompt_index.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert_same_tokens(vllm_out, hf_out)


def test_greedy_tokens_equal_hf_on_smollm2_for_32_tokens():
    model, tokenizer = load_model("smollm2-135m-instruct")
    engine = make_backend("vllm", model, tokenizer, 16, EngineOptions(seed=0))
    vllm_out, hf_out = greedy_pair(engine, model, tokenizer, SMOL_MESSAGES, tokens=32)
    engine.close()
    assert vllm_out.response_mask.sum(-1).min() >= 8  # real answers, not an immediate EOS
    assert_same_tokens(vllm_out, hf_out)


def test_sampling_settings_and_logprobs(tiny, tiny_engine):
    model, tokenizer = tiny
    prompts = [chat_prompt(tokenizer, m) for m in TINY_MESSAGES[:3]]
    params = SamplingParams(6, temperature=1.0, top_p=1.0, seed=11, logprobs=True)
    a = tiny_engine.generate(prompts, 4, params)
    assert a.response_ids.shape[0] == 12 and a.response_ids.shape[1] <= 6
    assert a.prompt_index.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert torch.equal(a.response_ids, tiny_engine.generate(prompts, 4, params).response_ids)  # seeded
    other = tiny_engine.generate(prompts, 4, SamplingParams(6, temperature=1.0, seed=12, logprobs=True))
    assert not torch.equal(a.response_ids, other.response_ids)
    mask = a.response_mask.bool()
    assert (a.logprobs[~mask] == 0).all() and (a.logprobs[mask] < 0).all()
    # The trainer's log-probs of the same tokens at the same temperature: the mismatch is numerical.
    trainer, _ = response_logprobs(model, a.input_ids, a.attention_mask, a.prompt_ids.shape[1])
    torch.testing.assert_close(trainer[mask], a.logprobs[mask], atol=1e-3, rtol=0)
    # Nucleus sampling: the engine reports the renormalised nucleus, so pi_old / pi_engine <= 1.
    nucleus = tiny_engine.generate(prompts, 4, SamplingParams(6, temperature=1.0, top_p=0.5, seed=3, logprobs=True))
    old, _ = response_logprobs(model, nucleus.input_ids, nucleus.attention_mask, nucleus.prompt_ids.shape[1])
    ratio = torch.exp(old - nucleus.logprobs)[nucleus.response_mask.bool()]
    assert (ratio <= 1 + 1e-3).all() and ratio.min() < 0.99


def test_after_one_optimizer_update_the_engine_samples_the_trainers_weights(tiny):
    model, tokenizer = copy.deepcopy(tiny[0]), tiny[1]
    engine = make_backend("vllm", model, tokenizer, 64, EngineOptions(seed=0))
    before, _ = greedy_pair(engine, model, tokenizer, TINY_MESSAGES, tokens=12)
    # One AdamW step of supervised training towards a fixed answer moves the greedy output.
    prompt = tokenizer(chat_prompt(tokenizer, "12+34="), add_special_tokens=False).input_ids
    target = tokenizer("46", add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
    ids = torch.tensor([prompt + target])
    labels = torch.tensor([[-100] * len(prompt) + target])
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    model(input_ids=ids, labels=labels).loss.backward()
    optimizer.step()
    stale, trainer = greedy_pair(engine, model, tokenizer, TINY_MESSAGES, tokens=12)
    assert stale.response_ids.tolist() == before.response_ids.tolist()  # nothing moved before the sync
    assert trainer.response_ids.tolist() != before.response_ids.tolist()  # the update changed the output
    engine.sync_weights(model)
    synced, trainer = greedy_pair(engine, model, tokenizer, TINY_MESSAGES, tokens=12)
    engine.close()
    assert_same_tokens(synced, trainer)
