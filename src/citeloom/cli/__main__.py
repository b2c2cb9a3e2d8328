"""``python -m citeloom.cli``."""

import sys

from citeloom.cli.main import main

sys.exit(main())
