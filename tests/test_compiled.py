"""The compiled-rules backend (:mod:`reasoner.compiled`): a game's rules compiled to C. It
must play every game exactly as the other backends do, over the same tables, carry the
games too large to ground once faster than top-down (where ``auto`` then settles for it),
keep the game's text out of the generated code, and stay bounded."""

from __future__ import annotations

import time

import pytest

from reasoner import Game
from reasoner.asp.position import id_tables
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.compiled import build
from reasoner.compiled.codegen import game_source
from reasoner.compiled.envelopes import envelopes
from reasoner.compiled.machine import CompiledMachine
from reasoner.compiled.relations import RelationGraph, by_relation
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.engine import backend
from reasoner.engine.backend import build_machine
from reasoner.errors import NoLegalMoveError, ResourceLimitError
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_gdl
from reasoner.instantiate.ground_game import instantiate
from reasoner.propnet.network import NetworkBounds
from tests.conftest import GAMES, corpus_params
from tests.test_position_backend import EXPLODING, SMALL_BOUNDS

BUNDLED = sorted(p.stem for p in GAMES.glob("*.kif"))

# Reachability over a graph with a cycle, asked with every binding pattern: left and right
# recursion, a relation read under negation once it is complete, fully bound recursive
# calls (resolved depth first, the cycle cut, the tables answering where a cut branch
# leaves the answer open), and a cycle (a b c a) that a resolution without tables or
# checks would follow forever.
GRAPH = """
(role r)
(edge a b) (edge b c) (edge c a) (edge c d) (edge e f)
(init (at a))
(<= (reach ?x ?y) (edge ?x ?y))
(<= (reach ?x ?z) (reach ?x ?y) (edge ?y ?z))
(<= (back ?x ?z) (edge ?x ?y) (back ?y ?z))
(<= (back ?x ?y) (edge ?x ?y))
(<= (node ?x) (edge ?x ?y))
(<= (node ?y) (edge ?x ?y))
(<= (legal r (go ?y)) (true (at ?x)) (reach ?x ?y))
(<= (legal r (back ?y)) (true (at ?x)) (back ?x ?y) (not (reach ?y ?x)))
(<= (legal r (hop ?y)) (true (at ?x)) (node ?y) (back ?x ?y) (back ?y ?x))
(<= (next (at ?y)) (does r (go ?y)))
(<= (next (at ?y)) (does r (back ?y)))
(<= (next (at ?y)) (does r (hop ?y)))
(<= (next (seen ?x)) (true (at ?x)))
(<= (next (seen ?x)) (true (seen ?x)))
(<= stuck (true (at ?x)) (node ?x) (not (reach ?x ?x)))
(<= terminal stuck)
(<= terminal (true (seen d)))
(<= (goal r 100) (true (at d)))
(<= (goal r 0) (not (true (at d))))
"""

# Names that mean something to a C compiler or a shell, as a game may write them.
HOSTILE = """
(role */}{)
(init (cell /* #include))
(<= (legal */}{ (put "x\\")) (true (cell ?a ?b)))
(<= (next (cell ?a ?b)) (true (cell ?a ?b)))
(<= terminal (true (cell */ #include)))
(<= (goal */}{ 50) (true (cell ?a ?b)))
"""


def _machine(text: str, **bounds: float) -> CompiledMachine:
    description = parse_gdl(text)
    tables = id_tables(compute_superset(translate(description)), description.roles)
    return CompiledMachine(description, description.roles, tables.fluent_texts,
                           tables.move_texts, tables.move_role, **bounds)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_game_plays_alike_compiled_and_on_clingo(name: str) -> None:
    """Along seeded random playouts, the compiled rules give the legal moves, successors,
    terminal flags and goals (in every state) that clingo gives, over the same tables."""
    compiled = Game.from_file(GAMES / f"{name}.kif", backend="compiled")
    clingo = Game.from_file(GAMES / f"{name}.kif", backend="clingo")
    assert compiled.backend == "compiled" and compiled.network is None
    assert (compiled.fluents, compiled.all_moves, compiled.initial_state) == (
        clingo.fluents, clingo.all_moves, clingo.initial_state)
    found = first_disagreement(compiled, clingo, seed=7, playouts=3, max_steps=100)
    assert found is None, found


