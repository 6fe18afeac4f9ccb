"""Test-session environment: offline Hub, project-local caches, the shared benchmark data."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HARNESS_CACHE", str(ROOT / ".cache"))
os.environ.setdefault("HARNESS_BENCHMARK_DIR", str(ROOT.parent / "shared" / "benchmarks"))


# ---------------------------------------------------------------- a real MLflow server
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402

import pytest  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory):
    """`mlflow server` on 127.0.0.1 for the whole session; yields its URI, stops it by PID."""
    root = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "mlflow",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--backend-store-uri",
        f"sqlite:///{root}/mlflow.db",
        "--artifacts-destination",
        str(root / "artifacts"),
        "--workers",
        "1",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=open(root / "server.log", "w"), start_new_session=True
    )
    uri = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(uri + "/health", timeout=2)
            break
        except OSError as err:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                raise RuntimeError(f"mlflow server did not start: {(root / 'server.log').read_text()[-2000:]}") from err
            time.sleep(0.5)
    yield uri
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
