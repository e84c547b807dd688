"""``python -m reasoner.cli``: the ``gdl-reasoner`` command line."""

import sys

from reasoner.cli.app import main

sys.exit(main())