def test_recursion_through_a_cycle_is_answered_as_clingo_answers_it() -> None:
    """Left and right recursion over a graph with a cycle, and a recursive relation read
    under negation, give clingo's answers in every state of seeded playouts."""
    compiled = Game.from_gdl(GRAPH, backend="compiled")
    clingo = Game.from_gdl(GRAPH, backend="clingo")
    moves = sorted(m.text for m in compiled.legal_moves(compiled.initial_state, "r"))
    # From a: reach a, b, c, d; back along edges to b, c, a, d, each only where it cannot
    # reach back (d); hop to the nodes of its cycle.
    assert moves == ["(back d)", "(go a)", "(go b)", "(go c)", "(go d)", "(hop a)", "(hop b)",
                     "(hop c)"]
    assert first_disagreement(compiled, clingo, seed=3, playouts=10, max_steps=20) is None


def test_resolution_that_would_take_exponential_time_falls_back_to_the_tables() -> None:
    """A fully bound recursive call over 24 diamonds in a row (2^24 paths to a node that
    none reaches) runs out of resolution's budget and is answered by the tables, at once
    and as clingo answers it."""
    diamonds = " ".join(f"(edge n{i} a{i}) (edge n{i} b{i}) (edge a{i} n{i + 1}) "
                        f"(edge b{i} n{i + 1})" for i in range(24))
    text = f"""
    (role r) {diamonds} (edge zz n0) (init (at n0))
    (<= (path ?x ?y) (edge ?x ?y))
    (<= (path ?x ?z) (edge ?x ?y) (path ?y ?z))
    (<= (legal r go) (true (at ?x)) (path ?x zz))
    (legal r stay)
    (<= (next (at ?x)) (true (at ?x)))
    (<= terminal (true (at zz)))
    (goal r 0)
    """
    start = time.perf_counter()
    game = Game.from_gdl(text, backend="compiled")
    assert [m.text for m in game.legal_moves(game.initial_state, "r")] == ["stay"]
    assert time.perf_counter() - start < 10
    clingo = Game.from_gdl(text, backend="clingo")
    assert first_disagreement(game, clingo, seed=1, playouts=1, max_steps=3) is None


def test_the_generated_code_holds_no_text_of_the_game() -> None:
    """Names that a C compiler would read as code (quotes, comment marks, a directive)
    become integers: none of the game's names is in the source, and the game plays."""
    description = parse_gdl(HOSTILE)
    tables = id_tables(compute_superset(translate(description)), description.roles)
    source = game_source(description, description.roles, tables.fluent_texts,
                         tables.move_texts, tables.move_role)
    assert all(line in source.text for line in source.generated.splitlines())
    for name in ("*/", "/*", "}{", "#include", '"x'):
        assert name not in source.generated
    game = Game.from_gdl(HOSTILE, backend="compiled")
    state = game.initial_state
    assert game.goals(state) == {"*/}{": 50} and not game.is_terminal(state)
    assert [m.text for m in game.legal_moves(state, "*/}{")] == ['(put "x\\")']


def test_simulate_plays_in_c_with_the_outcomes_of_stepwise_play() -> None:
    """Playouts run in C end where stepwise play ends: terminal after as many steps as
    the game allows, with the goals the last state has."""
    game = Game.from_file(GAMES / "tictactoe.kif", backend="compiled")
    run = game.simulate(game.initial_state, playouts=200, seed=5, max_steps=50)
    assert len(run.lengths) == 200 and all(run.terminal)
    assert all(5 <= length <= 9 for length in run.lengths)
    assert run.updates == sum(run.lengths)
    for values in run.goals:
        assert sorted(v for (v,) in values) in ([0, 100], [50, 50])
    again = game.simulate(game.initial_state, playouts=200, seed=5, max_steps=50)
    assert again.lengths == run.lengths  # seeded


