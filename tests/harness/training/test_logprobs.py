"""Chunked log-probs and entropies equal a direct full-vocabulary computation."""

import torch

from harness.models import load_model
from harness.training.logprobs import response_logprobs


def test_chunked_logprobs_and_entropy_match_direct_computation():
    torch.manual_seed(0)
    model, tokenizer = load_model("tiny")
    P, T, B = 4, 3, 5
    prompt = torch.randint(10, 60, (B, P))
    prompt[0, :2] = tokenizer.pad_token_id  # left padding on one row
    prompt_mask = torch.ones(B, P, dtype=torch.long)
    prompt_mask[0, :2] = 0
    response = torch.randint(10, 60, (B, T))
    ids, attn = torch.cat([prompt, response], 1), torch.cat([prompt_mask, torch.ones(B, T, dtype=torch.long)], 1)
    logp, entropy = response_logprobs(model, ids, attn, P, chunk=2, with_entropy=True)  # [B, T]
    assert logp.shape == (B, T) and entropy.shape == (B, T)
    for b in range(B):
        keep = attn[b].bool()
        row = ids[b][keep].unsqueeze(0)  # the row without its padding, positions from 0
        logits = model(input_ids=row).logits[0, -T - 1 : -1].float()  # [T, V]
        ref = torch.log_softmax(logits, -1)
        torch.testing.assert_close(logp[b], ref.gather(-1, response[b].unsqueeze(-1)).squeeze(-1), atol=1e-5, rtol=0)
        torch.testing.assert_close(entropy[b], -(ref.exp() * ref).sum(-1), atol=1e-5, rtol=0)
    # gradients flow to the model through both
    (logp.sum() + entropy.sum()).backward()
    assert model.model.embed_tokens.weight.grad.abs().sum() > 0
