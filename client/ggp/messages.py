"""The messages of the GGP match protocol (docs/semantics/match-protocol.md), read and written.

A game manager POSTs one KIF term per message; keywords may come in any case and terms in
any spacing (GGP-Base writes ``( PLAY m1 (( mark 1 2 ) noop ) )``):

=====================================================  ==========================
message                                                answer
=====================================================  ==========================
``(info)``                                             ``((name N) (status S))``
``(preview RULES PREVIEWCLOCK)``                       ``ready``
``(start MATCHID ROLE RULES STARTCLOCK PLAYCLOCK)``    ``ready``
``(play MATCHID MOVES)``                               a move
``(stop MATCHID MOVES)``                               ``done``
``(abort MATCHID)``                                    ``aborted``
=====================================================  ==========================

``MOVES`` is ``nil`` before the first move, else the last joint move in role order.

A GDL-II match (a game with ``sees`` or the ``random`` role) tells each player only what it
may know: ``(play MATCHID TURN LASTMOVE PERCEPTS)`` and ``(stop MATCHID TURN LASTMOVE
PERCEPTS)``, where ``TURN`` counts the joint moves made (from 0), ``LASTMOVE`` is the move
the manager executed for this player in the last one (``nil`` at turn 0) and ``PERCEPTS``
the list of what it perceived then (``nil`` for none). :attr:`Message.turn` is None for the
GDL forms.
``RULES`` is a list of GDL rules; :attr:`Message.rules` is its text as sent (between the
list's parentheses), for the GDL reader, which reports positions within it.

>>> message = read_message("( PLAY m1 (( mark 1 2 ) noop ) )")
>>> message.kind, message.match_id, message.moves
('play', 'm1', ('(mark 1 2)', 'noop'))
>>> first_term("  ( mark 3 3 )  trailing")
'(mark 3 3)'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Group", "Message", "ProtocolError", "first_term", "read_message", "term_text",
           "write_message"]

class ProtocolError(ValueError):
    """A message that is not one of the protocol's, with what is wrong with it: ``reason``
    says it in a word, ``field`` names the message's field concerned and ``value`` what
    was found there (a count, a keyword), where known."""

    def __init__(self, message: str, *, reason: str | None = None, field: str | None = None,
                 value: object = None) -> None:
        self.reason = reason
        self.field = field
        self.value = value
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised list: its items and where it starts and ends in the text."""

    items: tuple[str | Group, ...]
    start: int  # the offset of '('
    end: int  # the offset just past ')'


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the protocol; the fields its kind does not carry are empty."""

    kind: str  # info, preview, start, play, stop or abort
    match_id: str = ""
    role: str = ""
    rules: str = ""
    start_clock: float = 0.0
    play_clock: float = 0.0
    # The last joint move (play, stop), each move as compact text; None for nil.
    moves: tuple[str, ...] | None = None
    # GDL-II's play and stop: the turn (None for GDL's forms), this player's last move
    # (None for nil) and its percepts (compact text).
    turn: int | None = None
    last_move: str | None = None
    percepts: tuple[str, ...] = ()

    @property
    def gdl2(self) -> bool:
        """Whether the message is one of GDL-II's forms of play and stop."""
        return self.turn is not None


_ARITY = {"info": 1, "preview": 3, "start": 6, "play": 3, "stop": 3, "abort": 2}


def _terms(text: str) -> list[str | Group]:
    """Every top-level term of ``text`` (``;`` comments run to the end of their line)."""
    stack: list[tuple[int, list[str | Group]]] = [(-1, [])]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif c == "(":
            stack.append((i, []))
            i += 1
        elif c == ")":
            if len(stack) == 1:
                raise ProtocolError(f"unbalanced ')' at offset {i}", reason="unbalanced")
            start, items = stack.pop()
            stack[-1][1].append(Group(tuple(items), start, i + 1))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "();":
                j += 1
            stack[-1][1].append(text[i:j])
            i = j
    if len(stack) > 1:
        raise ProtocolError(f"'(' at offset {stack[-1][0]} is never closed",
                            reason="unclosed")
    return stack[0][1]


def term_text(term: str | Group) -> str:
    """A term written compactly: ``(mark 1 2)``."""
    if isinstance(term, str):
        return term
    return "(" + " ".join(term_text(item) for item in term.items) + ")"


def first_term(text: str) -> str:
    """The first term of an answer, written compactly (what a manager takes as the move).

    Raises:
        ProtocolError: the text holds no term, or unbalanced parentheses before it ends.
    """
    terms = _terms(text)
    if not terms:
        raise ProtocolError("the answer is empty", reason="empty")
    return term_text(terms[0])