def test_a_playout_into_a_state_without_moves_names_the_role() -> None:
    """A non-terminal state where a role has no legal move ends the playouts with
    NoLegalMoveError naming that role."""
    text = """(role r) (init (at 0)) (<= (legal r go) (true (at 0)))
              (<= (next (at 1)) (does r go)) (<= terminal (true (at 2))) (goal r 0)"""
    game = Game.from_gdl(text, backend="compiled")
    with pytest.raises(NoLegalMoveError) as caught:
        game.simulate(game.initial_state, playouts=3, seed=0, max_steps=10)
    assert caught.value.role == "r"


def test_a_state_past_the_time_bound_is_refused_and_the_game_keeps_answering() -> None:
    """A step whose evaluation runs past the bound is refused with a time bound, and the
    next query is answered."""
    _NUMBERS = " ".join(f"(num {i})" for i in range(1, 61))
    slow = f"""
    (role r) {_NUMBERS} (init (at 0))
    (<= (nolink ?x) (true (depth ?x)) (num ?a) (num ?b) (num ?c) (num ?d) (num ?e)
        (sum ?a ?b ?c ?d ?e))
    (<= (sum ?a ?b ?c ?d ?e) (true (mark ?a ?b ?c ?d ?e)))
    (legal r dive) (legal r stay)
    (<= (next (depth 1)) (does r dive))
    (<= (next (at 1)) (does r stay))
    (<= terminal (true (depth ?x)) (not (nolink ?x)))
    (<= terminal (true (at 1)))
    (goal r 0)
    """
    machine = _machine(slow, seconds=0.5)
    dive, stay = (machine.move_texts.index(move) for move in ("dive", "stay"))
    with pytest.raises(ResourceLimitError) as caught:
        machine.transition(machine.init_bits, (dive,))
    assert caught.value.bound == "time"
    _, _, info = machine.transition(machine.init_bits, (stay,))
    assert info.terminal


def _million(goals: str) -> str:
    """A game whose ``pair/3`` has a million answers in its state, with these goal rules."""
    numbers = " ".join(f"(num {i})" for i in range(1, 101))
    return f"""
    (role r) {numbers} (init (at 0))
    (<= (pair ?a ?b ?c) (num ?a) (num ?b) (num ?c) (true (at 0)))
    (legal r stay) (<= (next (at 0)) (does r stay))
    (<= terminal (true (at 1)))
    {goals}
    """


def test_tables_past_the_memory_bound_are_refused() -> None:
    """A state whose tables grow past the memory bound (a million answers, 8 MiB) is refused
    with a memory bound."""
    machine = _machine(_million("(<= (goal r 0) (pair ?a ?b ?c) (distinct ?a ?c))"),
                       memory_mib=8)
    with pytest.raises(ResourceLimitError) as caught:
        machine.info(machine.init_bits)
    assert caught.value.bound == "memory"


def test_a_refusal_for_the_memory_bound_names_the_relation_whose_tables_grew() -> None:
    """The refusal names the relation whose tables held the most (pair/3: one table, its
    answers cut off at the bound) as its relation and in its message; the tables' storage is
    freed, and asking again makes them again and is refused the same way."""
    machine = _machine(_million("(<= (goal r 0) (pair ?a ?b ?c) (distinct ?a ?c))"),
                       memory_mib=8)
    messages = []
    for _ in range(2):
        with pytest.raises(ResourceLimitError) as caught:
            machine.info(machine.init_bits)
        assert caught.value.relation == "pair/3"
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "grew past 8 MiB; the tables of pair/3 grew most (1 table, " in messages[0], \
        messages[0]


