"""The sandbox leaves nothing to a later run: no kernel keys, no uid still held; and it needs no
readable checkout (its programs run with a Python the sandbox uid can reach)."""

import errno
import os
import platform
import re
import tempfile

import pytest

from benchmarks.sandbox import identity as sandbox_identity
from benchmarks.sandbox.confined_run import SandboxLimits, run_python
from benchmarks.sandbox.identity import UID_BASE, draw_uid, reachable_by_others, release_uid, uids_holding_keys

QUICK = SandboxLimits(timeout_s=5.0, memory_mb=256)
AS_ROOT = os.geteuid() == 0
KEY_SYSCALLS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}.get(platform.machine())


@pytest.mark.skipif(KEY_SYSCALLS is None, reason="keyring system call numbers unknown here")
def test_kernel_keyrings_are_refused_and_nothing_is_kept():
    add_key, request_key, keyctl = KEY_SYSCALLS
    # the reliability case: a key in the uid's user keyring (KEY_SPEC_USER_KEYRING = -4), which
    # outlived the run; then asking for the keyring itself (KEYCTL_GET_KEYRING_ID, create) and a
    # request_key, each of which would make the uid hold keys
    program = f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
calls = [
    ({add_key}, b"user", b"persist", b"secret", 6, ctypes.c_long(-4)),
    ({keyctl}, 0, ctypes.c_long(-4), 1),
    ({request_key}, b"user", b"persist", None, ctypes.c_long(-4)),
]
for call in calls:
    ctypes.set_errno(0)
    print(libc.syscall(*call), ctypes.get_errno())
"""
    result = run_python(program, limits=QUICK)
    assert result.passed, result.stderr
    refused = {errno.EPERM, errno.EACCES, errno.ENOSYS}
    for line in result.stdout.splitlines():
        value, error = map(int, line.split())
        assert value == -1 and error in refused, result.stdout
    uid = next((int(item[4:]) for item in result.isolation if item.startswith("uid_")), None)
    if AS_ROOT:
        assert uid is not None and uid not in uids_holding_keys()


def test_uid_drawer_skips_uids_holding_keys_processes_or_another_run(tmp_path, monkeypatch):
    key_users = tmp_path / "key-users"
    key_users.write_text(f"    0:     9 8/8 3/1000000 40/25000000\n{UID_BASE + 7}:     3 3/3 3/200 64/20000\n")
    monkeypatch.setattr(sandbox_identity, "processes_of", lambda uid: uid == UID_BASE + 8)
    draws = iter([7, 8, 9, 9, 7, 10])
    first = draw_uid(lambda _: next(draws), key_users=str(key_users))
    second = draw_uid(lambda _: next(draws), key_users=str(key_users))  # 9 is the first run's
    release_uid(first)
    release_uid(second)
    assert (first, second) == (UID_BASE + 9, UID_BASE + 10)


def test_uids_holding_keys_reads_the_kernel_format(tmp_path):
    key_users = tmp_path / "key-users"
    key_users.write_text("    0:     9 8/8 3/1000000 40/25000000\n200777:     3 3/3 3/200 64/20000\n")
    assert uids_holding_keys(str(key_users)) == {0, 200777}
    assert uids_holding_keys(str(tmp_path / "absent")) == set()


def test_a_python_in_a_private_folder_is_not_reachable_even_through_a_link():
    """A virtualenv in a 0700 checkout: its python links to a program anyone may run, but the
    sandbox uid cannot pass the folder holding the link."""
    with tempfile.TemporaryDirectory() as tmp:  # not pytest's tmp_path: that sits in a 0700 folder
        os.chmod(tmp, 0o755)
        for name, mode in (("private", 0o700), ("public", 0o755)):
            os.mkdir(f"{tmp}/{name}", mode)
            os.symlink("/bin/sh", f"{tmp}/{name}/python")
        assert reachable_by_others("/bin/sh") and reachable_by_others(f"{tmp}/public/python")
        assert not reachable_by_others(f"{tmp}/private/python")


@pytest.mark.skipif(not AS_ROOT, reason="the PID namespace's init is ours only as root")
def test_init_command_line_names_no_host_path():
    result = run_python("print(open('/proc/1/cmdline').read().replace('\\0', ' '))", limits=QUICK)
    assert result.passed
    # only the interpreter (wherever the checkout lives, /tmp included) and two descriptor numbers:
    # no boot script path, no JSON config, no work folder
    assert re.fullmatch(r"\S+python\S* -I -S /proc/self/fd/\d+ \d+\s*", result.stdout), result.stdout
    assert "sandbox_boot" not in result.stdout and "{" not in result.stdout
