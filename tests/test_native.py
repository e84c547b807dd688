"""The native playout kernel: the same answers as the Python network, state by state, and
playouts whose statistics match it; its GPU build's logic checked on the CPU."""

from __future__ import annotations

import logging
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reasoner.core.walk import Simulation
from reasoner.crosscheck.statistics import means_agree, outcomes_agree
from reasoner.engine.game import Game
from reasoner.errors import NoLegalMoveError, ResourceLimitError
from reasoner.propnet import native as native_module
from reasoner.propnet.flat import HEADER
from reasoner.propnet.gpu import gpu_kernel, gpu_source, launch_threads
from reasoner.propnet.machine import PropnetMachine
from reasoner.propnet.native import NativeMachine, native_refusal, playout_columns
from tests.conftest import CORPUS, GAMES, corpus_params
from tests.test_propnet import REACHABILITY

BUNDLED = sorted(p.stem for p in GAMES.glob("*.kif"))


def _pair(text: str) -> tuple[NativeMachine, PropnetMachine]:
    """The game's network on the native kernel and as generated Python."""
    native = Game.from_gdl(text, backend="native").machine
    python = Game.from_gdl(text, backend="propnet").machine
    assert isinstance(native, NativeMachine) and isinstance(python, PropnetMachine)
    return native, python


def _walk_states(machine: PropnetMachine, count: int,
                 seed: int) -> list[tuple[int, tuple[int, ...]]]:
    """``count`` (state, random joint move) pairs along seeded playouts (a terminal state
    comes with an empty joint move)."""
    rng = random.Random(seed)
    pairs: list[tuple[int, tuple[int, ...]]] = []
    while len(pairs) < count:
        bits, steps = machine.init_bits, 0
        while len(pairs) < count and steps < 200:
            info = machine.info(bits)
            if info.terminal or not all(info.legal):
                pairs.append((bits, ()))
                break
            joint = tuple(rng.choice(legal) for legal in info.legal)
            pairs.append((bits, joint))
            _, bits, _ = machine.transition(bits, joint, current=False)
            steps += 1
    return pairs


def _assert_same_steps(native: NativeMachine, python: PropnetMachine, count: int,
                       seed: int) -> None:
    """Every state of the walk, asked in shuffled order (so that the one-state evaluator
    jumps between unrelated states), has the same legal moves, terminal flag, goals and
    successor on both."""
    assert native.init_bits == python.init_bits
    pairs = _walk_states(python, count, seed)
    random.Random(seed).shuffle(pairs)
    for bits, joint in pairs:
        expected, got = python.info(bits), native.info(bits)
        assert (got.legal, got.terminal, got.goals) == (
            expected.legal, expected.terminal, expected.goals), bits
        if joint:
            assert native.transition(bits, joint, current=False)[1] == \
                python.transition(bits, joint, current=False)[1], (bits, joint)


def test_the_kernel_is_built() -> None:
    """The install compiled the kernel (a machine with gcc and Python's headers): nothing
    refuses it, and auto loads a game on it."""
    assert native_refusal() == ""
    assert Game.from_file(GAMES / "tictactoe.kif").backend == "native"


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_game_steps_alike_on_the_kernel_and_in_python(name: str) -> None:
    """400 states of seeded playouts of every bundled game: the kernel's legal moves,
    terminal flag, goals and successors are the Python network's."""
    native, python = _pair((GAMES / f"{name}.kif").read_text())
    _assert_same_steps(native, python, 400, seed=17)


NATIVE_SAMPLE = ["ggp-repository/reversi.kif", "ggp-repository/breakthrough.kif",
                 "ggp-repository/3pConnectFour.kif", "ggp-repository/chineseCheckers4.kif",
                 "ggp-repository/knightThrough.kif", "ggp-repository/checkersTiny.kif",
                 "ggp-repository/nineBoardTicTacToe.kif", "ggp-repository/ticTacHeaven.kif"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_params(NATIVE_SAMPLE))
def test_corpus_games_step_alike_on_the_kernel_and_in_python(name: str) -> None:
    """The same on games written by others (larger networks, many roles, recursion)."""
    native, python = _pair((CORPUS / name).read_text(errors="replace"))
    _assert_same_steps(native, python, 300, seed=5)


