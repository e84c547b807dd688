"""Properties that hold for any input (issue 15), checked by Hypothesis on seeded examples
(derandomized: the same examples on every run, so CI is repeatable): the parser, the
validator, the translation and the service's decoders end in a game or a documented error,
never in another exception. ``gdl-reasoner fuzz`` runs the longer campaign over mutated
corpus files."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasoner import Game
from reasoner.engine.limits import Limits
from reasoner.errors import GdlError, ReasonerError
from reasoner.gdl.parser import parse_gdl, parse_terms
from reasoner.gdl.printer import print_game
from reasoner.v1 import reasoner_pb2 as pb
from reasoner.workshop.gdl_mutants import load_in_process, loads_past_bounds
from tests.conftest import ROOT
from tests.service_support import Server, running_server

# Random rules can define infinite relations ((next (c (c ?x))) from (true (c ?x))): every
# load runs bounded, as the service's do.
BOUNDS = Limits(seconds=30, memory_mb=1024)
SEEDED = settings(derandomize=True, deadline=None, max_examples=150,
                  suppress_health_check=[HealthCheck.too_slow])

_KEYWORDS = ["role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct",
             "not", "or", "<=", "base", "input"]
_NAMES = ["a", "b", "p", "q", "cell", "mark", "noop", "0", "1", "100", "-1", "007",
          "9" * 12, "?x", "?y", "?z"]
# Any character, halves of surrogate pairs and controls included, but no whitespace or
# parentheses (those are the structure).
_ODD = st.text(st.characters(exclude_characters="() \t\n\r\f\v", exclude_categories=()),
               min_size=1, max_size=6)
_TOKEN = st.sampled_from(_KEYWORDS + _NAMES) | _ODD
_SEXPR = st.recursive(_TOKEN, lambda inner: st.lists(inner, max_size=5).map(
    lambda items: "(" + " ".join(items) + ")"), max_leaves=24)
_TEXT = st.lists(_SEXPR, max_size=10).map("\n".join)

# Small well-formed games with one random rule added: most load, some are refused.
_BASE = """(role p) (init (c 0)) (n 0) (n 1)
(<= (legal p (go ?x)) (n ?x))
(<= (next (c ?x)) (does p (go ?x)))
(<= terminal (true (c 1)))
(goal p 100)
"""
_LITERAL = st.sampled_from(["(true (c ?x))", "(n ?x)", "(not (n ?y))", "(distinct ?x ?y)",
                            "(does p (go ?x))", "(or (n ?x) (true (c ?x)))", "(q ?x ?y)",
                            "(not (q ?x ?x))", "(true ?x)", "(n ?y)"])
_HEAD = st.sampled_from(["(q ?x ?y)", "(next (c ?x))", "(legal p (go ?y))", "(goal p ?x)",
                         "terminal", "(q ?x)", "(init (c ?x))", "(r)"])
_RULES = st.lists(st.tuples(_HEAD, st.lists(_LITERAL, min_size=1, max_size=4)),
                  max_size=3).map(lambda rules: "\n".join(
                      f"(<= {head} {' '.join(body)})" for head, body in rules))


@pytest.mark.slow  # about 1.2 s
@SEEDED
@given(_TEXT)
def test_any_text_parses_or_is_a_gdl_error(text: str) -> None:
    """Any text of any characters parses, or raises a GdlError with its position."""
    try:
        parse_gdl(text)
    except GdlError as error:
        assert error.line is None or error.line >= 1


@pytest.mark.slow  # about 3 s
@SEEDED
@given(_TEXT)
def test_any_text_loads_or_is_a_documented_error(text: str) -> None:
    """Any such text loads as a game or raises one of reasoner.errors, never another
    exception (validation, translation and grounding included)."""
    with contextlib.suppress(ReasonerError):
        Game.from_gdl(text, backend="clingo", limits=BOUNDS)


@pytest.mark.slow  # about 3 s
@SEEDED
@given(_RULES)
def test_a_game_with_random_rules_plays_or_is_refused(rules: str) -> None:
    """A small game with random rules added loads and answers its initial state, or is
    refused with a documented error; a game that loads prints to a text that reads back
    as the same game."""
    text = _BASE + rules
    try:
        game = Game.from_gdl(text, backend="clingo", limits=BOUNDS)
        game.legal_moves(game.initial_state, "p")
        game.is_terminal(game.initial_state)
    except ReasonerError:
        return
    printed = print_game(game.description)
    assert print_game(parse_gdl(printed)) == printed


@SEEDED
@given(st.lists(_SEXPR, min_size=1, max_size=3).map(" ".join))
def test_any_move_or_state_text_reads_or_is_a_gdl_error(text: str) -> None:
    """Terms a client sends as texts (moves, fluents) read, or raise a GdlError."""
    with contextlib.suppress(GdlError):
        parse_terms(text)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server() as running:
        yield running


_METHODS = ["LoadGame", "GetGame", "Query", "Next", "Expand", "Simulate", "Evaluate",
            "Supersets", "Instantiate", "Translate"]


@settings(derandomize=True, deadline=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(_METHODS), st.binary(max_size=200))
def test_any_bytes_to_any_rpc_get_a_documented_code(server: Server, method: str,
                                                     payload: bytes) -> None:
    """Whatever bytes reach an rpc, the answer is a response or a documented status,
    never INTERNAL or UNKNOWN, and the server goes on answering."""
    call = server.channel.unary_unary(f"/reasoner.v1.Reasoner/{method}")
    try:
        call(payload, timeout=30)
    except grpc.RpcError as error:
        assert error.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), \
            error.details()
    with pytest.raises(grpc.RpcError) as unknown:  # still serving: an unknown id is NOT_FOUND
        server.stub.GetGame(pb.GetGameRequest(game_id="x" * 64), timeout=30)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.slow  # about 1.3 s
def test_the_fuzz_campaign_counts_fates_and_finds_no_crash(tmp_path: Path) -> None:
    """`gdl-reasoner fuzz` over two bundled games: 40 seeded mutants, every one counted by
    fate and by mutation, no crash and no hang (exit 0)."""
    for name in ("tictactoe.kif", "nim.kif"):
        (tmp_path / name).write_text((ROOT / "games" / name).read_text())
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "fuzz", str(tmp_path), "--mutations", "40",
         "--seed", "3", "--timeout", "30"], cwd=ROOT, capture_output=True, text=True,
        timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("40 mutants of 2 files in process")
    assert "0 crash, 0 hang" in first
    assert "resident memory of this process" in result.stdout


@pytest.mark.slow  # about 2 s
def test_a_campaign_on_two_jobs_gives_each_mutant_the_fate_of_one_job(tmp_path: Path) -> None:
    """`fuzz --jobs 2` works two mutants at once and reports the same mutants with the same
    fates, in the same order, as one job."""
    (tmp_path / "tictactoe.kif").write_text((ROOT / "games" / "tictactoe.kif").read_text())

    def campaign(jobs: str) -> list[tuple[str, str, str]]:
        result = subprocess.run(
            [sys.executable, "-m", "reasoner.cli", "fuzz", str(tmp_path), "--mutations", "12",
             "--seed", "5", "--jobs", jobs, "--json"], cwd=ROOT, capture_output=True,
            text=True, timeout=600, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        records = [json.loads(line) for line in result.stdout.splitlines()]
        return [(r["mutation"], r["fate"], r["reason"]) for r in records]

    alone = campaign("1")
    assert len(alone) == 12
    assert campaign("2") == alone


def test_a_load_past_the_campaigns_time_bound_is_a_hang() -> None:
    """A mutant's load that outlives the bounded child's time is a hang (the campaign tells
    it from a refusal by the error's bound and reason, not its message), and its source,
    which does the same, counts as past the bounds (a slow source, not a hanging mutant)."""
    text = (ROOT / "games" / "tictactoe.kif").read_text()
    fate, reason = load_in_process(text, timeout=0.01, memory=2048)
    assert fate == "hang", reason
    assert loads_past_bounds(text, timeout=0.01, memory=2048)


def test_a_refused_source_is_not_past_the_bounds() -> None:
    """A text the loader refuses within the bounds is refused, and its refusal is not
    mistaken for running out of time or memory."""
    text = "(role p) (init (c 0)) (<= (next (c ?x)) (true (c ?y)))"
    fate, reason = load_in_process(text, timeout=30, memory=2048)
    assert fate == "refused" and reason
    assert not loads_past_bounds(text, timeout=30, memory=2048)
