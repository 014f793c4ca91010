"""impl.mode's PolicyCell under real threads (policy-take.md §4, runtime D28).

Four gates (reader threads) read the policy in force while the driver loop
runs waves: during each wave a decoy policy (an experiment) arrives and is
overridden by the wave's successor, then the next wave takes it. Each gate
does `50 × max_examples` reads of the loaded hypothesis profile (100,000
under `thorough`, 10,000 under `ci`), and more until MIN_WAVES waves have run.
After each decoy arrives the writer waits until a read began after it, so
every wave is read between its two arrivals whatever the scheduler does: the
run's teeth do not depend on the machine's speed or load.

A wave boundary is published like a seqlock: the writer makes a counter odd
before `take_at_wave` and even after it, so a read bracketed by the same even
value belongs to that wave. Checked: every read is a policy that was in
force, and all the reads of one wave, across the four gates, are one policy,
the one its take put in force, though two arrivals came in the middle. A
cell that lets an arrival through at once is caught by the same run.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from hypothesis import settings

import impl.mode as i
from conformance.drivers.policy import ALL_POLICIES
from conformance.drivers.policy import START

GATES = 4
MIN_WAVES = 50  # the gates read until the writer has run this many waves
ORDINARY = [p for p in ALL_POLICIES if p.landing is i.LandingPolicy.ORDINARY]
DECOYS = [p for p in ALL_POLICIES if p.landing is i.LandingPolicy.EXPERIMENT]


@dataclass(frozen=True)
class Run:
    taken: list[i.RunPolicy]  # taken[w]: the policy wave w runs under
    by_wave: dict[int, set[i.RunPolicy]]  # what the gates' calls of wave w read
    reads: list[int]  # reads attributed to a wave, per gate

    @property
    def decoys_read(self) -> set[i.RunPolicy]:
        return {p for ps in self.by_wave.values() for p in ps} - set(self.taken)

    @property
    def mixed(self) -> dict[int, set[i.RunPolicy]]:
        return {w: ps for w, ps in self.by_wave.items() if ps != {self.taken[w]}}


def run_waves(cell: i.PolicyCell, reads_per_gate: int) -> Run:
    rng = random.Random(11)
    taken = [START]
    boundary = [0]  # even 2w: wave w runs; odd: a take is under way
    per_gate: list[list[tuple[int, i.RunPolicy]]] = [[] for _ in range(GATES)]
    done = [0] * GATES  # reads finished, per gate (each written by its own gate only)
    remaining = [GATES]
    lock = threading.Lock()
    all_read = threading.Event()

    def gate(g: int) -> None:
        reader = cell.reader()
        into = per_gate[g]
        while done[g] < reads_per_gate or len(taken) <= MIN_WAVES:
            before = boundary[0]
            now = reader.now()
            if before == boundary[0] and before % 2 == 0:
                into.append((before // 2, now))  # a call of wave `before // 2`
            done[g] += 1
            time.sleep(0)  # hand the GIL on, so the writer is not starved
        with lock:
            remaining[0] -= 1
            if remaining[0] == 0:
                all_read.set()

    def a_read_after(seen: list[int]) -> None:
        """Wait until some gate has finished two reads since `seen`: its second one began
        after this point, so each wave has a read that sees the decoy's arrival."""
        while not all_read.is_set() and all(d < s + 2 for d, s in zip(done, seen, strict=True)):
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch often, so reads interleave with arrivals and takes
    threads = [threading.Thread(target=gate, args=(g,)) for g in range(GATES)]
    try:
        for thread in threads:
            thread.start()
        while not all_read.is_set():
            nxt = rng.choice([p for p in ORDINARY if p != taken[-1]])
            cell.arrive(rng.choice(DECOYS))  # mid-wave: must not reach this wave's calls
            a_read_after(list(done))
            cell.arrive(nxt)
            time.sleep(0)
            boundary[0] += 1  # the wave is over: a take is under way
            assert cell.take_at_wave() is nxt
            taken.append(nxt)
            boundary[0] += 1  # wave len(taken) - 1 runs under `nxt`
    finally:
        for thread in threads:
            thread.join()
        sys.setswitchinterval(interval)
    by_wave: dict[int, set[i.RunPolicy]] = defaultdict(set)
    for gate_reads in per_gate:
        for wave, policy in gate_reads:
            by_wave[wave].add(policy)
    return Run(taken, dict(by_wave), [len(g) for g in per_gate])


def test_each_wave_reads_one_policy_the_one_in_force() -> None:
    reads = 50 * settings().max_examples  # the loaded profile's
    run = run_waves(i.PolicyCell(START), reads)
    assert not run.decoys_read, "a gate read a policy that was never in force"
    assert not run.mixed, f"waves whose calls read another policy than their own: {run.mixed}"
    # The run had teeth: many waves, each with a read after its decoy arrived.
    assert len(run.taken) > MIN_WAVES, f"only {len(run.taken)} waves"
    assert len(run.by_wave) > MIN_WAVES, f"only {len(run.by_wave)} waves were read"


class EagerCell(i.PolicyCell):
    """The historical bug (policy:eager-reading): an arrival is in force at once."""

    def arrive(self, policy: i.RunPolicy) -> None:
        super().arrive(policy)
        self._in_force = policy


def test_the_same_run_catches_a_cell_that_lets_arrivals_through() -> None:
    run = run_waves(EagerCell(START), 2_000)
    assert run.decoys_read and run.mixed