def test_recursive_components_reach_their_fixpoint_state_by_state() -> None:
    """Reachability over edges the player adds is recursive on the ground level: the kernel
    recomputes the component's least fixpoint (also when an edge goes away, jumping back to
    an earlier state) and answers as the Python network."""
    native, python = _pair(REACHABILITY)
    assert native.network.size.recursive_components > 0
    _assert_same_steps(native, python, 300, seed=2)


def _assert_same_statistics(got: Simulation, expected: Simulation) -> None:
    """The first role's share of every goal value and the mean length agree within sampling
    error; every playout's updates are its steps."""
    assert got.updates == sum(got.lengths)
    assert outcomes_agree([goals[0] for goals in got.goals],
                          [goals[0] for goals in expected.goals])
    assert means_agree(got.lengths, expected.lengths)


@pytest.mark.parametrize("name", ["tictactoe",
                                  pytest.param("connectfour", marks=pytest.mark.slow)])  # 1.4 s
def test_100000_playouts_match_the_python_network_statistics(name: str) -> None:
    """100,000 kernel playouts and 100,000 of the Python network's batches: each goal
    value's share and the mean length agree within sampling error (tic-tac-toe: the first
    player wins 58.5% and draws 12.7%, in 7.63 steps on average)."""
    native, python = _pair((GAMES / f"{name}.kif").read_text())
    got = native.simulate(native.init_bits, 100_000, seed=3, max_steps=1000)
    expected = python.simulate(python.init_bits, 100_000, seed=3, max_steps=1000)
    assert len(got.lengths) == 100_000 and all(got.terminal)
    _assert_same_statistics(got, expected)


def test_the_gpu_build_logic_matches_the_python_network_statistics() -> None:
    """The GPU's code path (one 64-lane word a thread, the launch's partition of the
    playouts, thread-minor rows), run thread by thread on the CPU: 100,000 tic-tac-toe
    playouts over 97 threads have the Python network's statistics, every playout is
    written once, and each thread's share ends."""
    from reasoner.propnet import _threads

    native, python = _pair((GAMES / "tictactoe.kif").read_text())
    count, roles = 100_000, len(native.roles)
    lengths = np.full(count, -1, dtype=np.int32)
    terminal = np.zeros(count, dtype=np.uint8)
    masks = np.zeros((count, roles, 2), dtype=np.uint64)
    updates, error, _, _ = _threads.playouts(
        native.image.bytes, native.start_bytes(native.init_bits).tobytes(), count, 97, 11,
        1000, native.image.park(64), lengths, terminal, masks)
    assert error == 0 and (lengths >= 5).all() and terminal.all()
    assert updates == int(lengths.sum())
    table, goals = playout_columns(masks)
    got = Simulation(lengths.tolist(), terminal.astype(bool).tolist(), goals, [], updates,
                     True, table.ravel().tolist())
    expected = python.simulate(python.init_bits, 100_000, seed=4, max_steps=1000)
    _assert_same_statistics(got, expected)


def test_recorded_playouts_replay_to_the_ends_reported() -> None:
    """Recording changes nothing (the same lengths and goals), and every recorded playout,
    replayed move by move on the Python network, ends where the kernel says: terminal or
    at the step bound, with the goals reported."""
    text = (GAMES / "breakthrough.kif").read_text()
    native, python = _pair(text)
    bare = native.simulate(native.init_bits, 700, seed=9, max_steps=12)
    recorded = native.simulate(native.init_bits, 700, seed=9, max_steps=12, record=True)
    assert (bare.lengths, bare.terminal, bare.goals) == (
        recorded.lengths, recorded.terminal, recorded.goals)
    assert bare.trajectories == [] and len(recorded.trajectories) == 700
    assert any(not t for t in recorded.terminal) and any(recorded.terminal)
    for path, length, ended, goals in zip(recorded.trajectories, recorded.lengths,
                                          recorded.terminal, recorded.goals, strict=True):
        assert len(path) == length
        bits = python.init_bits
        for joint in path:
            info = python.info(bits)
            assert not info.terminal and all(m in legal for m, legal in
                                              zip(joint, info.legal, strict=True))
            _, bits, _ = python.transition(bits, joint, current=False)
        info = python.info(bits)
        assert (info.terminal, info.goals) == (ended, goals)
        assert ended or length == 12


