"""The README's sample outputs, produced by the current code.

A sample is a fenced block right after a `<!-- sample -->` line; its first
line is the command (`$ python -m models …`), the rest is what the command
prints (standard output, then standard error). Timings differ run to run, so
they are compared as `…s`. `tests/test_readme.py` compares every sample;

    .venv/bin/python tests/readme_samples.py --update

rewrites them all from the current code (after a merge, say).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARK = "<!-- sample -->"
_BLOCK = re.compile(r"<!-- sample -->\n```\n(\$ [^\n]*)\n(.*?)```\n", re.S)
_TIME = re.compile(r"\b\d+\.\d+s\b")


@dataclass(frozen=True)
class Sample:
    command: str  # without the leading `$ `
    shown: str  # what the README shows
    span: tuple[int, int]  # of the output inside the README text


def samples(text: str) -> list[Sample]:
    found = [Sample(m.group(1)[2:], m.group(2), m.span(2)) for m in _BLOCK.finditer(text)]
    assert len(found) == text.count(MARK), "a <!-- sample --> line without a ``` block after it"
    return found


def produce(command: str) -> str:
    """What `command` prints now.

    Each runs in a fresh process: z3's answers (a Spacer invariant, say) are
    repeatable from a fresh start, not after other solving in the same process.
    """
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "models"], f"not a models command: {command}"
    done = subprocess.run(
        [sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    return done.stdout + done.stderr


def normal(text: str) -> str:
    return _TIME.sub("…s", text)


def update(text: str) -> str:
    for sample in reversed(samples(text)):
        start, end = sample.span
        text = text[:start] + produce(sample.command) + text[end:]
    return text


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {sys.argv[0]} --update   (rewrite the README's sample outputs)")
    README.write_text(update(README.read_text()))
    print(f"{README}: {len(samples(README.read_text()))} samples rewritten")
