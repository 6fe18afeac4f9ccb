"""The paper's qualitative claims, checked on the runs of a profile with paired seeds.

CE-GPPO (arXiv 2509.20712) claims, and what is compared here (end entropy: the mean entropy of the
last steps, `harness.summary.stability_figures`):

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
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.reports.stats import Interval, paired_differences, t_interval


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