def test_a_seed_fixes_the_playouts_and_the_count_is_exact() -> None:
    """A seed gives the same playouts again; another seed others; 1,000 playouts (not a
    multiple of the 256 lanes) give 1,000 ends, and one playout one end."""
    native, _ = _pair((GAMES / "connectfour.kif").read_text())
    first = native.simulate(native.init_bits, 1000, seed=4, max_steps=1000)
    again = native.simulate(native.init_bits, 1000, seed=4, max_steps=1000)
    other = native.simulate(native.init_bits, 1000, seed=5, max_steps=1000)
    assert (first.lengths, first.goals) == (again.lengths, again.goals)
    assert first.lengths != other.lengths
    assert len(first.lengths) == len(first.flat_goals()) // 2 == 1000
    assert len(native.simulate(native.init_bits, 1, seed=0, max_steps=1000).lengths) == 1


def test_a_terminal_start_ends_every_playout_at_once() -> None:
    """Playouts from a terminal state have length 0 and its goals."""
    game = Game.from_file(GAMES / "tictactoe.kif", backend="native")
    state = game.initial_state
    for number, move in enumerate(("(mark 1 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)",
                                   "(mark 3 3)")):
        mover, other = ("xplayer", "oplayer") if number % 2 == 0 else ("oplayer", "xplayer")
        state = game.next_state(state, {mover: move, other: "noop"})
    assert game.is_terminal(state)
    run = game.simulate(state, 300, seed=1, max_steps=10)
    assert run.lengths == [0] * 300 and set(run.goals) == {((100,), (0,))}


def test_a_role_without_legal_moves_stops_the_kernel_with_an_error() -> None:
    """A non-terminal state where a role has no legal move is NoLegalMoveError, naming the
    role, as on the Python network."""
    game = Game.from_gdl("(role r) (init (s 0)) (<= (legal r go) (true (s 0))) "
                         "(<= (next (s 1)) (does r go)) (<= terminal (true (s 2))) (goal r 0)",
                         backend="native")
    with pytest.raises(NoLegalMoveError) as caught:
        game.simulate(game.initial_state, 10, seed=0, max_steps=10)
    assert caught.value.role == "r"


def test_bad_states_and_moves_are_errors_not_crashes() -> None:
    """The one-state evaluator refuses a negative state, bits beyond the fluents and move
    ids outside the table with ValueError, and answers the next good state. The C kernel's
    ValueError has no fields: its message is what tells the two refusals apart."""
    native, python = _pair((GAMES / "tictactoe.kif").read_text())
    fluents = len(native.fluent_texts)
    with pytest.raises(ValueError):
        native.info(-1)
    with pytest.raises((ValueError, OverflowError)):
        native.info(1 << 4000)
    with pytest.raises(ValueError, match="beyond the game's fluents"):
        # a good bit, then a bad one of the same byte
        native.info(native.init_bits ^ 1 << (fluents - 1) | 1 << fluents)
    with pytest.raises(ValueError, match="move id outside"):
        native.transition(native.init_bits, (999, 0))
    _assert_same_steps(native, python, 60, seed=1)


@pytest.mark.slow  # about 1.5 s
def test_playouts_release_the_python_lock() -> None:
    """While one thread's kernel call runs (200,000 playouts in one call, about 0.1 s),
    another Python thread keeps running: the lock is released for the call. (The switch
    interval is 1 s meanwhile, so the other thread runs only where the lock is given up: a
    call that held it would see no beats during it.)"""
    from reasoner.propnet import _native

    native, _ = _pair((GAMES / "connectfour.kif").read_text())
    count = 200_000
    image, start = native.image.bytes, native.start_bytes(native.init_bits).tobytes()
    lengths, terminal = np.zeros(count, dtype=np.int32), np.zeros(count, dtype=np.uint8)
    masks = np.zeros((count, 2, 2), dtype=np.uint64)
    running = threading.Event()
    finished = threading.Event()
    beats = [0]
    during: list[int] = []

    def playouts() -> None:
        running.set()
        before = beats[0]
        _native.playouts(image, start, count, 1, 1000, native.park, lengths, terminal, masks)
        during.append(beats[0] - before)
        finished.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        worker = threading.Thread(target=playouts)
        worker.start()
        running.wait()
        while not finished.is_set():
            beats[0] += 1
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert during[0] > 1000


