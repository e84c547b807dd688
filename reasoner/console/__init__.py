"""What every command of ``gdl-reasoner`` shares, below both the user commands
(:mod:`reasoner.cli`) and the workshop's (:mod:`reasoner.workshop.commands`):

* :mod:`~reasoner.console.common`: exit statuses, the one error contract (a
  :class:`~reasoner.errors.ReasonerError` or a command's own failure becomes one line on
  stderr and an exit status), reading a game file, and the options several commands take;
* :mod:`~reasoner.console.numbers`: the numeric options' domains;
* :mod:`~reasoner.console.progress`: the running phase and its time on stderr;
* :mod:`~reasoner.console.players`: the client's players, matches and remote games, the one
  module of the command line that imports the client library (``client``).
"""
