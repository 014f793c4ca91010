"""`write_atomic` (models/kernel/files.py): whole or nothing, beside the target, as an
ordinary file would be written.

What the tools' users see of it (a refused device, no file left by a failed write) is in
test_bad_input.py and test_interrupt.py; these are the contract's details underneath.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from models.kernel.files import NotRegular
from models.kernel.files import kind
from models.kernel.files import write_atomic


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_written_file_gets_the_usual_mode_less_the_umask(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "out.txt"
    write_atomic(path, "text")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert os.umask(0o022) == 0o022  # the umask read is the umask left


def test_bytes_are_written_as_they_are_and_missing_folders_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "picture.png"
    write_atomic(path, b"\x89PNG\x00\xff")
    assert path.read_bytes() == b"\x89PNG\x00\xff"


def test_the_temporary_file_is_hidden_beside_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Path] = []
    rename = os.replace

    def watch(src: str, dst: Path) -> None:
        seen.append(Path(src))
        rename(src, dst)

    monkeypatch.setattr("models.kernel.files.os.replace", watch)
    path = tmp_path / "verdict.json"
    write_atomic(path, "{}")
    [tmp] = seen
    # Beside it, so the rename stays on one file system; a dot file, so no glob picks it up.
    assert tmp.parent == tmp_path
    assert tmp.name.startswith(".verdict.json.") and tmp.name.endswith(".tmp")
    assert sorted(tmp_path.iterdir()) == [path] and path.read_text() == "{}"


def test_a_ctrl_c_just_after_the_rename_is_still_a_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rename = os.replace

    def then_interrupted(src: str, dst: Path) -> None:
        rename(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr("models.kernel.files.os.replace", then_interrupted)
    path = tmp_path / "out.txt"
    with pytest.raises(KeyboardInterrupt):  # not the cleanup's FileNotFoundError
        write_atomic(path, "new")
    assert sorted(tmp_path.iterdir()) == [path] and path.read_text() == "new"


def test_a_fifo_is_refused_naming_the_file_and_what_it_is(tmp_path: Path) -> None:
    # A FIFO of its own, never a real device: a broken check would rename over it.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular) as refused:
        write_atomic(fifo, "x")
    assert refused.value.filename == str(fifo)
    assert refused.value.strerror == "is a FIFO, not a regular file"
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and sorted(tmp_path.iterdir()) == [fifo]


def test_a_file_type_without_a_name_is_not_a_regular_file() -> None:
    assert kind(stat.S_IFCHR | 0o666) == "a character device"
    assert kind(stat.S_IFLNK | 0o777) == "not a regular file"