def test_auto_falls_back_to_python_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """A network the kernel cannot take (here: a block's value table over a bound lowered
    to 1 KiB) loads on the Python network under auto, the reason in the load statistics;
    asked for by name, native is refused with it."""
    monkeypatch.setattr(native_module, "MAX_TABLE_BYTES", 1024)
    text = (GAMES / "tictactoe.kif").read_text()
    game = Game.from_gdl(text)
    assert game.backend == "propnet"
    (step,) = game.statistics.backend_reason.steps
    assert (step.backend, step.then, step.bound) == ("native", "the Python network answers",
                                                     "size")
    assert game.statistics.backend_note == str(game.statistics.backend_reason)
    with pytest.raises(ResourceLimitError) as caught:
        Game.from_gdl(text, backend="native")
    assert (caught.value.reason, caught.value.network) == ("no-native-kernel", True)


def test_the_gpu_is_optional(caplog: pytest.LogCaptureFixture) -> None:
    """Without CuPy (or a GPU) asking for the GPU changes nothing but a log line: the CPU
    runs the same playouts."""
    native, _ = _pair((GAMES / "tictactoe.kif").read_text())
    kernel, reason = gpu_kernel(native.image, native.roles)
    if kernel is not None:
        pytest.skip("a GPU is present: the GPU checks are in the bench and the README")
    assert reason
    with caplog.at_level(logging.WARNING):
        on_gpu = native.simulate(native.init_bits, 5000, seed=2, max_steps=100, gpu=True)
    on_cpu = native.simulate(native.init_bits, 5000, seed=2, max_steps=100, gpu=False)
    assert (on_gpu.lengths, on_gpu.goals) == (on_cpu.lengths, on_cpu.goals)
    assert "no GPU for the playouts" in caplog.text


_NO_NVCC = pytest.mark.skipif(shutil.which("nvcc") is None,
                              reason="no CUDA compiler (nvcc) here")


