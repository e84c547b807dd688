"""A GDL game description as an SWI-Prolog program (the reference solver's side of the
cross-check, docs/semantics/crosschecking.md).

The program holds the game twice and a small request loop:

* the *game* rules, one clause per disjunct of a rule body (bodies in disjunctive normal
  form, each negation and ``distinct`` moved after the atoms that bind its variables), each
  relation ``name/arity`` as the predicate ``'gdl:name'/arity``; ``true`` and ``does`` are
  dynamic facts the loop asserts for every query; recursive relations are tabled (so left
  recursion terminates), and a negated relation on the head's own cycle is called with
  ``tnot/1`` (well-founded negation: exact on stratified programs, also when they are
  stratified only on the ground level; an answer it leaves undefined is reported);
* the *relaxed* rules (docs/semantics/instantiation.md) as ``'rlx:name'/arity``: negated atoms
  dropped, ``distinct`` and ``(not (distinct a b))`` kept, plus ``true`` from ``init`` and
  ``next`` and ``does`` from ``legal``; tabled throughout, their least model is the fixpoint of
  relaxed reachability;
* the loop (``ref_main``): one Prolog term per request line, one reply line per request.

Every GDL name becomes a quoted Prolog atom (numbers too, so ``1`` and ``01`` stay the texts
they are), and every GDL variable a generated Prolog variable ``V_n``: no GDL text is ever
read as Prolog syntax with another meaning, and no relation name can clash with a built-in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import product

from reasoner.errors import ReferenceFailure
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Literal,
    Not,
    Or,
    Term,
    Variable,
)

__all__ = [
    "GAME_PREFIX",
    "RELAXED_PREFIX",
    "game_clauses",
    "ground_term",
    "prolog_program",
    "quote_atom",
]

GAME_PREFIX = "gdl:"
RELAXED_PREFIX = "rlx:"

Signature = tuple[str, int]
# After expansion into disjunctive normal form a body is a conjunction of these.
Flat = Atom | Not | Distinct


def quote_atom(name: str) -> str:
    """``name`` as a quoted Prolog atom whose text is exactly ``name``.

    Quotes and backslashes are escaped; everything outside printable ASCII is written as a
    ``\\x..\\`` escape, so the program text is plain ASCII whatever the game's names are.
    """
    parts = ["'"]
    for char in name:
        code = ord(char)
        if char in "'\\":
            parts.append("\\" + char)
        elif 32 <= code < 127:
            parts.append(char)
        else:
            parts.append(f"\\x{code:x}\\")
    parts.append("'")
    return "".join(parts)


class _Variables:
    """Prolog names for the GDL variables of one clause, by first occurrence."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._names:
            self._names[name] = f"V_{len(self._names)}"
        return self._names[name]


def _term(term: Term, variables: _Variables | None) -> str:
    if isinstance(term, Constant):
        return quote_atom(term.name)
    if isinstance(term, Variable):
        if variables is None:
            raise ReferenceFailure(f"the variable ?{term.name} stands where a ground term is "
                                   "needed")
        return variables[term.name]
    args = ",".join(_term(arg, variables) for arg in term.args)
    return f"{quote_atom(term.name)}({args})"


def ground_term(term: Term) -> str:
    """A ground GDL term as Prolog term text.

    Raises:
        ReferenceFailure: the term has a variable.
    """
    return _term(term, None)


def _goal(prefix: str, atom: Atom, variables: _Variables) -> str:
    name = quote_atom(prefix + atom.name)
    if not atom.args:
        return name
    return f"{name}({','.join(_term(arg, variables) for arg in atom.args)})"


# -- bodies in disjunctive normal form ----------------------------------------------------


def _alternatives(literal: Literal, negated: bool) -> list[list[Flat]]:
    """The literal (negated if asked) as alternative conjunctions of flat literals."""
    while isinstance(literal, Not):
        literal, negated = literal.literal, not negated
    if isinstance(literal, Or):
        if negated:
            # De Morgan: not (a or b) is (not a) and (not b).
            return _conjunction([_alternatives(d, True) for d in literal.disjuncts])
        return [conj for d in literal.disjuncts for conj in _alternatives(d, False)]
    return [[Not(literal, literal.pos) if negated else literal]]


