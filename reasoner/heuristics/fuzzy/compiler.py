"""The compiler of a formula graph into one generated Python function.

The nodes that the goal and terminal outputs read are compiled once per game into
``evaluate(bits, low)``, which evaluates them bottom-up (each node once per state: the
graph is a DAG, shared sub-formulas are evaluated once). Nodes of a recursive component
get their crisp truth value, ``p`` or ``1 - p``, from the least fixpoint the generated code
computes over booleans (the network's own semantics). That keeps the guarantee (true
formulas score ``>= t``, false ones ``<= 1 - t``) and costs only the boolean evaluation of
those nodes and what they read.

The operators the generated code calls are compiled for the parameters too
(:func:`operators`): ``S'`` and ``T'`` of :mod:`reasoner.heuristics.fuzzy.logic` with the
Yager exponent fixed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from reasoner.heuristics.fuzzy.formulas import FormulaGraph
from reasoner.heuristics.fuzzy.logic import FuzzyParameters
from reasoner.propnet.network import FALSE, TRUE

__all__ = ["CompiledFormulas", "compile_formulas", "generate", "operators"]

Evaluate = Callable[[int, list[float]], tuple[float, ...]]


@dataclass(frozen=True)
class CompiledFormulas:
    """A formula graph compiled for one set of parameters.

    ``evaluate(bits, low)`` gives the values of the ``outputs`` signals, in order, in the
    state ``bits``; ``low[k]`` is the value of refined fluent k were it false."""

    source: str
    outputs: tuple[int, ...]
    evaluate: Evaluate


def compile_formulas(graph: FormulaGraph, refined: Sequence[int],
                     parameters: FuzzyParameters) -> CompiledFormulas:
    """Generate the evaluation's Python source (:func:`generate`) and compile it with the
    operators for ``parameters``."""
    source, outputs = generate(graph, refined)
    namespace: dict[str, object] = {"P": parameters.p, "Q": 1.0 - parameters.p}
    namespace.update(operators(parameters))
    exec(compile(source, "<fuzzy evaluation>", "exec"), namespace)
    evaluate = cast(Evaluate, namespace["evaluate"])
    return CompiledFormulas(source, tuple(outputs), evaluate)


def operators(parameters: FuzzyParameters) -> dict[str, object]:
    """The compiled S' and T' for the parameters (S' directly: ``S'(a, b) = S(a, b)``
    clipped to 1, lowered to ``1 - t`` when both are below 0.5)."""
    q, t = parameters.q, parameters.t
    low = 1.0 - t
    yager: Callable[[float, float], float]
    if q == 1.0:
        def yager(a: float, b: float) -> float:
            return a + b
    elif q == 2.0:
        yager = cast(Callable[[float, float], float], math.hypot)
    else:
        inverse = 1.0 / q

        def yager(a: float, b: float) -> float:
            return float((a ** q + b ** q) ** inverse)

    def s_op(a: float, b: float) -> float:
        value = yager(a, b)
        if value > 1.0:
            value = 1.0
        if a < 0.5 and b < 0.5 and value > low:
            return low
        return value

    def t_op(a: float, b: float) -> float:
        value = yager(1.0 - a, 1.0 - b)
        value = 0.0 if value >= 1.0 else 1.0 - value
        if a > 0.5 and b > 0.5 and value < t:
            return t
        return value

    return {"_s": s_op, "_t": t_op}


def generate(graph: FormulaGraph, refined: Sequence[int]) -> tuple[str, list[int]]:
    """Python source of ``evaluate(bits, low)``: the values of the output signals, in the
    order of the returned list. ``low[k]`` is the value of fluent ``refined[k]`` when false;
    other false fluents are worth ``Q`` (1 - p), true ones ``P``."""
    first = graph.first_node
    outputs: list[int] = []
    for signal in [graph.terminal, *(s for per in graph.goals for _, s in per)]:
        if signal not in outputs:
            outputs.append(signal)
    # Which nodes need a fuzzy value, which a crisp one (recursive components and below).
    fuzzy_needed: set[int] = set()
    crisp_needed: set[int] = set()
    recursive_nodes = {n for nodes, rec in graph.components if rec for n in nodes}
    pending = [s - first for s in outputs if s >= first]
    while pending:
        node = pending.pop()
        if node in fuzzy_needed:
            continue
        fuzzy_needed.add(node)
        if node in recursive_nodes:
            crisp_pending = [node]
            while crisp_pending:
                current = crisp_pending.pop()
                if current in crisp_needed:
                    continue
                crisp_needed.add(current)
                crisp_pending.extend(s - first for p, n in graph.node_bodies[current]
                                     for s in (*p, *n) if s >= first)
            continue
        pending.extend(s - first for p, n in graph.node_bodies[node]
                       for s in (*p, *n) if s >= first)
    fluents_read: set[int] = set()
    crisp_fluents: set[int] = set()
    for node in fuzzy_needed - recursive_nodes:
        for p, n in graph.node_bodies[node]:
            fluents_read.update(s for s in (*p, *n) if 0 <= s < graph.fluents)
    for node in crisp_needed:
        for p, n in graph.node_bodies[node]:
            crisp_fluents.update(s for s in (*p, *n) if 0 <= s < graph.fluents)
    low_index = {fluent: k for k, fluent in enumerate(refined)}

    def fuzzy(signal: int) -> str:
        if signal == TRUE:
            return "1.0"
        if signal == FALSE:
            return "0.0"
        if signal < graph.fluents:
            return f"f{signal}"
        if signal < first:
            return repr(graph.statics[signal - graph.fluents][0])
        return f"v{signal - first}"

    def crisp(signal: int) -> str:
        if signal == TRUE:
            return "True"
        if signal == FALSE:
            return "False"
        if signal < graph.fluents:
            return f"(bits >> {signal} & 1 == 1)"
        if signal < first:
            return repr(graph.statics[signal - graph.fluents][1])
        return f"c{signal - first}"

    lines = ["def evaluate(bits, low):"]
    for fluent in sorted(fluents_read):
        false_value = f"low[{low_index[fluent]}]" if fluent in low_index else "Q"
        lines.append(f"    f{fluent} = P if bits >> {fluent} & 1 else {false_value}")
    for nodes, recursive in graph.components:
        crisp_nodes = [n for n in nodes if n in crisp_needed]
        if crisp_nodes:
            def disjunction(node: int) -> str:
                terms = []
                for positive, negative in graph.node_bodies[node]:
                    literals = [crisp(s) for s in positive]
                    literals += [f"not {crisp(s)}" for s in negative]
                    terms.append("(" + " and ".join(literals or ["True"]) + ")")
                return " or ".join(terms) or "False"
            if recursive:
                for node in crisp_nodes:
                    lines.append(f"    c{node} = False")
                lines.append("    changed = True")
                lines.append("    while changed:")
                lines.append("        changed = False")
                for node in crisp_nodes:
                    lines.append(f"        if not c{node} and ({disjunction(node)}):")
                    lines.append(f"            c{node} = True")
                    lines.append("            changed = True")
            else:
                for node in crisp_nodes:
                    lines.append(f"    c{node} = bool({disjunction(node)})")
        for node in nodes:
            if node not in fuzzy_needed:
                continue
            if node in recursive_nodes:
                lines.append(f"    v{node} = P if c{node} else Q")
                continue
            bodies = graph.node_bodies[node]
            if not bodies:
                lines.append(f"    v{node} = 0.0")
                continue
            for number, (positive, negative) in enumerate(bodies):
                literals = [fuzzy(s) for s in positive]
                literals += [f"1.0 - {fuzzy(s)}" for s in negative]
                target = f"v{node}" if number == 0 else "b"
                lines.append(f"    {target} = {literals[0] if literals else '1.0'}")
                for literal in literals[1:]:
                    lines.append(f"    {target} = _t({target}, {literal})")
                if number:
                    lines.append(f"    v{node} = _s(v{node}, b)")
    lines.append("    return (" + "".join(f"{fuzzy(s)}, " for s in outputs) + ")")
    return "\n".join(lines) + "\n", outputs

