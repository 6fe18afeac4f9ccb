"""The paper's qualitative claims, checked on the runs of a profile with paired seeds.

CE-GPPO (arXiv 2509.20712) claims, and what is compared here (end entropy: the mean entropy of the
last steps, `harness.training.summary.stability_figures`):

    GRPO's entropy ends below CE-GPPO's            CE-GPPO(0.5, 1) - GRPO  end entropy  > 0
    DAPO's entropy ends below CE-GPPO's            CE-GPPO(0.5, 1) - DAPO  end entropy  > 0
    larger beta1 -> lower entropy                  CE-GPPO(0.75, 1) - CE-GPPO(0.5, 1)   < 0
    larger beta2 -> higher entropy                 CE-GPPO(0.5, 1) - CE-GPPO(0.5, 0.5)  > 0
    CE-GPPO's KL stays within PPO's range          CE-GPPO(0.5, 1) - GRPO  max ppo_kl   <= 0
    CE-GPPO's gradient norm stays within PPO's     CE-GPPO(0.5, 1) - GRPO  max grad norm <= 0

Each claim is a paired difference with a 95% t-interval over the seeds both rows finished. The
verdict: "holds" when the whole interval lies on the claimed side, "does not hold" when it lies on
the other side, "inside noise" when it contains 0 (for the two "within PPO's range" claims that
means no detectable excess). A claim whose rows did not run is "not run", with the rows it needs.
Nothing here is tuned to agree with the paper.

Accuracy claims (the paper's Table 1: CE-GPPO above GRPO and DAPO on Avg, and above GRPO on each
benchmark; for CE-GPPO(0.5,1) and, when its row ran, CE-GPPO(0.75,1), the paper's 7B setting) are
differences of avg@k in points from `harness.reports.stats.accuracy.difference` (crossed random-effects
interval over seeds and problems, 95%, and the same test's two-sided p-value). There are many
of them, so their p-values are Holm-adjusted together (the family: every accuracy claim that ran)
and the verdict reads the adjusted p-value: "holds" when it is below 5% and the difference lies on
the claimed side, "does not hold" when it is below 5% on the other side, "inside noise" otherwise.
The entropy and stability claims above are a family of their own and keep their unadjusted intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.reports.stats.accuracy import HOLM, Difference, RowScores, difference, holm
from harness.reports.stats.seed_stats import Interval, paired_differences, t_interval

ALPHA = 0.05


@dataclass(frozen=True)
class Claim:
    text: str
    treatment: str  # row label
    control: str  # row label
    figure: str  # a stability figure
    sign: int  # +1: the claim says treatment - control > 0; -1: < 0


CLAIMS = (
    Claim("GRPO's entropy ends below CE-GPPO's", "CE-GPPO(0.5,1)", "GRPO", "end_entropy", +1),
    Claim("DAPO's entropy ends below CE-GPPO's", "CE-GPPO(0.5,1)", "DAPO", "end_entropy", +1),
    Claim("larger beta1 lowers entropy (beta1 0.75 vs 0.5)", "CE-GPPO(0.75,1)", "CE-GPPO(0.5,1)", "end_entropy", -1),
    Claim("larger beta2 raises entropy (beta2 1 vs 0.5)", "CE-GPPO(0.5,1)", "CE-GPPO(0.5,0.5)", "end_entropy", +1),
    Claim("CE-GPPO's KL stays within PPO's range (max ppo_kl)", "CE-GPPO(0.5,1)", "GRPO", "max_ppo_kl", -1),
    Claim("CE-GPPO's gradient norm stays within PPO's range", "CE-GPPO(0.5,1)", "GRPO", "max_grad_norm", -1),
)


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str  # holds / does not hold / inside noise / not run
    interval: Interval | None

    def line(self) -> str:
        c = self.claim
        if self.interval is None:
            return (
                f"- {c.text}: not run (needs rows {c.treatment} and {c.control}; `--rows` adds rows by label, "
                f"e.g. `harness table1 --rows '{c.control}'` or `make reproduce-table1 ROWS='{c.control}'`)"
            )
        side = ">" if c.sign > 0 else "<"
        return (
            f"- {c.text}: **{self.verdict}** — {c.figure} {c.treatment} - {c.control} = {self.interval} "
            f"(95% t-interval, {self.interval.n} paired seeds; the claim says {side} 0)"
        )


def judge(interval: Interval, sign: int) -> str:
    if interval.n < 2:
        return "inside noise"  # one seed gives no interval: nothing can be told apart from noise
    low, high = interval.low * sign, interval.high * sign
    if min(low, high) > 0:
        return "holds"
    if max(low, high) < 0:
        return "does not hold"
    return "inside noise"


def check_claims(figures: dict[str, dict[int, dict[str, float]]], claims=CLAIMS) -> list[Verdict]:
    """`figures[row label][seed][figure name]` -> one verdict per claim."""
    verdicts = []
    for claim in claims:
        treatment, control = figures.get(claim.treatment, {}), figures.get(claim.control, {})
        x = {s: f[claim.figure] for s, f in treatment.items() if claim.figure in f}
        y = {s: f[claim.figure] for s, f in control.items() if claim.figure in f}
        differences = paired_differences(x, y)
        if not differences:
            verdicts.append(Verdict(claim, "not run", None))
            continue
        interval = t_interval(differences)
        verdicts.append(Verdict(claim, judge(interval, claim.sign), interval))
    return verdicts


@dataclass(frozen=True)
class AccuracyClaim:
    text: str
    treatment: str  # row label
    control: str  # row label
    column: str  # a benchmark or "Avg"


def accuracy_claims(labels, benchmarks: list[str]) -> list[AccuracyClaim]:
    """The paper's accuracy claims for these rows: CE-GPPO(0.5,1) always (its claims are "not run" when a
    row is missing), CE-GPPO(0.75,1) when its row ran; per benchmark only when there are several."""
    claims = []
    for treatment in ("CE-GPPO(0.5,1)", "CE-GPPO(0.75,1)"):
        if treatment != "CE-GPPO(0.5,1)" and treatment not in labels:
            continue
        claims += [AccuracyClaim(f"{treatment} beats {c} on Avg", treatment, c, "Avg") for c in ("GRPO", "DAPO")]
        if len(benchmarks) > 1:
            claims += [AccuracyClaim(f"{treatment} beats GRPO on {b}", treatment, "GRPO", b) for b in benchmarks]
    return claims


@dataclass(frozen=True)
class AccuracyVerdict:
    claim: AccuracyClaim
    verdict: str  # holds / does not hold / inside noise / not run
    difference: Difference | None
    adjusted_p: float | None  # Holm-adjusted over the accuracy claims that ran
    family: int  # how many claims the adjustment ran over

    def line(self) -> str:
        c, d = self.claim, self.difference
        if d is None:
            return (
                f"- {c.text}: not run (needs rows {c.treatment} and {c.control}; `--rows` adds rows by label, "
                f"e.g. `harness table1 --rows '{c.control}'` or `make reproduce-table1 ROWS='{c.control}'`)"
            )
        compared = (
            f"{'paired' if d.paired else 'unpaired'}, {d.seeds} seed{'s' * (d.seeds != 1)} x {d.problems} problems"
        )
        one_seed = "; 1 seed: no verdict, the seed's own luck is not measured" if d.seeds < 2 else ""
        return (
            f"- {c.text}: **{self.verdict}** — accuracy {c.treatment} - {c.control} on {c.column} = {d.text()} points "
            f"(95% interval, {compared}; p = {d.p_value:.3g}, {HOLM}-adjusted over {self.family} accuracy claims "
            f"p = {self.adjusted_p:.3g}; the claim says > 0{one_seed})"
        )


def judge_adjusted(d: Difference, adjusted_p: float) -> str:
    if d.seeds < 2:
        # one training seed: the interval covers the problems only, and a seed's luck moves a whole row by a
        # few points (the countdown profile's seeds differ by 2-3), so no difference can be told from it
        return "inside noise"
    if adjusted_p >= ALPHA:
        return "inside noise"
    return "holds" if d.mean > 0 else "does not hold"


def check_accuracy_claims(scores: dict[str, RowScores], benchmarks: list[str], claims=None) -> list[AccuracyVerdict]:
    """`scores[row label]` -> one verdict per accuracy claim, Holm-adjusted across the claims that ran."""
    claims = accuracy_claims(scores, benchmarks) if claims is None else claims
    found: dict[int, Difference] = {}
    for i, claim in enumerate(claims):
        if claim.treatment in scores and claim.control in scores:
            columns = benchmarks if claim.column == "Avg" else [claim.column]
            found[i] = difference(scores[claim.treatment], scores[claim.control], columns)
    adjusted = dict(zip(found, holm([d.p_value for d in found.values()])))
    verdicts = []
    for i, claim in enumerate(claims):
        if i not in found:
            verdicts.append(AccuracyVerdict(claim, "not run", None, None, len(found)))
            continue
        verdict = judge_adjusted(found[i], adjusted[i])
        verdicts.append(AccuracyVerdict(claim, verdict, found[i], adjusted[i], len(found)))
    return verdicts


def accuracy_note(verdicts: list[AccuracyVerdict]) -> str:
    """The sentence above the accuracy claims: the correction, named, and the family it ran over."""
    ran = sum(v.difference is not None for v in verdicts)
    if not ran:
        return "Accuracy claims: none ran (their rows are missing)."
    return (
        f"Accuracy claims: differences of avg@k in points with 95% intervals; the verdicts use {HOLM}-adjusted "
        f"p-values across the {ran} accuracy claims that ran (holds / does not hold: adjusted p < {ALPHA:g} on the "
        "claimed / the other side; inside noise otherwise). The entropy and stability claims keep their own "
        "unadjusted 95% t-intervals."
    )
