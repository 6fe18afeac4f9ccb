"""The base layer every package may import: user errors, file helpers, store addresses, the numerical environment.

    from harness.common.errors import UserError, ConfigError, DataError, TrackingError
    from harness.common.files import read_jsonl, atomic_file, atomic_write_text, atomic_directory
    from harness.common.uris import DEFAULT_TRACKING_URI, redact, sqlite_url
    from harness.common.environment import describe_environment, environment_tags, describe_differences

Nothing here imports anything else of the project (not even the rest of `harness`), so
`benchmarks` and `sweeps` use it without an import ever pointing back at them; the architecture
test (tests/test_architecture.py) keeps it that way. See docs/design.md, "Layers".
"""