def test_a_call_whose_free_arguments_nobody_reads_stops_at_its_first_answer() -> None:
    """A call whose unbound arguments no other literal reads asks only whether it has an
    answer: the million answers that would pass the memory bound are never made."""
    machine = _machine(_million("(<= (goal r 0) (pair ?a ?b ?c)) "
                                "(<= (goal r 50) (pair 7 ?b ?c) (not (true (at 0))))"),
                       memory_mib=8)
    assert machine.info(machine.init_bits).goals == ((0,),)


_RAY = """
(role r) (succ 1 2) (succ 2 3) (succ 3 4) (init (cell 2 empty)) (init (cell 3 empty))
(<= (clear ?a ?b) (succ ?a ?b))
(<= (clear ?a ?b) (succ ?a ?c) (true (cell ?c empty)) (clear ?c ?b))
(<= (mine ?p) (true (owner ?p)) (clear ?p 4))
(legal r stay) (<= (next (cell ?c empty)) (true (cell ?c empty)))
(<= terminal (clear 1 4)) (goal r 0)
"""


def _envelopes(text: str) -> tuple[dict[tuple[str, int], tuple[str, int]],
                                   dict[tuple[str, int], list[str]]]:
    rules = by_relation(flat for rule in parse_gdl(text) for flat in flat_rules(rule))
    of, made = envelopes(rules, RelationGraph.of(rules))
    return of, {s: [str(rule) for rule in group] for s, group in made.items()}


def test_the_envelope_of_a_ray_keeps_its_static_steps_and_leaves_the_state_out() -> None:
    """A recursive relation that reads the state has a static envelope: its rules without
    the state's literals, recursing through the envelope."""
    of, made = _envelopes(_RAY)
    assert of == {("clear", 2): ("clear envelope", 2)}
    assert len(made[("clear envelope", 2)]) == 2
    recursive = made[("clear envelope", 2)][1]
    assert "true" not in recursive and "clear envelope" in recursive


def test_a_ray_inside_its_envelope_is_still_walked_in_the_state() -> None:
    """The envelope only refuses what no state allows: a clear ray in the state is found,
    and one the state blocks is not."""
    machine = _machine(_RAY)
    assert machine.info(machine.init_bits).terminal
    blocked = _machine(_RAY.replace("(init (cell 3 empty))", ""))
    assert not blocked.info(blocked.init_bits).terminal


_MARKED = """
(role r) (init (cell 1)) (init (cell 2))
(<= (pick ?n) (true (cell ?n)) (true (mark ?m on)) (distinct ?n ?m))
(legal r stay) (<= (legal r (mark ?n)) (true (cell ?n))) (legal r (mark 3)) (legal r (mark 4))
(legal r (mark 5)) (legal r (mark 6)) (legal r (mark 7)) (legal r (mark 8))
(<= (next (cell ?n)) (true (cell ?n)))
(<= (next (mark ?n on)) (does r (mark ?n)))
(<= terminal (true (mark 3 on)))
(<= (goal r ?n) (pick ?n))
"""


def test_a_rule_on_a_fluent_play_adds_answers_once_the_fluent_holds() -> None:
    """A rule that reads a fluent the initial state lacks (a mark) after a loop checks for
    it first: no answer while no mark holds, every answer once one does."""
    machine = _machine(_MARKED)
    assert "index_true(" in machine.source.generated  # the check before the loop
    assert machine.info(machine.init_bits).goals == ((),)
    mark = machine.move_texts.index("(mark 2)")
    _, _, info = machine.transition(machine.init_bits, (mark,))
    assert [sorted(values) for values in info.goals] == [[1]]


