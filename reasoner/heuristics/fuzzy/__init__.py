"""Fuzzy goal evaluation after Schiffel & Thielscher 2007 (Fluxplayer; docs/semantics/fuzzy.md).

The goal and terminal conditions of a game, unrolled over the auxiliary relations down to
fluents, are read as propositional formulas and evaluated in a state with fuzzy logic: a
fluent atom is worth ``p`` when it holds and ``1 - p`` when it does not, ``and``, ``or`` and
``not`` are a Yager-style t-norm and t-conorm lifted by the threshold ``t``, and with
``0.5 < t <= p < 1`` a formula that holds scores ``>= t`` and one that does not
``<= 1 - t``. The value of a state for a role is the goal values weighted by how close
their formulas are to holding.

By concept:

* :mod:`~reasoner.heuristics.fuzzy.logic`: the parameters p, t, q and the operators
  (``T'``, ``S'``, their n-ary folds), and why q = 10 by default;
* :mod:`~reasoner.heuristics.fuzzy.formulas`: the formula model, goal and terminal as one
  DAG over fluent (and static) inputs, read off the game's propositional network;
* :mod:`~reasoner.heuristics.fuzzy.compiler`: the formulas compiled into one generated
  Python function, recursive components evaluated crisply;
* :mod:`~reasoner.heuristics.fuzzy.refinement`: atom refinement by distance on detected
  structures (ordered boards, quantities and step counters, order relations);
* :mod:`~reasoner.heuristics.fuzzy.orders`: the order-relation grounding, goal and
  terminal grounded with order atoms kept as inputs;
* :mod:`~reasoner.heuristics.fuzzy.evaluator`: :class:`FuzzyEvaluator`, h(s) per role.

The names below are this package's public ones; import them from here.
"""

from reasoner.heuristics.fuzzy.evaluator import DEFAULT_MAX_GATES, FuzzyEvaluator, FuzzyValues
from reasoner.heuristics.fuzzy.logic import (
    FuzzyParameters,
    fuzzy_and,
    fuzzy_or,
    s_norm,
    s_prime,
    t_norm,
    t_prime,
)
from reasoner.heuristics.fuzzy.orders import MAX_ORDER_DOMAIN, chain_of_total_order
from reasoner.heuristics.fuzzy.refinement import (
    board_atom_value,
    order_atom_value,
    quantity_atom_value,
)

__all__ = [
    "DEFAULT_MAX_GATES",
    "MAX_ORDER_DOMAIN",
    "FuzzyEvaluator",
    "FuzzyParameters",
    "FuzzyValues",
    "board_atom_value",
    "chain_of_total_order",
    "fuzzy_and",
    "fuzzy_or",
    "order_atom_value",
    "quantity_atom_value",
    "s_norm",
    "s_prime",
    "t_norm",
    "t_prime",
]
