"""GDL symbols reach clingo as data: reversibly, without collisions, and never as syntax.

docs/semantics/gdl.md (reading real files): constants that look like ASP variables or operators
(``N``, ``+``, ``map+``, ``<``), negative integers and ``01`` versus ``1`` are all distinct GDL
symbols; the translation must be reversible and collision-free, and a crafted symbol must not inject
``#script`` or any rule. Section 2: ``or`` expands rule by rule (keeping rules safe),
``distinct`` becomes ``!=`` and ``(not (distinct a b))`` becomes ``=``.
"""

from __future__ import annotations

import re

import clingo
import clingo.ast
import pytest

from reasoner.asp.encoding import (
    constant_text,
    predicate_name,
    term_text,
    variable_text,
)
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation, translate
from reasoner.engine.game import Game
from reasoner.errors import GdlError, IllegalMoveError
from reasoner.gdl.parser import parse_game, parse_term
from reasoner.gdl.syntax import Variable
from reasoner.gdl.validation import validate

# Constants that ASP would misread, or that collide when encoded naively. "01" and "1",
# "-0" and "0" are different GDL symbols.
ODD_NAMES = (
    "+", "++", "map+", "<", ">=", "01", "1", "0", "-0", "-3", "007", "2147483647",
    "2147483648", "-2147483648", "-2147483649", "1e5", "0x10", "show", "count", "sum", "inf",
    "sup", "#inf", "#sup", "true", "does", "next", "legal", "nota", "not-", "nott",
    "move-distinguished", "_x", "x_", "_", "_r_x", "a'", "é",
)
# Symbols that would be program syntax if they reached clingo unquoted.
INJECTION_NAMES = (
    "#script", "#end", "#show", "#const", "#include", "#external", ".", "x.", ":-", "p:-q",
    '"', 'a"b', '\\"', '"\\', "\\", "\\\\", "%", "%*", "*%", "%*x*%", "{", "}", "|", "@f",
    ":~", "#program", "#minimize", "`", "$", "&", "~", ",", "'",
)

PICK_GAME = """\
(role player)
{inits}
(<= (legal player (pick ?x)) (true (f ?x)))
(<= (next (f ?x)) (true (f ?x)) (not (does player (pick ?x))))
(<= (next (picked ?x)) (does player (pick ?x)))
(<= terminal (true (picked {winner})))
(<= (goal player 100) (true (picked {winner})))
(<= (goal player 0) (not (true (picked {winner}))))
"""


def pick_game(names: tuple[str, ...], winner: str = "01") -> str:
    """A one-player game: the fluents ``(f NAME)``; picking ``winner`` ends it with 100."""
    inits = "\n".join(f"(init (f {name}))" for name in names)
    return PICK_GAME.format(inits=inits, winner=winner)


def translated(text: str, *, case_sensitive: bool = False) -> Translation:
    """Parse, validate and translate a game."""
    description = parse_game(text, case_sensitive=case_sensitive)
    validate(description)
    return translate(description)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def code_outside_strings(program: str) -> list[str]:
    """The program's lines with comment lines dropped and string literals blanked."""
    return [_STRING.sub('""', line) for line in program.splitlines()
            if line and not line.startswith("%")]


def statement_kinds(program: str) -> list[clingo.ast.ASTType]:
    """The kinds of the statements clingo's own parser reads from the program."""
    kinds: list[clingo.ast.ASTType] = []
    clingo.ast.parse_string(program, lambda statement: kinds.append(statement.ast_type))
    return kinds


# -- the encoding functions ---------------------------------------------------------------


def test_constant_encoding_round_trips_through_clingo() -> None:
    """Every odd or dangerous constant, encoded, parsed by clingo and decoded, is itself."""
    for name in ODD_NAMES + INJECTION_NAMES:
        symbol = clingo.parse_term(constant_text(name))
        assert symbol_to_gdl(symbol) == name, f"{name!r} came back as {symbol_to_gdl(symbol)!r}"


def test_constant_encoding_is_collision_free() -> None:
    """No two different constants are encoded as the same clingo symbol."""
    names = ODD_NAMES + INJECTION_NAMES
    symbols = {clingo.parse_term(constant_text(name)) for name in names}
    assert len(symbols) == len(set(names))


