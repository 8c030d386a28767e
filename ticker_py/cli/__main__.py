"""``python -m ticker_py.cli``: the ``ticker`` command."""

import sys

from . import main

sys.exit(main())
