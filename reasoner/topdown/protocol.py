"""The id protocol of the top-down backend: Prolog text consulted after the reference's
program (:func:`reasoner.reference.prolog.prolog_program`).

The engine's tables become facts: ``td_fluent(Id, Fluent)`` and ``td_fid(Fluent, Id)`` for
every fluent of the relaxed superset, ``td_move(Id, Role, Move)`` and ``td_mid(Move, Role,
Id)`` for every move, ``td_role(Role, Number)`` for every role. Requests then carry only
integers, and so do the answers:

* ``td_init``: the initial state's fluent ids;
* ``td_info(Fluents)``: the state's legal move ids, ``1`` or ``0`` for terminal, then one
  role number and one goal value (GDL text) per goal that holds;
* ``td_step(Fluents, Moves)``: the successor's fluent ids under the joint move, then the
  successor's own answers as for ``td_info``.

A request past the time bound is answered with Prolog's ``Time limit exceeded`` error.

One request costs one line each way, where the reference's own protocol asks three times per
step and sends every fluent as text. The game's rules are the reference's clauses, called
as the reference calls them (recursive relations tabled, negation on a cycle well-founded
and reported where an answer is undefined).
"""

from __future__ import annotations

from collections.abc import Sequence

from reasoner.reference.prolog import quote_atom

__all__ = ["protocol_program"]

_DRIVER = r"""
:- use_module(library(time)).

% Fluents and moves by their terms, keyed by the terms' hashes (an integer first argument is
% indexed whatever the terms look like).
:- dynamic(td_fid/3).
:- dynamic(td_mid/4).
:- initialization(( forall(td_fluent(I, F), ( term_hash(F, H), assertz(td_fid(H, F, I)) )),
                    forall(td_move(I, R, M), ( term_hash(M, H), assertz(td_mid(H, M, R, I)) ))
                  )).

td_terms([], []).
td_terms([I|Is], [F|Fs]) :-
    (   td_fluent(I, F) -> true
    ;   throw(ref_failure(format("there is no fluent ~w", [I])))
    ),
    td_terms(Is, Fs).

td_joint([], []).
td_joint([I|Is], [R-M|Rest]) :-
    (   td_move(I, R, M) -> true
    ;   throw(ref_failure(format("there is no move ~w", [I])))
    ),
    td_joint(Is, Rest).

td_ids([], []).
td_ids([F|Fs], [I|Is]) :-
    (   term_hash(F, H), td_fid(H, F, I) -> true
    ;   with_output_to(string(Text), ref_gdl(F)),
        throw(ref_failure(format("the fluent ~w is outside the relaxed superset", [Text])))
    ),
    td_ids(Fs, Is).

% Legal moves of roles only (a legal fact of a non-role is no move of the game).
td_move_ids([], []).
td_move_ids([R-M|Pairs], Ids) :-
    (   term_hash(M, H), td_mid(H, M, R, I) -> Ids = [I|Rest]
    ;   td_role(R, _)
    ->  with_output_to(string(Text), ref_gdl(M)),
        throw(ref_failure(format("the legal move ~w of ~w is outside the relaxed superset",
                                 [Text, R])))
    ;   Ids = Rest
    ),
    td_move_ids(Pairs, Rest).

td_goal_items([], []).
td_goal_items([R-V|Pairs], Items) :-
    (   td_role(R, N) -> Items = [txt(N), V|Rest] ; Items = Rest ),
    td_goal_items(Pairs, Rest).

td_text(Ids, txt(Text)) :- atomic_list_concat(Ids, ' ', Text).

td_info([Legal, txt(Terminal)|Goals]) :-
    ref_all(R-M, 'gdl:legal'(R, M), Pairs),
    td_move_ids(Pairs, Ids), td_text(Ids, Legal),
    ref_all(x, 'gdl:terminal', Found),
    ( Found == [] -> Terminal = 0 ; Terminal = 1 ),
    ref_all(R2-V, 'gdl:goal'(R2, V), GoalPairs),
    td_goal_items(GoalPairs, Goals).

% Every request runs under the time bound here too, so that a child whose parent is gone
% never computes for longer.
ref_answer(td_init, Items) :- td_bounded(td_init(Items)).
ref_answer(td_info(Ids), Items) :- td_bounded(td_info(Ids, Items)).
ref_answer(td_step(Ids, Moves), Items) :- td_bounded(td_step(Ids, Moves, Items)).

td_bounded(Goal) :- td_seconds(Seconds), call_with_time_limit(Seconds, Goal).

td_init([Text]) :-
    ref_set([], []),
    ref_all(F, 'gdl:init'(F), Fluents),
    td_ids(Fluents, Ids), td_text(Ids, Text).
td_info(Ids, Items) :-
    td_terms(Ids, State),
    ref_set(State, []),
    td_info(Items).
td_step(Ids, Moves, [Text|Items]) :-
    td_terms(Ids, State), td_joint(Moves, Joint),
    ref_set(State, Joint),
    ref_all(F, 'gdl:next'(F), Fluents),
    td_ids(Fluents, Next), td_text(Next, Text),
    ref_set(Fluents, []),
    td_info(Items).
"""


def _prolog(text: str) -> str:
    """A ground GDL term's text as the engine prints it (names, parentheses and single
    spaces, e.g. ``(cell 1 1 b)``) as Prolog term text, every name quoted."""
    if "(" not in text:
        return quote_atom(text)
    out: list[str] = []
    opened = False  # just after "(": the next name is a function's
    for token in text.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if out and out[-1] not in ("(", ","):
                out.append(",")
            opened = True
        elif token == ")":
            if out[-1] == "(":  # (y) is the constant y
                out.pop()
            else:
                out.append(")")
        else:
            if opened:
                out += [quote_atom(token), "("]
                opened = False
            else:
                if out and out[-1] not in ("(", ","):
                    out.append(",")
                out.append(quote_atom(token))
    return "".join(out)


def protocol_program(roles: Sequence[str], fluents: Sequence[str],
                     moves: Sequence[tuple[int, str]], seconds: float) -> str:
    """The tables and request clauses for a game whose fluent ``i`` is ``fluents[i]`` and
    whose move ``j`` is ``moves[j]`` (role number, move text), all texts as the engine prints
    them; a request running past ``seconds`` is answered with an error."""
    lines = ["", "% The engine's tables (reasoner.topdown).", f"td_seconds({seconds!r}).",
             ":- dynamic(td_fluent/2).", ":- dynamic(td_move/3).", ":- dynamic(td_role/2)."]
    quoted_roles = [quote_atom(role) for role in roles]
    lines += [f"td_role({role},{number})." for number, role in enumerate(quoted_roles)]
    terms = [_prolog(text) for text in fluents]
    lines += [f"td_fluent({i},{term})." for i, term in enumerate(terms)]
    pairs = [(quoted_roles[role], _prolog(text)) for role, text in moves]
    lines += [f"td_move({i},{role},{move})." for i, (role, move) in enumerate(pairs)]
    return "\n".join(lines) + "\n" + _DRIVER.lstrip()