@pytest.fixture(scope="module")
def h100_build(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """The GPU's source compiled once by nvcc for an H100 (sm_90), with ptxas's report of
    each kernel's resources on stderr."""
    folder = tmp_path_factory.mktemp("cuda")
    source = folder / "kernel.cu"
    source.write_text(gpu_source())
    return subprocess.run(["nvcc", "--std=c++14", "-arch=sm_90", "-cubin", "-Xptxas", "-v",
                           str(source), "-o", str(folder / "kernel.cubin")],
                          capture_output=True, text=True, timeout=300, check=False)


@_NO_NVCC
def test_the_gpu_source_compiles_for_cuda(
        h100_build: subprocess.CompletedProcess[str]) -> None:
    """The GPU's source (the kernel's, one word a thread, with its entry) is valid CUDA."""
    assert h100_build.returncode == 0, h100_build.stderr


@_NO_NVCC
def test_the_gpu_build_keeps_its_words_in_registers_on_an_h100(
        h100_build: subprocess.CompletedProcess[str]) -> None:
    """Compiled for an H100 (sm_90), the kernel spills no register to memory: a step's
    words stay in registers, and only the move list lives in the thread's stack."""
    assert h100_build.returncode == 0, h100_build.stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in h100_build.stderr, h100_build.stderr


def test_a_small_gpu_run_gives_each_lane_two_playouts() -> None:
    """A run of few playouts takes a thread (64 lanes) per 128 of them, rounded up."""
    assert launch_threads(4096, 1 << 34, 300, 100_000) == 32
    assert launch_threads(4097, 1 << 34, 300, 100_000) == 33


def test_a_large_gpu_run_is_one_wave_of_resident_threads() -> None:
    """A run of many playouts takes no more threads than the GPU runs at once, so that its
    lanes play many playouts each; where the occupancy is unknown, memory alone bounds it."""
    assert launch_threads(1 << 26, 1 << 34, 300, 118_272) == 118_272
    assert launch_threads(1 << 26, 1 << 34, 300, None) == 1 << 19


def test_a_gpu_run_takes_half_the_free_memory_at_most() -> None:
    """The value tables of a run fit in half the GPU's free memory; with none free, the run
    is refused with MemoryError (which sends the playouts to the CPU)."""
    per_thread = 300 * 8 + 64 * 4
    assert launch_threads(1 << 26, 1000 * per_thread, 300, 118_272) == 500
    with pytest.raises(MemoryError):
        launch_threads(1 << 26, per_thread, 300, 118_272)


def test_the_image_header_is_the_kernels() -> None:
    """The image's header fields are kernel.h's enum, in its order."""
    text = (Path(native_module.__file__).parent / "kernel.h").read_text()
    enum = text.split("enum {", 1)[1].split("};", 1)[0]
    names = [n.strip().removeprefix("H_").lower() for n in enum.replace("\n", " ").split(",")]
    assert names == [*HEADER, "size"]


def test_simulate_on_the_gpu_path_plays_like_the_cpu() -> None:
    """Simulate's GPU path (the GPU build's logic, here run on the CPU thread by thread):
    its playouts have the CPU build's statistics, and the bench's GPU check says so."""
    from reasoner.propnet.gpu import EmulatedGpuKernel
    from reasoner.workshop.playout_rates import gpu_check

    game = Game.from_file(GAMES / "connectfour.kif", backend="native")
    native = game.machine
    assert isinstance(native, NativeMachine)
    kernel = EmulatedGpuKernel(native.image, native.roles)
    native.attach_gpu(kernel)
    on_gpu = native.simulate(native.init_bits, 20_000, seed=6, max_steps=1000, gpu=True)
    on_cpu = native.simulate(native.init_bits, 20_000, seed=6, max_steps=1000, gpu=False)
    assert on_gpu.lengths != on_cpu.lengths  # the GPU's own playouts
    _assert_same_statistics(on_gpu, on_cpu)
    check = gpu_check("connectfour", game, native, kernel, 20_000, seed=7)
    assert check.agree and check.device == kernel.device
    assert set(check.gpu_shares) == {0, 50, 100}


def _nvrtc() -> Any:
    """CuPy's NVRTC bindings, where CuPy and NVRTC are installed (else None)."""
    try:
        from cupy_backends.cuda.libs import nvrtc  # type: ignore[import-not-found]

        nvrtc.getVersion()
    except Exception:  # not installed, or no NVRTC library
        return None
    return nvrtc


@pytest.mark.skipif(_nvrtc() is None, reason="no CuPy with NVRTC here")
def test_the_gpu_source_compiles_with_nvrtc() -> None:
    """NVRTC, which CuPy compiles the kernel with at run time, takes the GPU's source (no
    device needed: PTX for compute capability 8.0, which H100 and H200 run)."""
    nvrtc: Any = _nvrtc()
    program = nvrtc.createProgram(gpu_source(), "kernel.cu", [], [])
    try:
        nvrtc.compileProgram(program, ["--std=c++14", "--gpu-architecture=compute_80"])
    except Exception as error:
        raise AssertionError(nvrtc.getProgramLog(program)) from error
    ptx = nvrtc.getPTX(program)
    assert b"k_playouts" in (ptx if isinstance(ptx, bytes) else ptx.encode())


def test_a_failing_gpu_leaves_the_playouts_to_the_cpu(caplog: pytest.LogCaptureFixture) -> None:
    """A GPU kernel that fails (here the emulated one, launched with no threads, which the
    kernel refuses) costs a log line: the CPU runs the same playouts as without it."""
    from reasoner.propnet.gpu import EmulatedGpuKernel

    native, _ = _pair((GAMES / "tictactoe.kif").read_text())
    native.attach_gpu(EmulatedGpuKernel(native.image, native.roles, threads=0))
    with caplog.at_level(logging.WARNING):
        tried = native.simulate(native.init_bits, 5000, seed=8, max_steps=100, gpu=True)
    plain = native.simulate(native.init_bits, 5000, seed=8, max_steps=100, gpu=False)
    assert (tried.lengths, tried.goals) == (plain.lengths, plain.goals)
    assert "GPU playouts failed" in caplog.text
