"""harness.reports.stats.accuracy on fabricated per-problem scores whose truth is known.

The generator is additive on the probability scale, with accuracies kept inside (0, 1) so that no
clipping bends it: p[row, seed, problem] = base[problem] + shift[row] + problem effect + seed shift +
seed x problem deviation, and a score is the mean of k Bernoulli(p) samples. The true difference is
then exactly the treatment's shift, over problems and seeds alike drawn afresh in every repetition.
"""

import math
import statistics

import numpy as np
import pytest
from scipy.stats import t as student_t

from harness.reports.stats.accuracy import (
    HOLM,
    PAPER_ASSUMPTIONS,
    Components,
    Difference,
    budget,
    components_from,
    difference,
    holm,
    minimum_detectable_difference,
    power_of,
    significance_groups,
)
from harness.reports.stats.seed_stats import t_interval


def fabricate(rng, n, seeds, k, *, shift=0.0, problem_sd=0.0, seed_sd=0.0, interaction_sd=0.0, base=None):
    """One row: {seed: {problem: score}} with the additive model of the module docstring."""
    base = rng.uniform(0.3, 0.7, n) if base is None else base
    p = base + shift + rng.normal(0, problem_sd, n) + rng.normal(0, seed_sd, (seeds, 1))
    p = np.clip(p + rng.normal(0, interaction_sd, (seeds, n)), 0.0, 1.0)  # the sds used keep p inside
    y = rng.binomial(k, p) / k
    return {s: {f"p{i}": float(y[s, i]) for i in range(n)} for s in range(seeds)}


def pair(rng, n, seeds, k, delta, base=None, **effects):
    base = rng.uniform(0.3, 0.7, n) if base is None else base
    treatment = fabricate(rng, n, seeds, k, shift=delta, base=base, **effects)
    control = fabricate(rng, n, seeds, k, base=base, seed_sd=effects.get("seed_sd", 0.0),
                        interaction_sd=effects.get("interaction_sd", 0.0))  # fmt: skip
    return {"b": treatment}, {"b": control}


def coverage(delta, repetitions=1000, seeds=3):
    rng, covered = np.random.default_rng(2024), 0
    for _ in range(repetitions):
        t, c = pair(rng, 30, seeds, 4, delta, problem_sd=0.05, seed_sd=0.02, interaction_sd=0.04)
        d = difference(t, c, ["b"])
        covered += d.low <= 100 * delta <= d.high
    return covered / repetitions


def test_zero_difference_is_covered_about_95_percent():
    assert 0.93 <= coverage(0.0) <= 0.97


def test_a_known_difference_is_covered_at_the_same_rate():
    assert 0.93 <= coverage(0.04, seeds=5) <= 0.97


def test_variance_matches_the_large_sample_reference():
    """The closed-form SE^2 (unbiased) against the spread of the estimate over fabricated repetitions."""
    rng, estimates, variances = np.random.default_rng(3), [], []
    for _ in range(600):
        t, c = pair(rng, 40, 4, 8, 0.02, problem_sd=0.06, seed_sd=0.02, interaction_sd=0.05)
        d = difference(t, c, ["b"])
        estimates.append(d.mean)
        variances.append(d.se**2)
        assert d.high - d.mean == pytest.approx(d.mean - d.low)  # symmetric (never cut at this scale)
        assert d.high - d.mean > student_t.ppf(0.975, 10**6) * d.se  # wider than the normal interval
    assert statistics.fmean(variances) / statistics.variance(estimates) == pytest.approx(1.0, abs=0.17)


def test_one_seed_is_the_paired_t_interval_over_problems():
    """One seed: the interval is the classic paired t over per-problem differences (a single mean square's
    fiducial mixture is Student's t; the fixed draws reproduce its quantile to 0.2%)."""
    rng = np.random.default_rng(5)
    t, c = pair(rng, 400, 1, 8, 0.02, problem_sd=0.1)
    d = difference(t, c, ["b"])
    reference = t_interval([t["b"][0][p] - c["b"][0][p] for p in t["b"][0]])
    assert d.paired and d.seeds == 1 and "problems only" in d.method
    assert d.mean == pytest.approx(100 * reference.mean)
    assert d.high - d.mean == pytest.approx(100 * (reference.high - reference.mean), rel=2e-3)


