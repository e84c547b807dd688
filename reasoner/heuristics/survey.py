"""Every heuristic on one game, as a corpus sweep runs it per file (in a bounded child)."""

from __future__ import annotations

from reasoner.core.walk import sample_states
from reasoner.engine.game import Game
from reasoner.heuristics.game_heuristics import GameHeuristics

__all__ = ["check_file_heuristics"]


def check_file_heuristics(text: str, states: int = 3, seed: int = 0) -> dict[str, str]:
    """Evaluate every heuristic (except per-feature ones) for every role on the initial
    state and the ``states`` that follow it in a seeded random playout: what a corpus sweep
    runs per file (in a bounded child). Returns per heuristic "ok" or the clean refusal it
    gave
    (``HeuristicError``/``ResourceLimitError``: ``"refused: ..."``); anything else raises.
    """
    from reasoner.errors import HeuristicError, ResourceLimitError
    from reasoner.heuristics.table import HEURISTICS

    game = Game.from_gdl(text)
    heuristics = GameHeuristics(game)
    # The initial state first, then the playout's next states.
    sampled = [state for state, _ in sample_states(game, game.initial_state, states + 1, seed=seed)]
    sampled = sampled or [game.initial_state]
    fates: dict[str, str] = {}
    for name in HEURISTICS:
        if name == "feature":
            continue
        try:
            for role in game.roles:
                found = heuristics.evaluate(name, role, sampled)
                if any(e.value != e.value for e in found):  # NaN
                    raise AssertionError(f"{name} gave NaN for {role}")
            fates[name] = "ok"
        except (HeuristicError, ResourceLimitError) as error:
            fates[name] = f"refused: {type(error).__name__}: {error}"
    analysis = heuristics.analysis()
    fates["analysis"] = f"ok: {len(analysis.features)} feature(s)"
    return fates
