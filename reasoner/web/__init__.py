"""The web page (``gdl-reasoner web``): a game library, boards drawn from the rules, play
against the players, matches watched live or replayed from their records, and a position's
inspection, over a reasoner service (docs/guides/web.md)."""
