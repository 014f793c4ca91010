"""`python -m models`: see `models.cli.main`. After a plain `pip install statecheck`
(the `impl` library alone) the verifier's dependencies are missing: say which extra to
install, in one line, instead of an ImportError."""

import importlib.util
import sys

# The `verify` extra (pyproject.toml): z3, transitions, graphviz and hypothesis.
NEEDED = {"z3": "z3-solver", "transitions": "transitions", "graphviz": "graphviz"}
missing = [
    package for module, package in NEEDED.items() if importlib.util.find_spec(module) is None
]
if missing:
    print(
        f"error: python -m models needs {', '.join(missing)}: "
        "pip install 'statecheck[verify]' (a plain install is the impl library alone)",
        file=sys.stderr,
    )
    sys.exit(2)

from models.cli.kit import collect_less  # noqa: E402 (after the check above)
from models.cli.main import main  # noqa: E402

collect_less()
sys.exit(main())