def _clock(term: str | Group, what: str) -> float:
    if isinstance(term, Group):
        raise ProtocolError(f"the {what} must be a number of seconds, not a list",
                            reason="not-seconds", field=what)
    try:
        value = float(term)
    except ValueError:
        raise ProtocolError(f"the {what} must be a number of seconds, got {term[:40]!r}",
                            reason="not-seconds", field=what, value=term) from None
    if not 0 <= value < 10**7:
        raise ProtocolError(f"the {what} must be a number of seconds, got {term[:40]!r}",
                            reason="not-seconds", field=what, value=term)
    return value


def _atom(term: str | Group, what: str) -> str:
    if isinstance(term, Group):
        raise ProtocolError(f"the {what} must be a name, not a list", reason="not-a-name",
                            field=what)
    return term


def _moves(term: str | Group) -> tuple[str, ...] | None:
    if isinstance(term, str):
        if term.lower() == "nil":
            return None
        raise ProtocolError(f"the moves must be nil or a list of moves, got {term[:40]!r}",
                            reason="not-moves", field="moves", value=term)
    return tuple(term_text(item) for item in term.items)


def read_message(text: str) -> Message:
    """The message a manager sent.

    Raises:
        ProtocolError: not one term, an unknown keyword, or fields of the wrong shape.
    """
    terms = _terms(text)
    if len(terms) != 1:
        raise ProtocolError(f"a message is one term; got {len(terms)}", reason="not-one-term",
                            value=len(terms))
    (term,) = terms
    if isinstance(term, str):
        term = Group((term,), 0, len(text))  # a bare keyword: "info"
    if not term.items or isinstance(term.items[0], Group):
        raise ProtocolError("a message starts with its keyword")
    kind = term.items[0].lower()
    if kind not in _ARITY:
        raise ProtocolError(f"unknown message {kind[:40]!r}; the messages are "
                            f"{', '.join(_ARITY)}", reason="unknown-message", value=kind)
    items = term.items
    if kind in ("play", "stop") and len(items) == 5:  # GDL-II's form
        turn = items[2]
        if isinstance(turn, Group) or not turn.isdigit() or len(turn) > 9:
            raise ProtocolError(f"the turn must be a count from 0, got {term_text(turn)[:40]!r}",
                                reason="not-a-turn", field="turn", value=term_text(turn))
        last = items[3]
        last_move = None if isinstance(last, str) and last.lower() == "nil" else term_text(last)
        percepts = _moves(items[4]) or ()
        return Message(kind, _atom(items[1], "match id"), turn=int(turn), last_move=last_move,
                       percepts=percepts)
    if len(items) != _ARITY[kind]:
        raise ProtocolError(f"{kind} takes {_ARITY[kind] - 1} fields, got {len(items) - 1}",
                            reason="fields", field=kind, value=len(items) - 1)
    if kind == "info":
        return Message(kind)
    if kind == "preview":
        return Message(kind, rules=_rules(text, items[1]),
                       start_clock=_clock(items[2], "preview clock"))
    match_id = _atom(items[1], "match id")
    if kind == "start":
        return Message(kind, match_id, role=_atom(items[2], "role"),
                       rules=_rules(text, items[3]),
                       start_clock=_clock(items[4], "start clock"),
                       play_clock=_clock(items[5], "play clock"))
    if kind == "abort":
        return Message(kind, match_id)
    return Message(kind, match_id, moves=_moves(items[2]))


def _rules(text: str, term: str | Group) -> str:
    if isinstance(term, str):
        if term.lower() == "nil":
            return ""
        raise ProtocolError("the rules must be a list of GDL rules")
    return text[term.start + 1:term.end - 1]


def write_message(kind: str, match_id: str = "", *, role: str = "", rules: str = "",
                  start_clock: float = 0, play_clock: float = 0,
                  moves: tuple[str, ...] | None = None, turn: int | None = None,
                  last_move: str | None = None, percepts: tuple[str, ...] = ()) -> str:
    """A message as GGP-Base's manager writes it: upper-case keyword, ``NIL`` for no
    moves; with ``turn``, GDL-II's play or stop (``last_move`` and ``percepts`` of the
    player it goes to)."""
    def clock(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else str(value)

    if kind == "info":
        return "( INFO )"
    if kind == "start":
        return (f"( START {match_id} {role} ({rules}) {clock(start_clock)} "
                f"{clock(play_clock)} )")
    if kind == "preview":
        return f"( PREVIEW ({rules}) {clock(start_clock)} )"
    if kind == "abort":
        return f"( ABORT {match_id} )"
    if kind in ("play", "stop") and turn is not None:
        seen = "(" + " ".join(percepts) + " )" if percepts else "NIL"
        return f"( {kind.upper()} {match_id} {turn} {last_move or 'NIL'} {seen} )"
    if kind in ("play", "stop"):
        listed = "NIL" if moves is None else "(" + " ".join(moves) + " )"
        return f"( {kind.upper()} {match_id} {listed} )"
    raise ValueError(f"unknown message {kind!r}")
