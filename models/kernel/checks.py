"""Every check a spec gets, run through the engines and cross-checked.

The basis of a verdict (issue 16 §3). On a model whose domains are all
finite, the explorer's breadth-first search visits the complete reachable
set, so its answer is a proof for every trace length, as TLC's and SPIN's
are: an `always`/`never` (or a structural case: determinism, totality, no
deadlock, absorbing terminal states) holding on every reachable state is
`proved`, basis `exhaustive`, with the state count. z3 is still asked for an
inductive certificate (Spacer's invariant, re-checked and printed; k-induction
the fallback, or the primary on request), within the certificate budget; if
it gives up, the verdict stays proved, "no certificate within budget". If z3
answers the other way, the engines disagree: a kernel bug, `unknown`. On a
spec with a real variable the explorer only samples it, so z3 is the prover
(basis `certificate`) and BMC searches where the explorer cannot decide.

A `sometimes` witness, or a counterexample, is the explorer's breadth-first
path (shortest by construction), confirmed by z3 step by step against T
(basis `trace`). On a finite model a confirmation z3 cannot finish within its
budget leaves the explorer's verdict standing and says so; a confirmation z3
refuses is a disagreement. Also free: every row fires, vacuity, and the
explorer's reachable set equals z3's (on a seeded sample of states for big
specs, basis `cross-check`). A z3 limit on a spec with a real variable is an
`unknown` verdict naming the engine and the reason, never an exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Literal

from .domains import Real
from .explore import Exploration
from .explore import explore
from .expr import FALSE
from .expr import And
from .expr import Enabled
from .expr import Expr
from .expr import Not
from .expr import Or
from .expr import SeqOp
from .expr import eq
from .expr import nxt
from .expr import partial
from .expr import var
from .expr import walk
from .liveness import Graph
from .liveness import check_liveness
from .printer import show
from .smt import FULL_SET_CHECK_UP_TO
from .smt import GAVE_UP
from .smt import QUERY_TIMEOUT_MS
from .smt import Budget
from .smt import Encoding
from .smt import Engines
from .smt import Found
from .smt import Proved
from .smt import SetCheck
from .smt import SolverLimit
from .smt import Unknown
from .smt import Verdict
from .smt import check_reachable_sample
from .smt import check_reachable_set
from .smt import finite_key
from .smt import gave_up
from .smt import sample_states
from .spec import Kind
from .spec import Liveness
from .spec import Property
from .spec import Spec
from .spec import bind
from .trace import Trace
from .trace import plural
from .vacuity import premises
from .vacuity import vacuous

DEFAULT_TIMEOUT = QUERY_TIMEOUT_MS / 1000  # seconds of z3 per check (`verify --timeout`)
# Seconds of z3 per check for an optional certificate on a finite model (`verify
# --certificates`); README "Verdicts and their basis" gives the measurement behind it.
DEFAULT_CERTIFICATE_BUDGET = 0.1

VerdictName = Literal["proved", "witnessed", "violated", "unknown"]
Expectation = Literal["hold", "violate"]
Method = Literal["spacer", "k-induction"]
# What a verdict rests on: the explorer's complete search of a finite model; z3's inductive
# certificate (a spec with a real variable); a trace; the two engines side by side; or the
# explorer's search on a real variable's samples (a row that never fires there, say).
Basis = Literal["exhaustive", "certificate", "trace", "cross-check", "sampled"]


@dataclass(frozen=True)
class Head:
    """What a check is, before it is run."""

    id: str
    kind: str
    cite: str
    expected: Expectation = "hold"


@dataclass(frozen=True, kw_only=True)
class CheckResult(Head):
    """A check run: its head (positional, as `Head`) and what came of it."""

    verdict: VerdictName
    method: str
    bound: int | None
    seconds: float
    certificate: str | None
    trace: Trace | None = None
    detail: str = ""
    basis: Basis = "certificate"
    states: int | None = None  # the states an exhaustive basis searched
    basis_text: str = ""  # the basis in words: "exhaustive search, 1,568 states, …"
    loop: int | None = None  # a lasso's trace: its last state is its state `loop` again

    @property
    def ok(self) -> bool:
        if self.expected == "violate":
            return self.verdict == "violated"
        return self.verdict in ("proved", "witnessed")


def _engines(proofs: Sequence[Proved]) -> str:
    """A structural check's method: every engine that proved one of its cases (a case Spacer
    gives up on falls back to k-induction), Spacer first; with no case left after k=0,
    k-induction at k=0."""
    used = {p.method for p in proofs} or {"k-induction"}
    return ", ".join(sorted(used, key=lambda m: (m != "spacer", m)))


def _result(
    head: Head,
    verdict: VerdictName,
    method: str,
    bound: int | None,
    *,
    certificate: str | None = None,
    trace: Trace | None = None,
    detail: str = "",
    basis: Basis = "certificate",
    states: int | None = None,
    basis_text: str = "",
    loop: int | None = None,
) -> CheckResult:
    if verdict == "unknown":
        basis_text = basis_text or "none: no engine decided it"
    if not basis_text:
        basis_text = {
            "certificate": "z3 certificate" if certificate else "z3",
            "trace": "" if trace is None else f"trace of {plural(len(trace), 'step')}",
            "cross-check": "z3 and the explorer side by side",
            "exhaustive": f"exhaustive search, {states or 0:,} states",
            "sampled": f"the explorer's search, {states or 0:,} states on the real samples",
        }[basis]
    return CheckResult(
        head.id,
        head.kind,
        head.cite,
        head.expected,
        verdict=verdict,
        method=method,
        bound=bound,
        seconds=0.0,
        certificate=certificate,
        trace=trace,
        detail=detail,
        basis=basis,
        states=states,
        basis_text=basis_text,
        loop=loop,
    )


@dataclass
class SpecReport:
    spec: Spec
    exploration: Exploration
    checks: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


Case = tuple[str, str, Expr]  # (what went wrong, trigger whose parameters it reads, bad state)


class Checker:
    """Runs the checks of one spec; `run()` yields results as they come."""

    def __init__(
        self,
        spec: Spec,
        *,
        method: Method = "spacer",
        max_k: int = 12,
        timeout: float = DEFAULT_TIMEOUT,
        certificates: float = DEFAULT_CERTIFICATE_BUDGET,
    ) -> None:
        self.spec = spec
        self.method = method
        self.max_k = max_k
        # The liveness checks read every edge: the search keeps them rather than redo them.
        self.graph = explore(spec, keep_moves=bool(spec.liveness))
        self._searched = False
        self.budget = Budget(timeout)  # restarted by `run` for every check
        # A finite model's certificate is optional: it gets its own, smaller budget, and a
        # fifth of it once z3 has given up on one check (the hard ones are all hard).
        self.certificate_budget = Budget(min(certificates, timeout))
        self.shrunk = False
        self.z3 = Engines(Encoding(spec), self.budget)
        # The explorer decides reachability on its own unless a real variable is sampled.
        self.sampled = any(isinstance(v.domain, Real) or not v.domain.is_finite for v in spec.vars)
        self.states = len(self.graph.states)
        # BMC looks as deep as the explorer's diameter, plus the step itself.
        self.depth = self.graph.diameter + 2
        self._live_graph: Graph | None = None

    # ------------------------------------------------------------ orchestration

    def _all(self) -> list[tuple[str, Callable[[], CheckResult]]]:
        checks: list[tuple[str, Callable[[], CheckResult]]] = [
            (p.name, lambda p=p: self.check_property(p))  # type: ignore[misc]
            for p in self.spec.properties
        ]
        checks += [
            (p.name, lambda p=p: self.check_live(p))  # type: ignore[misc]
            for p in self.spec.liveness
        ]
        if self.spec.expect_violated:
            return checks  # a faulty variant is run for its expected violations only
        checks.append(("determinism", self.check_determinism))
        if self.spec.totality == "explicit":
            checks.append(("totality", self.check_totality))
        if self.spec.check_deadlock:
            checks.append(("no-deadlock", self.check_deadlock))
        if any(self.spec.defined(r) is not None for r in self.spec.rows):
            checks.append(("well-defined", self.check_defined))
        if self.spec.terminal is not None:
            checks.append(("terminal-absorbing", self.check_terminal))
        checks += [
            ("rows-fire", self.check_rows),
            ("vacuity", self.check_vacuity),
            ("reachable-set", self.check_reachable_set),
        ]
        return checks

    def check_ids(self) -> list[str]:
        return [name for name, _ in self._all()]

    def run(self, only: str | None = None) -> Iterator[CheckResult]:
        for name, check in self._all():
            if only is None or only == name:
                started = time.perf_counter()
                self.budget.start()
                try:
                    result = check()
                except GAVE_UP as error:
                    result = self._gave_up(name, gave_up(error))
                yield replace(result, seconds=time.perf_counter() - started)

    def _gave_up(self, name: str, why: Unknown) -> CheckResult:
        """z3 gave up on a check: `unknown`, naming the engine, the check and the reason."""
        head = Head(name, "structural", "kernel")
        if name in {p.name for p in self.spec.properties}:
            p = self.spec.prop(name)
            expected: Expectation = "violate" if name in self.spec.expect_violated else "hold"
            head = Head(name, str(p.kind), p.cite, expected)
        detail = f"{why.method} gave up on {name}: {why.reason}"
        return _result(head, "unknown", why.method, None, detail=detail)

    # ------------------------------------------------------------ properties

    def check_property(self, p: Property) -> CheckResult:
        expected: Expectation = "violate" if p.name in self.spec.expect_violated else "hold"
        head = Head(p.name, str(p.kind), p.cite, expected)
        explorer_hit = self._explorer_hit(p.bad, p.over_steps)
        if not self.sampled:
            return self._exhaustive(head, p.bad, p.over_steps, explorer_hit, p.kind)
        if p.kind is Kind.SOMETIMES:
            if explorer_hit is not None:
                confirmed = self.z3.confirm(explorer_hit, p.pred, step=p.over_steps)
                if not isinstance(confirmed, Found):
                    return self._unknown(head, confirmed)
                return _result(
                    head,
                    "witnessed",
                    "bfs",
                    len(explorer_hit),
                    trace=explorer_hit,
                    detail=f"trace of {len(explorer_hit)} steps, each confirmed by z3",
                    basis="trace",
                )
            if self.sampled:
                # The explorer saw only the real variables' samples: BMC looks at every value.
                found = self.z3.bmc(p.pred, step=p.over_steps, max_depth=self.depth)
                if isinstance(found, Found):
                    return _result(
                        head,
                        "witnessed",
                        "bmc",
                        len(found.trace),
                        trace=found.trace,
                        detail=f"trace of {len(found.trace)} steps (the explorer's real samples "
                        "miss it)",
                        basis="trace",
                    )
            unreachable = self._prove(p.pred, p.over_steps)
            if isinstance(unreachable, Proved):
                result = _result(
                    head,
                    "violated",
                    unreachable.method,
                    unreachable.bound,
                    certificate=unreachable.certificate,
                    detail="never reachable: the certificate excludes it",
                )
                return self._agree(result, None, explorer_hit)
            return self._unknown(head, unreachable)
        if explorer_hit is not None:
            # The explorer's graph is complete, so a violation is certain: skip the proof
            # attempt; the explorer's shortest counterexample, confirmed step by step by z3.
            proof: Verdict = self.z3.confirm(explorer_hit, p.bad, step=p.over_steps)
        else:
            proof = self._prove(p.bad, p.over_steps)
        if isinstance(proof, Proved):
            result = _result(
                head, "proved", proof.method, proof.bound, certificate=proof.certificate
            )
            return self._agree(result, None, explorer_hit)
        if isinstance(proof, Found):
            result = _result(
                head, "violated", proof.method, len(proof.trace), trace=proof.trace, basis="trace"
            )
            return self._agree(result, proof.trace, explorer_hit)
        return self._unknown(head, proof)

    def check_live(self, p: Liveness) -> CheckResult:
        """A liveness property: the explorer's fair-cycle search (liveness.py) decides it.
        On a real variable's samples the search covers those samples only, and says so. One
        the spec does not promise (`promised=False`) is expected violated: its lasso is the
        witness."""
        broken = p.name in self.spec.expect_violated or not p.promised
        expected: Expectation = "violate" if broken else "hold"
        head = Head(p.name, str(p.kind), p.cite, expected)
        if self._live_graph is None:
            self._live_graph = Graph(self.graph)
        found = check_liveness(self._live_graph, p)
        fair = ", ".join(str(f) for f in self.spec.fairness_of(p))
        fairness = f"fairness: {fair}" if fair else "no fairness: a run may stop anywhere"
        basis: Basis = "sampled" if self.sampled else "exhaustive"
        searched = (
            f"the explorer's search on the real variables' samples, {self.states:,} states"
            if self.sampled
            else f"exhaustive search, {self.states:,} states"
        )
        if found.lasso is None:
            return _result(
                head,
                "proved",
                "scc",
                None,
                detail=("on the real variables' samples: " if self.sampled else "")
                + f"no fair cycle avoids it ({fairness})",
                basis=basis,
                states=self.states,
                basis_text=f"{searched}, no fair cycle avoids it",
            )
        lasso = found.lasso
        trace = lasso.trace
        back = (
            f"stutters forever at step {lasso.loop}"
            if lasso.loop == len(trace)
            else f"loop back to step {lasso.loop}"
        )
        return _result(
            head,
            "violated",
            "scc",
            len(trace),
            trace=trace,
            detail=f"lasso: {plural(lasso.loop, 'step')} of stem, then {back} ({fairness}; "
            + "; ".join(lasso.fairness or ("no constraint",))
            + ")",
            basis="trace",
            basis_text=f"lasso of {plural(len(trace), 'step')}, {back}, on "
            + (searched if self.sampled else f"the {searched}"),
            loop=lasso.loop,
        )

    # ------------------------------------------------------------ finite models

    def _exhaustive(
        self, head: Head, bad: Expr, step: bool, hit: Trace | None, kind: Kind = Kind.ALWAYS
    ) -> CheckResult:
        """A finite model: the explorer's complete search decides; z3 certifies or confirms.

        `hit` is the explorer's shortest path to `bad` (None: no reachable state or step is
        bad). For a `sometimes`, `bad` is the witness sought, so a hit is the good outcome."""
        found: VerdictName = "witnessed" if kind is Kind.SOMETIMES else "violated"
        missing: VerdictName = "violated" if kind is Kind.SOMETIMES else "proved"
        if hit is not None:
            return self._confirmed(head, found, hit, bad, step)
        proof = self._certify(bad, step)
        why = "never reachable: no reachable state or step is it" if kind is Kind.SOMETIMES else ""
        if isinstance(proof, Found):
            result = _result(head, missing, "bfs", None, basis="exhaustive", states=self.states)
            return self._agree(result, proof.trace, None)
        return self._on_search(head, missing, proof, detail=why)

    def _on_search(
        self, head: Head, verdict: VerdictName, proof: Verdict, *, detail: str = ""
    ) -> CheckResult:
        """`verdict`, on the explorer's complete search, with z3's certificate if it gave one."""
        if isinstance(proof, Proved):
            return _result(
                head,
                verdict,
                proof.method,
                proof.bound,
                certificate=proof.certificate,
                detail=detail,
                basis="exhaustive",
                states=self.states,
                basis_text=f"exhaustive search, {self.states:,} states, and a z3 certificate",
            )
        reason = proof.reason if isinstance(proof, Unknown) else ""
        note = f"no certificate within budget ({proof.method}: {reason})"
        return _result(
            head,
            verdict,
            "bfs",
            None,
            detail=f"{detail}; {note}" if detail else note,
            basis="exhaustive",
            states=self.states,
            basis_text=f"exhaustive search, {self.states:,} states, no certificate within budget",
        )

    def _certify(self, bad: Expr, step: bool, *, params_of: str | None = None) -> Verdict:
        """z3's unbounded answer on `bad` within the certificate budget (started afresh)."""
        self.z3.prepare()
        self.certificate_budget.start()
        self.z3.budget = self.certificate_budget
        try:
            proof = self._prove(bad, step, params_of=params_of)
        except GAVE_UP as error:
            proof = gave_up(error)
        finally:
            self.z3.budget = self.budget
        if isinstance(proof, Unknown):
            self._shrink()
        return proof

    def _shrink(self) -> None:
        """z3 gave up on a certificate: the spec's later checks get a fifth of the budget
        (enough for 0-induction and easy invariants; a hard one would cost it all)."""
        if not self.shrunk:
            self.shrunk = True
            self.certificate_budget = Budget(self.certificate_budget.seconds / 5)

    def _confirmed(
        self, head: Head, verdict: VerdictName, hit: Trace, bad: Expr, step: bool
    ) -> CheckResult:
        """The explorer's trace, confirmed by z3 step by step; on a finite model a
        confirmation past z3's budget leaves the trace standing, saying so."""
        steps = plural(len(hit), "step")
        try:
            confirmed = self.z3.confirm(hit, bad, step=step)
        except SolverLimit as limit:
            return _result(
                head,
                verdict,
                "bfs",
                len(hit),
                trace=hit,
                detail=f"trace of {steps}; z3 did not confirm it within budget ({limit.reason})",
                basis="trace",
                basis_text=f"trace of {steps} on the complete search, not confirmed by z3",
            )
        if not isinstance(confirmed, Found):
            return self._unknown(head, confirmed)
        return _result(
            head,
            verdict,
            "bfs",
            len(hit),
            trace=hit,
            detail=f"trace of {steps}, each confirmed by z3" if verdict == "witnessed" else "",
            basis="trace",
            basis_text=f"trace of {steps}, confirmed by z3",
        )

    def _prove(self, bad: Expr, step: bool, *, params_of: str | None = None) -> Verdict:
        """Unbounded: is `bad` unreachable? A reachable `bad` comes back as BMC's shortest trace."""
        if self.method == "k-induction":
            return self.z3.k_induction(Not(bad), step=step, max_k=self.max_k, params_of=params_of)
        if step and self.z3.no_bad_step(bad):
            return Proved(
                "k-induction", 0, "0-inductive: no step from any type-correct state breaks it"
            )
        verdict = self.z3.spacer(bad, step=step, params_of=params_of)
        if verdict is None:
            found = self.z3.bmc(bad, step=step, max_depth=self.depth, params_of=params_of)
            if isinstance(found, Found):
                return found
            return Unknown("spacer", "Spacer reaches it but BMC finds no trace within the diameter")
        if isinstance(verdict, Unknown):
            if self.z3.budget.deadline <= time.monotonic():
                # Spent: the fallback would only build its encoding before it gave up too.
                return Unknown(
                    "spacer, k-induction",
                    f"spacer: {verdict.reason}; k-induction: the check's budget of "
                    f"{self.z3.budget.seconds:g}s is spent",
                )
            fallback = self.z3.k_induction(
                Not(bad), step=step, max_k=self.max_k, params_of=params_of
            )
            if isinstance(fallback, Unknown):
                return Unknown(
                    "spacer, k-induction",
                    f"spacer: {verdict.reason}; k-induction: {fallback.reason}",
                )
            return fallback
        return verdict

    def _explorer_hit(self, bad: Expr, step: bool) -> Trace | None:
        g = self.graph
        if not self._searched:  # every property's search in two passes, not one pass each
            self._searched = True
            props = self.spec.properties
            g.prefetch(
                states=[p.bad for p in props if not p.over_steps],
                steps=[p.bad for p in props if p.over_steps],
            )
        if step:
            edge = g.first_edge(bad)
            return None if edge is None else g.path_through(edge)
        i = g.first_state(bad)
        return None if i is None else g.path_to(i)

    def _agree(
        self, result: CheckResult, z3_hit: Trace | None, explorer_hit: Trace | None
    ) -> CheckResult:
        """The explorer must reach the same verdict, with a trace of the same length."""
        if (z3_hit is None) == (explorer_hit is None) and (
            z3_hit is None or explorer_hit is None or len(z3_hit) == len(explorer_hit)
        ):
            return result

        def says(hit: Trace | None) -> str:
            return "nothing" if hit is None else f"a trace of {plural(len(hit), 'step')}"

        z3_says, bfs_says = says(z3_hit), says(explorer_hit)
        return replace(
            result,
            verdict="unknown",
            detail=f"z3 and the explorer disagree: z3 found {z3_says}, the explorer {bfs_says}"
            " (a kernel bug, or a real sample that misses a guard's boundary)",
            trace=z3_hit or explorer_hit,
        )

    @staticmethod
    def _unknown(head: Head, verdict: Verdict) -> CheckResult:
        reason = verdict.reason if isinstance(verdict, Unknown) else "no verdict"
        detail = f"{verdict.method} gave up on {head.id}: {reason}"
        return _result(head, "unknown", verdict.method, None, detail=detail)

    # ------------------------------------------------------------ structural

    def _over_cases(self, head: Head, cases: Sequence[Case]) -> CheckResult:
        if not self.sampled:
            return self._cases_exhaustive(head, cases)
        # Most cases fail in no type-correct state at all; only the rest need reachability.
        hard = [c for c in cases if not self.z3.impossible(c[2], params_of=c[1])]
        proofs: list[Proved] = []
        for what, trigger, bad in hard:
            verdict = self._prove(bad, False, params_of=trigger)
            if isinstance(verdict, Found):
                return _result(
                    head,
                    "violated",
                    verdict.method,
                    len(verdict.trace),
                    trace=verdict.trace,
                    detail=what,
                    basis="trace",
                )
            if isinstance(verdict, Unknown):
                return self._unknown(head, verdict)
            proofs.append(verdict)
        return _result(
            head,
            "proved",
            _engines(proofs),
            None if hard else 0,
            certificate=f"{len(cases) - len(hard)} of {plural(len(cases), 'case')} "
            f"{'holds' if len(cases) - len(hard) == 1 else 'hold'} in every state "
            f"(k=0), {len(hard)} on every reachable state",
        )

    def _cases_exhaustive(self, head: Head, cases: Sequence[Case]) -> CheckResult:
        """A finite model's structural cases, within one certificate budget for the check.

        z3 first settles the cases that fail in no type-correct state at all (k=0: a proof
        on its own, and cheap); the explorer looks for each of the rest on its complete
        set, and z3 is asked for their certificates while the budget lasts."""
        self.z3.prepare()
        self.certificate_budget.start()
        self.z3.budget = self.certificate_budget
        easy, hard, missing, proofs = 0, list[Case](), None, list[Proved]()
        try:
            for case in cases:
                if missing is None:
                    try:
                        if self.z3.impossible(case[2], params_of=case[1]):
                            easy += 1
                            continue
                    except GAVE_UP as error:
                        missing = gave_up(error)
                hard.append(case)
        finally:
            self.z3.budget = self.budget
        # One pass over the states for every case; the first case in order that is hit.
        hits = self.graph.first_states_with([(bad, trigger) for _, trigger, bad in hard])
        for (what, _, bad), found in zip(hard, hits, strict=True):
            if found is not None:
                i, arguments = found
                result = self._confirmed(
                    head, "violated", self.graph.path_to(i), bind(bad, arguments), False
                )
                return replace(result, detail="; ".join(filter(None, (what, result.detail))))
        self.z3.budget = self.certificate_budget
        try:
            for what, trigger, bad in hard if missing is None else ():
                proof = self._prove(bad, False, params_of=trigger)
                if isinstance(proof, Found):
                    result = _result(head, "proved", "bfs", None, basis="exhaustive")
                    agreed = self._agree(result, proof.trace, None)
                    return replace(agreed, detail=f"{what}: {agreed.detail}")
                if isinstance(proof, Unknown):
                    missing = proof
                    break
                proofs.append(proof)
        except GAVE_UP as error:
            missing = gave_up(error)
        finally:
            self.z3.budget = self.budget
        if missing is not None:
            self._shrink()
            return self._on_search(head, "proved", missing)
        certificate = (
            f"{easy} of {plural(len(cases), 'case')} {'holds' if easy == 1 else 'hold'} in "
            f"every state (k=0), {len(hard)} on every reachable state"
        )
        return self._on_search(
            head, "proved", Proved(_engines(proofs), None if hard else 0, certificate)
        )

    def check_determinism(self) -> CheckResult:
        cases: list[Case] = []
        for t in self.spec.triggers:
            rows = self.spec.rows_of(t.name)
            for i, a in enumerate(rows):
                for b in rows[i + 1 :]:
                    both = And((self.spec.step_guard(a), self.spec.step_guard(b)))
                    cases.append((f"rows {a.name!r} and {b.name!r} are both enabled", t.name, both))
        head = Head("determinism", "structural", "kernel: no two rows of one trigger at once")
        return self._over_cases(head, cases)

    def check_totality(self) -> CheckResult:
        cases: list[Case] = []
        for t in self.spec.triggers:
            rows = self.spec.rows_of(t.name)
            some = Or(tuple(self.spec.step_guard(r) for r in rows)) if rows else FALSE
            cases.append((f"no row or ignore of {t.name!r} is enabled", t.name, Not(some)))
        head = Head(
            "totality",
            "structural",
            "kernel: every trigger has a row or an ignore (totality: explicit)",
        )
        return self._over_cases(head, cases)

    def check_deadlock(self) -> CheckResult:
        live = self.spec.expand(Enabled(tuple(t.name for t in self.spec.triggers)))
        stuck = (
            And((Not(live), Not(self.spec.terminal)))
            if self.spec.terminal is not None
            else Not(live)
        )
        head = Head(
            "no-deadlock",
            "structural",
            "kernel: a non-ignore row is enabled in every non-terminal state "
            f"(totality: {self.spec.totality})",
        )
        what = "a reachable non-terminal state enables only ignore rows"
        return self._over_cases(head, [(what, self.spec.triggers[0].name, stuck)])

    def check_defined(self) -> CheckResult:
        """No reachable state lets a row's guard, or the updates of a row whose guard
        holds, take the head of an empty sequence, append to a full one, and so on."""
        cases: list[Case] = []
        for r in self.spec.rows:
            when = self.spec.defined(r)
            if when is not None:
                bad = And((self.spec.source_expr(r), Not(when)))
                parts = (r.guard, *r.updates.values(), *r.outputs.values())
                ops = sorted(
                    {
                        show(self.spec, n)
                        for e in parts
                        for n in walk(e)
                        if isinstance(n, SeqOp) and partial(n)
                    }
                )
                what = f"row {r.name!r} takes {' or '.join(ops)} where it is undefined"
                cases.append((what, r.trigger, bad))
        head = Head(
            "well-defined",
            "structural",
            "kernel: no step appends to a full sequence or reads past either end",
        )
        return self._over_cases(head, cases)

    def check_terminal(self) -> CheckResult:
        assert self.spec.terminal is not None
        stays = And(tuple(eq(nxt(v.name), var(v.name)) for v in self.spec.vars))
        moved = And((self.spec.terminal, Not(stays)))
        head = Head("terminal-absorbing", "structural", "kernel: terminal states are absorbing")
        explorer_hit = self._explorer_hit(moved, True)
        if not self.sampled:
            return self._exhaustive(head, moved, True, explorer_hit)
        verdict = self._prove(moved, True)
        if isinstance(verdict, Proved):
            result = _result(
                head, "proved", verdict.method, verdict.bound, certificate=verdict.certificate
            )
            return self._agree(result, None, explorer_hit)
        if isinstance(verdict, Found):
            result = _result(
                head,
                "violated",
                verdict.method,
                len(verdict.trace),
                trace=verdict.trace,
                basis="trace",
            )
            return self._agree(result, verdict.trace, explorer_hit)
        return self._unknown(head, verdict)

    def check_rows(self) -> CheckResult:
        fired = self.graph.row_witnesses()
        dead = [r.name for r in self.spec.rows if r.name not in fired]
        deepest = max((self.graph.depth[e.source] + 1 for e in fired.values()), default=0)
        head = Head("rows-fire", "structural", "kernel: every row (ignore rows too) can fire")
        if dead:
            return _result(
                head,
                "violated",
                "bfs",
                deepest,
                detail=f"rows that never fire: {', '.join(dead)}",
                basis="sampled" if self.sampled else "exhaustive",
                states=self.states,
            )
        return _result(
            head,
            "witnessed",
            "bfs",
            deepest,
            detail=f"all {len(self.spec.rows)} rows fire, the last first at step {deepest}",
            basis="trace",
            basis_text=f"a shortest trace through each of {plural(len(fired), 'row')}",
        )

    def check_vacuity(self) -> CheckResult:
        found = vacuous(self.spec, self.graph)
        count = len(premises(self.spec))
        head = Head(
            "vacuity", "structural", "kernel: every antecedent of an implication is reachable"
        )
        if found:
            return _result(
                head,
                "violated",
                "bfs",
                None,
                detail="; ".join(v.describe() for v in found),
                basis="sampled" if self.sampled else "exhaustive",
                states=self.states,
            )
        return _result(
            head,
            "proved",
            "bfs",
            self.graph.diameter,
            certificate=f"all {count} antecedents hold on some reachable state or step",
            basis="trace",
            basis_text=f"a reachable state or step for each of {plural(count, 'antecedent')}",
        )

    def check_reachable_set(self) -> CheckResult:
        g = self.graph
        head = Head("reachable-set", "structural", "kernel: z3 and the explorer agree")
        try:
            agreed = self._z3_set()
        except GAVE_UP as error:
            if self.sampled:
                raise
            return self._set_alone(head, gave_up(error).reason)
        if agreed.equal:
            return _result(
                head, "proved", "bfs", g.diameter, certificate=agreed.detail, basis="cross-check"
            )
        return _result(
            head,
            "unknown",
            "bfs",
            g.diameter,
            detail=f"z3 and the explorer disagree: {agreed.detail}",
            basis="cross-check",
        )

    def _set_alone(self, head: Head, reason: str) -> CheckResult:
        """A finite model's set stands on the explorer's search; z3 did not finish its side."""
        return _result(
            head,
            "proved",
            "bfs",
            self.graph.diameter,
            detail=f"z3 did not finish its side within budget ({reason})",
            basis="exhaustive",
            states=self.states,
            basis_text=f"exhaustive search, {self.states:,} states, not cross-checked by z3",
        )

    def _z3_set(self) -> SetCheck:
        """z3's reading of the explorer's set: all of it, or a seeded sample when big."""
        g = self.graph
        # Distinct apart from a real's samples: on a finite model, every state is.
        distinct = (
            len({finite_key(self.spec, g.as_dict(i)) for i in range(len(g.states))})
            if self.sampled
            else self.states
        )
        if distinct > FULL_SET_CHECK_UP_TO:
            # Too big for one disjunction of every state: a seeded sample, each sampled
            # state's successors enumerated by z3 against the explorer's.
            return self.z3_sample(sample_states(len(g.states)))
        tree = [(g.as_dict(e.source), g.step(e)) for e in g.parent if e is not None]
        return check_reachable_set(
            self.z3.enc, [g.as_dict(i) for i in range(len(g.states))], tree, self.budget
        )

    def z3_sample(self, chosen: Sequence[int]) -> SetCheck:
        g = self.graph
        initial = [g.as_dict(i) for i, d in enumerate(g.depth) if d == 0]
        sample = [(g.as_dict(i), [g.step(e) for e in g.successors(i)]) for i in chosen]
        return check_reachable_sample(self.z3.enc, initial, len(g.states), sample, self.budget)


def verify(
    spec: Spec,
    *,
    method: Method = "spacer",
    only: str | None = None,
    progress: Callable[[CheckResult], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    certificates: float = DEFAULT_CERTIFICATE_BUDGET,
) -> SpecReport:
    started = time.perf_counter()
    checker = Checker(spec, method=method, timeout=timeout, certificates=certificates)
    report = SpecReport(spec, checker.graph)
    for result in checker.run(only):
        report.checks.append(result)
        if progress is not None:
            progress(result)
    report.seconds = time.perf_counter() - started
    return report
