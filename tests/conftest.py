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
import threading  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402

import pytest  # noqa: E402

from harness.common.processes import die_with_parent  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory):
    """`mlflow server` on 127.0.0.1 for the whole session; yields its URI, stops it by PID."""
    root = tmp_path_factory.mktemp("mlflow")
    proc, uri = start_mlflow_server(root, f"sqlite:///{root}/mlflow.db")
    yield uri
    stop_mlflow_server(proc)


# ---------------------------------------------------------------- PostgreSQL (sweeps at scale)
PG_ROOT = os.environ.get("HARNESS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def postgres_databases():
    """new() -> the URL of a fresh PostgreSQL database (all dropped after the session); skips
    without a server. Optuna and MLflow each need their own database on the server: both keep
    an `alembic_version` table."""
    import uuid

    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed: no PostgreSQL tests")
    try:
        admin = psycopg.connect(PG_ROOT, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as error:
        pytest.skip(f"no PostgreSQL server reachable at {PG_ROOT}: {str(error).strip().splitlines()[0]}")
    created = []

    def new() -> str:
        name = f"harness_test_{uuid.uuid4().hex[:10]}"
        admin.execute(f"CREATE DATABASE {name}")
        created.append(name)
        return PG_ROOT.rsplit("/", 1)[0] + "/" + name

    yield new
    for name in created:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()


@pytest.fixture(scope="session")
def postgres_url(postgres_databases):
    """A fresh PostgreSQL database (for an Optuna storage)."""
    return postgres_databases()


def start_mlflow_server(root, backend_store_uri: str) -> tuple[subprocess.Popen, str]:
    """`mlflow server` on a free 127.0.0.1 port with the given backend store; waits for /health."""
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
        backend_store_uri,
        "--artifacts-destination",
        str(root / "artifacts"),
        "--workers",
        "1",
    ]
    log = open(root / "server.log", "w")
    # dies with the test process, however that ends (a killed pytest no longer leaves servers behind)
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, preexec_fn=die_with_parent()
    )
    uri = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(uri + "/health", timeout=2)
            return proc, uri
        except OSError as err:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                raise RuntimeError(f"mlflow server did not start: {(root / 'server.log').read_text()[-2000:]}") from err
            time.sleep(0.5)


def stop_mlflow_server(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def mlflow_server_postgres(tmp_path_factory, postgres_databases):
    """An `mlflow server` whose backend store is a database of the PostgreSQL test server."""
    proc, uri = start_mlflow_server(tmp_path_factory.mktemp("mlflow_pg"), postgres_databases())
    yield uri
    stop_mlflow_server(proc)


# ---------------------------------------------------------------- a database server that never answers
@pytest.fixture
def silent_port():
    """A local port that accepts connections and never answers (a hung database server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


# ---------------------------------------------------------------- the heaviest test files first
# `make test` runs on pytest-xdist workers a file at a time (--dist loadfile), handing the next file to
# whichever worker is free. Started in collection order (or xdist's default, most tests first), a
# heavy file of few tests (SmolLM2, Table 1, the sweeps) starts last and one worker runs it while the
# other idles. Heaviest first (longest-processing-time-first scheduling) leaves the short files to
# fill the end. tests/file_seconds.json holds each file's seconds from a recorded run; `make
# test-costs` (HARNESS_TEST_COSTS=<json>) records them again; a file it does not list goes after.
import json  # noqa: E402

FILE_SECONDS = ROOT / "tests" / "file_seconds.json"
_recorded: dict[str, float] = {}


def _test_file(nodeid: str) -> str:
    return "tests/" + nodeid.split("::")[0].removeprefix("tests/")


def pytest_collection_modifyitems(config, items):
    seconds = json.loads(FILE_SECONDS.read_text())["seconds"] if FILE_SECONDS.exists() else {}
    items.sort(key=lambda item: -seconds.get(_test_file(item.nodeid), 0.0))  # stable: files stay whole


def pytest_runtest_logreport(report):
    _recorded[_test_file(report.nodeid)] = _recorded.get(_test_file(report.nodeid), 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("HARNESS_TEST_COSTS")
    if target and not hasattr(session.config, "workerinput"):  # the controller sees every worker's reports
        ranked = dict(sorted(((f, round(s)) for f, s in _recorded.items()), key=lambda fs: -fs[1]))
        note = "seconds per test file (setup + call + teardown) of one `make test-costs`; only the order matters"
        Path(target).write_text(json.dumps({"note": note, "seconds": ranked}, indent=1) + "\n")