def test_seed_dominated_is_the_paired_t_interval_over_seeds():
    """Differences that vary only by seed: the interval approaches the t interval of per-seed means."""
    rng = np.random.default_rng(6)
    shifts = rng.normal(0.03, 0.02, 6)
    noise = rng.normal(0, 0.002, (6, 300))
    t = {"b": {s: {f"p{i}": 0.5 + shifts[s] + noise[s, i] for i in range(300)} for s in range(6)}}
    c = {"b": {s: {f"p{i}": 0.5 for i in range(300)} for s in range(6)}}
    d = difference(t, c, ["b"])
    reference = t_interval([statistics.fmean(t["b"][s].values()) - 0.5 for s in range(6)])
    assert d.seeds == 6 and d.problems == 300
    assert (d.low, d.high) == pytest.approx((100 * reference.low, 100 * reference.high), rel=0.02)


def test_other_seeds_keep_problems_paired_other_problems_do_not():
    rng = np.random.default_rng(7)
    base = rng.uniform(0.1, 0.85, 40)
    t, c = pair(rng, 40, 4, 16, 0.05, base=base, problem_sd=0.03, seed_sd=0.005)
    paired = difference(t, c, ["b"])
    moved = {"b": {s + 10: scores for s, scores in c["b"].items()}}  # same scores, other seed numbers
    other_seeds = difference(t, moved, ["b"])
    renamed = {"b": {s: {f"x{p}": v for p, v in scores.items()} for s, scores in moved["b"].items()}}
    unpaired = difference(t, renamed, ["b"])
    assert paired.paired and not other_seeds.paired and not unpaired.paired
    assert "paired problems" in other_seeds.method and other_seeds.method.startswith("unpaired seeds")
    assert paired.mean == pytest.approx(other_seeds.mean) == pytest.approx(unpaired.mean)
    width = {d: d.high - d.low for d in (paired, other_seeds, unpaired)}
    # two seed terms of 3 df each (never truncated, so their few df always count) against one
    assert width[other_seeds] < 2 * width[paired] and width[unpaired] > 1.5 * width[other_seeds]


def test_avg_over_benchmarks_problems_summed_and_deterministic():
    rng = np.random.default_rng(8)
    t1, c1 = pair(rng, 30, 3, 4, 0.02)
    t2, c2 = pair(rng, 50, 3, 4, 0.06)
    t, c = {"x": t1["b"], "y": t2["b"]}, {"x": c1["b"], "y": c2["b"]}
    d = difference(t, c, ["x", "y"], seed=3)
    singles = [difference(t, c, [b]).mean for b in ("x", "y")]
    assert d.mean == pytest.approx(statistics.fmean(singles)) and d.problems == 80
    assert d == difference(t, c, ["x", "y"], seed=3) and d.paired and d.seeds == 3
    assert (d.p_value < 0.05) == (not d.covers_zero())


def test_text_and_zero():
    d = Difference(2.5, -1.0, 6.0, 3, 30, True, "m", 0.2)
    assert d.text() == "+2.5 [-1.0, +6.0]" and d.covers_zero()
    assert not Difference(2.5, 0.5, 6.0, 3, 30, True, "m", 0.01).covers_zero()


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04, 0.5 -> x4 = 0.04, x3 = 0.09, x2 = 0.08 -> 0.09 (monotone), x1 = 0.5
    assert holm([0.04, 0.5, 0.01, 0.03]) == pytest.approx([0.09, 0.5, 0.04, 0.09])
    assert holm([0.3, 0.4]) == pytest.approx([0.6, 0.6]) and holm([]) == [] and HOLM == "Holm-Bonferroni"


def test_significance_groups():
    rng = np.random.default_rng(9)
    base = rng.uniform(0.3, 0.7, 200)

    def row(shift):
        return {"b": fabricate(rng, 200, 3, 8, shift=shift, base=base, interaction_sd=0.02)}

    rows = {"A": row(0.20), "B": row(0.195), "C": row(0.0), "D": row(0.005)}
    groups = significance_groups(rows, ["b"])
    assert [g.label for g in groups][:2] == ["A", "B"] and groups[0].mean > groups[1].mean > groups[2].mean
    assert {g.label: g.group for g in groups} == {"A": 1, "B": 1, "C": 2, "D": 2}
    assert groups[0].versus_leader is None and groups[3].versus_leader.mean < -15


