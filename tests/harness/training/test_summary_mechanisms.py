"""Each masking / clipping mechanism's share gets its own stability figure, only where the run has it."""

import pytest

from harness.training.summary import stability_figures


def test_mechanism_shares_are_averaged_and_absent_when_never_logged():
    history = [
        {
            "step": 0,
            "entropy": 1.0,
            "grad_norm": 1.0,
            "grad_norm_max": 1.0,
            "clip_frac_low": 0.0,
            "clip_frac_high": 0.0,
            "dual_clip_frac": 0.001,
            "entropy_mask_frac": 0.2,
        },
        {
            "step": 1,
            "entropy": 0.9,
            "grad_norm": 1.0,
            "grad_norm_max": 1.0,
            "clip_frac_low": 0.0,
            "clip_frac_high": 0.0,
            "dual_clip_frac": 0.003,
            "entropy_mask_frac": 0.3,
        },
    ]
    figures = stability_figures(history)
    assert figures["dual_clip_frac"] == pytest.approx(0.002)
    assert figures["entropy_mask_frac"] == pytest.approx(0.25)
    assert "top_entropy_masked_frac" not in figures and "cov_clip_frac" not in figures
