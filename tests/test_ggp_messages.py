"""The match protocol's messages as managers write them: GGP-Base's upper-case keywords and
spaced terms, the rules' own text kept for the GDL reader, and malformed messages refused
with what is wrong."""

from __future__ import annotations

import pytest

from client.ggp.messages import ProtocolError, first_term, read_message, write_message


def test_a_play_as_ggp_base_writes_it_is_read() -> None:
    """``( PLAY id (( mark 1 2 ) noop ) )`` is a play of match ``id`` whose last joint
    move is ``(mark 1 2)`` and ``noop``, written compactly."""
    message = read_message("( PLAY ttt.1 (( mark 1 2 ) noop ) )")
    assert (message.kind, message.match_id, message.moves) == (
        "play", "ttt.1", ("(mark 1 2)", "noop"))


def test_the_first_play_has_no_moves() -> None:
    """``NIL`` (any case) stands for no moves yet."""
    assert read_message("(play m nil)").moves is None
    assert read_message("( PLAY m NIL )").moves is None


def test_a_start_keeps_the_rules_text_and_reads_the_clocks() -> None:
    """The rules of a start are the text between the list's parentheses, as sent; the
    clocks are seconds."""
    rules = "(role a) (<= (legal a (go ?x)) (p ?x)) ; note\n(p 1)"
    message = read_message(f"(START m1 a ({rules}) 30 7.5)")
    assert message.kind == "start" and message.role == "a"
    assert message.rules == rules
    assert (message.start_clock, message.play_clock) == (30.0, 7.5)


def test_info_reads_with_or_without_parentheses() -> None:
    """``(info)``, ``( INFO )`` and a bare ``info`` are the same message."""
    assert {read_message(text).kind for text in ("(info)", "( INFO )", "info")} == {"info"}


@pytest.mark.parametrize(("text", "fields"), [
    ("(play m1 nil", ("unclosed", None, None)),
    ("(play m1 nil))", ("unbalanced", None, None)),
    ("(dance m1)", ("unknown-message", None, "dance")),
    ("(play m1)", ("fields", "play", 1)),
    ("(start m1 a ((role a)) soon 10)", ("not-seconds", "start clock", "soon")),
    ("(start m1 a ((role a)) -5 10)", ("not-seconds", "start clock", "-5")),
    ("(play (m1) nil)", ("not-a-name", "match id", None)),
    ("(play m1 move)", ("not-moves", "moves", "move")),
    ("(info) (info)", ("not-one-term", None, 2)),
    ("", ("not-one-term", None, 0)),
])
def test_a_malformed_message_is_refused_saying_why(text: str,
                                                   fields: tuple[str, str | None, object]) -> None:
    """Each malformed message raises ProtocolError naming what is wrong."""
    with pytest.raises(ProtocolError) as caught:
        read_message(text)
    assert (caught.value.reason, caught.value.field, caught.value.value) == fields


def test_the_first_term_of_an_answer_is_the_move() -> None:
    """A manager takes the first term of an answer, compactly written; an empty answer has
    none."""
    assert first_term("( mark 3 3 ) and more") == "(mark 3 3)"
    assert first_term("noop\n") == "noop"
    with pytest.raises(ProtocolError) as caught:
        first_term("   ")
    assert caught.value.reason == "empty"


def test_messages_are_written_as_ggp_base_writes_them() -> None:
    """Upper-case keywords, NIL for no moves, the moves in a list, the clocks as integers
    where they are whole; each reads back as written."""
    play = write_message("play", "m1", moves=("(mark 1 1)", "noop"))
    assert play == "( PLAY m1 ((mark 1 1) noop ) )"
    assert read_message(play).moves == ("(mark 1 1)", "noop")
    assert write_message("play", "m1") == "( PLAY m1 NIL )"
    start = write_message("start", "m1", role="a", rules="(role a)", start_clock=10,
                          play_clock=2.5)
    assert start == "( START m1 a ((role a)) 10 2.5 )"
    assert read_message(start).rules == "(role a)"
