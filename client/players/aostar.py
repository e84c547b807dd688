"""AO* for two-player reachability proofs (docs/semantics/aostar.md, after Bercher ch. 1.3, 2.2,
3.2): can the prover force a terminal state where it gets its goal value, whatever the
other player does?

The search graph has a node per distinct state. OR nodes are the states where the prover
moves (or nobody has a choice), AND nodes the opponent's; terminal nodes are solved when the
prover gets the goal there and failed otherwise. An unexpanded node's cost is the
heuristic's estimate of the distance to the goal (``hff``: relaxed FF plan length,
``extended-ff``: Bercher's two-player FF, ``none``: 0), +infinity (failed) where the relaxed
goal is out of reach. Costs back up as

* OR: 1 + the least child cost; solved when its best child is;
* AND: the number of children + the sum of their costs (``sum``), or 1 + the largest
  (``max``: cheaper, and no overflow); solved when every child is.

Each round expands the cheapest unexpanded node of the current best partial solution graph
(the best child of each OR node, every child of each AND node; among equals the deepest); an
AND node is expanded as soon as it is created. Costs are backed up from the expanded node to
its ancestors, the deepest first, each node once per round unless it became solved. When the
best partial graph has no unexpanded node left, a cycle closes it with stale costs: its
nodes are backed up again until the best graph changes and has an open node (up to 64
times); failing that, the deepest unexpanded node of the whole graph is expanded, which
keeps the search complete. The proof ends when the root is solved (a win), when it fails or
nothing is left to expand (no win), or at the node or time budget (unknown). Games where
both players choose at once are refused.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from client.players.heuristic_values import RawHeuristics
from reasoner.arguments import ArgumentError
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo
from reasoner.errors import HeuristicError

__all__ = ["PROOF_HEURISTICS", "Proof", "prove"]

PROOF_HEURISTICS = ("extended-ff", "hff", "none")
# Back-ups of a closed best partial graph before the deepest open node is taken instead.
_RELAXATIONS = 64
_OR, _AND, _END = 0, 1, 2


@dataclass(eq=False)
class _Node:
    state: Hashable
    info: StateInfo
    kind: int
    depth: int
    cost: float = 0.0
    solved: bool = False
    children: list[_Node] | None = None
    parents: list[_Node] = field(default_factory=list)
    best: _Node | None = None


@dataclass(frozen=True)
class Proof:
    """What a proof found."""

    role: str
    goal: int
    # True: the role can force the goal; False: it cannot; None: the budget ran out.
    won: bool | None
    nodes: int  # distinct states generated
    expansions: int
    seconds: float
    heuristic: str
    costs: str

    def verdict(self) -> str:
        if self.won is None:
            return "unknown (the budget ran out)"
        return (f"{self.role} can force goal {self.goal}" if self.won else
                f"{self.role} cannot force goal {self.goal}")


class _Search:
    def __init__(self, game: GameView[Any], role: int, goal: int, heuristic: str,
                 costs: str) -> None:
        self.game, self.role, self.goal = game, role, goal
        self.heuristic, self.costs = heuristic, costs
        self.table: dict[Hashable, _Node] = {}
        self.expansions = 0
        self._raw = RawHeuristics()
        # Unexpanded nodes by depth, the deepest first (entries of expanded nodes, or of a
        # depth since lowered, are skipped when they come up).
        self._open: list[tuple[int, int, _Node]] = []
        self._order = itertools.count()

    # -- nodes -----------------------------------------------------------------------------

    def node(self, state: Hashable, info: StateInfo, depth: int) -> tuple[_Node, bool]:
        """The node of a state, made if new; whether it was made."""
        found = self.table.get(state)
        if found is not None:
            if depth < found.depth:
                found.depth = depth
                if found.children is None and found.kind != _END:
                    heapq.heappush(self._open, (-depth, next(self._order), found))
            return found, False
        if info.terminal:
            node = _Node(state, info, _END, depth)
            node.solved = info.goal(self.role) == self.goal
            node.cost = 0.0 if node.solved else math.inf
        else:
            choosers = [r for r, moves in enumerate(info.legal) if len(moves) > 1]
            if len(choosers) > 1:
                raise ArgumentError("AO* here takes turn-taking games: in a state both "
                                    "players choose at once", argument="game",
                                    reason="simultaneous")
            kind = _AND if choosers and choosers[0] != self.role else _OR
            node = _Node(state, info, kind, depth)
        self.table[state] = node
        if node.kind != _END:
            heapq.heappush(self._open, (-depth, next(self._order), node))
        return node, True

    def estimate(self, nodes: Sequence[_Node]) -> None:
        """Set the heuristic cost of new non-terminal nodes (one call for all)."""
        fresh = [n for n in nodes if n.kind != _END]
        if not fresh or self.heuristic == "none":
            return
        # Extended FF counts plies from the player to move: the prover at an OR node
        # (also where nobody has a choice), the other player at an AND node.
        for kind in (_OR, _AND):
            group = [n for n in fresh if n.kind == kind]
            if group:
                mover = self.role if kind == _OR else 1 - self.role
                for node, value in zip(group, self._values(group, mover), strict=True):
                    node.cost = math.inf if math.isnan(value) else value

    def _values(self, nodes: Sequence[_Node], mover: int) -> list[float]:
        parameters = {"goal": str(self.goal)}
        if self.heuristic == "extended-ff":
            parameters["mover"] = self.game.roles[mover]
        return self._raw(self.game, self.game.roles[self.role], self.heuristic,
                         [n.state for n in nodes], parameters)

    def expand(self, node: _Node) -> None:
        """Make the node's children (an AND child at once expanded too) and estimate the
        new ones."""
        self.expansions += 1
        _, successors = self.game.expand(node.state)
        children: list[_Node] = []
        made: list[_Node] = []
        seen: set[int] = set()
        for _, state, info in successors:
            child, new = self.node(state, info, node.depth + 1)
            if id(child) in seen:
                continue  # only distinct successors count
            seen.add(id(child))
            children.append(child)
            child.parents.append(node)
            if new:
                made.append(child)
        node.children = children
        self.estimate(made)
        for child in made:
            if child.kind == _AND and child.children is None and math.isfinite(child.cost):
                self.expand(child)
                self.recompute(child)

    # -- costs -----------------------------------------------------------------------------

    def recompute(self, node: _Node) -> bool:
        """Back up the node's cost and solved mark from its children; whether they
        changed."""
        if node.kind == _END or node.children is None:
            return False
        before = (node.cost, node.solved)
        children = node.children
        if not children:
            node.cost, node.solved = math.inf, False
        elif node.kind == _OR:
            best = min(children, key=lambda c: (not c.solved, c.cost))
            node.best = best
            node.cost = 1 + best.cost
            node.solved = best.solved
        else:
            if self.costs == "max":
                node.cost = 1 + max(c.cost for c in children)
            else:
                node.cost = len(children) + sum(c.cost for c in children)
            node.solved = all(c.solved for c in children)
        return (node.cost, node.solved) != before

    def back_up(self, start: _Node) -> None:
        """Costs from ``start`` up to the root, the deepest first, each node once unless
        it became solved."""
        waiting: list[tuple[int, int, _Node]] = [(-start.depth, next(self._order), start)]
        queued = {id(start)}
        done: set[int] = set()
        while waiting:
            _, _, node = heapq.heappop(waiting)
            queued.discard(id(node))
            was_solved = node.solved
            changed = self.recompute(node)
            done.add(id(node))
            if not changed and node is not start:
                continue
            became_solved = node.solved and not was_solved
            for parent in node.parents:
                if id(parent) not in queued and (id(parent) not in done or became_solved):
                    queued.add(id(parent))
                    heapq.heappush(waiting, (-parent.depth, next(self._order), parent))

    def _partial_graph(self, root: _Node) -> tuple[_Node | None, list[_Node]]:
        """The cheapest unexpanded node of the best partial solution graph (None if it has
        none), and the graph's expanded unsolved nodes."""
        best: _Node | None = None
        inner: list[_Node] = []
        stack, seen = [root], {id(root)}
        while stack:
            node = stack.pop()
            if node.solved or not math.isfinite(node.cost):
                continue
            if node.children is None:
                if node.kind != _END and (best is None or (node.cost, -node.depth)
                                          < (best.cost, -best.depth)):
                    best = node
                continue
            inner.append(node)
            following = ([node.best] if node.kind == _OR and node.best is not None
                         else node.children)
            for child in following:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        return best, inner

    def tip(self, root: _Node) -> _Node | None:
        """The cheapest unexpanded node of the best partial solution graph. A graph with
        none left is closed by a cycle whose costs are stale (a round backs each node up
        once): its costs are backed up again, up to ``_RELAXATIONS`` times, until the best
        graph changes and has an open node; failing that, the deepest unexpanded node of
        the whole graph (None: nothing left)."""
        for _ in range(_RELAXATIONS):
            best, inner = self._partial_graph(root)
            if best is not None:
                return best
            inner.sort(key=lambda n: -n.depth)
            changed = [self.recompute(node) for node in inner]
            if not any(changed):
                break
            if root.solved or not math.isfinite(root.cost):
                return None
        while self._open:
            depth, _, node = self._open[0]
            if node.children is None and -depth == node.depth and math.isfinite(node.cost):
                return node
            heapq.heappop(self._open)
        return None


