"""The one ground-program reader (reasoner.asp.ground_rules): rules and atoms as clingo
grounds them, bounds that stop grounding reported as data, and no module outside
reasoner/asp talking to clingo itself."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from reasoner.asp.ground_rules import (
    ABSENT,
    FACT,
    GroundingStopped,
    RuleRecords,
    ground_rules,
    number,
    parse_symbol,
)
from reasoner.asp.superset import compute_superset
from reasoner.errors import ResourceLimitError
from reasoner.propnet.network import FALSE, TRUE, NetworkBounds, build_network
from tests.conftest import bundled

REASONER = Path(__file__).resolve().parent.parent / "reasoner"

# Many rules that stay rules (their body reads an external atom).
_MANY = "p(1..5000). #external r. q(X) :- p(X), r.\n"


def test_rules_and_atoms_as_grounded() -> None:
    """Rules come as (head, body) program literals; atoms are found by symbol: a fact, an
    atom never derived, or a program atom; what a network cannot hold is noted."""
    ground = ground_rules("#external a. b :- a. c :- not a. d. goal(x, 50) :- b.\n",
                          max_rules=100)
    a, b, c = (ground.atom(name) for name in "abc")
    assert min(a, b, c) > 0
    assert ground.atom("d") == FACT and ground.atom("e") == ABSENT
    assert (FACT, ABSENT) == (TRUE, FALSE)  # the network's constants are the reader's
    assert ([b], [a]) in [(list(h), list(body)) for h, body in ground.rules]
    assert ([c], [-a]) in [(list(h), list(body)) for h, body in ground.rules]
    [(arguments, atom)] = ground.atoms("goal", 2)
    assert [str(s) for s in arguments] == ["x", "50"] and number(arguments[1]) == 50
    assert number(arguments[0]) is None and atom > 0
    assert ground.literal(parse_symbol("goal(x,50)")) == atom
    assert ground.atom_texts()[b] == "b" and ground.atom_count >= 4
    assert ground.unsupported == ""
    assert ground_rules("{ a }.\n", max_rules=10).unsupported == "choice rules or constraints"
    assert ground.names == {}
    named = ground_rules("#external a. b :- a. d.\n", names=True)
    assert [str(s) for s in named.names[named.atom("b")]] == ["b"]
    assert [str(s) for s in named.names[0]] == ["d"]  # facts


def test_rules_are_read_back_as_the_observer_heard_them() -> None:
    """The compact record of the rules gives back each rule's head and body, in the
    grounder's order, and counts the head atoms of the rules that have a body (the lines
    an instantiated game writes)."""
    records = RuleRecords()
    heard = [((3,), (1, -2)), ((4,), ()), ((5, 6), (7,)), ((), (3, 4, -5))]
    for head, body in heard:
        records.append(list(head), list(body))
    assert list(records) == heard and len(records) == 4
    assert records.bodied_heads == 3
    assert len(list(ground_rules(_MANY).rules)) == len(ground_rules(_MANY).rules) >= 5000


def test_bounds_stop_grounding_and_say_which() -> None:
    """More rules than allowed stops with bound "size", a deadline passed with "time";
    the caller decides on the exception's data."""
    with pytest.raises(GroundingStopped) as caught:
        ground_rules(_MANY, max_rules=100)
    assert (caught.value.bound, caught.value.max_rules) == ("size", 100)
    with pytest.raises(GroundingStopped) as caught:
        ground_rules(_MANY, max_rules=10_000, deadline=time.perf_counter() - 1.0)
    assert caught.value.bound == "time"
    assert len(ground_rules(_MANY, max_rules=10_000).rules) >= 5000


def test_the_network_reports_the_bound_it_hit() -> None:
    """The network's refusal carries the bound the reader reported: "size" past its rule
    count, "time" past its deadline while grounding (minichess: more than 4,096 ground
    rules, so the observer looks at the clock)."""
    game = bundled("minichess")
    superset = compute_superset(game.translation)
    with pytest.raises(ResourceLimitError) as caught:
        build_network(game.translation, superset, game.roles, NetworkBounds(rules=50))
    assert (caught.value.bound, caught.value.reason, caught.value.limit) == (
        "size", "grounding", 50)
    with pytest.raises(ResourceLimitError) as caught:
        build_network(game.translation, superset, game.roles, NetworkBounds(seconds=1e-9))
    assert (caught.value.bound, caught.value.reason) == ("time", "grounding")


def _imports_clingo(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
                a.name.split(".")[0] == "clingo" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "clingo":
            return True
    return False


def test_only_asp_imports_clingo() -> None:
    """clingo is talked to in reasoner/asp alone: the network and the heuristics (and
    every other package) read ground programs through reasoner.asp.ground_rules."""
    asp = REASONER / "asp"
    offenders = [str(path.relative_to(REASONER)) for path in sorted(REASONER.rglob("*.py"))
                 if asp not in path.parents and _imports_clingo(path)]
    assert offenders == []
    assert _imports_clingo(asp / "ground_rules.py")
    for package in ("propnet", "heuristics"):
        assert list((REASONER / package).rglob("*.py"))