def test_components_recovered():
    rng = np.random.default_rng(10)
    truth = dict(problem_sd=0.05, seed_sd=0.02, interaction_sd=0.06)
    t, c = pair(rng, 300, 16, 16, 0.0, **truth)
    got = components_from({"T": t, "C": c}, "b", 16)
    assert (got.problems, got.samples, got.seeds) == (300, 16, 16)
    assert got.sample_var == pytest.approx(0.2367 - 0.06**2, rel=0.05)  # E[p(1-p)], p ~ U(0.3, 0.7) + noise
    for name, value in truth.items():
        assert getattr(got, name) == pytest.approx(value, rel=0.35), name


def test_mde_matches_simulated_power():
    """At the MDE, the interval excludes 0 in about 80% of fabricated repetitions."""
    c = Components(seed_sd=0.02, problem_sd=0.05, sample_var=0.2367, problems=40, samples=4, seeds=4,
                   interaction_sd=0.04)  # fmt: skip
    mde = minimum_detectable_difference(c, 4, 4)
    assert power_of(c, mde, 4, 4) == pytest.approx(0.8, abs=0.01)
    rng, detected = np.random.default_rng(11), 0
    for _ in range(1000):
        t, ctl = pair(rng, 40, 4, 4, mde / 100, problem_sd=0.05, seed_sd=0.02, interaction_sd=0.04)
        detected += not difference(t, ctl, ["b"]).covers_zero()
    assert 0.75 <= detected / 1000 <= 0.85


def test_mde_and_budget_behave():
    c = PAPER_ASSUMPTIONS["aime24"]
    assert minimum_detectable_difference(c, 8, 16) < minimum_detectable_difference(c, 2, 16)
    assert minimum_detectable_difference(c, 3, 64) < minimum_detectable_difference(c, 3, 1)
    assert minimum_detectable_difference(c, 3, 16, problems=300) < minimum_detectable_difference(c, 3, 16)
    options = budget(c, 6.0)
    assert options and all(p >= 0.8 for *_, p in options)
    seeds, samples = [s for s, *_ in options], [k for _, k, _ in options]
    assert seeds == sorted(seeds) and samples == sorted(samples, reverse=True) and len(set(samples)) == len(samples)
    assert budget(c, 0.01) == []


def test_paper_assumptions_match_the_profile():
    from benchmarks.families.math_competitions import MATH_BENCHMARKS
    from harness.profiles import PROFILES

    sizes = {b.name: b.expected_rows for b in MATH_BENCHMARKS}
    profile = PROFILES["paper"]
    assert set(PAPER_ASSUMPTIONS) == {"aime24", "aime25", "hmmt25", "math500", "amc23"}
    for name, c in PAPER_ASSUMPTIONS.items():
        assert (c.samples, c.seeds) == (profile.k, profile.seeds)
        assert 0 < c.sample_var <= 0.25 and 0 < c.problem_sd < 0.2 and math.isfinite(c.seed_sd)
        assert c.problems == sizes[name]


def test_one_seed_is_offered_only_where_its_test_holds_its_level():
    from harness.reports.stats.power import Components, one_seed_holds_level

    # the tiny Table 1's measured components (seed sd 8.3 points): one seed rejects a null 82% of the time
    seed_luck = Components(0.083, 0.066, 0.04, 500, 4, 5, interaction_sd=0.184)
    assert power_of(seed_luck, 0.0, 1, 4) > 0.5 and not one_seed_holds_level(seed_luck, 4)
    assert budget(seed_luck, 2.5) == []  # was [(1, 2, 0.82)]: "detected" by seed luck
    assert all(seeds > 1 for seeds, *_ in budget(seed_luck, 30.0))
    # no seed term: one seed's test holds its level and stays the cheapest option
    no_seed_term = Components(0.0, 0.05, 0.1, 200, 4, 5, interaction_sd=0.03)
    assert one_seed_holds_level(no_seed_term, 4) and budget(no_seed_term, 3.0)[0][0] == 1


def test_a_one_seed_budget_says_how_often_it_rejects_a_null():
    from harness.reports.stats.power import PAPER_ASSUMPTIONS
    from harness.reports.stats.seed_planner import plan_lines

    lines = plan_lines({"math500": PAPER_ASSUMPTIONS["math500"]}, 1, 32, 2.5)
    assert "(1 seed: a null rejected 63%)" in lines[1] and "1x" not in lines[1].split("points")[-1]
