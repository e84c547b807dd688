"""The id protocol of the top-down backend: Prolog text consulted after the reference's
program (:func:`reasoner.reference.prolog.prolog_program`).

The game's rules come twice: the reference's clauses (``gdl:``, recursive relations tabled)
and a copy with every relation tabled (``tab:``), which derives a relation asked for again
within a query once (alexChess asks for its attacked squares over and over: 0.7 steps a
second plain, 94 tabled; chess, which does not, runs 353 plain and 169 tabled). Tables live
as long as the state: the driver drops them when the state changes.

The engine's tables become facts: ``td_fluent(Id, Fluent)`` for every fluent of the relaxed
superset, ``td_move(Id, Role, Move)`` for every move, ``td_role(Role, Number)`` for every
role; the lookups back from terms to ids are keyed by term hash. Requests then carry only
integers, and so do the answers. A request is ``td(Seconds, Prefix, Goal)``, answered over
the copy ``Prefix`` within ``Seconds`` (else Prolog's ``Time limit exceeded`` error), where
``Goal`` is:

* ``init``: the initial state's fluent ids;
* ``info(Fluents)``: the state's legal move ids, ``1`` or ``0`` for terminal, then one role
  number and one goal value (GDL text) per goal that holds;
* ``step(Fluents, Moves)``: the successor's fluent ids under the joint move, then the
  successor's own answers as for ``info``.

One request costs one line each way, where the reference's own protocol asks three times per
step and sends every fluent as text. Negation on a cycle is well-founded in both copies, and
an answer it leaves undefined is reported (the rules are not stratified).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reasoner.gdl.syntax import GameDescription
from reasoner.reference.prolog import game_clauses, quote_atom

__all__ = ["PLAIN", "TABLED", "protocol_program"]

# The prefixes of the two copies of the rules.
PLAIN, TABLED = "gdl:", "tab:"

_DRIVER = r"""
:- use_module(library(time)).

% Fluents and moves by their terms, keyed by the terms' hashes (an integer first argument is
% indexed whatever the terms look like).
:- dynamic(td_fid/3).
:- dynamic(td_mid/4).
:- initialization(( forall(td_fluent(I, F), ( term_hash(F, H), assertz(td_fid(H, F, I)) )),
                    forall(td_move(I, R, M), ( term_hash(M, H), assertz(td_mid(H, M, R, I)) ))
                  )).

% The tabled copy reads the state and the joint move the driver asserts.
'tab:true'(F) :- 'gdl:true'(F).
'tab:does'(R, M) :- 'gdl:does'(R, M).

% A request: td(Seconds, Prefix, Goal), answered within Seconds (else Prolog's "Time limit
% exceeded" error) over the copy of the rules named by Prefix.
ref_answer(td(Seconds, Prefix, Request), Items) :-
    call_with_time_limit(Seconds, td_answer(Request, Prefix, Items)).

td_answer(init, P, [Text]) :-
    ref_set([], []),
    td_goal(P, init, [F], Init), ref_all(F, Init, Fluents),
    td_ids(Fluents, Ids), td_text(Ids, Text).
td_answer(info(Ids), P, Items) :-
    td_terms(Ids, State),
    ref_set(State, []),
    td_info(P, Items).
td_answer(step(Ids, Moves), P, [Text|Items]) :-
    td_terms(Ids, State), td_joint(Moves, Joint),
    ref_set(State, Joint),
    td_goal(P, next, [F], Next), ref_all(F, Next, Fluents),
    td_ids(Fluents, NextIds), td_text(NextIds, Text),
    ref_set(Fluents, []),
    td_info(P, Items).

td_goal(Prefix, Name, Args, Goal) :-
    atom_concat(Prefix, Name, Functor), Goal =.. [Functor|Args].

td_info(P, [Legal, txt(Terminal)|Goals]) :-
    td_goal(P, legal, [R, M], LegalGoal), ref_all(R-M, LegalGoal, Pairs),
    td_move_ids(Pairs, Ids), td_text(Ids, Legal),
    td_goal(P, terminal, [], TerminalGoal), ref_all(x, TerminalGoal, Found),
    ( Found == [] -> Terminal = 0 ; Terminal = 1 ),
    td_goal(P, goal, [R2, V], GoalGoal), ref_all(R2-V, GoalGoal, GoalPairs),
    td_goal_items(GoalPairs, Goals).

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
"""


# The engine's term text in tokens: parentheses, and names between the white space of GDL's
# tokenizer (ASCII's alone: str.split would also cut a name at U+00A0, U+2028 or U+0085,
# which a GDL name may hold).
_TOKEN = re.compile(r"[()]|[^ \t\n\r\f\v()]+")


def _prolog(text: str) -> str:
    """A ground GDL term's text as the engine prints it (names, parentheses and single
    spaces, e.g. ``(cell 1 1 b)``) as Prolog term text, every name quoted."""
    if "(" not in text:
        return quote_atom(text)
    out: list[str] = []
    opened = False  # just after "(": the next name is a function's
    for token in _TOKEN.findall(text):
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


def protocol_program(description: GameDescription, roles: Sequence[str],
                     fluents: Sequence[str], moves: Sequence[tuple[int, str]]) -> str:
    """The tabled copy of the rules, the tables and the request clauses, for a game whose
    fluent ``i`` is ``fluents[i]`` and whose move ``j`` is ``moves[j]`` (role number, move
    text), all texts as the engine prints them.

    Raises:
        ReferenceFailure: a rule defines ``true`` or ``does``.
    """
    lines = ["", "% The game, every relation tabled (reasoner.topdown)."]
    lines += game_clauses(description, TABLED, table_all=True)
    lines += ["", "% The engine's tables.",
              ":- dynamic(td_fluent/2).", ":- dynamic(td_move/3).", ":- dynamic(td_role/2)."]
    quoted_roles = [quote_atom(role) for role in roles]
    lines += [f"td_role({role},{number})." for number, role in enumerate(quoted_roles)]
    terms = [_prolog(text) for text in fluents]
    lines += [f"td_fluent({i},{term})." for i, term in enumerate(terms)]
    pairs = [(quoted_roles[role], _prolog(text)) for role, text in moves]
    lines += [f"td_move({i},{role},{move})." for i, (role, move) in enumerate(pairs)]
    return "\n".join(lines) + "\n" + _DRIVER.lstrip()