def prove(game: GameView[Any], role: str, *, goal: int = 100, heuristic: str = "extended-ff",
          costs: str = "max", max_nodes: int = 1_000_000,
          seconds: float = math.inf, state: Hashable | None = None) -> Proof:
    """Whether ``role`` can force a terminal state where its goal is ``goal``, from the
    initial state (or ``state``), by AO* (see the module).

    Raises:
        ValueError: an unknown role, heuristic or cost rule, a game without two roles, a
            goal value the role never gets, or a state where both players choose at once.
    """
    if role not in game.roles:
        raise ArgumentError(f"unknown role {role!r}; the roles are {', '.join(game.roles)}",
                            argument="role", value=role, allowed=tuple(game.roles))
    if len(game.roles) != 2:
        raise ArgumentError(f"AO* proves two-player games; this one has {len(game.roles)} "
                            "roles", argument="game", value=len(game.roles), allowed=2,
                            reason="roles")
    if heuristic not in PROOF_HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; AO* takes "
                         f"{', '.join(PROOF_HEURISTICS)}")
    if costs not in ("sum", "max"):
        raise ValueError(f"costs are sum or max, got {costs!r}")
    started = time.monotonic()
    search = _Search(game, game.roles.index(role), goal, heuristic, costs)
    if state is None:
        state, info = game.initial()
    else:
        info = game.info(state)
    root, _ = search.node(state, info, 0)
    try:
        search.estimate([root])
    except HeuristicError as error:  # a goal value the role never gets, say
        raise ArgumentError(str(error), argument="goal", value=goal,
                            reason=error.reason) from None
    if root.kind == _AND:
        search.expand(root)
        search.back_up(root)
    won: bool | None = None
    while True:
        if root.solved or not math.isfinite(root.cost):  # a terminal root is one or other
            won = root.solved
            break
        if len(search.table) >= max_nodes or time.monotonic() - started > seconds:
            break
        node = search.tip(root)
        if node is None:  # nothing left to expand, or the back-ups settled the root
            won = root.solved
            break
        search.expand(node)
        search.back_up(node)
    return Proof(role, goal, won, len(search.table), search.expansions,
                 round(time.monotonic() - started, 3), heuristic, costs)
