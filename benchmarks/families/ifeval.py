"""IFEval (Zhou et al. 2023, https://arxiv.org/abs/2311.07911): 541 verifiable-instruction prompts.

Data: ifeval.jsonl, josejg/instruction_following_eval@0c495b2f95155e8b10acb919ae283bfb4d5be6e2
(the google-research input_data.jsonl), or the Hub dataset google/IFEval when online. Fields:
key, prompt, instruction_id_list, kwargs (sparse dicts; lm-eval drops empty values).

Scoring is lm-eval's own IFEval code (lm_eval.tasks.ifeval.utils.process_results and the
instruction checkers it ships), not a rewrite: strict and loose, prompt level (all
instructions followed) and instruction level (micro average over instructions, obtained here
by weighting each prompt's fraction by its instruction count). Needs lm-eval's "ifeval" extra
(langdetect, immutabledict) and the Punkt model (see `benchmarks.families.nltk_punkt`).
"""

import functools

from benchmarks.benchmark import Benchmark, Metric, hf_dataset_rows
from benchmarks.families.nltk_punkt import ensure_punkt_tab


@functools.lru_cache(maxsize=1)
def _lm_eval_process_results():
    ensure_punkt_tab()  # before lm-eval's import-time nltk.download("punkt_tab")
    import langdetect
    from lm_eval.tasks.ifeval.utils import process_results

    langdetect.DetectorFactory.seed = 0  # langdetect is random unless seeded
    return process_results


def grade_ifeval(row: dict, completion: str) -> tuple[dict[str, float], None]:
    results = _lm_eval_process_results()(row, [completion])
    return {
        "prompt_level_strict_acc": float(results["prompt_level_strict_acc"]),
        "inst_level_strict_acc": sum(results["inst_level_strict_acc"]) / len(row["instruction_id_list"]),
        "prompt_level_loose_acc": float(results["prompt_level_loose_acc"]),
        "inst_level_loose_acc": sum(results["inst_level_loose_acc"]) / len(row["instruction_id_list"]),
    }, None


def _instruction_count(row: dict) -> float:
    return float(len(row["instruction_id_list"]))


IFEVAL = Benchmark(
    name="ifeval",
    source="google/IFEval",
    version="josejg/instruction_following_eval@0c495b2f95155e8b10acb919ae283bfb4d5be6e2",
    file_name="ifeval.jsonl",
    expected_rows=541,
    required_fields=("key", "prompt", "instruction_id_list", "kwargs"),
    make_prompt=lambda row: row["prompt"],
    grade=grade_ifeval,
    metrics=(
        Metric("prompt_level_strict_acc"),
        Metric("inst_level_strict_acc", weight=_instruction_count),
        Metric("prompt_level_loose_acc"),
        Metric("inst_level_loose_acc", weight=_instruction_count),
    ),
    reference=lambda row: ",".join(row["instruction_id_list"]),
    fetch_online=functools.partial(hf_dataset_rows, "google/IFEval", lambda row, index: row),
    description="IFEval: 541 prompts with verifiable formatting instructions",
)
