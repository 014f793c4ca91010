"""`python -m models`: see `models.cli.main`."""

import sys

from models.cli.main import main

sys.exit(main())
