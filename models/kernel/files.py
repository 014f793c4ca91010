"""Writing a file whole or not at all: what every output of the tools goes through.

`write_atomic` writes beside the target and renames over it, so an error or a
Ctrl-C leaves the old file (or none), never half of the new one, and no
temporary file behind. It follows a symbolic link to the file it names, so the
link stays a link. It refuses a target that is not a regular file (a device, a
FIFO, a socket): renaming over `/dev/null` would replace the device.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class NotRegular(OSError):
    """The target exists and is not a regular file; `strerror` says what it is."""


KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def kind(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def target(path: Path) -> Path:
    """The file a write to `path` lands in: a symbolic link's target; refused if not regular."""
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(path)  # through links: ELOOP for a loop
    except (FileNotFoundError, NotADirectoryError):
        return real  # created by the write (a dangling link's target too), or its parent refused
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(0, f"is {kind(info.st_mode)}, not a regular file", str(path))
    return real


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` to `path` whole or not at all (creating its directory)."""
    real = target(path)
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            # mkstemp makes the file 0600; a written file gets the usual mode, less the umask.
            os.fchmod(stream.fileno(), 0o666 & ~_umask())
            stream.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, real)
    except BaseException:  # an error or a Ctrl-C: no temporary file left behind
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
