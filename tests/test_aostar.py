"""AO* proofs (docs/semantics/aostar.md): tic-tac-toe is no first-player win, found in about as
many nodes as the seeds report; the bundled minichess and nim are wins for the first
player under every heuristic and cost rule; what AO* cannot take is refused."""

from __future__ import annotations

import pytest

from client.players.aostar import prove
from reasoner.arguments import ArgumentError
from reasoner.cli.app import main
from reasoner.engine.game import Game
from tests.conftest import ROOT
from tests.service_support import game_text


@pytest.mark.slow  # about 1.6 s a heuristic
@pytest.mark.parametrize("heuristic", ["extended-ff", "hff", "none"])
def test_tic_tac_toe_is_no_first_player_win(heuristic: str) -> None:
    """X cannot force a win: proved with 3,000 to 5,000 nodes (the seeds report
    4.3k-4.8k), with either cost rule."""
    game = Game.from_gdl(game_text("tictactoe"))
    for costs in ("max", "sum"):
        proof = prove(game, "xplayer", heuristic=heuristic, costs=costs)
        assert proof.won is False
        assert 3000 <= proof.nodes <= 5000, (heuristic, costs, proof.nodes)


@pytest.mark.parametrize("name", [pytest.param("minichess", marks=pytest.mark.slow),  # 2 s
                                  "nim"])
def test_a_first_player_win_is_proved(name: str) -> None:
    """The bundled minichess (a mate in 2) and nim are wins for the first player, with
    every heuristic."""
    game = Game.from_gdl(game_text(name))
    for heuristic in ("extended-ff", "hff", "none"):
        proof = prove(game, game.roles[0], heuristic=heuristic)
        assert proof.won is True, heuristic


@pytest.mark.slow  # about 5 s
def test_the_loser_cannot_force_a_draw() -> None:
    """In minichess, black (the lone king) cannot force its draw (goal 50), and asking
    for a goal value it never gets is refused."""
    game = Game.from_gdl(game_text("minichess"))
    assert prove(game, "black", goal=50, heuristic="hff").won is False
    with pytest.raises(ArgumentError) as caught:
        prove(game, "black", heuristic="hff")
    assert (caught.value.argument, caught.value.value, caught.value.reason) == (
        "goal", 100, "no-such-goal")


def test_a_budget_too_small_is_unknown() -> None:
    """With 50 nodes, tic-tac-toe's proof is unknown, not a verdict."""
    game = Game.from_gdl(game_text("tictactoe"))
    proof = prove(game, "xplayer", max_nodes=50)
    assert proof.won is None and proof.nodes >= 50
    assert proof.verdict() == "unknown (the budget ran out)"


@pytest.mark.parametrize(("name", "role", "fields"), [
    ("tictactoe", "zplayer", ("role", "zplayer", None)),
    ("threeplayer", None, ("game", 3, "roles")),
    ("rps", None, ("game", None, "simultaneous")),
])
def test_what_ao_star_cannot_take_is_refused(name: str, role: str | None,
                                             fields: tuple[str, object, str | None]) -> None:
    """An unknown role, a game of three players and simultaneous moves raise ValueError
    saying so."""
    game = Game.from_gdl(game_text(name))
    with pytest.raises(ArgumentError) as caught:
        prove(game, role or game.roles[0], heuristic="none")
    assert (caught.value.argument, caught.value.value, caught.value.reason) == fields


def test_the_prove_command(capsys: pytest.CaptureFixture[str]) -> None:
    """`gdl-reasoner prove` prints the verdict with nodes, expansions and time."""
    status = main(["prove", str(ROOT / "games" / "minichess.kif"), "--role", "white",
                   "--heuristic", "hff"])
    out = capsys.readouterr().out
    assert status == 0 and "white can force goal 100 (" in out and "hff, max costs" in out
