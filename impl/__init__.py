"""The production library: hand-written ports of the three seeds, and of the two
parties around the duplex channel that docs/duplex-d1.md §7-8 specify (`ecc`, `edge`).

`impl` stands alone. It never imports `models` or `conformance`; a test holds
that line, because conformance means something only while the model and the
implementation are written apart. The public names are fixed by
`docs/api.md` (see the README). The package ships `py.typed`, so a user's
`mypy --strict` checks against these annotations.
"""

from . import duplex
from . import ecc
from . import edge
from . import mode
from . import waves

__all__ = ["duplex", "ecc", "edge", "mode", "waves"]
