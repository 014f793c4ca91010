"""check-trace streams its log: memory does not grow with the log's length (issue 20 §10).

Measured as a ratio, never a time: the peak resident memory of `check-trace` on a log of
40,000 steps (about 7 MB) against one of 2,000 (about 0.4 MB), each in its own process.
Reading the whole log first took 19× the file; streaming adds well under half of the
extra size. `make bench` measures the 50 MB figure (tests/bench.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from logs import duplex_log
from logs import peak_mb


def test_check_trace_memory_does_not_grow_with_the_log(tmp_path: Path) -> None:
    runs = {}
    for steps in (2_000, 40_000):
        log = duplex_log(tmp_path / f"{steps}.jsonl", steps)
        peak, code = peak_mb([sys.executable, "-m", "models", "check-trace", "duplex", str(log)])
        assert code == 0
        runs[steps] = (log.stat().st_size / 2**20, peak)
    (small_mb, small_peak), (big_mb, big_peak) = runs.values()
    assert big_mb - small_mb > 5  # the logs differ by megabytes
    assert big_peak - small_peak < 0.5 * (big_mb - small_mb), runs
