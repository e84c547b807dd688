"""The ``gdl-reasoner`` command line, and the tools that only it uses.

One module per group of commands, each with its subparsers (``register``) beside their
behaviour: :mod:`~reasoner.cli.loading` (check, translate), :mod:`~reasoner.cli.grounding`
(supersets, ground, mutexes), :mod:`~reasoner.cli.heuristics` (evaluate, analyze,
bench-heuristics), :mod:`~reasoner.cli.bench`, :mod:`~reasoner.cli.serve`,
:mod:`~reasoner.cli.match`, :mod:`~reasoner.cli.crosscheck` and :mod:`~reasoner.cli.sweep`;
:mod:`~reasoner.cli.app` builds the parser and runs a command; :mod:`~reasoner.cli.common`
holds the one error contract. The tools beside them: :mod:`~reasoner.cli.benchmarks`,
:mod:`~reasoner.cli.sweeping` and :mod:`~reasoner.cli.progress`.

Every command prints one clear line on bad input and exits non-zero; no tracebacks. Only
this package of ``reasoner`` may import the client library (``client``).
"""

from reasoner.cli.app import main

__all__ = ["main"]
