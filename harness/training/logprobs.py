"""Per-token log-probabilities and entropies of response tokens, computed in chunks of rows.

Only one chunk's logits ([c, T, V] float32) exist at a time outside autograd; with gradients
on, the graph keeps each chunk's softmax, which together never exceed one [B, T, V] tensor.
"""

from __future__ import annotations

import torch


def position_ids_from_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """Positions that skip left padding, as `generate` uses them."""
    positions = attention_mask.long().cumsum(dim=1) - 1  # [B, L]
    return positions.clamp(min=0)


def response_logprobs(
    model: torch.nn.Module,
    input_ids: torch.Tensor,  # [B, P + T]
    attention_mask: torch.Tensor,  # [B, P + T]
    prompt_length: int,
    *,
    chunk: int = 64,
    with_entropy: bool = False,
    temperature: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """log pi(y_t | y_<t) of each response token ([B, T]) and optionally the entropy ([B, T])."""
    logps, entropies = [], []
    for start in range(0, input_ids.shape[0], chunk):
        ids = input_ids[start : start + chunk]  # [c, L]
        attn = attention_mask[start : start + chunk]  # [c, L]
        response_length = ids.shape[1] - prompt_length
        # Logits at position t predict token t + 1: the response tokens are predicted by
        # positions P-1 .. L-2, so only the last T + 1 positions need the LM head.
        out = model(
            input_ids=ids,
            attention_mask=attn,
            position_ids=position_ids_from_mask(attn),
            use_cache=False,
            logits_to_keep=response_length + 1,
        )
        logits = out.logits[:, :-1].float()  # [c, T, V]
        if temperature != 1.0:
            logits = logits / temperature  # the distribution the rollouts were sampled from
        targets = ids[:, prompt_length:]  # [c, T]
        log_norm = torch.logsumexp(logits, dim=-1)  # [c, T]
        logps.append(logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - log_norm)  # [c, T]
        if with_entropy:
            # H = logsumexp(z) - sum_v softmax(z)_v z_v
            probs = torch.softmax(logits, dim=-1)  # [c, T, V]
            entropies.append(log_norm - (probs * logits).sum(-1))  # [c, T]
        del out, logits
    logp = torch.cat(logps)  # [B, T]
    entropy = torch.cat(entropies) if with_entropy else None
    return logp, entropy