def test_integer_like_names_encode_by_kind() -> None:
    """Only canonical 32-bit integers become ASP numbers; ``01``, ``-0`` and big ones do not."""
    assert constant_text("1") == "1"
    assert constant_text("-3") == "-3"
    assert constant_text("01") == '"01"'
    assert constant_text("-0") == '"-0"'
    assert constant_text("2147483648") == '"2147483648"'
    assert constant_text("x") == "x"
    assert constant_text("N") == '"N"'


@pytest.mark.parametrize(
    "text",
    ["(+ 1)", "(map+ a (01 b))", "(01 a)", "(1 a)", "(true x)", "(show (count 1 -3))",
     "(f (g (h 01 1)))", "(N n)", "(n N)", "(#script (%* a))", '(a"b \\ x)'],
)
def test_compound_term_encoding_round_trips_through_clingo(text: str) -> None:
    """A compound term with any function name encodes and decodes to its own text."""
    term = parse_term(text, case_sensitive=True)
    symbol = clingo.parse_term(term_text(term))
    assert symbol_to_gdl(symbol) == text


def test_compound_terms_with_lookalike_names_stay_distinct() -> None:
    """``(01 a)`` and ``(1 a)``, ``(f 01)`` and ``(f 1)`` are four different symbols."""
    texts = ["(01 a)", "(1 a)", "(f 01)", "(f 1)", "(+ a)", "(++ a)"]
    symbols = {clingo.parse_term(term_text(parse_term(t))) for t in texts}
    assert len(symbols) == len(texts)


def test_predicate_names_are_injective_identifiers() -> None:
    """Relation names map to distinct ASP identifiers that clingo accepts as predicates."""
    names = ("p", "+", "map+", "<", "Terminal", "terminal", "_r_x", "r_x", "#script", ":-",
             "a.b", "01", "1", "show", "_5f_")
    predicates = [predicate_name(name) for name in names]
    assert len(set(predicates)) == len(names)
    program = "\n".join(f"{p}(1)." for p in predicates)
    assert statement_kinds(program).count(clingo.ast.ASTType.Rule) == len(names)
    for predicate in predicates:
        assert re.fullmatch(r"_?[a-z][a-z0-9_]*|_r_[a-z0-9_]*", predicate), predicate


def test_variable_names_are_injective() -> None:
    """``?x``, ``?X``, ``?x-1``, ``?x_1`` and ``?x;1`` become distinct ASP variables."""
    names = ["x", "X", "x-1", "x_1", "x;1", "x_2d_1"]
    texts = [variable_text(Variable(name)) for name in names]
    assert len(set(texts)) == len(names)
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9_]*", text) for text in texts)


# -- odd names through the whole engine ---------------------------------------------------


def test_odd_fluent_texts_come_back_exactly() -> None:
    """The initial state of a game over odd constants holds exactly ``(f NAME)`` each."""
    game = Game.from_gdl(pick_game(ODD_NAMES))
    assert game.initial_state.fluents == {f"(f {name})" for name in ODD_NAMES}


def test_odd_move_texts_come_back_exactly() -> None:
    """The legal moves are exactly ``(pick NAME)`` for every odd constant."""
    game = Game.from_gdl(pick_game(ODD_NAMES))
    legal = {move.text for move in game.legal_moves(game.initial_state, "player")}
    assert legal == {f"(pick {name})" for name in ODD_NAMES}


def test_01_and_1_are_different_fluents_in_play() -> None:
    """Picking ``1`` removes ``(f 1)`` only and does not win; picking ``01`` wins."""
    game = Game.from_gdl(pick_game(ODD_NAMES, winner="01"))
    after_1 = game.next_state(game.initial_state, {"player": "(pick 1)"})
    assert "(picked 1)" in after_1.fluents
    assert "(f 1)" not in after_1.fluents
    assert "(f 01)" in after_1.fluents
    assert not game.is_terminal(after_1)
    assert game.goals(after_1) == {"player": 0}
    after_01 = game.next_state(after_1, {"player": "(pick 01)"})
    assert game.is_terminal(after_01)
    assert game.goals(after_01) == {"player": 100}
    assert after_01.fluents == ({f"(f {n})" for n in ODD_NAMES} - {"(f 1)", "(f 01)"}
                                | {"(picked 01)"})


