"""The instantiated (variable-free) game behaves exactly like its source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import reasoner.instantiate.ground_game as ground_game
from reasoner import Game
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.gdl.parser import parse_game
from reasoner.gdl.syntax import Rule, Variable, literal_variables
from reasoner.instantiate.ground_game import instantiate
from tests.conftest import ROOT, bundled_params

CORPUS_GAMES = ["ggp-repository/ticTacToe.kif", "ggp-repository/connectFour.kif",
                "ggp-repository/blocksWorldSerial.kif", "libgdl/joint_button_and_lights.kif",
                "ggp-repository/futoshiki4.kif", "ggp-base-tests/test_case_3a.kif"]


def _has_variables(rule: Rule) -> bool:
    literals = [rule.head, *rule.body]
    return any(isinstance(v, Variable) for lit in literals for v in literal_variables(lit))


def _same_play(original: Game, ground: Game, seed: int, playouts: int) -> None:
    """Seeded random playouts in both games agree state by state."""
    assert first_disagreement(original, ground, seed=seed, playouts=playouts,
                              max_steps=300) is None


# minichess and eightpuzzle take about 2 s each.
@pytest.mark.parametrize("path", bundled_params(slow={"minichess", "eightpuzzle"}))
def test_instantiated_bundled_game_plays_like_the_source(path: Path) -> None:
    """For every game in games/, the instantiated game is variable-free and plays alike."""
    text = path.read_text()
    instantiated = instantiate(text)
    gdl = instantiated.gdl(path.name)
    assert not any(_has_variables(rule) for rule in parse_game(gdl).rules)
    _same_play(Game.from_gdl(text), Game.from_gdl(gdl), seed=3, playouts=5)


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_instantiated_corpus_game_plays_like_the_source(corpus: Path, name: str) -> None:
    """Corpus games whose instantiation finishes play alike in both forms."""
    text = (corpus / name).read_text(encoding="utf-8", errors="replace")
    _same_play(Game.from_gdl(text), Game.from_gdl(instantiate(text).gdl()), seed=1,
               playouts=3)


@pytest.mark.parametrize("name", ["breakthrough.kif", "connectfour.kif",
                                  pytest.param("minichess.kif",
                                               marks=pytest.mark.slow)])  # about 2.5 s
def test_a_whole_program_too_large_is_instantiated_narrow(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the whole program grounds past its bound, the narrow program (wide bodies split
    into auxiliary relations) is instantiated instead: still variable-free, it plays like
    the source, and its statistics and header say which program it is."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 50)
    monkeypatch.setattr(ground_game, "DEMAND_RULES", 50)
    text = (ROOT / "games" / name).read_text()
    found = instantiate(text)
    assert found.statistics.program == "narrow"
    gdl = found.gdl(name)
    assert "_part" in gdl and "wide rule bodies were split" in gdl
    assert not any(_has_variables(rule) for rule in parse_game(gdl).rules)
    _same_play(Game.from_gdl(text), Game.from_gdl(gdl), seed=5, playouts=3)


@pytest.mark.parametrize("name", ["tictactoe.kif", "connectfour.kif"])
def test_a_whole_program_too_large_is_instantiated_by_demand(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the whole program grounds past its bound, the program by demand comes next
    (helpers ground only where GDL's relations can ask for them: tic-tac-toe's and connect
    four's lines are asked with constant marks). What it writes is rules of the game: no
    magic relation and no adorned name is left, it is variable-free, and it plays like
    the source."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 50)
    text = (ROOT / "games" / name).read_text()
    found = instantiate(text)
    assert found.statistics.program == "demand"
    gdl = found.gdl(name)
    assert "magic" not in gdl
    rules = parse_game(gdl).rules
    assert not any(_has_variables(rule) for rule in rules)
    # Beside the game's relations only the grounder's own projections (anonymous
    # variables) appear, as in the whole program.
    assert {r.head.signature for r in rules
            if not r.head.name.startswith("gdl-reasoner-aux-")} <= {
        r.head.signature for r in parse_game(text).rules}
    assert found.statistics.rules > 0
    _same_play(Game.from_gdl(text), Game.from_gdl(gdl), seed=7, playouts=4)


def test_a_whole_program_of_too_many_facts_is_instantiated_by_demand(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Facts do not count against the whole program's rule bound, but past a bound on
    rules and facts together the program by demand is tried too (mummymaze1p's 7.6
    million facts of static relations): tic-tac-toe with that bound forced low
    instantiates by demand and plays like the source."""
    monkeypatch.setattr(ground_game, "WHOLE_RECORDS", 10)
    text = (ROOT / "games" / "tictactoe.kif").read_text()
    found = instantiate(text)
    assert found.statistics.program == "demand"
    _same_play(Game.from_gdl(text), Game.from_gdl(found.gdl()), seed=8, playouts=3)


