"""The workshop: the measurements, stress, fuzzing and sweeps that the project runs on
itself, apart from the library and the user commands.

They stay commands of ``gdl-reasoner`` (the same names, flags and outputs): each command's
parser is in a module named for it under :mod:`reasoner.workshop.commands`, and
:mod:`reasoner.cli.app` registers them beside the user commands. What they measure is in a
module named for it:

* :mod:`~reasoner.workshop.playout_rates`: random-playout state updates per second and load
  time of every backend (``bench``);
* :mod:`~reasoner.workshop.service_latency`: Query and Next latency and Simulate throughput
  over loopback gRPC beside the same work in process (``bench --grpc``), and the percentile
  every latency figure uses;
* :mod:`~reasoner.workshop.call_patterns`: steps per second and latency of each way of
  calling the service, over server processes (``bench-service``);
* :mod:`~reasoner.workshop.player_strength`: each player's mean goal against random and MCTS
  players (``bench-players``);
* :mod:`~reasoner.workshop.heuristic_rates`: heuristic evaluations per second and greedy
  players against random ones (``bench-heuristics``);
* :mod:`~reasoner.workshop.server_stress`: a steady client's latency while blow-ups run
  (``stress``);
* :mod:`~reasoner.workshop.gdl_mutants`: seeded mutants of GDL files and their fates
  (``fuzz``);
* :mod:`~reasoner.workshop.corpus_sweep`: every file of a folder loaded and played, or
  instantiated, with its fate (``sweep``);
* :mod:`~reasoner.workshop.cluster_speed`: a corpus slice swept in one process and on a Ray
  cluster, and the cost of one task there (``bench-cluster``);
* :mod:`~reasoner.workshop.dataset`: positions for learning players (``dataset``).

The workshop uses the library and what every command shares (:mod:`reasoner.console`: the
error contract, the options' domains, progress lines, and the client's players through
:mod:`reasoner.console.players`); nothing in the library or the user commands imports it
but :mod:`reasoner.cli.app`, which registers its commands.
"""
