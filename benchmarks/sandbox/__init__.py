"""Running model-written programs: a confined, killable process and its parts.

`confined_run` (run untrusted Python with limits), `boot` (the child side that confines itself, run as
a file: it imports nothing of the project), `cgroup` (bounds on the whole process tree), `identity`
(which Python, which uid) and `code_blocks` (the program pulled out of an answer). Imports nothing
outside this folder, so a copy of it works on its own. Importing this package imports nothing.
"""
