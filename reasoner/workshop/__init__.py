"""The workshop: the benchmarks, stress, fuzzing and sweeps that the project runs on itself,
apart from the library and the user commands. They stay commands of ``gdl-reasoner``:
:mod:`reasoner.cli.app` registers them from :mod:`reasoner.workshop.commands`."""