STATE_ASKS_A_STATIC_HELPER = """
(role p) (init (at 1)) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (ok ?x) (succ ?x ?y))
(<= (legal p (go ?y)) (true (at ?x)) (ok ?x) (succ ?x ?y))
(<= (legal p stay) (true (at ?x)))
(<= (next (at ?y)) (does p (go ?y)))
(<= (next (at ?x)) (does p stay) (true (at ?x)))
(<= terminal (true (at 4)))
(<= (goal p 100) (true (at 4))) (<= (goal p 0) (not (true (at 4))))
"""


def test_a_helper_guarded_only_by_its_demand_is_written_as_a_fact(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """By demand, ``(ok ?x)`` is asked with the state's ``?x``: its ground rules have only
    the demand in their bodies, so once that is stripped they are facts, which the legal
    rules read. They are written although ``ok`` is the game's own static relation (whose
    facts are otherwise left out), and the game plays like the source."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 0)
    found = instantiate(STATE_ASKS_A_STATIC_HELPER)
    assert found.statistics.program == "demand"
    lines = found.gdl().splitlines()
    assert {"(ok 1)", "(ok 2)", "(ok 3)"} <= set(lines)
    assert any(line.startswith("(<= (legal p (go 2)) ") and "(ok 1)" in line
               for line in lines)
    _same_play(Game.from_gdl(STATE_ASKS_A_STATIC_HELPER), Game.from_gdl(found.gdl()),
               seed=1, playouts=3)


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["ggp-repository/merrills.kif",
                                  "ggp-base-legacy/ruleDepthQuadratic.kif"])
def test_games_too_large_whole_fit_by_demand(corpus: Path, name: str) -> None:
    """merrills counts its pieces through every pit (32.8 million ground rules whole) and
    ruleDepthQuadratic's prerequisites take one argument a bit (past 4 GiB whole): by
    demand they instantiate in a few hundred thousand rules and in 165, within the
    default bound of the program by demand."""
    found = instantiate((corpus / name).read_text(encoding="utf-8", errors="replace"))
    assert found.statistics.program == "demand"
    assert 0 < found.statistics.rules < ground_game.DEMAND_RULES


def test_a_narrow_program_past_its_bound_gives_way_to_the_whole_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the narrow program also grows past its own bound (splitting can multiply a
    program out: mummymaze1p's is three times its whole one), the whole program is
    instantiated after all, unbounded: it plays like the source and says "whole"."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 50)
    monkeypatch.setattr(ground_game, "DEMAND_RULES", 50)
    monkeypatch.setattr(ground_game, "NARROW_RULES", 50)
    text = (ROOT / "games" / "breakthrough.kif").read_text()
    found = instantiate(text)
    assert found.statistics.program == "whole"
    assert "_part" not in found.gdl()
    assert found.statistics.rules > 50
    _same_play(Game.from_gdl(text), Game.from_gdl(found.gdl()), seed=6, playouts=2)


def test_the_rules_are_made_as_they_are_written() -> None:
    """An instantiation holds its rules as the grounder's records and one text per atom:
    the lines it writes are the rules' texts, and its statistics count them without
    making them."""
    found = instantiate((ROOT / "games" / "connectfour.kif").read_text())
    lines = [line for line in found.lines() if not line.startswith(";")]
    assert lines == [f"{rule}\n" for rule in found.rules]
    assert found.statistics.rules + found.statistics.facts == len(found.rules) == len(lines)
    assert found.rules.__class__.__name__ == "GroundProgram"


def test_ground_command_writes_to_stdout_what_it_writes_to_a_file(tmp_path: Path) -> None:
    """`ground GAME` prints the text that `ground GAME -o FILE` writes (the child writes
    it to a temporary file, which is then copied out and removed)."""
    out = tmp_path / "nim.kif"
    command = [sys.executable, "-m", "reasoner.cli", "ground", "games/nim.kif"]
    printed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    subprocess.run([*command, "-o", str(out)], cwd=ROOT, check=True)
    assert printed.stdout == out.read_text() and "(role p1)" in printed.stdout


def test_a_failed_ground_command_leaves_no_file(tmp_path: Path) -> None:
    """A game that cannot be read ends `ground -o FILE` with its error, and leaves neither
    the file nor a temporary one in the folder; a folder that is not there is a clear
    error, not a traceback."""
    bad = tmp_path / "bad.kif"
    bad.write_text("(role x) (<= (legal x ?m)")
    command = [sys.executable, "-m", "reasoner.cli", "ground", str(bad)]
    failed = subprocess.run([*command, "-o", str(tmp_path / "out.kif")], cwd=ROOT,
                            capture_output=True, text=True)
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["bad.kif"]
    nowhere = subprocess.run([sys.executable, "-m", "reasoner.cli", "ground",
                              "games/nim.kif", "-o", str(tmp_path / "no" / "out.kif")],
                             cwd=ROOT, capture_output=True, text=True)
    assert nowhere.returncode != 0 and "cannot write" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr


def test_a_whole_program_within_its_bound_is_instantiated_whole() -> None:
    """A game whose whole program grounds within the bound is instantiated from its own
    rules, with no auxiliary relations of a split."""
    found = instantiate((ROOT / "games" / "connectfour.kif").read_text())
    assert found.statistics.program == "whole"
    assert "_part" not in found.gdl()


@pytest.mark.slow  # about 1.4 s
def test_the_narrow_program_can_be_asked_for(tmp_path: Path) -> None:
    """`ground --narrow` instantiates the narrow program without trying the whole one:
    fewer ground rules for the eight-puzzle (730 against 2,603), the statistics say
    "narrow program", and the ground game still plays like the source."""
    text = (ROOT / "games" / "eightpuzzle.kif").read_text()
    narrow, whole = instantiate(text, narrow=True), instantiate(text)
    assert (narrow.statistics.program, whole.statistics.program) == ("narrow", "whole")
    assert narrow.statistics.rules < whole.statistics.rules
    out = tmp_path / "eightpuzzle.ground.kif"
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", "games/eightpuzzle.kif", "--narrow",
         "-o", str(out), "--stats"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert f"{narrow.statistics.rules} rules" in result.stderr
    assert "(narrow program)" in result.stderr
    _same_play(Game.from_gdl(text), Game.from_file(out), seed=2, playouts=2)


def test_statistics_count_rules_and_facts() -> None:
    """The statistics count the ground rules, facts, fluents and moves."""
    found = instantiate((ROOT / "games" / "tictactoe.kif").read_text())
    stats = found.statistics
    assert (stats.fluents, stats.moves) == (29, 20)
    assert stats.rules == sum(1 for r in found.rules if r.body)
    assert stats.facts == sum(1 for r in found.rules if not r.body)
    assert stats.peak_memory_mb > 0


def test_static_facts_are_left_out_unless_kept() -> None:
    """The facts of tic-tac-toe's static relations (``coord``, ``symbol``) are evaluated
    into the rules and left out, and counted; ``keep_static`` keeps them; GDL's own facts
    (``role``, ``init``, ``base``, ``input``) stay either way, and both games play like the
    source."""
    text = (ROOT / "games" / "tictactoe.kif").read_text()
    left, kept = instantiate(text), instantiate(text, keep_static=True)
    heads = {rule.head.split(" ")[0].strip("()") for rule in left.rules if not rule.body}
    assert heads == {"role", "init", "base", "input"}
    assert left.statistics.static_facts == 5 == kept.statistics.facts - left.statistics.facts
    assert "(coord 1)" in kept.gdl() and "(coord 1)" not in left.gdl()
    assert kept.statistics.static_facts == 0
    _same_play(Game.from_gdl(text), Game.from_gdl(kept.gdl()), seed=4, playouts=2)


def test_ground_command_writes_the_file(tmp_path: Path) -> None:
    """`gdl-reasoner ground GAME -o FILE --stats` writes the game and prints statistics;
    no temporary file is left behind."""
    out = tmp_path / "nim.ground.kif"
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", "games/nim.kif", "-o", str(out),
         "--stats"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "rules" in result.stderr
    assert Game.from_file(out).roles == ("p1", "p2")
    assert [p.name for p in tmp_path.iterdir()] == ["nim.ground.kif"]


def test_tictactoe_mutex_groups_are_the_cells_and_the_control() -> None:
    """Tic-tac-toe's mutex groups: 9 cells of 3 values each and the control fluent; a state
    needs 9 * 2 + 1 = 19 bits instead of 29."""
    from reasoner.instantiate.mutexes import mutex_groups

    report = mutex_groups(Game.from_file(ROOT / "games" / "tictactoe.kif"), playouts=30)
    cells = [g for g in report.groups if g.relation == "cell"]
    assert len(cells) == 9 and all(len(g.fluents) == 3 and g.exactly_one for g in cells)
    assert all(g.inputs == (0, 1) for g in cells)
    (control,) = [g for g in report.groups if g.relation == "control"]
    assert control.fluents == ("(control oplayer)", "(control xplayer)")
    assert (report.bits, report.fluents) == (19, 29)


def test_mutex_hypotheses_are_checked_by_simulation() -> None:
    """Fluents that hold together are never grouped: nim's three heaps each get a group of
    their sizes (0..initial size), never one group across heaps."""
    from reasoner.instantiate.mutexes import mutex_groups

    report = mutex_groups(Game.from_file(ROOT / "games" / "nim.kif"), playouts=30)
    heaps = {g.fluents[0].split()[1]: g for g in report.groups if g.relation == "heap"}
    assert sorted(heaps) == ["a", "b", "c"]
    assert [len(heaps[h].fluents) for h in "abc"] == [4, 5, 6]
    assert all(g.inputs == (0,) and g.exactly_one for g in heaps.values())


# connectfour and eightpuzzle take about 1.5 s each.
@pytest.mark.parametrize("path", bundled_params(slow={"connectfour", "eightpuzzle"}))
def test_inlined_game_plays_like_the_source(path: Path) -> None:
    """With auxiliary atoms inlined, the instantiated game still plays exactly alike."""
    text = path.read_text()
    inlined = instantiate(text, inline_aux=True)
    if inlined.statistics.rules > 10_000:
        # Minichess's check rules multiply out to 33,000 ground rules, which take ~13 s to
        # load back; the plain instantiation of it is checked above.
        pytest.skip(f"{inlined.statistics.rules} rules after inlining: too slow for the suite")
    _same_play(Game.from_gdl(text), Game.from_gdl(inlined.gdl()), seed=4, playouts=3)


def test_inlining_turns_tictactoe_goal_into_eight_lines() -> None:
    """docs/semantics/instantiation.md, step 6: (goal xplayer 100) becomes eight rules of three x
    cells each."""
    found = instantiate((ROOT / "games" / "tictactoe.kif").read_text(), inline_aux=True)
    wins = [r for r in found.rules if r.head == "(goal xplayer 100)"]
    assert len(wins) == 8
    assert all(len(r.body) == 3 and all(lit.endswith(" x))") for lit in r.body)
               for r in wins)


def test_instantiated_game_builds_its_tables_without_a_demand_rewrite() -> None:
    """An instantiated game has no variable to pass demand on: its fluent and move tables
    come from one relaxed program without magic atoms, and they are the source's."""
    from reasoner.asp.superset import compute_superset
    from reasoner.asp.translate import translate
    from tests.conftest import GAMES

    text = (GAMES / "connectfour.kif").read_text()
    ground = translate(parse_game(instantiate(text).gdl()))
    (program,) = ground.superset_programs
    assert "magic" not in program
    source = compute_superset(translate(parse_game(text)))
    tables = compute_superset(ground)
    assert (tables.fluents, tables.moves) == (source.fluents, source.moves)


# GDL-II: the role of a percept is read from a fluent that places roles and things alike.
PERCEPTS_OF_ANYTHING = """
(role a) (role b)
(init (at a 1)) (init (at b 2)) (init (at stone 3)) (init (step 0))
(legal a noop) (legal b (wave 1)) (legal b (wave 2))
(<= (next (at ?x ?y)) (true (at ?x ?y)))
(<= (next (step 1)) (true (step 0)))
(<= (sees ?r (near ?y ?m)) (true (at ?r ?y)) (does b ?m))
(<= terminal (true (step 1)))
(goal a 100) (goal b 100)
"""


def test_an_instantiated_percept_names_a_role() -> None:
    """A ``sees`` rule whose role is a variable that binds what is no role (vis_pacman3p's
    percepts of every located thing, pellets too) is instantiated for the roles only: the
    ground game is valid GDL (a percept of ``stone`` would be refused there) and every
    role perceives what it did in the source."""
    text = instantiate(PERCEPTS_OF_ANYTHING).gdl()
    assert "(sees stone" not in text
    source, ground = Game.from_gdl(PERCEPTS_OF_ANYTHING), Game.from_gdl(text)
    for move in ("(wave 1)", "(wave 2)"):
        joint = {"a": "noop", "b": move}
        assert ground.sees(ground.initial_state, joint) == \
            source.sees(source.initial_state, joint)
    assert source.sees(source.initial_state, {"a": "noop", "b": "(wave 2)"})["a"] == \
        ("(near 1 (wave 2))",)
