"""The demand-driven rewrite (:mod:`reasoner.gdl.demand`): a magic-set rewrite of flat GDL
rules that must answer exactly what the rules answer, whatever the state.

Both programs are ground by clingo with a state (and a joint move) as facts ``true(F)`` and
``does(R,M)``, and their legal, next, goal and terminal atoms compared. The states are those
of seeded random playouts and random sets of the game's fluents (the rewrite must hold for
any facts, not only reachable ones).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator, Sequence

import clingo
import pytest

from reasoner import Game
from reasoner.asp.encoding import constant_text, predicate_name, term_text
from reasoner.asp.machine import Machine
from reasoner.core.walk import MachineStepper, sample_states
from reasoner.gdl.components import strongly_connected_components
from reasoner.gdl.demand import adorned_relation, demand_rules, is_adorned
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import Atom, Distinct, Literal, Not, Rule
from tests.conftest import GAMES

QUERIES = (("legal", 2), ("terminal", 0), ("goal", 2), ("next", 1))
BASE = (("true", 1), ("does", 2))
_SHOW = "\n#show legal/2.\n#show next/1.\n#show goal/2.\n#show terminal/0.\n"

# A helper relation (reach) called with its first argument bound, whose recursive rule reads
# another derived relation (blocked) under negation: demanding blocked from inside reach
# would put reach and blocked in one cycle through negation.
NEGATION_IN_RECURSION = """
(role r) (num 1) (num 2) (num 3) (num 4) (num 5)
(init (at 1)) (init (e 1 2)) (init (e 2 3)) (init (e 3 4)) (init (e 4 5)) (init (e 2 5))
(init (wall 3))
(<= (reach ?x ?y) (true (e ?x ?y)))
(<= (reach ?x ?z) (reach ?x ?y) (true (e ?y ?z)) (not (blocked ?z)))
(<= (blocked ?z) (true (wall ?z)) (num ?z))
(<= (legal r (go ?y)) (true (at ?x)) (reach ?x ?y))
(legal r stay)
(<= (next (at ?y)) (does r (go ?y)))
(<= (next (at ?x)) (does r stay) (true (at ?x)))
(<= (next (e ?x ?y)) (true (e ?x ?y)))
(<= (next (wall ?x)) (true (wall ?x)))
(<= terminal (true (at 5)))
(<= (goal r 100) (true (at 5)))
(<= (goal r 0) (not (true (at 5))))
"""

# Worse still: s is demanded (bound) from inside mark, which u reads under negation, and
# from w, whose binding comes from u; the magic set of s then depends on u, which depends
# on mark through negation, so even leaving the negative calls whole keeps the cycle.
NEGATION_THROUGH_MAGIC = """
(role r) (num 1) (num 2) (num 3)
(init (d 1)) (init (d 2)) (init (m 2)) (init (m 3)) (init (v 1 2)) (init (v 2 3))
(init (v 3 1))
(<= (s ?x) (true (m ?x)) (num ?x))
(<= (mark ?x) (true (d ?x)) (s ?x))
(<= (u ?x) (true (v ?x ?y)) (not (mark ?y)))
(<= (w ?x) (u ?x) (s ?x))
(<= (legal r (go ?x)) (w ?x))
(legal r stay)
(<= (next (d ?x)) (does r (go ?x)))
(<= (next (d ?x)) (true (d ?x)) (does r stay))
(<= (next (m ?x)) (true (m ?x)))
(<= (next (v ?x ?y)) (true (v ?x ?y)))
(<= terminal (true (d 3)))
(<= (goal r 100) (true (d 3)))
(<= (goal r 0) (not (true (d 3))))
"""

# "near" is called with its first argument bound by the state in one legal rule, but with
# nothing bound in the other.
NEEDED_IN_FULL = """
(role r) (num 1) (num 2) (num 3) (num 4)
(succ 1 2) (succ 2 3) (succ 3 4)
(init (at 1)) (init (goal_at 4))
(<= (near ?x ?y) (succ ?x ?y))
(<= (near ?x ?y) (succ ?y ?x))
(<= (legal r (go ?y)) (true (at ?x)) (near ?x ?y))
(<= (legal r (jump ?y)) (true (at ?z)) (near ?x ?y) (distinct ?x ?z))
(<= (next (at ?y)) (does r (go ?y)))
(<= (next (at ?y)) (does r (jump ?y)))
(<= (next (goal_at ?x)) (true (goal_at ?x)))
(<= terminal (true (at ?x)) (true (goal_at ?y)) (near ?x ?y))
(<= (goal r 100) terminal)
(<= (goal r 0) (not terminal))
"""


def _flats(text: str) -> list[Rule]:
    return [flat for rule in parse_gdl(text).rules for flat in flat_rules(rule)]


def _literal(literal: Literal) -> str:
    if isinstance(literal, Atom):
        return _atom(literal)
    if isinstance(literal, Distinct):
        return f"{term_text(literal.left)}!={term_text(literal.right)}"
    if isinstance(literal, Not) and isinstance(literal.literal, Distinct):
        return f"{term_text(literal.literal.left)}={term_text(literal.literal.right)}"
    if isinstance(literal, Not) and isinstance(literal.literal, Atom):
        return "not " + _atom(literal.literal)
    raise TypeError(f"not a flat literal: {literal}")


def _atom(atom: Atom) -> str:
    name = predicate_name(atom.name)
    return f"{name}({','.join(term_text(arg) for arg in atom.args)})" if atom.args else name


def _program(rules: Sequence[Rule]) -> str:
    """The rules as ASP text (names encoded as the translation encodes them)."""
    return "\n".join(_atom(rule.head) + (" :- " + ", ".join(map(_literal, rule.body))
                                         if rule.body else "") + "."
                     for rule in rules) + "\n"


def _answers(program: str, facts: str) -> frozenset[str]:
    """The legal, next, goal and terminal atoms of the one answer set of ``program`` with
    ``facts`` (a second answer set fails the test: the rules are not stratified)."""
    ctl = clingo.Control(["--warn=none", "2"])
    ctl.add("base", [], program + facts + _SHOW)
    ctl.ground([("base", [])])
    models: list[frozenset[str]] = []
    ctl.solve(on_model=lambda m: models.append(frozenset(map(str, m.symbols(shown=True)))))
    assert len(models) == 1, f"{len(models)} answer sets"
    return models[0]


def _fact_sets(text: str, count: int, seed: int) -> Iterator[str]:
    """``count`` states of seeded random playouts with the joint move played there, then
    ``count`` random sets of the game's fluents with a random move per role, as facts."""
    game = Game.from_gdl(text, backend="clingo")
    machine = game.machine
    assert isinstance(machine, Machine)
    roles = [constant_text(role) for role in game.roles]
    by_role: dict[int, list[int]] = defaultdict(list)
    for move, role in enumerate(machine.move_role):
        by_role[role].append(move)

    def facts(bits: int, joint: Sequence[int]) -> str:
        return "".join(f"true({symbol}).\n" for i, symbol in enumerate(machine.fluent_symbols)
                       if bits >> i & 1) + "".join(
            f"does({roles[machine.move_role[m]]},{machine.move_symbols[m]}).\n" for m in joint)

    for bits, joint in sample_states(MachineStepper(machine), machine.init_bits, count, seed):
        yield facts(bits, joint)
    rng = random.Random(seed)
    for _ in range(count):
        bits = rng.getrandbits(len(machine.fluent_symbols))
        yield facts(bits, [rng.choice(by_role[r]) for r in range(len(roles)) if by_role[r]])


