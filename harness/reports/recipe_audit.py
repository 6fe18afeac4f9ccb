"""The recipe audit: every knob of CE-GPPO's Table 1 run as the paper's text states it, as the official
script sets it, and as a profile of ours resolves it, with each difference marked.

    harness recipe-audit --profile paper        # also a section of Table 1 on the paper profiles
                                                # (harness.reports.table1.sections.recipe_audit_section)

Official script: github.com/Kwai-Klear/CE-GPPO at 10558fe,
recipe/dapo/1_5B_perf_run_gppo_v1_beta1_05_beta2_1_ours_math.sh ("L<n>": its line), on verl's
defaults where it sets nothing (verl/trainer/config/ppo_trainer.yaml, "PT:<n>"). Every value was
read there; docs/recipe-audit.md says what each knob does in their code and where ours departs.
The text column holds the values we have on record from the paper's text (arXiv 2509.20712);
"-" means none is on record, not that the text is silent (see docs/recipe-audit.md).

Marks: "=" ours equals the script; "~" the value is the same, the mechanism differs in a stated way
(the note says how); "DIFF" ours differs. "text differs" where the text and the script disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.profiles import PROFILES, Profile
from harness.schema import TrainConfig, load_train_config

SCRIPT = "recipe/dapo/1_5B_perf_run_gppo_v1_beta1_05_beta2_1_ours_math.sh @ 10558fe"


@dataclass(frozen=True)
class Knob:
    name: str
    text: str | None  # the paper's text (None: nothing on record)
    script: str  # the official 1.5B script, formatted as `ours` formats it
    where: str  # line of the script / file of verl that sets it
    ours: Callable[[TrainConfig, Profile | None], str]
    mechanism: str = ""  # how ours gets the same value another way (then "~", not "=")


def _g(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _loss(key: str) -> Callable[[TrainConfig, Profile | None], str]:
    return lambda c, t: _g(c.loss.get(key, "-")) if c.loss.get("name") == "ce_gppo" else f"{c.loss.get('name')} loss"


def _eval(what: str) -> Callable[[TrainConfig, Profile | None], str]:
    def value(c, t):
        if t is None:
            return "-"
        return {"k": f"avg@{t.k}", "sampling": f"T {_g(t.temperature)}, top-p {_g(t.top_p)}"}[what]

    return value


def _grader(c: TrainConfig) -> str:
    return "strict" if c.reward.strict else "math-verify"


def _dynamic(c: TrainConfig, t) -> str:
    if not c.algo.dynamic_sampling:
        return "off"
    return f"on, {c.algo.filter_metric}, {c.algo.max_gen_batches} gen batch"


KNOBS = (
    Knob(
        "base model",
        "DeepSeek-R1-Distill-Qwen-1.5B",
        "DeepSeek-R1-Distill-Qwen-1.5B",
        "L10, README.md:225",
        lambda c, t: c.model.name.rsplit("/", 1)[-1],
    ),
    Knob(
        "training data",
        "KlearReasoner-MathSub-30K",
        "KlearReasoner-MathSub-30K",
        "L12, README.md:225",
        lambda c, t: (c.task.path or c.task.source).rsplit("/", 1)[-1],
    ),
    Knob(
        "policy loss",
        "CE-GPPO",
        "CE-GPPO",
        "L130 gppo_general",
        lambda c, t: "CE-GPPO" if c.loss.get("name") == "ce_gppo" else str(c.loss.get("name")),
    ),
    Knob(
        "beta1 / beta2",
        "0.5 / 1",
        "0.5 / 1",
        "L131-132",
        lambda c, t: f"{_loss('beta1')(c, t)} / {_loss('beta2')(c, t)}",
    ),
    Knob(
        "clip eps low / high",
        "0.2 / 0.2",
        "0.2 / 0.2",
        "L25-27",
        lambda c, t: f"{_loss('eps_low')(c, t)} / {_loss('eps_high')(c, t)}",
    ),
    Knob("dual clip c", "10", "10", "L106", _loss("clip_ratio_c")),
    Knob("loss aggregation", "token_mean", "token_mean", "L36", lambda c, t: str(c.algo.agg_mode)),
    Knob(
        "advantage",
        "group (R - mean) / std",
        "group (R - mean) / std",
        "L18, PT:203",
        lambda c, t: "group (R - mean) / std" if c.algo.advantage == "group_std" else "group R - mean",
    ),
    Knob("learning rate", "1e-06", "1e-06", "L120", lambda c, t: _g(c.optim.lr)),
    Knob(
        "lr warm-up",
        None,
        "10 steps",
        "L121",
        lambda c, t: f"{c.optim.warmup_steps / c.algo.mini_batches:g} steps",
        mechanism="verl ramps min(1, step/10) once per RL step from lr 0; ours ramps per optimizer update over "
        "the same 80 updates",
    ),
    Knob("weight decay", None, "0.1", "L122", lambda c, t: _g(c.optim.weight_decay)),
    Knob("grad-norm clip", None, "1", "L127", lambda c, t: _g(c.optim.grad_clip)),
    Knob(
        "KL to reference", "none", "none", "L20-23", lambda c, t: "none" if c.algo.kl_coef == 0 else _g(c.algo.kl_coef)
    ),
    Knob(
        "entropy bonus",
        "0",
        "0",
        "L126",
        lambda c, t: _g(c.loss.get("coef", 0.0)) if c.loss.get("name") == "entropy_reg" else "0",
    ),
    Knob(
        "NLL on rewarded responses",
        None,
        "0.1",
        "L107; dp_actor.py:328-356,409-410",
        lambda c, t: _g(c.algo.positive_nll_coef),
        mechanism="verl takes a token-mean over each micro-batch's positives, scaled by its share of the "
        "mini-batch; ours over the whole mini-batch's positive tokens (equal when a mini-batch is one micro-batch)",
    ),
    Knob(
        "dynamic sampling",
        None,
        "on, acc, 1 gen batch",
        "L38-40; dapo_ray_trainer.py:238-300",
        _dynamic,
        mechanism="verl pools all ranks' kept groups and rounds down to a multiple of the world size; ours "
        "filters per rank and keeps as many groups on each rank as the rank that kept the fewest",
    ),
    Knob("prompts per step (trained)", None, "128", "L41", lambda c, t: str(c.rollout.prompts_per_step)),
    Knob(
        "prompts per generation batch",
        None,
        "256",
        "L42",
        lambda c, t: str(c.rollout.gen_batch_prompts or c.rollout.prompts_per_step),
    ),
    Knob("responses per prompt", "8", "8", "L45", lambda c, t: str(c.rollout.group_size)),
    Knob("updates per step", None, "8", "L46 (16-prompt mini-batches)", lambda c, t: str(c.algo.mini_batches)),
    Knob("PPO epochs", None, "1", "PT:56", lambda c, t: str(c.algo.ppo_epochs)),
    Knob(
        "max prompt tokens",
        None,
        "4096",
        "L29",
        lambda c, t: str(c.rollout.max_prompt_tokens) if c.rollout.max_prompt_tokens else "context",
        mechanism="verl cuts longer prompts from the left (L93); ours drops them at start-up",
    ),
    Knob("max response tokens", None, "16384", "L30", lambda c, t: str(c.rollout.max_new_tokens)),
    Knob("rollout temperature", "1", "1", "L71", lambda c, t: _g(c.rollout.temperature)),
    Knob("rollout top-p", None, "1", "L72", lambda c, t: _g(c.rollout.top_p)),
    Knob(
        "reward",
        None,
        "math-verify, +1 / -1",
        "math_dapo.py:261-291, reward_config.py:4-5",
        lambda c, t: (
            f"{'strict' if c.reward.strict else 'math-verify'}, {c.reward.correct:+g} / {c.reward.incorrect:+g}"
        ),
        mechanism="ours refuses non-answers (restatements, hedges) that math-verify credits",
    ),
    Knob(
        "overlong reward shaping",
        None,
        "off",
        "L32",
        lambda c, t: "off" if c.reward.overlong_buffer is None else f"{c.reward.overlong_buffer} tokens",
    ),
    Knob(
        "validation every",
        None,
        "5 steps",
        "L164",
        lambda c, t: f"{c.run.eval_every} steps" if c.run.eval_every else "off",
    ),
    Knob(
        "validation before training",
        None,
        "yes",
        "L163",
        lambda c, t: "yes",
        mechanism="ours measures held-out accuracy before RL on every run; the benchmark subset runs at the checks",
    ),
    Knob("evaluation sampling", "T 0.6, top-p 0.95", "T 0.6, top-p 0.95", "L74-75, L141-143", _eval("sampling")),
    Knob("evaluation samples", None, "avg@32", "aime960_math_verify.json (30 problems x 32)", _eval("k")),
    Knob("GPUs", None, "16 x 8", "L53, L161", lambda c, t: f"{c.run.num_nodes} x {c.run.devices}"),
    Knob(
        "training length",
        None,
        "1170 steps",
        "L166 (10 epochs)",
        lambda c, t: f"{c.run.steps} steps",
        mechanism="verl states 10 epochs, floor(N / 256) x 10 steps: 1170 for N ~ 30K prompts (N not checked "
        "offline); ours states the steps",
    ),
)


def mark(knob: Knob, ours: str) -> str:
    if ours != knob.script:
        return "DIFF"
    return "~" if knob.mechanism else "="


def audit_rows(profile: str, overrides: dict | None = None) -> list[dict]:
    """One row per knob: name, text, script (with where), ours, mark, text mark, note; `overrides`
    (dotted keys) change the profile as `harness train` flags would."""
    config = load_train_config(profile, None, overrides)
    table = PROFILES.get(profile)
    rows = []
    for knob in KNOBS:
        ours = knob.ours(config, table)
        ours_mark = mark(knob, ours)
        text_mark = "" if knob.text is None or knob.text == knob.script else "text differs"
        note = knob.mechanism if ours_mark == "~" else ""
        rows.append(
            dict(
                name=knob.name,
                text=knob.text or "-",
                script=knob.script,
                where=knob.where,
                ours=ours,
                mark=ours_mark,
                text_mark=text_mark,
                note=note,
            )
        )
    return rows


def audit_markdown(profile: str) -> str:
    rows = audit_rows(profile)
    differ = [r["name"] for r in rows if r["mark"] == "DIFF"]
    lines = [
        f"## Recipe audit: the `{profile}` profile against the paper's text and the official script",
        "",
        f"Official script: {SCRIPT} (L: its lines; PT: verl's ppo_trainer.yaml defaults). Text: values on record "
        "from arXiv 2509.20712 ('-': none on record). Marks: = as the script, ~ same value by another mechanism "
        "(note), DIFF differs.",
        "",
        "| knob | paper's text | official script | where | ours | mark |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        text = f"{r['text']} ({r['text_mark']})" if r["text_mark"] else r["text"]
        lines.append(f"| {r['name']} | {text} | {r['script']} | {r['where']} | {r['ours']} | {r['mark']} |")
    lines.append("")
    lines.append(
        f"{len(differ)} of {len(rows)} knobs differ from the script" + (f": {', '.join(differ)}." if differ else ".")
    )
    notes = [f"- {r['name']}: {r['note']}" for r in rows if r["note"]]
    if notes:
        lines += ["", "Same value, other mechanism:", *notes]
    return "\n".join(lines)


def audit_html(profile: str) -> str:
    import html

    rows = audit_rows(profile)
    cells = []
    for r in rows:
        cls = {"DIFF": "neg", "~": "noise"}.get(r["mark"], "")
        text = r["text"] + (f" ({r['text_mark']})" if r["text_mark"] else "")
        values = (r["name"], text, r["script"], r["where"], r["ours"], r["mark"])
        tds = "".join(f"<td>{html.escape(v)}</td>" for v in values[:-1])
        title = f' title="{html.escape(r["note"])}"' if r["note"] else ""
        cells.append(f"<tr>{tds}<td class='{cls}'{title}>{html.escape(r['mark'])}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("knob", "paper's text", "official script", "where", "ours", "mark"))
    return (
        f"<h2>Recipe audit: the {html.escape(profile)} profile</h2>"
        f"<p class='note'>Official script: {html.escape(SCRIPT)}. '-': no value on record from the text. "
        "= as the script, ~ same value by another mechanism (hover for how), DIFF differs.</p>"
        f"<table><tr>{head}</tr>{''.join(cells)}</table>"
    )
