"""The instantiated (variable-free) game, read from clingo's ground program.

The game program is grounded over the relaxed superset, with ``true`` and ``does`` as
external atoms, and the ground-program reader (:mod:`reasoner.asp.ground_rules`) reports
every ground rule with its atoms' symbols. The grounder has already evaluated everything
static (facts, ``distinct``, auxiliary relations that do not depend on the state), so what
remains are the rules that a reasoner must evaluate per state. Written back as GDL they
form a game without variables that any GDL reasoner can read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from reasoner.asp.ground_rules import Symbol, ground_rules
from reasoner.asp.superset import Superset
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


def ground_program(translation: Translation, superset: Superset,
                   roles: Sequence[str], *, max_rules: int | None = None) -> GroundProgram:
    """Ground the game program over the superset and return its rules as GDL.

    Raises:
        GroundingStopped: the ground program grew past ``max_rules`` rules.
    """
    start = time.perf_counter()
    externals = [f"#external true({f})." for f in superset.fluents]
    externals += [f"#external does({r},{m})." for r, m in superset.moves]
    ground = ground_rules(translation.game_program + "\n".join(externals) + "\n",
                          max_rules=max_rules, names=True)

    texts: dict[int, str] = {}
    terms: dict[Symbol, str] = {}  # argument terms repeat across atoms: convert once

    def term(symbol: Symbol) -> str:
        found = terms.get(symbol)
        if found is None:
            found = terms[symbol] = symbol_to_gdl(symbol)
        return found

    def name(atom: int) -> str:
        found = texts.get(atom)
        if found is not None:
            return found
        symbols = ground.names.get(atom)
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
    for symbol in ground.names.get(0, []):  # facts
        text = atom_to_gdl(symbol)
        if text not in seen and not str(symbol.name).startswith("_"):
            seen.add(text)
            rules.append(GroundRule(text, ()))
    for head, body in ground.rules:
        if not head or not body:
            continue  # integrity constraints do not occur; facts were written above
        literals = tuple(name(lit) if lit > 0 else f"(not {name(-lit)})" for lit in body)
        for atom in head:
            rules.append(GroundRule(name(atom), literals))
            # Equivalent atoms the grounder merged get their own copy of the rule.
            for extra in ground.names.get(atom, [])[1:]:
                rules.append(GroundRule(atom_to_gdl(extra), literals))
    return GroundProgram(tuple(rules), time.perf_counter() - start)
