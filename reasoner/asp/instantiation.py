"""The instantiated (variable-free) game, read from clingo's ground program.

The game program is grounded over the relaxed superset, with ``true`` and ``does`` as
external atoms, and clingo's ground-program observer reports every ground rule. The grounder
has already evaluated everything static (facts, ``distinct``, auxiliary relations that do not
depend on the state), so what remains are the rules that a reasoner must evaluate per state.
Written back as GDL they form a game without variables that any GDL reasoner can read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import clingo

from reasoner.asp.superset import Superset, new_control
from reasoner.asp.symbols import atom_to_gdl, symbol_to_gdl
from reasoner.asp.translate import Translation

__all__ = ["GroundProgram", "GroundRule", "ground_program"]



@dataclass(frozen=True, slots=True)
class GroundRule:
    """A ground rule as GDL text: the head atom and the body literals (``(not ...)`` for
    negative ones); a fact has an empty body."""

    head: str
    body: tuple[str, ...]

    def __str__(self) -> str:
        if not self.body:
            return self.head
        return "(<= " + " ".join((self.head, *self.body)) + ")"


@dataclass(frozen=True)
class GroundProgram:
    """The instantiated game's rules and how long grounding took."""

    rules: tuple[GroundRule, ...]
    seconds: float


class _Recorder(clingo.Observer):
    def __init__(self) -> None:
        self.rules: list[tuple[Sequence[int], Sequence[int]]] = []
        self.names: dict[int, list[clingo.Symbol]] = {}

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        self.rules.append((list(head), list(body)))

    def output_atom(self, symbol: clingo.Symbol, atom: int) -> None:
        self.names.setdefault(atom, []).append(symbol)


def ground_program(translation: Translation, superset: Superset,
                   roles: Sequence[str]) -> GroundProgram:
    """Ground the game program over the superset and return its rules as GDL."""
    start = time.perf_counter()
    externals = [f"#external true({f})." for f in superset.fluents]
    externals += [f"#external does({r},{m})." for r, m in superset.moves]
    ctl = new_control()
    recorder = _Recorder()
    ctl.register_observer(recorder)
    ctl.add("base", [], translation.game_program + "\n".join(externals) + "\n")
    ctl.ground([("base", [])])

    texts: dict[int, str] = {}
    terms: dict[clingo.Symbol, str] = {}  # argument terms repeat across atoms: convert once

    def term(symbol: clingo.Symbol) -> str:
        found = terms.get(symbol)
        if found is None:
            found = terms[symbol] = symbol_to_gdl(symbol)
        return found

    def name(atom: int) -> str:
        found = texts.get(atom)
        if found is not None:
            return found
        symbols = recorder.names.get(atom)
        # An atom the grounder made up (it has no symbol) gets a name no GDL relation of
        # the source can have, as names are read with their parentheses.
        found = atom_to_gdl(symbols[0], term) if symbols else f"gdl-reasoner-aux-{atom}"
        texts[atom] = found
        return found

    rules: list[GroundRule] = []
    seen: set[str] = set()
    role_facts = [f"(role {name})" for name in roles]
    rules.extend(GroundRule(text, ()) for text in role_facts)
    seen.update(role_facts)
    for symbol in recorder.names.get(0, []):  # facts
        text = atom_to_gdl(symbol)
        if text not in seen and not str(symbol.name).startswith("_"):
            seen.add(text)
            rules.append(GroundRule(text, ()))
    for head, body in recorder.rules:
        if not head or not body:
            continue  # integrity constraints do not occur; facts were written above
        literals = tuple(name(lit) if lit > 0 else f"(not {name(-lit)})" for lit in body)
        for atom in head:
            rules.append(GroundRule(name(atom), literals))
            # Equivalent atoms the grounder merged get their own copy of the rule.
            for extra in recorder.names.get(atom, [])[1:]:
                rules.append(GroundRule(atom_to_gdl(extra), literals))
    return GroundProgram(tuple(rules), time.perf_counter() - start)