@pytest.mark.parametrize("winner", ["-3", "-0", "0", "+", "map+", "<", "true", "sup", "_"])
def test_each_odd_name_is_its_own_symbol_in_play(winner: str) -> None:
    """Only picking exactly ``winner`` ends the game; its look-alikes do not."""
    game = Game.from_gdl(pick_game(ODD_NAMES, winner=winner))
    for name in ODD_NAMES:
        state = game.next_state(game.initial_state, {"player": f"(pick {name})"})
        assert game.is_terminal(state) == (name == winner), name


def test_nested_terms_with_odd_function_names_round_trip() -> None:
    """Function names such as ``+``, ``map+``, ``01``, ``true`` inside terms survive."""
    fluent = "(g (+ 1) (map+ a) (true x) (show (count 1)) (01 a) (1 a) (-3 <))"
    text = pick_game(("a",)).replace("(init (f a))", f"(init (f a))\n(init {fluent})")
    game = Game.from_gdl(text)
    assert game.initial_state.fluents == {"(f a)", fluent}


def test_relation_names_that_are_asp_words_or_operators() -> None:
    """Auxiliary relations named ``show``, ``count``, ``+``, ``<``, ``#script`` work."""
    text = pick_game(("01", "1", "2")).replace(
        "(<= (legal player (pick ?x)) (true (f ?x)))",
        "(<= (legal player (pick ?x)) (true (f ?x)) (show ?x) (+ ?x) (< ?x 2) (#script ?x)"
        " (count ?x))\n(show 01)\n(show 1)\n(+ 01)\n(+ 1)\n(< 01 2)\n(< 1 2)\n(#script 01)"
        "\n(#script 2)\n(count 01)\n(count 1)",
    )
    game = Game.from_gdl(text)
    legal = {move.text for move in game.legal_moves(game.initial_state, "player")}
    assert legal == {"(pick 01)"}


def test_odd_role_names_round_trip() -> None:
    """Roles named ``01``, ``1``, ``+``, ``a"b``, ``\\`` and ``#script`` are six roles."""
    roles = ("01", "1", "+", 'a"b', "\\", "#script")
    text = "".join(f"(role {r})\n" for r in roles) + (
        "(init started)\n(<= (legal ?r (say ?r)) (role ?r))\n"
        "(<= (next (said ?r ?m)) (does ?r ?m))\n(<= terminal (true (said ?r ?m)))\n"
        "(<= (goal ?r 50) (role ?r))\n"
    )
    game = Game.from_gdl(text)
    assert game.roles == roles
    for role in roles:
        assert [m.text for m in game.legal_moves(game.initial_state, role)] == [f"(say {role})"]
    state = game.next_state(game.initial_state, {r: f"(say {r})" for r in roles})
    assert state.fluents == {f"(said {r} (say {r}))" for r in roles}
    assert game.goals(state) == dict.fromkeys(roles, 50)


def test_case_sensitive_names_stay_distinct() -> None:
    """With case_sensitive=True, ``N``/``n``, ``Cell``/``cell``, ``Go``/``go`` are distinct."""
    text = """\
(role Robot)
(init (Cell N))
(init (Cell n))
(init (cell N))
(<= (legal Robot (Go ?X)) (true (Cell ?X)))
(<= (legal Robot (go ?x)) (true (cell ?x)))
(<= (next (Done ?X)) (does Robot (Go ?X)))
(<= (next (done ?x)) (does Robot (go ?x)))
(<= terminal (true (Done N)))
(<= (goal Robot 100) (true (Done N)))
(<= (goal Robot 0) (not (true (Done N))))
"""
    game = Game.from_gdl(text, case_sensitive=True)
    assert game.roles == ("Robot",)
    assert game.initial_state.fluents == {"(Cell N)", "(Cell n)", "(cell N)"}
    legal = {m.text for m in game.legal_moves(game.initial_state, "Robot")}
    assert legal == {"(Go N)", "(Go n)", "(go N)"}
    lower = game.next_state(game.initial_state, {"Robot": "(Go n)"})
    assert lower.fluents == {"(Done n)"}
    assert not game.is_terminal(lower)
    upper = game.next_state(game.initial_state, {"Robot": "(Go N)"})
    assert upper.fluents == {"(Done N)"}
    assert game.is_terminal(upper)
    assert game.goals(upper) == {"Robot": 100}


