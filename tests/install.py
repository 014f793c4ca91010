"""`pip install ARGS` into the running venv, with a progress line as it goes (the Makefile's).

pip is quiet or floods; this prints one line per package collected, as `n of total`, the
total from a dry run's report, and while pip installs (one long step), a line every
PROGRESS_SECONDS, so a first `make` is never silent for long. pip's own output is shown
only when it fails. Standard library only: it runs before the venv has anything else.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROGRESS_SECONDS = 5.0


def main(args: list[str]) -> int:
    pip = [sys.executable, "-m", "pip", "install", "--progress-bar", "off"]
    stage = [f"resolving {' '.join(args)}"]
    began = time.monotonic()
    done = threading.Event()

    def heartbeat() -> None:
        while not done.wait(PROGRESS_SECONDS):
            print(f"install: {stage[0]}, {time.monotonic() - began:.0f}s", flush=True)

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        return _install(pip, args, stage, began)
    finally:
        done.set()
        beat.join()


def _install(pip: list[str], args: list[str], stage: list[str], began: float) -> int:
    print(f"install: {stage[0]}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        dry = subprocess.run(
            [*pip, "--quiet", "--dry-run", "--report", str(report), *args],
            capture_output=True,
            text=True,
        )
        if dry.returncode != 0:
            sys.stdout.write(dry.stdout + dry.stderr)
            return dry.returncode
        total = len(json.loads(report.read_text())["install"])
    packages = f"{total} package" + ("" if total == 1 else "s")
    stage[0] = f"preparing to install {packages}"
    child = subprocess.Popen(
        [*pip, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert child.stdout is not None
    lines: list[str] = []
    collected = 0
    for line in child.stdout:
        lines.append(line)
        if line.startswith("Collecting "):
            collected += 1
            name = line.split()[1]
            print(f"install: {collected} of {total} packages collected ({name})", flush=True)
            stage[0] = f"collecting, {collected} of {total} packages"
        elif line.startswith("Installing collected packages"):
            stage[0] = f"installing {packages}"
            print(f"install: {stage[0]}", flush=True)
    status = child.wait()
    if status != 0:
        sys.stdout.write("".join(lines))
        return status
    print(f"install: {packages} installed in {time.monotonic() - began:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
