"""The workshop's commands of ``gdl-reasoner``, one module per command, each with its
``register`` (its parser) and its run: :mod:`~reasoner.workshop.commands.bench`,
:mod:`~reasoner.workshop.commands.bench_service`,
:mod:`~reasoner.workshop.commands.bench_players`,
:mod:`~reasoner.workshop.commands.bench_heuristics`,
:mod:`~reasoner.workshop.commands.bench_gdl2`,
:mod:`~reasoner.workshop.commands.bench_cluster`, :mod:`~reasoner.workshop.commands.dataset`,
:mod:`~reasoner.workshop.commands.sweep`, :mod:`~reasoner.workshop.commands.fuzz` and
:mod:`~reasoner.workshop.commands.stress`. :mod:`reasoner.cli.app` registers them."""