def test_case_insensitive_reading_merges_the_same_names() -> None:
    """By default the same text has one role, and ``N``/``n`` are one constant."""
    text = "(role Robot)\n(init (Cell N))\n(init (cell n))\n(legal robot (Go N))\n" \
           "(<= terminal (TRUE (cell n)))\n(goal ROBOT 0)\n"
    game = Game.from_gdl(text)
    assert game.roles == ("robot",)
    assert game.initial_state.fluents == {"(cell n)"}
    assert game.is_terminal(game.initial_state)


# -- injection ----------------------------------------------------------------------------


def test_injection_symbols_load_and_round_trip() -> None:
    """Symbols carrying ``#script``, ``.``, ``:-``, quotes, ``%``, backslashes stay data."""
    game = Game.from_gdl(pick_game((*INJECTION_NAMES, "01")))
    assert game.initial_state.fluents == {f"(f {n})" for n in (*INJECTION_NAMES, "01")}
    legal = {m.text for m in game.legal_moves(game.initial_state, "player")}
    assert legal == {f"(pick {n})" for n in (*INJECTION_NAMES, "01")}
    state = game.next_state(game.initial_state, {"player": "(pick #script)"})
    assert "(picked #script)" in state.fluents
    assert not game.is_terminal(state)


def test_injection_symbols_appear_only_inside_string_literals() -> None:
    """Outside comments and string literals, the program has no ``#``, quote, ``\\``, ``%``."""
    translation = translated(pick_game(INJECTION_NAMES))
    for program in (translation.game_program, translation.relaxed_program,
                    translation.next_layer_program):
        for line in code_outside_strings(program):
            for forbidden in ('"', "#", "\\", "%", "'", "`", "{", "}", "|", "@", "~", "$", "&"):
                assert forbidden not in line.replace('""', ""), f"{forbidden!r} in {line!r}"
            assert line.endswith("."), line
            assert line.count(".") == 1, line
            assert line.count(":-") <= 1, line


def test_injection_symbols_yield_only_rules_to_clingos_parser() -> None:
    """clingo reads the translated program as one rule per flat GDL rule and nothing else."""
    translation = translated(pick_game(INJECTION_NAMES))
    kinds = statement_kinds(translation.game_program)
    assert set(kinds) <= {clingo.ast.ASTType.Program, clingo.ast.ASTType.Rule,
                          clingo.ast.ASTType.Comment}
    assert kinds.count(clingo.ast.ASTType.Rule) == translation.flat_rule_count


def test_injection_relation_and_function_names_stay_data() -> None:
    """A relation named ``#script`` and a function named ``:-`` are encoded, not executed."""
    text = pick_game(("a",)) + "(<= (#script ?x) (true (f ?x)))\n(init (:- (#end a)))\n"
    translation = translated(text)
    kinds = statement_kinds(translation.game_program)
    assert clingo.ast.ASTType.Script not in kinds
    game = Game.from_gdl(text)
    assert game.initial_state.fluents == {"(f a)", "(:- (#end a))"}


def test_nul_character_is_rejected_or_kept() -> None:
    """A name holding NUL is either refused with a GdlError or kept as data, never dropped."""
    try:
        game = Game.from_gdl(pick_game(("a\x00b", "01")))
    except GdlError:
        return
    assert game.initial_state.fluents == {"(f a\x00b)", "(f 01)"}


# -- connectives --------------------------------------------------------------------------

LAST_MARK = """\
(role x)
(init (cell 1 1 b))
(init (cell 1 2 b))
(init (cell 2 1 b))
(init (cell 2 2 b))
(init (last 1 1))
(<= (legal x (mark ?m ?n))
    (true (cell ?m ?n b))
    (true (last ?j ?k))
    (or (distinct ?m ?j) (distinct ?n ?k)))
(<= (next (cell ?m ?n x)) (does x (mark ?m ?n)))
(<= (next (last ?m ?n)) (does x (mark ?m ?n)))
(<= (next (cell ?m ?n b)) (true (cell ?m ?n b)) (does x (mark ?j ?k))
    (or (distinct ?m ?j) (distinct ?n ?k)))
(<= terminal (not (true (cell 1 2 b))))
(goal x 100)
"""


