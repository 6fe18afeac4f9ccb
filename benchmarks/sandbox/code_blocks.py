"""Pull the program out of a model's answer to a coding prompt (HumanEval, LiveCodeBench).

Chat models answer with prose around a fenced block; base models continue the prompt with bare
code. `extract_code` returns the last ```python block (else the last fenced block of any
language), or the completion itself when it has no fence.
"""

import re

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(completion: str) -> str:
    blocks = [(language.lower(), body) for language, body in _FENCE.findall(completion)]
    python = [body for language, body in blocks if language in ("python", "py", "python3")]
    if python:
        return python[-1]
    if blocks:
        return blocks[-1][1]
    return completion
