"""The project's one math grader, its rules, and the measures of its trustworthiness.

    from benchmarks.grading.math_grader import grade_math, grade_math_batch

`math_grader` is the entry point (both modes); `math_check` the steps in order (`math_verdict` the
fast path, `math_full_check` the rest, `math_deadline` the main thread's time limit); `math_answer`
(with `math_boxes`, `math_unboxed`, `math_extracted`), `math_hidden`, `math_address`, `math_retraction`,
`math_normal`, `math_nonanswer`, `math_form`, `math_strict`, `math_values` and the modules they name
the rules; `grading_worker` grades off the main thread; `reward_hacks` holds the online reward
check's detectors; `probes` and `grader_audit` measure the grader against read sets. May import
`harness.common` and the rest of `benchmarks` below the registry; nothing of `harness`.
"""