def test_or_of_distincts_expands_into_safe_rules() -> None:
    """``(or (distinct ?m ?j) (distinct ?n ?k))`` becomes one rule per disjunct, no helper."""
    translation = translated(LAST_MARK)
    legal_rules = [line for line in translation.game_program.splitlines()
                   if line.startswith("legal(")]
    assert len(legal_rules) == 2
    assert sorted(rule.split(", ")[-1] for rule in legal_rules) == ["Vm!=Vj.", "Vn!=Vk."]


def test_or_of_distincts_gives_the_right_legal_moves() -> None:
    """Every blank cell except the last marked one is legal, in both successive states."""
    game = Game.from_gdl(LAST_MARK)
    legal = {m.text for m in game.legal_moves(game.initial_state, "x")}
    assert legal == {"(mark 1 2)", "(mark 2 1)", "(mark 2 2)"}
    state = game.next_state(game.initial_state, {"x": "(mark 2 1)"})
    assert state.fluents == {"(cell 1 1 b)", "(cell 1 2 b)", "(cell 2 1 x)", "(cell 2 2 b)",
                             "(last 2 1)"}
    legal = {m.text for m in game.legal_moves(state, "x")}
    assert legal == {"(mark 1 1)", "(mark 1 2)", "(mark 2 2)"}


CONNECTIVES = """\
(role p)
(init (f 01))
(init (f 1))
(<= (legal p (pick ?x)) (true (f ?x)) (not (distinct ?x 01)))
(<= (legal p wait) (not (or (true x) (true y))))
(<= (legal p double) (not (not (true x))))
(<= (next (f ?x)) (true (f ?x)))
(<= (next x) (does p (pick ?v)))
(<= (next y) (does p wait))
(<= terminal (true y) (true x))
(goal p 100)
"""


def test_not_distinct_is_equality() -> None:
    """``(not (distinct ?x 01))`` holds for ``01`` only (not ``1``), translated as ``=``."""
    game = Game.from_gdl(CONNECTIVES)
    picks = {m.text for m in game.legal_moves(game.initial_state, "p") if "pick" in m.text}
    assert picks == {"(pick 01)"}
    assert 'Vx="01"' in translated(CONNECTIVES).game_program


def test_not_or_is_a_conjunction_of_negations() -> None:
    """``(not (or (true x) (true y)))`` holds only when neither x nor y holds."""
    game = Game.from_gdl(CONNECTIVES)
    expectations = {(): True, ("x",): False, ("y",): False, ("x", "y"): False}
    for fluents, wait_legal in expectations.items():
        state = game.state_from_fluents(["(f 1)", *fluents])
        legal = {m.text for m in game.legal_moves(state, "p")}
        assert ("wait" in legal) == wait_legal, fluents


def test_nested_not_cancels() -> None:
    """``(not (not (true x)))`` holds exactly when ``(true x)`` does."""
    game = Game.from_gdl(CONNECTIVES)
    assert "double" not in {m.text for m in game.legal_moves(game.initial_state, "p")}
    state = game.state_from_fluents(["x"])
    assert "double" in {m.text for m in game.legal_moves(state, "p")}


def test_connectives_play_through_successor_states() -> None:
    """Picking 01 adds x: wait becomes illegal, double legal, and the game goes on."""
    game = Game.from_gdl(CONNECTIVES)
    state = game.next_state(game.initial_state, {"p": "(pick 01)"})
    assert state.fluents == {"(f 01)", "(f 1)", "x"}
    assert {m.text for m in game.legal_moves(state, "p")} == {"(pick 01)", "double"}
    assert not game.is_terminal(state)
    with pytest.raises(IllegalMoveError) as caught:
        game.next_state(state, {"p": "wait"})
    assert (caught.value.role, caught.value.reason) == ("p", "not-legal")
