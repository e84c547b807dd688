"""The command line's numbers: every numeric option has a domain, and argparse refuses a
value outside it with the option, the reason and exit status 2, before anything runs."""

from __future__ import annotations

import argparse

import pytest

from reasoner.cli.app import parser
from reasoner.console.numbers import (
    LONGEST,
    MEBIBYTES,
    MESSAGE_MEBIBYTES,
    MOST,
    PORT,
    SEED,
    OutOfDomain,
    at_least,
    between,
    seconds,
)
from tests.test_cli import GAMES, run_cli


def _numeric_options() -> list[tuple[str, list[str], argparse.Action]]:
    """(command, its positional arguments, option) for every numeric option."""
    commands = next(a for a in parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    found = []
    for name, command in commands.choices.items():
        positionals = [str(GAMES) if a.dest == "folder" else str(GAMES / "tictactoe.kif")
                       for a in command._actions if not a.option_strings and a.dest != "help"]
        for action in command._actions:
            if action.option_strings and (
                    action.type in (int, float)
                    or getattr(action.type, "__module__", "") == "reasoner.console.numbers"):
                found.append((name, positionals, action))
    return found


NUMERIC = _numeric_options()


def test_every_numeric_option_names_its_domain() -> None:
    """No numeric option takes a bare int or float: each says which values it takes."""
    assert len(NUMERIC) > 60
    bare = [f"{name} {action.option_strings[-1]}" for name, _, action in NUMERIC
            if action.type in (int, float)]
    assert bare == []


@pytest.mark.parametrize(("name", "positionals", "action"), NUMERIC,
                         ids=[f"{n}{a.option_strings[-1]}" for n, _, a in NUMERIC])
def test_numbers_out_of_every_domain_are_refused_by_the_parser(
        name: str, positionals: list[str], action: argparse.Action,
        capsys: pytest.CaptureFixture[str]) -> None:
    """-1 (no count, seed, port, size or time is negative) and 10**20 (past every bound:
    such values overflowed timers, resource limits and gRPC's sizes) end the parse with
    exit status 2 and the option's name; the option's default is inside its domain."""
    option = action.option_strings[-1]
    parse = action.type
    assert callable(parse)
    if action.default is not None:
        parse(str(action.default))  # the default parses
    for value in ("-1", str(10**20)):
        with pytest.raises(SystemExit) as ended:
            parser().parse_args([name, *positionals, f"{option}={value}"])
        assert ended.value.code == 2
        top = parser()
        commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
        top.exit_on_error = commands.choices[name].exit_on_error = False
        with pytest.raises(argparse.ArgumentError) as refused:
            top.parse_args([name, *positionals, f"{option}={value}"])
        assert refused.value.argument_name == "/".join(action.option_strings)


def test_counts_start_at_their_least_value() -> None:
    """A count takes its least value and refuses one less, and words, with the reason."""
    assert at_least(1)("1") == 1
    with pytest.raises(OutOfDomain) as caught:
        at_least(1)("0")
    assert (caught.value.reason, caught.value.value, caught.value.low) == ("below", 0, 1)
    with pytest.raises(OutOfDomain) as caught:
        at_least(1)("2.5")
    assert (caught.value.reason, caught.value.text) == ("not-a-number", "2.5")
    assert at_least(0)(str(MOST)) == MOST
    with pytest.raises(OutOfDomain) as caught:
        at_least(0)(str(MOST + 1))
    assert (caught.value.reason, caught.value.high) == ("above", MOST)


def test_ports_and_seeds_have_both_bounds() -> None:
    """A port runs from 0 to 65535; a seed from 0 to 2**63 - 1."""
    assert PORT("0") == 0 and PORT("65535") == 65535
    with pytest.raises(OutOfDomain) as caught:
        PORT("65536")
    assert (caught.value.low, caught.value.high, caught.value.value) == (0, 65535, 65536)
    assert SEED(str(2**63 - 1)) == 2**63 - 1
    with pytest.raises(argparse.ArgumentTypeError):
        SEED(str(2**63))
    assert between(3, 4)("4") == 4


def test_seconds_are_finite_and_positive_unless_zero_means_something() -> None:
    """Seconds refuse nan, infinity and negatives; zero only where the option gives zero a
    meaning (no bound)."""
    for text in ("nan", "inf", "-0.5", "soon"):
        with pytest.raises(argparse.ArgumentTypeError):
            seconds(zero=True)(text)
    with pytest.raises(OutOfDomain) as caught:
        seconds()("0")
    assert (caught.value.reason, caught.value.value, caught.value.low) == ("below", 0, 0)
    assert seconds(zero=True)("0") == 0.0
    assert seconds()("1e-3") == 0.001
    assert seconds()(str(LONGEST)) == LONGEST
    with pytest.raises(OutOfDomain) as caught:
        seconds()("1e7")
    assert (caught.value.reason, caught.value.high) == ("above", 1_000_000)


def test_sizes_fit_what_takes_them() -> None:
    """A memory bound's bytes fit 64 bits and a message size's fit gRPC's 32-bit int."""
    assert (MEBIBYTES(str(2**30)) << 20) < 2**63
    assert (MESSAGE_MEBIBYTES("2047") << 20) < 2**31
    with pytest.raises(argparse.ArgumentTypeError):
        MESSAGE_MEBIBYTES("2048")


def test_a_bench_of_no_runs_is_one_usage_line() -> None:
    """``bench --runs 0``, which used to end in a traceback from the median of nothing, is
    refused with the command's usage and one line naming the option (the printed line is
    the output under test)."""
    result = run_cli("bench", GAMES / "tictactoe.kif", "--backends", "native-batch",
                     "--runs", "0")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "argument --runs: must be at least 1, got 0" in result.stderr
