"""The workshop's commands of ``gdl-reasoner``, one module per command (each with its
``register``); :mod:`reasoner.cli.app` registers them."""
