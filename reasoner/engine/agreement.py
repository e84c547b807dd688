"""Do two state machines of the same game agree? Seeded random playouts in both, compared
state by state by GDL text (fluent and move ids may differ between the two)."""

from __future__ import annotations

import random

from reasoner.engine.game import Game

__all__ = ["first_disagreement"]


def first_disagreement(a: Game, b: Game, *, seed: int = 0, playouts: int = 3,
                       max_steps: int = 200) -> str | None:
    """None if the games agree along the playouts; else what differs first, and where."""
    if a.roles != b.roles:
        return f"roles differ: {list(a.roles)} against {list(b.roles)}"
    rng = random.Random(seed)
    for playout in range(playouts):
        state, twin = a.initial_state, b.initial_state
        trail: list[str] = []
        for _ in range(max_steps):
            where = f"playout {playout} after [{'; '.join(trail)}]"
            if state.fluents != twin.fluents:
                return (f"{where}: states differ: only in the first "
                        f"{sorted(state.fluents - twin.fluents)}, only in the second "
                        f"{sorted(twin.fluents - state.fluents)}")
            info, other = a.info(state), b.info(twin)
            if info.terminal != other.terminal:
                return f"{where}: terminal {info.terminal} against {other.terminal}"
            goals = [sorted(g) for g in info.goals]
            if goals != [sorted(g) for g in other.goals]:
                return f"{where}: goals {goals} against {[sorted(g) for g in other.goals]}"
            legal = {r: sorted(m.text for m in a.legal_moves(state, r)) for r in a.roles}
            theirs = {r: sorted(m.text for m in b.legal_moves(twin, r)) for r in b.roles}
            if legal != theirs:
                return f"{where}: legal moves {legal} against {theirs}"
            if info.terminal or not all(legal.values()):
                break
            joint = {r: rng.choice(legal[r]) for r in a.roles}
            trail.append(" ".join(joint[r] for r in a.roles))
            state, twin = a.next_state(state, joint), b.next_state(twin, joint)
    return None