def test_a_test_asked_with_a_new_key_in_every_state_answers_alike_without_its_tables(
) -> None:
    """A fully bound test asked once per key (a new step each state) stops keeping its
    answers after its first few thousand misses, and answers alike from then on: a playout
    of 5,000 steps takes each of them."""
    steps = 5000
    facts = " ".join(f"(succ {i} {i + 1})" for i in range(steps))
    text = f"""
    (role r) {facts} (init (step 0))
    (<= (stepped ?n) (true (step ?n)))
    (<= (ok ?n ?m) (stepped ?n) (succ ?n ?m))
    (legal r go)
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m) (ok ?n ?m))
    (<= terminal (true (step {steps})))
    (goal r 100)
    """
    machine = _machine(text)
    run = machine.simulate(machine.init_bits, 1, 0, 2 * steps)
    assert run.lengths == [steps] and run.terminal == [True]


def test_a_relation_whose_head_only_the_state_binds_has_no_envelope() -> None:
    """Leaving the state out must leave every rule safe: where a head variable is bound by
    the state alone, the relation has no envelope (and is never filtered by one)."""
    text = _RAY.replace("(<= (clear ?a ?b) (succ ?a ?b))",
                        "(<= (clear ?a ?b) (succ ?a ?b)) (<= (clear ?a ?a) (true (cell ?a empty)))")
    of, _ = _envelopes(text)
    assert of == {}


def test_a_compiler_past_its_bound_is_cut_off(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: object) -> None:
    """The C compiler runs bounded: past its time it is stopped, with ResourceLimitError
    naming the compiler's bound."""
    monkeypatch.setenv("GDL_REASONER_CACHE", str(tmp_path))
    source = "int f(void) { return 0; }\n" * 1 + "/* unique */ int g(void) { return 1; }\n"
    with pytest.raises(ResourceLimitError) as caught:
        build.shared_object(source, seconds=0.001)
    assert caught.value.bound == "time" and caught.value.reason == "compiler"


@pytest.mark.needs_tools  # the walk races the compiled rules against SWI-Prolog's
def test_auto_compiles_a_game_too_large_to_ground_once() -> None:
    """Where the program does not ground once within the bounds, auto evaluates each
    position with the compiled rules or top-down, whichever walked faster, and says so."""
    description = parse_gdl(EXPLODING)
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", False, SMALL_BOUNDS, description=description)
    assert built.backend in ("compiled", "topdown") and built.network is None
    last = built.note.steps[-1]
    assert last.backend == built.backend and "walk" in last.reason


def test_auto_does_not_compile_a_game_without_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An instantiated game whose network is over the bounds is answered by clingo without
    generating code for it (a function per ground rule: merrills's instantiated game ran
    past the compiler's memory bound after 127 s), and the note says why."""
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the compiled rules were built")

    monkeypatch.setattr(backend, "_compiled", refused)
    description = parse_gdl(instantiate((GAMES / "tictactoe.kif").read_text()).gdl())
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", False, NetworkBounds(gates=10), description=description)
    assert built.backend == "clingo" and built.network is None
    last = built.note.steps[-1]
    assert last.backend == "compiled" and "no variables" in last.reason


@pytest.mark.usefixtures("without_c_compiler")
def test_without_a_c_compiler_auto_says_why_and_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no C compiler is installed, auto's note names that and the game still loads
    position by position."""
    monkeypatch.setattr(backend, "topdown_available", lambda: False)
    description = parse_gdl(EXPLODING)
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", False, SMALL_BOUNDS, description=description)
    assert built.backend == "position"
    assert any(step.backend == "compiled" and "no C compiler" in step.reason
               for step in built.note.steps)


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.needs_tools
@pytest.mark.parametrize("path", corpus_params(["ggp-repository/chess.kif"]))
def test_chess_loads_compiled_under_auto_and_plays_as_top_down(path: str,
                                                                corpus: object) -> None:
    """Chess, whose program does not ground once, loads on the compiled rules under auto
    and plays seeded playouts exactly as top-down does."""
    from tests.conftest import CORPUS
    game = Game.from_file(CORPUS / path)
    assert game.backend == "compiled", game.statistics.backend_note
    topdown = Game.from_file(CORPUS / path, backend="topdown")
    assert first_disagreement(game, topdown, seed=11, playouts=2, max_steps=60) is None
