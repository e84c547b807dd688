"""``MctsPlayer``: Monte-Carlo tree search with decoupled UCT over the reasoner service.

Every role selects its own move at a node with its own statistics (decoupled UCT), so
turn-taking and simultaneous games are searched alike: in a turn-taking game the idle roles
have one move and the mover's choice is plain UCT. A role picks an untried move first, then
``argmax_i v_i + C * sqrt(ln n / n_i)`` with ``v_i`` its mean value after move ``i``, ``n_i``
the times it chose ``i`` and ``n`` the visits of the node.

Nodes are kept in a transposition table keyed by state and hold the state's info, which
comes back with every successor from ``Expand`` or ``Next``: the search never calls
``Query``. The table lives for the whole match, so the tree below the current state is
reused from one move to the next. A leaf is valued by an injected :class:`Evaluator`
(by default random playouts on the server); terminal states are valued by their goals
without a call.

Exact values found in the tree are used too (in the manner of MCTS-Solver, Winands et al.
2008): a move after which a role reaches goal 100 whatever the others play is *decisive*
and always chosen; one after which it gets 0 whatever they play is *hopeless* and never
chosen while there is another; and a node where at most one role has a choice is *proven*
once its value is known exactly, and is not searched below any more.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from client.players.evaluator import Evaluator, SimulateEvaluator, goal_values
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

State = Hashable  # the game's own state value
Joint = tuple[int, ...]  # one move id per role, in role order

__all__ = ["MctsPlayer"]


@dataclass(slots=True)
class _Node:
    """Search statistics of one state. Per role, moves are named by their position in
    ``info.legal[role]``: how often the role chose each, and the values it got."""

    info: StateInfo
    visits: int = 0
    counts: list[list[int]] = field(default_factory=list)
    totals: list[list[float]] = field(default_factory=list)
    # Successor per joint move; None until the node is first passed through.
    children: dict[Joint, State] | None = None
    # True when ``children`` holds every legal joint move (the node was expanded in full).
    complete: bool = False
    # Exact values per role, once known (a terminal state or a dead end: its goals).
    proven: tuple[float, ...] | None = None
    # Per role: the position of a decisive move, and the positions of hopeless moves.
    decisive: list[int | None] = field(default_factory=list)
    hopeless: list[frozenset[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        legal = self.info.legal
        self.counts = [[0] * len(moves) for moves in legal]
        self.totals = [[0.0] * len(moves) for moves in legal]
        self.decisive = [None] * len(legal)
        self.hopeless = [frozenset()] * len(legal)
        if self.info.terminal or not all(legal):
            # A role without a legal move (a defect of the rules) ends the game here too.
            self.proven = goal_values([self.info.goal(r) for r in range(len(legal))])


class MctsPlayer:
    """UCT over the service, decoupled per role; leaves valued by an injected evaluator."""

    name = "mcts"

    def __init__(self, rng: random.Random, *, playouts: int = 100, exploration: float = 1.0,
                 evaluator: Evaluator | None = None, expand_limit: int = 64,
                 max_depth: int = 1000, max_nodes: int = 200_000) -> None:
        """Args:
            rng: Seeded random generator (untried move order, playout seeds).
            playouts: Search iterations per move, each ending in one leaf evaluation (when
                ``choose`` is given no deadline; with one, it iterates until then).
            exploration: The constant C of UCT, for values scaled to 0.0..1.0.
            evaluator: Values of a leaf per role (default: the mean of four random
                playouts that the server runs in one call).
            expand_limit: A node with at most this many joint moves gets all its successors
                in one ``Expand`` call when first passed through; a larger one gets them one
                ``Next`` call at a time, as the search tries them (and proves nothing).
            max_depth: Joint moves below the root after which a descent stops and
                evaluates.
            max_nodes: Size of the transposition table at which it is cleared before a
                move (a bound on memory in long matches).
        """
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts}")
        self.playouts = playouts
        self.exploration = exploration
        # Four playouts per leaf in one call cost about twice one (the call dominates) and
        # halve the noise of a leaf's value: at 100 iterations per move this is what keeps
        # the search from picking moves that only random play makes look good.
        self.evaluator: Evaluator = (evaluator if evaluator is not None
                                     else SimulateEvaluator(rollouts=4))
        self.expand_limit = expand_limit
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self._rng = rng
        self._game: GameView[Any] | None = None
        self._role = 0
        self._table: dict[State, _Node] = {}
        # Iterations of the last choice (for logs).
        self.last_iterations = 0

    def start(self, game: GameView[Any], role_index: int) -> None:
        self._game = game
        self._role = role_index
        self._table = {}

    def choose(self, state: State, info: StateInfo, deadline: float | None = None) -> int:
        """The most tried move after ``playouts`` iterations, or after as many as fit
        before ``deadline`` when one is given (at least one)."""
        legal = info.legal[self._role]
        if len(legal) == 1:
            return legal[0]
        if len(self._table) > self.max_nodes:
            self._table = {}
        root = self._table.get(state)
        if root is None:
            root = self._table[state] = _Node(info)
        iterations = 0
        while root.proven is None:  # once proven, the choice below follows the proof
            if deadline is None:
                if iterations >= self.playouts:
                    break
            elif iterations and time.monotonic() >= deadline:
                break
            self._iterate(state, root)
            iterations += 1
        self.last_iterations = iterations
        decisive = root.decisive[self._role]
        if decisive is not None:
            return legal[decisive]
        counts, totals = root.counts[self._role], root.totals[self._role]
        exact = self._exact_values(root)
        # The best proven move if the root is solved, else the most tried move; among
        # equals the one with the best mean value.
        best = max(self._candidates(root, self._role),
                   key=lambda i: (exact[i], counts[i],
                                  totals[i] / counts[i] if counts[i] else 0.0))
        return legal[best]

    def _exact_values(self, node: _Node) -> list[float]:
        """Per move of the player's role at a proven node: the least it is proven to get
        after the move (all zeros if the node is not proven)."""
        legal = node.info.legal[self._role]
        if node.proven is None or node.children is None:
            return [0.0] * len(legal)
        position = {move: i for i, move in enumerate(legal)}
        exact = [1.0] * len(legal)
        for joint, child in node.children.items():
            proven = self._table[child].proven
            i = position[joint[self._role]]
            exact[i] = min(exact[i], proven[self._role] if proven is not None else 0.0)
        return exact

    def move_statistics(self, state: State) -> dict[int, tuple[int, float]]:
        """For the player's role in a searched state: move id -> (visits, mean value)."""
        node = self._table.get(state)
        if node is None:
            return {}
        counts, totals = node.counts[self._role], node.totals[self._role]
        return {move: (n, totals[i] / n if n else 0.0)
                for i, (move, n) in enumerate(zip(node.info.legal[self._role], counts,
                                                  strict=True))}

    # -- one iteration ---------------------------------------------------------------------

    def _iterate(self, state: State, node: _Node) -> None:
        """Select down to a new or proven node, evaluate it, back the values up."""
        path: list[tuple[_Node, tuple[int, ...]]] = []
        on_path = {state}
        while True:
            if node.proven is not None:
                values = node.proven
                break
            if len(path) >= self.max_depth:
                values = self._evaluate(state, node)
                break
            choice = tuple(self._select(node, r) for r in range(len(node.info.legal)))
            path.append((node, choice))
            joint = tuple(legal[i] for legal, i in zip(node.info.legal, choice, strict=True))
            state = self._successor(state, node, joint)
            node = self._table[state]
            if node.proven is not None:
                values = node.proven
                break
            if node.visits == 0 or state in on_path:
                # A new leaf, or a cycle back to a state on this descent: evaluate here.
                values = self._evaluate(state, node)
                break
            on_path.add(state)
        node.visits += 1
        # Back up the values; while the node below is proven, its parent may be now too.
        below_proven = node.proven is not None
        for parent, chosen in reversed(path):
            parent.visits += 1
            for r, i in enumerate(chosen):
                parent.counts[r][i] += 1
                parent.totals[r][i] += values[r]
            if below_proven and parent.complete:
                self._update_proof(parent)
            below_proven = parent.proven is not None

    def _select(self, node: _Node, role: int) -> int:
        """The position in ``node.info.legal[role]`` that ``role`` tries next."""
        counts = node.counts[role]
        if len(counts) == 1:
            return 0
        decisive = node.decisive[role]
        if decisive is not None:
            return decisive
        candidates = self._candidates(node, role)
        untried = [i for i in candidates if counts[i] == 0]
        if untried:
            return self._rng.choice(untried)
        totals = node.totals[role]
        scale = self.exploration * math.sqrt(math.log(node.visits))
        return max(candidates,
                   key=lambda i: totals[i] / counts[i] + scale / math.sqrt(counts[i]))

    @staticmethod
    def _candidates(node: _Node, role: int) -> list[int]:
        """The role's move positions that are not hopeless (all, if every one is)."""
        hopeless = node.hopeless[role]
        return [i for i in range(len(node.counts[role])) if i not in hopeless]

    def _successor(self, state: State, node: _Node, joint: Joint) -> State:
        """The successor under ``joint``, with its node in the table (made from the info
        that ``Expand`` or ``Next`` returns along with it)."""
        if node.children is None:
            node.children = {}
            if math.prod(len(legal) for legal in node.info.legal) <= self.expand_limit:
                _, children = self._view().expand(state)
                for child_joint, child, child_info in children:
                    node.children[child_joint] = child
                    if child not in self._table:
                        self._table[child] = _Node(child_info)
                node.complete = True
                self._update_proof(node)
        child_state = node.children.get(joint)
        if child_state is None:
            child_state, child_info = self._view().step(state, joint, check_legal=False)
            node.children[joint] = child_state
            if child_state not in self._table:
                self._table[child_state] = _Node(child_info)
        return child_state

    def _update_proof(self, node: _Node) -> None:
        """Recompute a fully expanded node's decisive and hopeless moves and its proof from
        what is proven about its children."""
        assert node.children is not None
        legal = node.info.legal
        roles = range(len(legal))
        position = [{move: i for i, move in enumerate(moves)} for moves in legal]
        winning = [set(range(len(moves))) for moves in legal]
        losing = [set(range(len(moves))) for moves in legal]
        children: list[tuple[Joint, tuple[float, ...] | None]] = [
            (joint, self._table[child].proven) for joint, child in node.children.items()]
        for joint, proven in children:
            for r in roles:
                i = position[r][joint[r]]
                if proven is None or proven[r] < 1.0:
                    winning[r].discard(i)
                if proven is None or proven[r] > 0.0:
                    losing[r].discard(i)
        node.decisive = [min(winning[r]) if winning[r] and len(legal[r]) > 1 else None
                         for r in roles]
        node.hopeless = [frozenset(losing[r]) if len(losing[r]) < len(legal[r])
                         else frozenset() for r in roles]
        choosers = [r for r in roles if len(legal[r]) > 1]
        if len(choosers) > 1:
            return  # a simultaneous move: its exact value would need a matrix game solved
        if choosers and (decisive := node.decisive[choosers[0]]) is not None:
            node.proven = next(p for joint, p in children
                               if joint[choosers[0]] == legal[choosers[0]][decisive])
        elif children and all(p is not None for _, p in children):
            mover = choosers[0] if choosers else 0
            node.proven = max((p for _, p in children if p is not None),
                              key=lambda p: p[mover])

    def _evaluate(self, state: State, node: _Node) -> tuple[float, ...]:
        return self.evaluator(self._view(), state, node.info, self._rng)

    def _view(self) -> GameView[Any]:
        if self._game is None:
            raise RuntimeError("MctsPlayer.choose called before start")
        return self._game

    def __repr__(self) -> str:
        return (f"MctsPlayer(playouts={self.playouts}, exploration={self.exploration}, "
                f"evaluator={self.evaluator!r})")
