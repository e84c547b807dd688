"""GDL mutants and their fates: mutated GDL texts through the loader, each in a bounded
child, sorted by fate (``fuzz``).

A *mutant* is a game text with one seeded change of the kinds hostile or broken files
bring: a byte flipped, a token dropped, doubled or swapped, a parenthesis added or lost, a
character from anywhere in Unicode (halves of surrogate pairs among them), a name or an
integer made enormous, a body nested in ors, a keyword put where a term goes. Each is
loaded by :meth:`reasoner.engine.game.Game.from_gdl` (or over gRPC by ``LoadGame``) and
ends in one fate:

* ``accepted``: it loaded (and answered its initial state);
* ``refused``: a documented error (a :class:`reasoner.errors.ReasonerError` in process,
  a documented status code over gRPC);
* ``crash``: anything else (an undocumented exception, INTERNAL or UNKNOWN);
* ``hang``: it ran past the time bound, while its source loads within it;
* ``slow``: it ran past the time bound, and so does its source unchanged (amazonsTorus
  loads in about 22 s: past a short bound, that is the game's cost, not the mutation's).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from reasoner.errors import Bound, ResourceLimitError

__all__ = ["DOCUMENTED", "FATES", "MUTATIONS", "Mutant", "load_in_process",
           "loads_past_bounds", "mutants", "outcomes"]

FATES = ("accepted", "refused", "crash", "hang", "slow")
# gRPC status codes a load may end with on purpose (see the README's error table).
DOCUMENTED = frozenset({"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
                        "NOT_FOUND"})
_TOKEN = re.compile(r"[()]|[^\s()]+")
_KEYWORDS = ("role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct",
             "not", "or", "<=", "base", "input", "sees", "random")


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _flip_byte(text: str, rng: random.Random) -> str:
    data = bytearray(text.encode("utf-8"))
    if not data:
        return text
    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", errors="surrogateescape")


def _drop_token(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    if not tokens:
        return text
    match = rng.choice(tokens)
    return _splice(text, match.start(), match.end(), "")


def _double_token(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    if not tokens:
        return text
    match = rng.choice(tokens)
    return _splice(text, match.start(), match.end(), match.group() + " " + match.group())


def _swap_tokens(text: str, rng: random.Random) -> str:
    tokens = [m for m in _tokens(text) if m.group() not in "()"]
    if len(tokens) < 2:
        return text
    first, second = sorted(rng.sample(tokens, 2), key=lambda m: m.start())
    return (text[:first.start()] + second.group() + text[first.end():second.start()]
            + first.group() + text[second.end():])


def _parenthesis(text: str, rng: random.Random) -> str:
    where = rng.randrange(len(text) + 1)
    return text[:where] + rng.choice("()") + text[where:]


def _unicode(text: str, rng: random.Random) -> str:
    where = rng.randrange(len(text) + 1)
    # Anywhere in Unicode: controls, surrogate halves, private use, astral planes.
    character = chr(rng.choice([rng.randrange(0x20), rng.randrange(0xD800, 0xE000),
                                rng.randrange(0x80, 0x10FFFF)]))
    return text[:where] + character + text[where:]


def _huge_name(text: str, rng: random.Random) -> str:
    tokens = [m for m in _tokens(text) if m.group() not in "()"]
    if not tokens:
        return text
    match = rng.choice(tokens)
    size = rng.choice([1_000, 5_000, 100_000])
    filler = rng.choice(["9", "a", "z9"]) * size
    return _splice(text, match.start(), match.end(), filler[:size])


def _nested_ors(text: str, rng: random.Random) -> str:
    count = rng.choice([4, 12, 20, 40])
    ors = " ".join(f"(or (true (m {i})) (true (m {i + 1})))" for i in range(count))
    return text + f"\n(<= terminal {ors})\n"


def _keyword(text: str, rng: random.Random) -> str:
    tokens = [m for m in _tokens(text) if m.group() not in "()"]
    if not tokens:
        return text
    match = rng.choice(tokens)
    return _splice(text, match.start(), match.end(), rng.choice(_KEYWORDS))


Mutation = Callable[[str, random.Random], str]
MUTATIONS: dict[str, Mutation] = {
    "flip-byte": _flip_byte,
    "drop-token": _drop_token,
    "double-token": _double_token,
    "swap-tokens": _swap_tokens,
    "parenthesis": _parenthesis,
    "unicode": _unicode,
    "huge-name": _huge_name,
    "nested-ors": _nested_ors,
    "keyword": _keyword,
}


@dataclass(frozen=True)
class Mutant:
    """One mutated text: where it came from and how it was changed."""

    source: str
    mutation: str
    text: str


def mutants(sources: Sequence[tuple[str, str]], count: int, seed: int) -> Iterator[Mutant]:
    """``count`` seeded mutants of the (name, text) ``sources``, one mutation each."""
    rng = random.Random(seed)
    names = sorted(MUTATIONS)
    for _ in range(count):
        name, text = rng.choice(sources)
        mutation = rng.choice(names)
        yield Mutant(name, mutation, MUTATIONS[mutation](text, rng))


def _load(text: str) -> str:
    """The work of one in-process mutant, in its bounded child."""
    from reasoner.engine.game import Game

    game = Game.from_gdl(text)
    game.legal_moves(game.initial_state, game.roles[0])
    return "accepted"


def load_in_process(text: str, timeout: float, memory: int,
                    start_method: str = "fork") -> tuple[str, str]:
    """The fate of loading ``text`` in a bounded child (``timeout`` seconds, ``memory``
    MiB), and the reason ("" when accepted)."""
    fate, reason, _ = _bounded_load(text, timeout, memory, start_method)
    return fate, reason


def loads_past_bounds(text: str, timeout: float, memory: int,
                      start_method: str = "fork") -> bool:
    """Whether loading ``text`` in a bounded child runs out of the campaign's time or
    memory (the unchanged source of a mutant that does is "slow", not hanging)."""
    return _bounded_load(text, timeout, memory, start_method)[2]


def _bounded_load(text: str, timeout: float, memory: int,
                  start_method: str) -> tuple[str, str, bool]:
    """The fate and reason of loading ``text`` in a bounded child, and whether it ran out
    of the child's time or memory."""
    from reasoner.engine.limits import BoundedCrash, Limits, run_bounded
    from reasoner.errors import ReasonerError

    try:
        return run_bounded(_load, (text,), Limits(timeout, memory, start_method)), "", False
    except ResourceLimitError as error:
        hang = _past_bound(error, Bound.TIME)
        return ("hang" if hang else "refused"), str(error), (
            hang or _past_bound(error, Bound.MEMORY))
    except ReasonerError as error:
        return "refused", str(error), False
    except BoundedCrash as error:
        return "crash", str(error).splitlines()[0], False


def _past_bound(error: ResourceLimitError, bound: Bound) -> bool:
    """Whether ``error`` is the bounded child's own ``bound`` (not a bound of the game's
    grounding or network, which is a documented refusal)."""
    return error.bound is bound and error.reason == "work"


def outcomes(found: Iterable[Mutant], outcome: Callable[[Mutant], tuple[str, str]],
             jobs: int) -> Iterator[tuple[Mutant, tuple[str, str]]]:
    """Each mutant with its outcome, in order, ``jobs`` of them worked at once."""
    if jobs <= 1:
        for mutant in found:
            yield mutant, outcome(mutant)
        return
    from concurrent.futures import ThreadPoolExecutor
    from itertools import islice

    chunks = iter(found)
    with ThreadPoolExecutor(jobs) as pool:
        while chunk := list(islice(chunks, 4 * jobs)):
            yield from zip(chunk, pool.map(outcome, chunk), strict=True)
