"""``--cluster``: sweeps, cross-checks, tournaments and datasets on a real Ray cluster of a
head node and a worker node, each started by ``ray start`` as its own processes on this
machine (loopback, token authentication), and compared row by row with the same command
run in one process.

The cluster is started once for the module (about ten seconds) and its tests share one
test process (``xdist_group``). The commands run as the user runs them, as child processes
given the cluster's address and token.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray-cluster")]

RAY = Path(sys.executable).parent / "ray"
TICTACTOE = ROOT / "games" / "tictactoe.kif"
# Small files of the corpus, of several kinds: a slice that a sweep and a cross-check run
# in seconds.
SLICE = ("ggp-repository/ticTacToe.kif", "ggp-repository/connectFour.kif",
         "ggp-repository/buttons.kif", "ggp-repository/blocks.kif",
         "ggp-repository/3pttc.kif", "ggp-base-tests/test_case_3a.kif")
# A sweep row's fields that are measurements of time, which differ from run to run.
TIMINGS = ("load_ms", "seconds")


@dataclass
class Cluster:
    """A running two-node cluster: its address and the environment that reaches it."""

    address: str
    env: dict[str, str]
    logs: Path
    head: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``ray start ARGS --block`` in its own process group, its output in ``log``, once it
    says it started."""
    with log.open("wb") as out:
        process = subprocess.Popen([str(RAY), "start", *args, "--node-ip-address=127.0.0.1",
                                    "--num-cpus=1", "--disable-usage-stats", "--block"],
                                   env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        if b"Ray runtime started" in log.read_bytes():
            return process
        time.sleep(0.2)
    _stop(process)
    raise AssertionError(f"ray start {' '.join(args)} did not start:\n"
                         f"{log.read_text(errors='replace')[-2000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill a node: its ``ray start`` and every process of its group (raylet, workers)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A head node and a worker node, one core each, on loopback with a fresh token."""
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32),
               RAY_USAGE_STATS_ENABLED="0")
    logs = tmp_path_factory.mktemp("ray")
    port = _free_port()
    head = _start(["--head", f"--port={port}", "--include-dashboard=false"], env,
                  logs / "head.log")
    try:
        worker = _start([f"--address=127.0.0.1:{port}"], env, logs / "worker.log")
    except BaseException:
        _stop(head)
        raise
    found = Cluster(f"127.0.0.1:{port}", env, logs, head, worker)
    try:
        yield found
    finally:
        _stop(found.worker)
        _stop(head)