def _same_answers(text: str, rewritten: Sequence[Rule], count: int = 15,
                  seed: int = 0) -> int:
    """Assert that ``rewritten`` answers as the game's rules do on every fact set; the
    number of fact sets compared."""
    original, demanded = _program(_flats(text)), _program(rewritten)
    compared = 0
    for facts in _fact_sets(text, count, seed):
        assert _answers(demanded, facts) == _answers(original, facts), facts
        compared += 1
    return compared


def _negation_in_a_cycle(rules: Sequence[Rule]) -> bool:
    """True if some relation depends on itself through negation."""
    graph: dict[str, set[str]] = defaultdict(set)
    negative: list[tuple[str, str]] = []
    for rule in rules:
        for literal in rule.body:
            inner = literal.literal if isinstance(literal, Not) else literal
            if isinstance(inner, Atom):
                graph[rule.head.name].add(inner.name)
                if isinstance(literal, Not):
                    negative.append((rule.head.name, inner.name))
    component = strongly_connected_components(graph)
    return any(component.get(head) == component.get(name) for head, name in negative)


def _adorned(rules: Sequence[Rule]) -> set[str]:
    return {rule.head.name for rule in rules if is_adorned(rule.head.name)}


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "minichess",
                                  "hanoi", "eightpuzzle", "nim", "threeplayer"])
def test_rewritten_game_answers_as_the_game(name: str) -> None:
    """Each bundled game whose helpers the rewrite adorns answers legal, next, goal and
    terminal exactly as before, in reached states and in random sets of fluents."""
    text = (GAMES / f"{name}.kif").read_text()
    rewritten = demand_rules(_flats(text), queries=QUERIES, base=BASE)
    assert _adorned(rewritten), "nothing was rewritten: the test compares nothing new"
    assert _same_answers(text, rewritten) == 30


def test_the_backend_split_answers_as_the_game() -> None:
    """Rewritten separately for legal, terminal and goal, and for next (as the position
    backend's programs are), the two programs together answer as the game."""
    text = (GAMES / "breakthrough.kif").read_text()
    flats = _flats(text)
    position = demand_rules(flats, queries=QUERIES[:3], base=BASE)
    successor = demand_rules(flats, queries=QUERIES[3:], base=BASE)
    original = _program(flats)
    for facts in _fact_sets(text, 10, seed=4):
        assert (_answers(_program(position), facts) | _answers(_program(successor), facts)
                == _answers(original, facts))


