"""Heuristic values of game states (docs/semantics/heuristics.md), computed by the service so that
players need no game knowledge of their own.

* :mod:`~reasoner.heuristics.relaxed`: the game as a delete-relaxed planning task;
  :mod:`~reasoner.heuristics.planning`: h_max, h_add, h_FF with its plan, extended FF;
  :mod:`~reasoner.heuristics.distances`: goal distances of states and f_JO;
* :mod:`~reasoner.heuristics.fuzzy`: fuzzy goal evaluation (a package, by concept);
* :mod:`~reasoner.heuristics.structures`, :mod:`~reasoner.heuristics.features`,
  :mod:`~reasoner.heuristics.mobility`, :mod:`~reasoner.heuristics.analysis`: structures,
  Kuhlmann features, mobility and novelty;
* :mod:`~reasoner.heuristics.table`: the one registry, the heuristics by name, one entry
  each: typed parameters with their checks, and the builder (adding a heuristic is adding
  an entry);
* :mod:`~reasoner.heuristics.game_heuristics`: what one game's heuristics build once, and
  batched evaluation with the registry's builders (what the ``Evaluate`` rpc and
  ``gdl-reasoner evaluate`` call).
"""