def _conjunction(parts: Sequence[list[list[Flat]]]) -> list[list[Flat]]:
    return [[flat for conj in choice for flat in conj] for choice in product(*parts)]


def flat_bodies(body: Sequence[Literal]) -> list[list[Flat]]:
    """A rule body as the alternative flat conjunctions of its disjunctive normal form."""
    return _conjunction([_alternatives(literal, False) for literal in body])


def _variables_of(item: Term | Literal) -> Iterator[str]:
    if isinstance(item, Variable):
        yield item.name
    elif isinstance(item, Function | Atom):
        for arg in item.args:
            yield from _variables_of(arg)
    elif isinstance(item, Distinct):
        yield from _variables_of(item.left)
        yield from _variables_of(item.right)
    elif isinstance(item, Not):
        yield from _variables_of(item.literal)
    elif isinstance(item, Or):
        for disjunct in item.disjuncts:
            yield from _variables_of(disjunct)


def ordered_body(conjunction: Iterable[Flat]) -> list[Flat]:
    """The positive atoms in their written order, each negation and ``distinct`` right after
    the first point where every one of its variables is bound (a test that comes before its
    binder would ask Prolog about a non-ground term). Tests on variables that no positive
    atom binds (unsafe rules) go last."""
    positives = [flat for flat in conjunction if isinstance(flat, Atom)]
    pending = [flat for flat in conjunction if not isinstance(flat, Atom)]
    bound: set[str] = set()
    ordered: list[Flat] = []

    def release() -> None:
        ready = [test for test in pending if set(_variables_of(test)) <= bound]
        ordered.extend(ready)
        pending[:] = [test for test in pending if test not in ready]

    release()
    for atom in positives:
        ordered.append(atom)
        bound.update(_variables_of(atom))
        release()
    return ordered + pending


# -- clauses -------------------------------------------------------------------------------


FlatRule = tuple[Atom, list[Flat]]

_FLUENT, _ROLE, _MOVE = Variable("f"), Variable("r"), Variable("m")
# Relaxed reachability closes the loop: whatever is initial or next holds, whatever is legal
# is played.
_FEEDBACK: list[FlatRule] = [
    (Atom("true", (_FLUENT,)), [Atom("init", (_FLUENT,))]),
    (Atom("true", (_FLUENT,)), [Atom("next", (_FLUENT,))]),
    (Atom("does", (_ROLE, _MOVE)), [Atom("legal", (_ROLE, _MOVE))]),
]


def _flat_rules(description: GameDescription) -> list[FlatRule]:
    """Every rule as one clause per disjunct of its body, literals in a safe order."""
    rules: list[FlatRule] = []
    for rule in description.rules:
        if rule.head.signature in {("true", 1), ("does", 2)}:
            raise ReferenceFailure(f"the rule {rule} defines {rule.head.name}, which only the "
                                   "state and the moves may define")
        rules += [(rule.head, ordered_body(conj)) for conj in flat_bodies(rule.body)]
    return rules


def _components(graph: dict[Signature, set[Signature]]) -> dict[Signature, int]:
    """Strongly connected components of a dependency graph (Tarjan's algorithm, iterative so
    that long chains of relations cannot exhaust Python's stack): node -> component number."""
    index: dict[Signature, int] = {}
    low: dict[Signature, int] = {}
    component: dict[Signature, int] = {}
    stack: list[Signature] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[Signature, Iterator[Signature]]] = []
        index[root] = low[root] = len(index)
        stack.append(root)
        work.append((root, iter(graph.get(root, ()))))
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    work.append((succ, iter(graph.get(succ, ()))))
                    break
                if succ not in component:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    number = len(set(component.values()))
                    while True:
                        member = stack.pop()
                        component[member] = number
                        if member == node:
                            break
    return component