def _run(*args: str, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``gdl-reasoner ARGS`` as a child process from the project's folder."""
    return subprocess.run([sys.executable, "-m", "reasoner.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def corpus_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of links to :data:`SLICE`'s corpus files."""
    if not CORPUS.is_dir():
        pytest.skip(f"the public GDL corpus is not at {CORPUS}")
    folder = tmp_path_factory.mktemp("slice")
    for name in SLICE:
        (folder / name.replace("/", "-")).symlink_to(CORPUS / name)
    return folder


def _without(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in fields} for row in rows]


@pytest.mark.corpus
def test_a_sweep_on_the_cluster_gives_the_rows_of_one_process(
        cluster: Cluster, corpus_slice: Path) -> None:
    """`sweep --cluster` over a corpus slice prints, in the same order, the same fate, reason,
    sizes, steps and backend for every file as the sweep in one process."""
    here = _run("sweep", str(corpus_slice), "--json", "--playouts", "2")
    there = _run("sweep", str(corpus_slice), "--json", "--playouts", "2",
                 "--cluster", cluster.address, env=cluster.env)
    assert here.returncode == there.returncode == 0, there.stderr
    rows = _json_lines(there.stdout)
    assert len(rows) == len(SLICE)
    assert _without(rows, TIMINGS) == _without(_json_lines(here.stdout), TIMINGS)


@pytest.mark.corpus
@pytest.mark.needs_tools
def test_a_crosscheck_on_the_cluster_gives_the_outcomes_of_one_process(
        cluster: Cluster, corpus_slice: Path) -> None:
    """`crosscheck --corpus --cluster` (against the Prolog reference) gives every file the
    outcome, states and supersets of the cross-check in one process."""
    here = _run("crosscheck", "--corpus", str(corpus_slice), "--json", "--playouts", "2")
    there = _run("crosscheck", "--corpus", str(corpus_slice), "--json", "--playouts", "2",
                 "--cluster", cluster.address, env=cluster.env)
    assert here.returncode == there.returncode == 0, there.stderr
    rows = _json_lines(there.stdout)
    assert [row["fate"] for row in rows] == ["agree"] * len(SLICE)
    assert _without(rows, ("seconds",)) == _without(_json_lines(here.stdout), ("seconds",))


def test_a_tournament_on_the_cluster_gives_the_table_of_one_process(cluster: Cluster) -> None:
    """`bench-players --playouts N --cluster` (MCTS at a fixed number of iterations, each
    match a task) gives the same rows (mean goal, wins, draws, losses) as in one process."""
    args = ("bench-players", str(TICTACTOE), "--players", "mcts", "--playouts", "8",
            "--matches", "6", "--seed", "3", "--json")
    here = _run(*args)
    there = _run(*args, "--cluster", cluster.address, env=cluster.env)
    assert here.returncode == there.returncode == 0, there.stderr
    rows = _json_lines(there.stdout)
    assert [row["matches"] for row in rows] == [6]
    assert _without(rows, ("minutes",)) == _without(_json_lines(here.stdout), ("minutes",))


def test_a_dataset_on_the_cluster_writes_the_bytes_of_one_process(
        cluster: Cluster, tmp_path: Path) -> None:
    """`dataset --cluster` writes the same file, byte for byte, as the same command in one
    process, outcome statistics included."""
    args = ("dataset", str(TICTACTOE), "--positions", "700", "--playouts", "3", "--seed", "5")
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    assert _run(*args, "-o", str(here)).returncode == 0
    done = _run(*args, "-o", str(there), "--cluster", cluster.address, env=cluster.env)
    assert done.returncode == 0, done.stderr
    assert there.read_bytes() == here.read_bytes()
    assert len(here.read_text().splitlines()) == 700


def test_a_task_that_fails_on_every_try_is_reported_as_its_fate(cluster: Cluster) -> None:
    """A task whose work raises on the cluster is tried again, then reported through the
    command's own failure record with the error, and the tasks after it still come back."""
    code = (
        "import json, sys\n"
        "from reasoner.console.cluster import Task, open_runner, run_tasks\n"
        "runner = open_runner(sys.argv[1])\n"
        "tasks = [Task('one', int, ('1',)), Task('bad', int, ('x',)), Task('two', int, ('2',))]\n"
        "print(json.dumps(list(run_tasks(tasks, runner, lambda t, why: f'{t.key}: {why}'))))\n"
        "runner.close()\n")
    done = subprocess.run([sys.executable, "-c", code, cluster.address], cwd=ROOT,
                          env=cluster.env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    one, bad, two = json.loads(done.stdout)
    assert (one, two) == (1, 2)
    assert bad == ("bad: ValueError on the cluster after 3 tries: invalid literal for int() "
                   "with base 10: 'x'")
    assert "will be retried" in done.stderr


def test_a_worker_lost_mid_run_costs_no_task(cluster: Cluster, tmp_path: Path) -> None:
    """Killing the worker node (its raylet and workers) while a dataset run is under way
    leaves the run to finish on the head: every batch done once, the file byte for byte the
    one of a single process. The fixture's worker is started again afterwards."""
    args = ("dataset", str(TICTACTOE), "--positions", "6000", "--playouts", "30", "--seed",
            "1")
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    assert _run(*args, "-o", str(here)).returncode == 0
    run = subprocess.Popen([sys.executable, "-m", "reasoner.cli", *args, "-o", str(there),
                            "--cluster", cluster.address], cwd=ROOT, env=cluster.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.0)
        assert run.poll() is None, "the run ended before the worker could be killed"
        _stop(cluster.worker)
        _, errors = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
        cluster.worker = _start([f"--address={cluster.address}"], cluster.env,
                                cluster.logs / "worker-again.log")
    assert run.returncode == 0, errors
    assert there.read_bytes() == here.read_bytes()


def test_an_address_that_does_not_answer_is_one_line_before_any_work(
        tmp_path: Path) -> None:
    """`--cluster HOST:PORT` where nothing listens fails at once in one line, exit 1, and
    writes nothing."""
    out = tmp_path / "rows.jsonl"
    started = time.monotonic()
    done = _run("dataset", str(TICTACTOE), "--positions", "5", "-o", str(out),
                "--cluster", f"127.0.0.1:{_free_port()}")
    assert done.returncode == 1
    assert done.stderr.startswith("gdl-reasoner: cannot reach the Ray cluster at 127.0.0.1:")
    assert len(done.stderr.splitlines()) == 1
    assert time.monotonic() - started < 30
    assert not out.exists() and not list(tmp_path.iterdir())


def test_without_ray_the_switch_says_how_to_get_it() -> None:
    """Where Ray is not installed, `--cluster` is a usage error that names the extra; the
    same command without it runs as always."""
    code = ("import sys\n"
            "sys.modules['ray'] = None\n"
            "from reasoner.cli.app import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    base = ["bench-players", str(TICTACTOE), "--players", "mcts", "--playouts", "4",
            "--matches", "2"]
    refused = subprocess.run([sys.executable, "-c", code, *base, "--cluster", "local"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("gdl-reasoner: --cluster needs Ray: "
                                      "pip install '.[cluster]'")
    plain = subprocess.run([sys.executable, "-c", code, *base], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "tictactoe" in plain.stdout


def test_the_cluster_tests_share_one_test_process(request: pytest.FixtureRequest) -> None:
    """Under `--dist loadgroup` (make test) this module's tests carry their xdist group, so
    they run in one process and start the cluster once (pytest 9.2 lost the group: the
    pin in pyproject.toml)."""
    if "PYTEST_XDIST_WORKER" not in os.environ or not request.config.getoption("loadgroup",
                                                                                 False):
        pytest.skip("not run with --dist loadgroup")
    assert request.node.nodeid.endswith("@ray-cluster")


def test_auto_starts_a_cluster_where_the_noted_one_is_gone() -> None:
    """`--cluster auto` where the cluster noted for this machine (here `RAY_ADDRESS`) no
    longer answers starts one for the run, rather than retrying the dead address."""
    env = dict(os.environ, RAY_ADDRESS=f"127.0.0.1:{_free_port()}", RAY_USAGE_STATS_ENABLED="0")
    started = time.monotonic()
    done = _run("bench-players", str(TICTACTOE), "--players", "mcts", "--playouts", "4",
                "--matches", "2", "--json", "--cluster", "auto", env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [row["matches"] for row in _json_lines(done.stdout)] == [2]
    assert time.monotonic() - started < 60
