"""Atom refinement by distance: how far a state is from making a false atom hold.

Detected structures (:mod:`reasoner.heuristics.structures`) refine the value of an atom so
that it says *how far* a state is from making it hold, always staying on the correct side
of the threshold (a false atom stays ``<= 1 - t``, a true one ``>= t``), so the guarantee
survives:

* ordered board ``f(x1, .., xk, c)`` (a :class:`Board` whose every input has an ordering),
  atom false in s: let d be the mean, over the cells ``(x1', .., xk')`` where content c stands
  in s, of ``(sum_i |D(xi, xi')| / |dom_i|) / k`` (D: steps along the ordering, |dom_i| the
  chain length; the slides' 2-D formula generalised to k inputs). The slides use d itself as
  the value (a distance, 0 = there); to keep false atoms ``<= 1 - t`` it enters as
  ``(1 - t) * (1 - d)``: the closer the pieces, the closer to ``1 - t``. With no such piece
  in s the atom keeps ``1 - p``.
* quantity ``f(.., x, ..)`` (a :class:`Quantity`, and every :class:`StepCounter` as a quantity
  of its one argument), atom false while s holds ``f(.., x', ..)`` with the same input
  arguments: ``(1 - t) - (1 - t) * |D(x, x')| / |dom|``; without such an atom ``1 - p``. A
  fluent that is both on a quantity and on a board is refined as a quantity.
* order relation ``r(a, b)`` (an :class:`OrderRelation` with an ordering):
  ``t + (1 - t) * |D(a, b)| / |dom(r)|`` if it holds, else
  ``(1 - t) - (1 - t) * |D(b, a)| / |dom(r)|`` (|dom(r)| = the chain length). Order atoms
  are static: their values are constants of the formula
  (:mod:`reasoner.heuristics.fuzzy.orders` keeps them as inputs).

Board and quantity refinements depend on the state: :class:`Refinements` computes, per
state, the values the refined fluents would have were they false (the generated code reads
them as ``low``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from reasoner.engine.game import Game
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import Function
from reasoner.heuristics.fuzzy.logic import FuzzyParameters
from reasoner.heuristics.structures import Ordering, Quantity, Structures

__all__ = ["BoardGroup", "QuantityGroup", "Refinements", "board_atom_value",
           "order_atom_value", "quantity_atom_value", "refinement_tables"]


def order_atom_value(holds: bool, a: str, b: str, ordering: Ordering,
                     parameters: FuzzyParameters) -> float:
    """The refined value of an order atom ``r(a, b)`` over the chain ``ordering``:
    ``t + (1-t) * |D(a,b)|/|dom|`` if it holds, else ``(1-t) - (1-t) * |D(b,a)|/|dom|``
    (an element outside the chain counts as distance 0)."""
    t = parameters.t
    steps = ordering.distance(a, b)
    fraction = abs(steps) / len(ordering) if steps is not None and len(ordering) else 0.0
    if holds:
        return t + (1.0 - t) * fraction
    return (1.0 - t) - (1.0 - t) * fraction


def board_atom_value(distance: float, parameters: FuzzyParameters) -> float:
    """The value of a false ordered-board atom whose content stands at mean normalised
    distance ``distance`` (in [0, 1]) from its cell: ``(1 - t) * (1 - distance)``."""
    return (1.0 - parameters.t) * (1.0 - distance)


def quantity_atom_value(steps: int, domain: int, parameters: FuzzyParameters) -> float:
    """The value of a false quantity atom ``f(x)`` while ``f(x')`` holds, ``steps`` =
    ``|D(x, x')|`` on a chain of ``domain`` elements: ``(1-t) - (1-t) * steps/domain``."""
    t = parameters.t
    return (1.0 - t) - (1.0 - t) * abs(steps) / domain


def _split(text: str) -> tuple[str, tuple[str, ...]]:
    term = parse_term(text)
    if isinstance(term, Function):
        return term.name, tuple(str(arg) for arg in term.args)
    return str(term), ()


@dataclass
class BoardGroup:
    """False atoms of one ordered board with one content: value from the mean distance."""

    members: np.ndarray  # fluent ids of every cell with this content
    targets: list[int]  # indices into the ``low`` list
    distances: np.ndarray  # targets x members, normalised distances in [0, 1)


@dataclass
class QuantityGroup:
    """False atoms of one quantity with one input tuple."""

    members: np.ndarray  # fluent ids of every amount
    positions: np.ndarray  # chain position per member
    targets: list[int]  # indices into the ``low`` list
    target_positions: np.ndarray
    length: int


def refinement_tables(game: Game, fluents_read: Iterable[int], structures: Structures,
                       ) -> tuple[list[int], list[BoardGroup], list[QuantityGroup]]:
    """Which fluents are refined when false, and how."""
    parsed = [_split(text) for text in game.fluents]
    quantities: list[Quantity] = list(structures.quantities)
    for counter in structures.step_counters:
        if not any(q.function == counter.function and q.arity == 1 for q in quantities):
            quantities.append(Quantity(counter.function, 1, (), 0, counter.ordering))
    read = set(fluents_read)
    refined: list[int] = []
    quantity_groups: list[QuantityGroup] = []
    taken: set[int] = set()
    for quantity in quantities:
        groups: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
        for index, (name, args) in enumerate(parsed):
            if name != quantity.function or len(args) != quantity.arity:
                continue
            position = quantity.ordering.position(args[quantity.position])
            if position is None:
                continue
            key = tuple(args[i] for i in quantity.inputs)
            groups[key].append((index, position))
        for members in groups.values():
            targets = [(i, pos) for i, pos in members if i in read and i not in taken]
            if not targets:
                continue
            slots = list(range(len(refined), len(refined) + len(targets)))
            refined.extend(i for i, _ in targets)
            taken.update(i for i, _ in targets)
            quantity_groups.append(QuantityGroup(
                members=np.array([i for i, _ in members], dtype=np.int64),
                positions=np.array([pos for _, pos in members], dtype=np.int64),
                targets=slots, target_positions=np.array([pos for _, pos in targets]),
                length=len(quantity.ordering)))
    board_groups: list[BoardGroup] = []
    for board in structures.boards:
        if not board.ordered:
            continue
        orderings = [o for o in board.orderings if o is not None]
        cells: dict[tuple[str, ...], list[tuple[int, tuple[int, ...]]]] = defaultdict(list)
        for index, (name, args) in enumerate(parsed):
            if name != board.function or len(args) != board.arity:
                continue
            positions = [o.position(args[i]) for o, i in zip(orderings, board.inputs,
                                                               strict=True)]
            if any(p is None for p in positions):
                continue
            content = tuple(args[i] for i in board.outputs)
            cells[content].append((index, tuple(p for p in positions if p is not None)))
        lengths = np.array([len(o) for o in orderings], dtype=np.float64)
        for cell_members in cells.values():
            cell_targets = [(i, pos) for i, pos in cell_members if i in read and i not in taken]
            if not cell_targets:
                continue
            member_positions = np.array([pos for _, pos in cell_members], dtype=np.float64)
            target_positions = np.array([pos for _, pos in cell_targets], dtype=np.float64)
            steps = np.abs(target_positions[:, None, :] - member_positions[None, :, :])
            distances = (steps / lengths).mean(axis=2)
            slots = list(range(len(refined), len(refined) + len(cell_targets)))
            refined.extend(i for i, _ in cell_targets)
            taken.update(i for i, _ in cell_targets)
            board_groups.append(BoardGroup(
                members=np.array([i for i, _ in cell_members], dtype=np.int64),
                targets=slots, distances=distances))
    return refined, board_groups, quantity_groups



class Refinements:
    """Which fluents the formulas refine when false, and their values per state.

    Args:
        fluents_read: The fluents the formulas read (only those are refined).
        structures: Detected structures; None: nothing is refined.
    """

    def __init__(self, game: Game, fluents_read: Iterable[int],
                 structures: Structures | None, parameters: FuzzyParameters) -> None:
        self.refined: list[int]
        if structures is not None:
            self.refined, self._boards, self._quantities = refinement_tables(
                game, fluents_read, structures)
        else:
            self.refined, self._boards, self._quantities = [], [], []
        self.parameters = parameters
        self._nbytes = (len(game.fluents) + 7) // 8 + 1

    def low(self, bits: int) -> list[float]:
        """The values of the refined fluents (``refined``, in order) were they false in the
        state ``bits``."""
        if not self.refined:
            return []
        q = 1.0 - self.parameters.p
        low = [q] * len(self.refined)
        raw = np.frombuffer(bits.to_bytes(self._nbytes, "little"), dtype=np.uint8)
        present = np.unpackbits(raw, bitorder="little")
        scale = 1.0 - self.parameters.t
        for quantity in self._quantities:
            where = np.flatnonzero(present[quantity.members])
            if where.size:
                here = int(quantity.positions[where[0]])
                values = scale - scale * np.abs(quantity.target_positions - here) / quantity.length
                for slot, value in zip(quantity.targets, values.tolist(), strict=True):
                    low[slot] = value
        for board in self._boards:
            mask = present[board.members].astype(np.float64)
            count = mask.sum()
            if count:
                values = scale * (1.0 - board.distances @ mask / count)
                for slot, value in zip(board.targets, values.tolist(), strict=True):
                    low[slot] = value
        return low
