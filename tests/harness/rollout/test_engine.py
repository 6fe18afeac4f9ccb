"""Rollouts: response masks stop after the first EOS; HF generate batches keep rows aligned."""

import torch

from harness.models import load_model
from harness.rollout.engine import HFGenerateBackend, SamplingParams, chat_prompt, response_mask_from_ids


def test_response_mask_includes_first_eos_and_flags_truncation():
    eos, pad = 2, 0
    ids = torch.tensor([[5, 6, eos, pad, pad], [5, eos, 7, eos, pad], [5, 6, 7, 8, 9]])
    mask, truncated = response_mask_from_ids(ids, {eos})
    assert mask.tolist() == [[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 1]]
    assert truncated.tolist() == [False, False, True]


def test_hf_backend_groups_and_chunks():
    model, tokenizer = load_model("tiny")
    model.train()
    backend = HFGenerateBackend(model, tokenizer, batch_size=4)  # 3 prompts x 3 = 9 rows in 3 chunks
    prompts = [chat_prompt(tokenizer, p) for p in ["1+1=", "22+33=", "7+8="]]
    torch.manual_seed(0)
    out = backend.generate(prompts, 3, SamplingParams(max_new_tokens=5))
    assert out.prompt_index.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert out.response_ids.shape[0] == 9 and out.response_ids.shape[1] <= 5
    assert len(out.texts) == 9
    # every row's prompt, left-padded, is its own prompt
    for row, p in enumerate(out.prompt_index.tolist()):
        real = out.prompt_ids[row][out.prompt_mask[row].bool()]
        assert tokenizer.decode(real) == prompts[p]
    # masked-out response positions hold padding only; truncated rows have no EOS
    assert (out.response_ids[out.response_mask == 0] == tokenizer.pad_token_id).all()
    lengths = out.response_mask.sum(-1)
    assert ((lengths == out.response_ids.shape[1]) | ~out.truncated).all()
    assert model.training  # generate ran in eval mode and restored the caller's mode


def test_greedy_is_deterministic():
    model, tokenizer = load_model("tiny")
    backend = HFGenerateBackend(model, tokenizer)
    prompt = [chat_prompt(tokenizer, "12+34=")]
    a = backend.generate(prompt, 2, SamplingParams(max_new_tokens=4, greedy=True))
    b = backend.generate(prompt, 2, SamplingParams(max_new_tokens=4, greedy=True))
    assert a.texts == b.texts and a.texts[0] == a.texts[1]