class _Program:
    """The clauses of one copy of the game (game or relaxed) and its declarations.

    In the game, relations on a dependency cycle (through positive or negative literals)
    are tabled, so that recursion terminates whatever the order of the rules; a negated
    relation on the same cycle as the rule's head is called with ``tnot`` (well-founded
    negation, exact where the game is stratified on the ground level). Every other negation
    is plain ``\\+`` over a relation of a lower stratum, which is complete when it is
    called; the other relations are plain clauses (tabling them costs more than it saves
    in a playout).

    The relaxed program drops negated atoms, adds the feedback rules (``true`` from ``init``
    and ``next``, ``does`` from ``legal``) and is tabled throughout.
    """

    def __init__(self, prefix: str, relaxed: bool, rules: list[FlatRule],
                 table_all: bool = False) -> None:
        if relaxed:
            rules = rules + _FEEDBACK
        self.prefix = prefix
        self.relaxed = relaxed
        self.rules = rules
        self.defined: dict[Signature, None] = dict.fromkeys(head.signature
                                                            for head, _ in rules)
        graph: dict[Signature, set[Signature]] = {sig: set() for sig in self.defined}
        for head, body in rules:
            for flat in body:
                inner = flat.literal if isinstance(flat, Not) else flat
                if isinstance(inner, Atom) and (isinstance(flat, Atom) or not relaxed):
                    graph[head.signature].add(inner.signature)
                    graph.setdefault(inner.signature, set())
        self.called = set(graph) - set(self.defined)
        self.component = _components(graph)
        sizes: dict[int, int] = {}
        for number in self.component.values():
            sizes[number] = sizes.get(number, 0) + 1
        # The relaxed program is tabled throughout: its relations are read over and over
        # while the fixpoint grows, and most of them depend on true.
        self.tabled = {sig for sig in self.defined if relaxed or table_all
                       or sizes[self.component[sig]] > 1 or sig in graph[sig]}

    def _literal(self, head: Signature, flat: Flat, variables: _Variables) -> str | None:
        if isinstance(flat, Atom):
            return _goal(self.prefix, flat, variables)
        if isinstance(flat, Distinct):
            return f"{_term(flat.left, variables)}\\=={_term(flat.right, variables)}"
        inner = flat.literal
        if isinstance(inner, Distinct):
            return f"{_term(inner.left, variables)}=={_term(inner.right, variables)}"
        if not isinstance(inner, Atom):  # pragma: no cover - flat_bodies guarantees it
            raise TypeError(f"not a flat literal: {flat}")
        if self.relaxed:
            return None  # the relaxation drops negated atoms
        goal = _goal(self.prefix, inner, variables)
        if self.component[inner.signature] == self.component[head]:
            return f"tnot({goal})"
        return f"\\+ {goal}"

    def _clause(self, head: Atom, body: list[Flat]) -> str:
        variables = _Variables()
        text = _goal(self.prefix, head, variables)
        goals = [self._literal(head.signature, flat, variables) for flat in body]
        present = [goal for goal in goals if goal is not None]
        return f"{text} :- {', '.join(present)}." if present else f"{text}."

    def text(self) -> list[str]:
        def indicator(signature: Signature) -> str:
            return f"{quote_atom(self.prefix + signature[0])}/{signature[1]}"

        # The relations the driver asks about exist even when a game never defines them
        # (a game without init facts starts in the empty state).
        asked = {("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("terminal", 0),
                 ("goal", 2), ("sees", 2)}
        dynamic = ({("true", 1), ("does", 2)} | self.called | asked) - set(self.defined)
        lines = [f":- dynamic({indicator(sig)})." for sig in sorted(dynamic)]
        lines += [f":- table({indicator(sig)})." for sig in self.defined if sig in self.tabled]
        lines += [f":- discontiguous({indicator(sig)})." for sig in self.defined]
        clauses: dict[Signature, list[str]] = {sig: [] for sig in self.defined}
        for head, body in self.rules:
            clauses[head.signature].append(self._clause(head, body))
        for group in clauses.values():
            lines += group
        return lines


def _relation_facts(program: _Program, fact: str) -> list[str]:
    signatures = set(program.defined) | {("true", 1), ("does", 2)}
    return [f"{fact}({quote_atom(name)},{arity},{quote_atom(program.prefix + name)})."
            for name, arity in sorted(signatures)]


_DRIVER = r"""
:- style_check(-singleton).
:- style_check(-discontiguous).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(ordsets)).
:- dynamic(ref_current/1).

% The request loop: one term per line in, one line out ("ok" or "error", then tab-separated
% fields). GDL texts never hold a tab or a line break, so the fields need no escaping.
ref_main :-
    set_stream(user_input, encoding(utf8)),
    set_stream(user_output, encoding(utf8)),
    ref_send("ok"),
    repeat,
    catch(read_term(user_input, Request, []), Error, true),
    (   nonvar(Error)
    ->  ref_error_text(Error, Reply), ref_send(Reply), fail
    ;   Request == end_of_file
    ->  !, halt(0)
    ;   ref_serve(Request), fail
    ).

ref_send(Text) :-
    write(user_output, Text), nl(user_output), flush_output(user_output).

ref_serve(Request) :-
    catch(ref_reply(Request, Reply), Error,
          ( ref_reset, ref_error_text(Error, Reply) )),
    ref_send(Reply).

ref_reply(Request, Reply) :-
    (   ref_answer(Request, Items)
    ->  with_output_to(string(Reply), ( write(ok), forall(member(I, Items), ref_item(I)) ))
    ;   format(string(Reply), "error\tthe request ~q failed", [Request])
    ).

ref_item(txt(Text)) :- !, write('\t'), write(Text).
ref_item(Term) :- write('\t'), ref_gdl(Term).

% GDL text of a term: names as they are, compound terms in parentheses, single spaces.
ref_gdl(T) :- var(T), !, throw(ref_failure('an answer is not ground')).
ref_gdl(T) :- atom(T), !, write(T).
ref_gdl(T) :- compound(T), !,
    compound_name_arguments(T, Name, Args),
    write('('), write(Name), forall(member(A, Args), (write(' '), ref_gdl(A))), write(')').
ref_gdl(T) :- throw(ref_failure(format("~q is not a GDL term", [T]))).

ref_error_text(Error, Reply) :-
    ref_message(Error, Text),
    split_string(Text, "\n\t", " ", Parts),
    exclude(==(""), Parts, Kept),
    atomic_list_concat(Kept, ' ', Flat),
    format(string(Reply), "error\t~w", [Flat]).

ref_message(ref_failure(format(F, A)), Text) :- !, format(string(Text), F, A).
ref_message(ref_failure(Text), Text) :- !.
ref_message(Error, Text) :-
    catch('$messages':translate_message(Error, Lines, []), _, fail),
    with_output_to(string(Text), print_message_lines(current_output, '', Lines)), !.
ref_message(Error, Text) :- format(string(Text), "~q", [Error]).

ref_reset :-
    retractall(ref_current(_)),
    catch(abolish_all_tables, _, true).

% The game's state and joint move as the facts of 'gdl:true' and 'gdl:does'; the tables
% are thrown away only when they change.
ref_set(State, Joint) :-
    sort(State, Fluents), sort(Joint, Moves),
    (   ref_current(Fluents-Moves)
    ->  true
    ;   retractall(ref_current(_)),
        retractall('gdl:true'(_)), retractall('gdl:does'(_, _)),
        forall(member(F, Fluents), assertz('gdl:true'(F))),
        forall(member(R-M, Moves), assertz('gdl:does'(R, M))),
        abolish_all_tables,
        assertz(ref_current(Fluents-Moves))
    ).

% Every answer of a goal, sorted; an answer that is undefined under the well-founded
% semantics means the rules are not stratified for this state.
ref_all(Template, Goal, Sorted) :-
    findall(Template-Delays, call_delays(Goal, Delays), Pairs),
    (   member(Answer-D, Pairs), D \== true
    ->  throw(ref_failure(format("the rules are not stratified: the answer ~q of ~q is ~w",
                                 [Answer, Goal, 'undefined under the well-founded semantics'])))
    ;   true
    ),
    findall(T, member(T-_, Pairs), Answers),
    sort(Answers, Sorted).

ref_pairs([], []).
ref_pairs([A-B|Rest], [A, B|Items]) :- ref_pairs(Rest, Items).

ref_answer(ping, []).
ref_answer(init, Fluents) :-
    ref_set([], []),
    ref_all(F, 'gdl:init'(F), Fluents).
ref_answer(legal(State), Items) :-
    ref_set(State, []),
    ref_all(R-M, 'gdl:legal'(R, M), Pairs),
    ref_pairs(Pairs, Items).
ref_answer(next(State, Joint), Fluents) :-
    ref_set(State, Joint),
    ref_all(F, 'gdl:next'(F), Fluents).
% GDL-II: what each role perceives when the joint move is played in the state. The sees
% rules may read true, does and (a dialect of Dresden's game controller) next, which the
% game's own next rules derive from the same state and joint move.
ref_answer(sees(State, Joint), Items) :-
    ref_set(State, Joint),
    ref_all(R-P, 'gdl:sees'(R, P), Pairs),
    ref_pairs(Pairs, Items).
ref_answer(terminal(State), [txt(Answer)]) :-
    ref_set(State, []),
    ref_all(x, 'gdl:terminal', Found),
    ( Found == [] -> Answer = false ; Answer = true ).
ref_answer(goals(State), Items) :-
    ref_set(State, []),
    ref_all(R-V, 'gdl:goal'(R, V), Pairs),
    ref_pairs(Pairs, Items).
% Relaxed reachability: the relaxed rules with true fed from init and next and does from
% legal, one positive program whose least model the tables compute (SLG resolution derives
% each new fluent or move once, as a semi-naive fixpoint would). Every ground atom of every
% relation comes back as a key ("name/arity") and the atom.
ref_answer(superset, Items) :-
    ref_reset,
    findall(Item, ref_relaxed_atom(Item), Nested),
    append(Nested, Items),
    ref_reset.

ref_relaxed_atom([txt(Key), Atom]) :-
    rlx_relation(Name, Arity, Predicate),
    format(atom(Key), "~w/~d", [Name, Arity]),
    functor(Goal, Predicate, Arity),
    findall(Goal, Goal, Answers0),
    sort(Answers0, Answers),
    member(Goal, Answers),
    (   ground(Goal)
    ->  true
    ;   throw(ref_failure(format("the relation ~w has a non-ground atom in the relaxed game",
                                 [Key])))
    ),
    Goal =.. [_|Args],
    (   Args == [] -> Atom = Name ; compound_name_arguments(Atom, Name, Args) ).
"""


def game_clauses(description: GameDescription, prefix: str, *, table_all: bool) -> list[str]:
    """The game's clauses and declarations alone, each relation ``name/arity`` as the
    predicate ``prefix + name``; with ``table_all``, every relation is tabled (a relation
    asked for again within a query is then looked up, not derived again).

    Raises:
        ReferenceFailure: a rule defines ``true`` or ``does``.
    """
    return _Program(prefix, False, _flat_rules(description), table_all).text()


def prolog_program(description: GameDescription) -> str:
    """The whole Prolog program of a game: game rules, relaxed rules and the request loop.

    Raises:
        ReferenceFailure: a rule defines ``true`` or ``does``.
    """
    rules = _flat_rules(description)
    game = _Program(GAME_PREFIX, False, rules)
    relaxed = _Program(RELAXED_PREFIX, True, rules)
    lines = [":- encoding(utf8).", _DRIVER.strip(), "", "% The game."]
    lines += game.text()
    lines += ["", "% The relaxed game (negated atoms dropped)."]
    lines += relaxed.text()
    lines += ["", ":- dynamic(rlx_relation/3)."]
    lines += _relation_facts(relaxed, "rlx_relation")
    return "\n".join(lines) + "\n"
