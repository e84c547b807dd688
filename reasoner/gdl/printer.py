"""Write a syntax tree back as GDL text that parses to the same tree."""

from __future__ import annotations

from reasoner.gdl.syntax import GameDescription, Rule

__all__ = ["print_game", "print_rule"]


def print_rule(rule: Rule) -> str:
    """One rule as a single line of GDL."""
    return str(rule)


def print_game(game: GameDescription) -> str:
    """The whole game, one rule per line, in source order."""
    return "".join(print_rule(rule) + "\n" for rule in game.rules)
