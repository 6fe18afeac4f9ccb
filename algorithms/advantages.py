"""From rewards to advantages: group-relative baselines, DAPO's dynamic-sampling filter and its
overlong reward shaping.

Layout: rewards is a flat [B] tensor with the G rollouts of each prompt next to each other
(B = num_groups * G), or already shaped [num_groups, G].

- Group-relative advantages (GRPO, arXiv 2402.03300): A_i = (R_i - mean_group R) / (std_group R + eps),
  with the unbiased (n - 1) standard deviation. Dr.GRPO (arXiv 2503.20783) drops the division by
  the std, which up-weights groups with little reward variance (too easy or too hard prompts):
  A_i = R_i - mean_group R.
- Dynamic sampling (DAPO, arXiv 2503.14476): a group whose rewards are all equal has every
  advantage 0 and contributes no gradient, only dilution of the batch; the filter says which
  groups to keep (the trainer then refills the batch or trains on fewer groups).
- Overlong reward shaping (DAPO): a length penalty added to the reward, 0 up to L_max - L_cache
  tokens, then falling linearly to -1 at L_max, and -1 beyond.
"""

from __future__ import annotations

from torch import Tensor


def _grouped(rewards: Tensor, group_size: int) -> Tensor:
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be an integer >= 1, got {group_size!r}")
    if rewards.dim() == 2:
        if rewards.shape[1] != group_size:
            raise ValueError(f"rewards [num_groups, G] has G = {rewards.shape[1]}, but group_size = {group_size}")
        return rewards
    if rewards.dim() != 1 or rewards.numel() % group_size:
        raise ValueError(
            f"rewards must be [num_groups * G] or [num_groups, G] with G = group_size = {group_size}, "
            f"got shape {tuple(rewards.shape)}"
        )
    return rewards.view(-1, group_size)  # [num_groups, G]


def group_advantages(rewards: Tensor, group_size: int, *, std_normalize: bool = True, eps: float = 1e-6) -> Tensor:
    """Group-relative advantages, same shape as `rewards`.

    std_normalize=True: (R - mean) / (std + eps) per group (GRPO); False: R - mean (Dr.GRPO).
    A group of one rollout has no baseline to compare with and gets advantage 0.
    """
    grouped = _grouped(rewards, group_size)  # [num_groups, G]
    if not grouped.is_floating_point():
        grouped = grouped.float()  # 0/1 integer rewards
    centred = grouped - grouped.mean(dim=-1, keepdim=True)  # [num_groups, G]
    if std_normalize and group_size > 1:
        centred = centred / (grouped.std(dim=-1, keepdim=True) + eps)  # [num_groups, G]
    return centred.reshape(rewards.shape)


def dynamic_sampling_filter(rewards: Tensor, group_size: int) -> Tensor:
    """Boolean keep-mask over groups [num_groups]: True where the group's rewards are not all equal.

    Expand it to rollouts with `keep.repeat_interleave(group_size)`.
    """
    grouped = _grouped(rewards, group_size)  # [num_groups, G]
    return (grouped != grouped[:, :1]).any(dim=-1)  # [num_groups]


def overlong_penalty(lengths: Tensor, max_len: int, cache_len: int) -> Tensor:
    """DAPO's soft overlong punishment for responses of `lengths` tokens (add it to the reward).

        0                                     if len <= max_len - cache_len
        (max_len - cache_len - len) / cache_len  if max_len - cache_len < len <= max_len  (in (-1, 0])
        -1                                    if len > max_len

    max_len is L_max (the length budget), cache_len the width L_cache of the soft zone,
    0 < cache_len <= max_len.
    """
    if not 0 < cache_len <= max_len:
        raise ValueError(f"need 0 < cache_len <= max_len, got cache_len={cache_len!r}, max_len={max_len!r}")
    soft_start = max_len - cache_len
    # linear ramp from 0 at soft_start to -1 at max_len; clamped to 0 before and -1 after
    penalty = (soft_start - lengths) / cache_len  # [B]  (true division: float even for integer lengths)
    return penalty.clamp(min=-1.0, max=0.0)
