"""Substitutions of GDL terms: unification (with the occurs check) and applying a
substitution to terms and flat literals. The unfolding of calls and the web page's
supporting rules share them."""

from __future__ import annotations

from reasoner.gdl.normal_form import FlatLiteral
from reasoner.gdl.syntax import Atom, Constant, Distinct, Function, Not, Term, Variable

__all__ = ["Substitution", "apply_literal", "apply_term", "occurs", "unify", "walk"]

Substitution = dict[str, Term]


def walk(term: Term, theta: Substitution) -> Term:
    """What ``term`` is bound to, following variables bound to variables."""
    while isinstance(term, Variable) and term.name in theta:
        term = theta[term.name]
    return term


def occurs(name: str, term: Term, theta: Substitution) -> bool:
    """Whether the variable ``name`` occurs in ``term`` under ``theta``."""
    term = walk(term, theta)
    if isinstance(term, Variable):
        return term.name == name
    if isinstance(term, Function):
        return any(occurs(name, arg, theta) for arg in term.args)
    return False


def unify(a: Term, b: Term, theta: Substitution) -> bool:
    """Extend ``theta`` so that ``a`` and ``b`` are equal under it; False (``theta`` then
    partly extended) when they cannot be."""
    a, b = walk(a, theta), walk(b, theta)
    if isinstance(a, Variable):
        if isinstance(b, Variable) and a.name == b.name:
            return True
        if occurs(a.name, b, theta):
            return False
        theta[a.name] = b
        return True
    if isinstance(b, Variable):
        return unify(b, a, theta)
    if isinstance(a, Constant):
        return isinstance(b, Constant) and a.name == b.name
    if not isinstance(b, Function) or a.name != b.name or len(a.args) != len(b.args):
        return False
    return all(unify(x, y, theta) for x, y in zip(a.args, b.args, strict=True))


def apply_term(term: Term, theta: Substitution) -> Term:
    """``term`` with every bound variable replaced."""
    term = walk(term, theta)
    if isinstance(term, Function):
        return Function(term.name, tuple(apply_term(a, theta) for a in term.args), term.pos)
    return term


def apply_literal(literal: FlatLiteral, theta: Substitution) -> FlatLiteral:
    """A flat literal with every bound variable replaced."""
    if isinstance(literal, Atom):
        return Atom(literal.name, tuple(apply_term(a, theta) for a in literal.args), literal.pos)
    if isinstance(literal, Distinct):
        return Distinct(apply_term(literal.left, theta), apply_term(literal.right, theta),
                        literal.pos)
    inner = literal.literal
    assert isinstance(inner, Atom | Distinct)
    return Not(apply_literal(inner, theta), literal.pos)
