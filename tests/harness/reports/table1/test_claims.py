"""harness.reports.table1.claims: the verdicts on fabricated paired-seed figures (holds, fails, inside noise)."""

from harness.reports.stats.seed_stats import t_interval
from harness.reports.table1.claims import CLAIMS, check_claims, judge


def figures(values):
    return {seed: {"end_entropy": v, "max_ppo_kl": v / 100, "max_grad_norm": v * 10} for seed, v in enumerate(values)}


def verdict_of(result, text):
    return next(v for v in result if v.claim.text == text)


def test_holds_fails_and_inside_noise():
    grpo = [0.50, 0.52, 0.48, 0.51, 0.49]
    data = {
        "GRPO": figures(grpo),
        "CE-GPPO(0.5,1)": figures([g + d for g, d in zip(grpo, [0.03, 0.04, 0.03, 0.05, 0.04])]),  # clearly above
        "DAPO": figures([g + 0.2 for g in grpo]),  # DAPO far above CE-GPPO: claim fails
        "CE-GPPO(0.75,1)": figures([g + d for g, d in zip(grpo, [0.05, 0.02, 0.04, 0.03, 0.06])]),  # around 0.5's
    }
    result = check_claims(data)
    assert verdict_of(result, "GRPO's entropy ends below CE-GPPO's").verdict == "holds"
    assert verdict_of(result, "DAPO's entropy ends below CE-GPPO's").verdict == "does not hold"
    assert verdict_of(result, "larger beta1 lowers entropy (beta1 0.75 vs 0.5)").verdict == "inside noise"
    beta2 = verdict_of(result, "larger beta2 raises entropy (beta2 1 vs 0.5)")
    assert beta2.verdict == "not run" and "needs rows CE-GPPO(0.5,1) and CE-GPPO(0.5,0.5)" in beta2.line()
    kl = verdict_of(result, "CE-GPPO's KL stays within PPO's range (max ppo_kl)")
    assert kl.verdict == "does not hold"  # CE-GPPO's KL is above GRPO's on every seed
    assert "0.0380" not in kl.line() and "5 paired seeds" in kl.line()


def test_interval_and_judgement_by_hand():
    interval = t_interval([0.01, 0.03])  # mean 0.02, sd 0.01414, t(1) = 12.706: half-width 0.127
    assert round(interval.mean, 6) == 0.02 and round(interval.high - interval.mean, 3) == 0.127
    assert judge(interval, +1) == "inside noise"
    assert judge(t_interval([0.1, 0.11, 0.12]), +1) == "holds" and judge(t_interval([0.1, 0.11, 0.12]), -1) == (
        "does not hold"
    )
    assert judge(t_interval([0.3]), +1) == "inside noise"  # one seed cannot tell anything apart
    assert len(CLAIMS) == 6


def test_only_seeds_both_rows_finished_are_paired():
    data = {"GRPO": figures([0.5, 0.5, 0.5]), "CE-GPPO(0.5,1)": {0: {"end_entropy": 0.6}, 2: {"end_entropy": 0.62}}}
    verdict = verdict_of(check_claims(data), "GRPO's entropy ends below CE-GPPO's")
    assert verdict.interval.n == 2 and round(verdict.interval.mean, 6) == 0.11
