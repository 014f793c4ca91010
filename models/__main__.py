"""`python -m models`: see `models.cli`."""

import sys

from models.cli import main

sys.exit(main())
