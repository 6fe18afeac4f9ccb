"""The terminal table of an evaluation: exact text for a fabricated results dict."""

import copy

from benchmarks.results_table import format_results

RESULTS = {
    "benchmarks": {
        "aime24": {
            "num_problems": 30,
            "num_samples": 120,
            "num_skipped": 0,
            "primary_metric": "acc",
            "metrics": {
                "acc": {"avg@4": 0.1333, "stderr": 0.0412, "pass@1": 0.1333, "pass@2": 0.2, "pass@4": 0.3},
            },
        },
        "math500": {
            "num_problems": 500,
            "num_samples": 2000,
            "num_skipped": 2,
            "primary_metric": "acc",
            "metrics": {"acc": {"avg@4": 0.8125, "stderr": 0.0161, "pass@1": 0.8125, "pass@2": 0.9, "pass@4": 0.93}},
        },
        "ifeval": {
            "num_problems": 541,
            "num_samples": 2164,
            "num_skipped": 1,
            "primary_metric": "prompt_level_strict_acc",
            "metrics": {
                "prompt_level_strict_acc": {"avg@4": 0.6, "stderr": 0.02, "pass@1": 0.6, "pass@4": 0.8},
                "inst_level_strict_acc": {"avg@4": 0.7, "stderr": 0.015},
            },
        },
    },
    "suite": {"avg": 0.5152666, "metric": "avg@4", "benchmarks": ["aime24", "math500", "ifeval"]},
    "settings": {"k": 4, "limit": None, "seed": 0, "data_dir": None},
}


def test_plain_text_table():
    assert format_results(RESULTS) == "\n".join(
        [
            "benchmark   metric                   avg@4 ± se (%)  pass@1 (%)  pass@4 (%)  problems  samples  skipped",
            "----------  -----------------------  --------------  ----------  ----------  --------  -------  -------",
            "aime24      acc                          13.3 ± 4.1        13.3        30.0        30      120        0",
            "math500     acc                          81.2 ± 1.6        81.2        93.0       500     2000        2",
            "ifeval      prompt_level_strict_acc      60.0 ± 2.0        60.0        80.0       541     2164        1",
            "----------  -----------------------  --------------  ----------  ----------  --------  -------  -------",
            "suite mean  3 benchmarks                 51.5                                    1071     4284        3",
        ]
    )


def test_markdown_table():
    assert format_results(RESULTS, markdown=True) == "\n".join(
        [
            "| benchmark | metric | avg@4 ± se (%) | pass@1 (%) | pass@4 (%) | problems | samples | skipped |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            "| aime24 | acc | 13.3 ± 4.1 | 13.3 | 30.0 | 30 | 120 | 0 |",
            "| math500 | acc | 81.2 ± 1.6 | 81.2 | 93.0 | 500 | 2000 | 2 |",
            "| ifeval | prompt_level_strict_acc | 60.0 ± 2.0 | 60.0 | 80.0 | 541 | 2164 | 1 |",
            "| suite mean | 3 benchmarks | 51.5 |  |  | 1071 | 4284 | 3 |",
        ]
    )


def test_k1_non_binary_metric_and_old_results_without_skip_counts():
    results = {
        "benchmarks": {
            "ifeval": {
                "num_problems": 2,
                "num_samples": 2,
                "primary_metric": "inst_level_strict_acc",
                "metrics": {"inst_level_strict_acc": {"avg@1": 0.625, "stderr": 0.125}},
            },
            "arith_l1": {
                "num_problems": 2,
                "num_samples": 2,
                "primary_metric": "acc",
                "metrics": {"acc": {"avg@1": 1.0, "stderr": 0.0, "pass@1": 1.0}},
            },
        },
        "suite": {"avg": 0.8125, "metric": "avg@1", "benchmarks": ["ifeval", "arith_l1"]},
        "settings": {"k": 1},
    }
    before = copy.deepcopy(results)
    assert format_results(results) == "\n".join(
        [
            "benchmark   metric                 avg@1 ± se (%)  pass@1 (%)  problems  samples  skipped",
            "----------  ---------------------  --------------  ----------  --------  -------  -------",
            "ifeval      inst_level_strict_acc     62.5 ± 12.5           -         2        2        0",
            "arith_l1    acc                      100.0 ±  0.0       100.0         2        2        0",
            "----------  ---------------------  --------------  ----------  --------  -------  -------",
            "suite mean  2 benchmarks              81.2                            4        4        0",
        ]
    )
    assert results == before
    assert format_results(results, markdown=True).splitlines()[3:] == [
        "| arith_l1 | acc | 100.0 ± 0.0 | 100.0 | 2 | 2 | 0 |",
        "| suite mean | 2 benchmarks | 81.2 |  | 4 | 4 | 0 |",
    ]


def test_majority_and_all_correct_columns_beside_pass_at_k():
    """maj@k where answers can be compared (math), "-" where not (code); pass^k wherever pass/fail."""
    results = {
        "benchmarks": {
            "aime26": {
                "num_problems": 30,
                "num_samples": 240,
                "num_skipped": 0,
                "primary_metric": "acc",
                "metrics": {
                    "acc": {
                        "avg@8": 0.25,
                        "stderr": 0.05,
                        "pass@1": 0.25,
                        "pass@8": 0.6,
                        "maj@8": 0.3,
                        "pass^8": 0.0333,
                    }
                },
            },
            "humaneval": {
                "num_problems": 164,
                "num_samples": 1312,
                "num_skipped": 0,
                "primary_metric": "pass",
                "metrics": {"pass": {"avg@8": 0.5, "stderr": 0.03, "pass@1": 0.5, "pass@8": 0.75, "pass^8": 0.2}},
            },
        },
        "suite": {"avg": 0.375, "metric": "avg@8", "benchmarks": ["aime26", "humaneval"]},
        "settings": {"k": 8},
    }
    assert format_results(results).splitlines() == [
        "benchmark   metric        avg@8 ± se (%)  pass@1 (%)  pass@8 (%)  maj@8 (%)  pass^8 (%)"
        "  problems  samples  skipped",
        "----------  ------------  --------------  ----------  ----------  ---------  ----------"
        "  --------  -------  -------",
        "aime26      acc               25.0 ± 5.0        25.0        60.0       30.0         3.3"
        "        30      240        0",
        "humaneval   pass              50.0 ± 3.0        50.0        75.0          -        20.0"
        "       164     1312        0",
        "----------  ------------  --------------  ----------  ----------  ---------  ----------"
        "  --------  -------  -------",
        "suite mean  2 benchmarks      37.5                                                    "
        "        194     1552        0",
    ]
    assert format_results(results, markdown=True).splitlines()[2:4] == [
        "| aime26 | acc | 25.0 ± 5.0 | 25.0 | 60.0 | 30.0 | 3.3 | 30 | 240 | 0 |",
        "| humaneval | pass | 50.0 ± 3.0 | 50.0 | 75.0 | - | 20.0 | 164 | 1312 | 0 |",
    ]
