"""The reversible, collision-free encoding of GDL symbols as ASP terms.

GDL names may be anything between delimiters: ``N``, ``+``, ``map+``, ``<``, ``01``, ``-3``,
``not``. ASP is stricter, so every GDL name is mapped to exactly one ASP term, and back:

* a canonical integer (``0``, ``7``, ``-3``; not ``01`` or ``-0``) becomes an ASP number;
* a plain lower-case identifier (``[a-z][a-z0-9_]*``, except ``not``) stays as it is;
* anything else becomes an ASP string (``"01"``, ``"+"``, ``"map+"``), escaped.

These three kinds are disjoint, so decoding is unambiguous. A compound term keeps its name as
the ASP function name when that name is a plain identifier; otherwise it becomes a tuple whose
first element is the encoded name (``(map+ a)`` is ``("map+",a)``), and no other GDL term ever
becomes a tuple. GDL text thus only ever reaches clingo as data: a name carrying ``#script``,
``:-`` or quotes is a string literal, never program syntax.

Relation names become predicate names: the GDL keywords keep theirs, plain identifiers stay,
anything else becomes ``_r_`` followed by an escaped spelling. Names the translation adds start
with an underscore, which no plain GDL identifier does.
"""

from __future__ import annotations

import functools
import re

from reasoner.gdl.syntax import Constant, Term, Variable

__all__ = [
    "canonical_integer",
    "constant_text",
    "escape_identifier",
    "is_plain_identifier",
    "predicate_name",
    "relation_name",
    "term_text",
    "unescape_identifier",
    "variable_text",
]

_PLAIN = re.compile(r"[a-z][a-z0-9_]*\Z")
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_ASP_RESERVED = frozenset({"not"})
# clingo numbers are 32-bit signed integers.
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
# No longer name can be one of them (and Python refuses to read one of over 4,300 digits).
_INT_CHARACTERS = len(str(_INT_MIN))


# Names recur by the hundred thousand in large (ground) games: their spellings are kept.
_SPELLINGS = 1 << 16


@functools.lru_cache(maxsize=_SPELLINGS)
def is_plain_identifier(name: str) -> bool:
    """True if the name can stand in ASP as it is."""
    return _PLAIN.match(name) is not None and name not in _ASP_RESERVED


def canonical_integer(name: str) -> int | None:
    """The integer a name denotes if it is written canonically, else None."""
    if len(name) > _INT_CHARACTERS or _INTEGER.match(name) is None or name == "-0":
        return None
    value = int(name)
    return value if _INT_MIN <= value <= _INT_MAX else None


def _string_literal(name: str) -> str:
    escaped = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


@functools.lru_cache(maxsize=_SPELLINGS)
def constant_text(name: str) -> str:
    """ASP text of a GDL constant."""
    if canonical_integer(name) is not None:
        return name
    if is_plain_identifier(name):
        return name
    return _string_literal(name)


def escape_identifier(name: str) -> str:
    """Spell any name with ASP identifier characters, injectively.

    Lower-case letters and digits stand for themselves; every other character becomes
    ``_`` + its code point in lower-case hex + ``_``.
    """
    out = []
    for ch in name:
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            out.append(ch)
        else:
            out.append(f"_{ord(ch):x}_")
    return "".join(out)


def variable_text(var: Variable) -> str:
    """ASP variable for a GDL variable (``?x`` is ``Vx``, ``?row-1`` is ``Vrow_2d_1``)."""
    return "V" + escape_identifier(var.name)


def term_text(term: Term, anonymous: frozenset[str] = frozenset()) -> str:
    """ASP text of a GDL term; variables named in ``anonymous`` are written ``_``."""
    if isinstance(term, Constant):
        return constant_text(term.name)
    if isinstance(term, Variable):
        return "_" if term.name in anonymous else variable_text(term)
    args = ",".join(term_text(arg, anonymous) for arg in term.args)
    if is_plain_identifier(term.name):
        return f"{term.name}({args})"
    return f"({constant_text(term.name)},{args})"


def unescape_identifier(spelling: str) -> str:
    """The name that :func:`escape_identifier` spelled."""
    out = []
    i = 0
    while i < len(spelling):
        if spelling[i] == "_":
            end = spelling.index("_", i + 1)
            out.append(chr(int(spelling[i + 1:end], 16)))
            i = end + 1
        else:
            out.append(spelling[i])
            i += 1
    return "".join(out)


def relation_name(predicate: str) -> str:
    """The GDL relation name of an ASP predicate name (inverse of :func:`predicate_name`)."""
    if predicate.startswith("_r_"):
        return unescape_identifier(predicate[3:])
    return predicate


def predicate_name(name: str) -> str:
    """ASP predicate name for a GDL relation name."""
    if is_plain_identifier(name):
        return name
    return "_r_" + escape_identifier(name)


