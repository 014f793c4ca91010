"""The production library: hand-written ports of the three seeds.

`impl` stands alone. It never imports `models` or `conformance`; a test holds
that line, because conformance means something only while the model and the
implementation are written apart. The public names are fixed by
`docs/api.md` (see the README). The package ships `py.typed`, so a user's
`mypy --strict` checks against these annotations.
"""

from . import duplex, mode, waves

__all__ = ["duplex", "mode", "waves"]