def test_adorned_names_hold_a_space_and_name_their_relation() -> None:
    """Every relation the rewrite adds holds a space (no GDL name can), and names the game's
    relation it stands for."""
    text = (GAMES / "minichess.kif").read_text()
    flats = _flats(text)
    game_relations = {rule.head.name for rule in flats}
    added = {rule.head.name for rule in demand_rules(flats, queries=QUERIES, base=BASE)} - \
        game_relations
    assert added and added == _adorned(demand_rules(flats, queries=QUERIES, base=BASE))
    assert all(" " in name and adorned_relation(name) in game_relations for name in added)
    assert all(not is_adorned(name) and adorned_relation(name) == name
               for name in game_relations)


def test_game_relations_named_like_adorned_ones_do_not_collide() -> None:
    """Tic-tac-toe with relations of its own named like the rewrite's (``line_b``,
    ``line_b_magic``, and ``_r_line_20_b``, the ASP spelling of ``line b``): the added
    names stay apart from the game's in the ASP program, and the rewritten game still
    answers as the game."""
    text = (GAMES / "tictactoe.kif").read_text() + """
(<= (line_b ?c) (symbol ?r ?c) (true (cell 2 2 ?c)))
(<= (line_b_magic ?c) (line_b ?c) (line ?c))
(<= (_r_line_20_b ?r) (symbol ?r ?c) (line_b_magic ?c))
(<= terminal (_r_line_20_b xplayer))
"""
    rewritten = demand_rules(_flats(text), queries=QUERIES, base=BASE)
    assert {"line b", "line b magic", "_r_line_20_b b", "line_b b"} <= _adorned(rewritten)
    names = {rule.head.name for rule in rewritten}
    assert len({predicate_name(name) for name in names}) == len(names)
    assert predicate_name("line b") != predicate_name("_r_line_20_b")
    _same_answers(text, rewritten, count=10)


def test_a_relation_needed_in_full_somewhere_is_used_in_full_everywhere() -> None:
    """``near`` is called bound by one legal rule but free by the other: it is not adorned
    at all (one full copy serves both calls), and the rewrite answers as the game."""
    flats = _flats(NEEDED_IN_FULL)
    rewritten = demand_rules(flats, queries=QUERIES, base=BASE)
    assert not any(adorned_relation(name) == "near" for name in _adorned(rewritten))
    assert [rule for rule in rewritten if rule.head.name == "near"] == [
        rule for rule in flats if rule.head.name == "near"]
    _same_answers(NEEDED_IN_FULL, rewritten)
    # Without the free call from terminal, near is demanded.
    bound_only = NEEDED_IN_FULL.replace("(near ?x ?y) (distinct", "(succ ?x ?y) (distinct")
    assert "near bf" in _adorned(demand_rules(_flats(bound_only), queries=QUERIES, base=BASE))


def test_a_negative_call_that_would_close_a_negative_cycle_stays_whole() -> None:
    """Demanding ``blocked`` from the recursive rule of ``reach`` would make reach depend
    on itself through negation: the negative call uses blocked in full, reach is still
    demanded, the result is stratified and answers as the game."""
    flats = _flats(NEGATION_IN_RECURSION)
    assert not _negation_in_a_cycle(flats)
    rewritten = demand_rules(flats, queries=QUERIES, base=BASE)
    assert not _negation_in_a_cycle(rewritten)
    assert "reach bf" in _adorned(rewritten)
    assert not any(adorned_relation(name) == "blocked" for name in _adorned(rewritten))
    _same_answers(NEGATION_IN_RECURSION, rewritten)


def test_a_rewrite_that_keeps_a_negative_cycle_is_given_up() -> None:
    """When even whole negative calls leave a cycle through negation (s's magic set depends
    on u, which reads mark under negation, which calls s), the rules come back as they
    were: stratified, answering as the game."""
    flats = _flats(NEGATION_THROUGH_MAGIC)
    assert not _negation_in_a_cycle(flats)
    rewritten = demand_rules(flats, queries=QUERIES, base=BASE)
    assert not _negation_in_a_cycle(rewritten)
    assert rewritten == flats
    _same_answers(NEGATION_THROUGH_MAGIC, rewritten)


def test_only_what_the_queries_reach_is_kept() -> None:
    """A relation no query reads is dropped, derived or facts alone (tic-tac-toe's role
    and init facts: a position would ground them for nothing); facts a query reads stay."""
    text = (GAMES / "tictactoe.kif").read_text() + "(<= (unused ?x) (true (cell ?x 1 b)))"
    flats = _flats(text)
    rewritten = demand_rules(flats, queries=QUERIES, base=BASE)
    names = {rule.head.name for rule in rewritten}
    assert "unused" not in names and "role" not in names and "init" not in names
    with_facts = demand_rules(_flats("(role r) (legal r go) (<= (legal r ?m) (move ?m)) "
                                     "(move a) (move b) (<= terminal (true done)) (goal r 0)"),
                              queries=QUERIES, base=BASE)
    assert {rule.head.name for rule in with_facts} >= {"move", "legal"}
