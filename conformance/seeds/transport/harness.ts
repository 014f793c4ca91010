// Drives the UNMODIFIED seed transport.ts (copied beside this file at build time from
// SEEDS_DIR) one model step at a time, printing each step as a check-trace line of the `wave`
// model (models/wave.py). One process serves many walks: stdin has one JSON walk per line,
// {"init": {...}, "steps": [{"trigger", "args"}]}; stdout one {"log": [line, ...]} per walk
// (and, for an {"env": text} probe, the timeout PERK_WAVE_TIMEOUT_MS=text gives: probeEnv).
//
// The harness owns the seed's world: a scripted adapter whose every await is a promise the
// walk settles (resolve, reject, or never: "hang"), completions of the model's kinds,
// an AbortController, and a virtual clock (setTimeout/clearTimeout are replaced before the
// seed runs; Node's clamp of a delay below 1 ms or above 2^31-1 ms to 1 ms is kept, as
// docs/field-notes.md §11 says). A `deadline` step moves the clock to the next timer.
// From the ping's answer to the spawn call the seed never awaits; the model takes the
// re-check and the subscribe (with on_complete's answer) as steps of their own, so a ping
// answer is held back until the step that the seed then runs through ("in transit").

import * as readline from "node:readline";

// ------------------------------------------------------------------ the virtual clock

interface Timer {
  id: number;
  when: number;
  seq: number;
  fn: () => void;
}

let now = 0;
let seq = 0;
const timers = new Map<number, Timer>();

function clampDelay(delay: unknown): number {
  const after = Number(delay);
  return after >= 1 && after <= 2147483647 ? after : 1; // Node's clamp (NaN included)
}

const virtualSetTimeout = (fn: () => void, delay?: number): number => {
  seq += 1;
  timers.set(seq, { id: seq, when: now + clampDelay(delay), seq, fn });
  return seq;
};
const virtualClearTimeout = (id: unknown): void => {
  timers.delete(Number(id));
};
(globalThis as Record<string, unknown>).setTimeout = virtualSetTimeout;
(globalThis as Record<string, unknown>).clearTimeout = virtualClearTimeout;

// The seed is loaded only now, so that it sees the virtual clock.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const seed = require("./transport") as typeof import("./transport");
type Completion = import("./transport").WaveCompletion;
type Handle = import("./transport").WaveRunHandle;

function advance(): void {
  if (timers.size === 0) return;
  const next = [...timers.values()].reduce((a, b) =>
    a.when < b.when || (a.when === b.when && a.seq < b.seq) ? a : b,
  );
  now = Math.max(now, next.when);
  for (const t of [...timers.values()].sort((a, b) => a.when - b.when || a.seq - b.seq)) {
    if (t.when <= now && timers.has(t.id)) {
      timers.delete(t.id);
      t.fn();
    }
  }
}

async function drain(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

// ------------------------------------------------------------------ the model's vocabulary

const FLOW = "pr-review";
const HANDLE: Handle = { asyncId: "wave-async-7", asyncDir: "/runs/wave-async-7" };
const OTHER: Handle = { asyncId: "wave-async-8", asyncDir: "/runs/wave-async-8" };
const ARRAY = ["durable-row"];
const SCALAR = { not: "an array" };
const RETAINED = ["retained-row"];
const AGG_STATE: Record<string, string> = {
  COMPLETE: "complete",
  FAILED: "failed",
  PARTIAL: "partial",
  OTHER: "cancelled",
};
const REASON: Record<string, string> = {
  unavailable: "UNAVAILABLE",
  "spawn-failed": "SPAWN_FAILED",
  timeout: "TIMEOUT",
  cancelled: "CANCELLED",
  "run-failed": "RUN_FAILED",
  "aggregate-unreadable": "AGGREGATE_UNREADABLE",
};
const RECEIPT: Record<string, string> = {
  unavailable: "R_UNAVAILABLE",
  "spawn-failed": "R_SPAWN_FAILED",
  complete: "R_COMPLETE",
  failed: "R_FAILED",
  "timed-out": "R_TIMED_OUT",
  cancelled: "R_CANCELLED",
};
// A launch's timeout by the model's kind (wave-transport.md §5); several values per kind.
const TIMEOUTS: Record<string, (number | undefined)[]> = {
  GIVEN: [5000, 12.5],
  BELOW_ONE: [0, -5, NaN, Infinity, 0.25],
  HUGE: [1e10, 2 ** 31],
  DEFAULT: [undefined],
};
let launches = 0;
let answers = 0;

function completion(kind: string, n: number): Completion | null {
  if (kind === "NULL") return null;
  const foreign = [
    { asyncId: OTHER.asyncId, asyncDir: OTHER.asyncDir },
    { asyncDir: OTHER.asyncDir },
    {},
    { asyncId: OTHER.asyncId, state: "complete", success: true },
  ];
  const own = [
    { asyncId: HANDLE.asyncId, asyncDir: HANDLE.asyncDir },
    { asyncDir: HANDLE.asyncDir },
    { asyncId: HANDLE.asyncId },
    { asyncId: HANDLE.asyncId, asyncDir: OTHER.asyncDir },
  ];
  const shapes = kind === "FOREIGN" ? foreign : own;
  const base: Record<string, unknown> = {
    children: [{ key: kind, runId: `child-of-${kind.toLowerCase()}` }],
    ...shapes[n % shapes.length],
  };
  const extra: Record<string, Record<string, unknown>> = {
    OWN: { state: "complete", success: true },
    OWN_FAILED: { state: "failed", success: false },
    OWN_PARTIAL: {
      terminalOutcome: { state: "partial", reason: "timeout" },
      retainedEntries: RETAINED,
    },
    OWN_PARTIAL_BARE: {
      terminalOutcome: { state: "partial", reason: "budget_exhausted" },
      ...(n % 2 ? {} : { retainedEntries: [] }),
    },
    OWN_FAILED_PARTIAL: {
      state: "failed",
      success: false,
      terminalOutcome: { state: "partial", reason: "timeout" },
      retainedEntries: RETAINED,
    },
    OWN_NULL_OUTCOME: { state: "failed", terminalOutcome: null },
    OWN_BAD_OUTCOME: { terminalOutcome: n % 2 ? {} : "partial" },
  };
  return { ...base, ...(extra[kind] ?? {}) } as Completion;
}

function detailLine(detail: string): string {
  const f = FLOW.replace(/[-]/g, "\\-");
  const lines: [RegExp, string][] = [
    [new RegExp(`^wave '${f}' was cancelled before launch$`), "BEFORE_LAUNCH"],
    [/^subagent RPC ping failed: /, "PING_FAILED"],
    [/^pi-subagents did not advertise the report-wave capabilities /, "NOT_ADVERTISED"],
    [/^completion subscription failed: /, "SUBSCRIPTION_FAILED"],
    [/^wave spawn failed: /, "SPAWN_FAILED"],
    [new RegExp(`^wave '${f}' timed out after \\S+ms$`), "TIMED_OUT"],
    [new RegExp(`^wave '${f}' timed out after \\S+ms \\(stop failed: .*\\)$`), "TIMED_OUT_STOP_FAILED"],
    [new RegExp(`^wave '${f}' was cancelled$`), "WAS_CANCELLED"],
    [new RegExp(`^wave '${f}' was cancelled \\(stop failed: .*\\)$`), "WAS_CANCELLED_STOP_FAILED"],
    [/^wave aggregate unreadable: /, "UNREADABLE"],
    [/^wave run ended '[^']*' \(native partial: [^)]*\)/, "NATIVE_PARTIAL"],
    [/^wave run ended '/, "RUN_ENDED"],
  ];
  for (const [re, name] of lines) if (re.test(detail)) return name;
  return `unrecognised detail ${JSON.stringify(detail)}`;
}

function valueName(value: unknown): string {
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (value === undefined) return "NO_VALUE";
  if (same(value, ARRAY)) return "ARRAY";
  if (same(value, SCALAR)) return "SCALAR";
  if (same(value, RETAINED)) return "RETAINED";
  if (same(value, [])) return "EMPTY";
  return `unknown value ${JSON.stringify(value)}`;
}

// ------------------------------------------------------------------ one walk

type Outputs = Record<string, unknown>;
const NO_RESULT: Outputs = {
  result: "NO_RESULT",
  receipt: "NO_RECEIPT",
  ids: false,
  value: "NO_VALUE",
  detail: "NO_DETAIL",
  keyed: false,
};

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  hung: boolean;
}

class Walk {
  calls: string[] = [];
  pending = new Map<string, Pending>();
  handlers = new Map<number, (c: Completion) => void>();
  subscribeAnswer = "SUBSCRIBED";
  controller = new AbortController();
  started = false;
  transit: null | { phase: "RECHECK" | "SUBSCRIBE"; answer: unknown } = null;
  settled: Outputs | null = null;
  matched: string | null | undefined = undefined; // the receipt's children, once settled
  completions = 0;
  aggregates = 0;

  private park(call: string): Promise<never> {
    this.calls.push(call);
    return new Promise<never>((resolve, reject) => {
      this.pending.set(call, { resolve: resolve as (v: unknown) => void, reject, hung: false });
    });
  }

  answer(call: string, ok: boolean, value: unknown): void {
    const p = this.pending.get(call);
    if (p === undefined || p.hung) return;
    this.pending.delete(call);
    if (ok) p.resolve(value);
    else p.reject(value);
  }

  adapter: import("./transport").WaveAdapter = {
    ping: () => this.park("PING"),
    spawn: () => this.park("SPAWN"),
    stop: () => this.park("STOP"),
    readAggregate: () => this.park("READ"),
    onComplete: (handler) => {
      this.calls.push("SUBSCRIBE");
      if (this.subscribeAnswer === "RAISES") throw new Error("subscription refused");
      const key = this.calls.length;
      this.handlers.set(key, handler);
      const raises = this.subscribeAnswer === "UNSUBSCRIBE_RAISES";
      return () => {
        this.calls.push("UNSUBSCRIBE");
        this.handlers.delete(key);
        if (raises) throw new Error("unsubscribe failed");
      };
    },
  };

  private settle(outputs: Outputs): void {
    if (this.settled === null) this.settled = outputs;
  }

  private result(r: import("./transport").WaveScriptResult): void {
    const receipt = r.receipt;
    const ids =
      receipt.runId === undefined && receipt.asyncDir === undefined
        ? false
        : receipt.runId === HANDLE.asyncId && receipt.asyncDir === HANDLE.asyncDir
          ? true
          : `foreign ids ${JSON.stringify([receipt.runId, receipt.asyncDir])}`;
    const children = receipt.children;
    this.matched =
      children.length === 0
        ? null
        : children.length === 1 && typeof children[0].key === "string"
          ? children[0].key
          : `children ${JSON.stringify(children)}`;
    if (r.ok) {
      this.settle({ ...NO_RESULT, result: "OK", receipt: RECEIPT[receipt.state], ids, value: valueName(r.value) });
    } else {
      this.settle({
        result: REASON[r.failure.reason],
        receipt: RECEIPT[receipt.state],
        ids,
        value: valueName(r.value),
        detail: detailLine(r.failure.detail),
        keyed: r.failure.key !== null,
      });
    }
  }

  private rejected(): void {
    this.settle({ ...NO_RESULT, result: "REJECTED" });
  }

  launch(kind: string): void {
    if (this.started) return;
    this.started = true;
    const choices = TIMEOUTS[kind];
    const timeoutMs = choices[launches % choices.length];
    launches += 1;
    const spec = {
      flow: FLOW,
      workflowScript: "run()",
      outputSchema: { type: "object" },
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
    seed.startWaveScript(this.adapter, spec, this.controller.signal).then(
      (start) => {
        if (!start.ok) this.result({ ok: false, failure: start.failure, receipt: start.receipt });
        else start.result.then((r) => this.result(r), () => this.rejected());
      },
      () => this.rejected(),
    );
  }

  async step(trigger: string, args: Record<string, string>): Promise<Outputs> {
    const mark = this.calls.length;
    const wasSettled = this.settled !== null;
    await this.fire(trigger, args);
    await drain();
    const outputs: Outputs = { calls: this.calls.slice(mark), ...NO_RESULT };
    if (!wasSettled && this.settled !== null && this.transit === null) Object.assign(outputs, this.settled);
    return outputs;
  }

  private async fire(trigger: string, args: Record<string, string>): Promise<void> {
    const inTransit = this.transit !== null;
    switch (trigger) {
      case "launch":
        this.launch(args.timeout);
        return;
      case "ping_replies": {
        answers += 1;
        const a = args.answer;
        if (inTransit || !this.pending.has("PING")) return; // answered already (held back)
        if (a === "RAISES") this.answer("PING", false, new Error("rpc down"));
        else if (a === "NULL") this.answer("PING", true, null);
        else {
          const value = a === "ADVERTISED" ? { asyncCompleteEvent: "subagent:done" } : answers % 2 ? {} : "pong";
          this.transit = { phase: "RECHECK", answer: value }; // held back: see the header
        }
        return;
      }
      case "recheck":
        if (this.transit?.phase === "RECHECK") {
          if (this.controller.signal.aborted) {
            const value = this.transit.answer;
            this.transit = null;
            this.answer("PING", true, value); // the seed refuses at F3
          } else this.transit = { phase: "SUBSCRIBE", answer: this.transit.answer };
        }
        return;
      case "subscribe":
        if (this.transit?.phase === "SUBSCRIBE") {
          this.subscribeAnswer = args.answer;
          const value = this.transit.answer;
          this.transit = null;
          this.answer("PING", true, value); // F3, F4 and F5's call run in this step
        }
        return;
      case "spawn_replies": {
        answers += 1;
        const a = args.answer;
        if (a === "RAISES") this.answer("SPAWN", false, new Error("no capacity"));
        else this.answer("SPAWN", true, a === "HANDLE" ? HANDLE : a === "NULL" ? null : answers % 2 ? {} : HANDLE.asyncId);
        return;
      }
      case "stop_replies":
        this.answer("STOP", args.answer === "RETURNS", args.answer === "RETURNS" ? undefined : new Error("stop refused"));
        return;
      case "read_replies": {
        if (!this.pending.has("READ") || this.pending.get("READ")?.hung) return;
        this.aggregates += 1;
        const state = AGG_STATE[args.state];
        const aggregate: Record<string, unknown> = { state };
        if (args.value === "ARRAY") aggregate.value = ARRAY;
        if (args.value === "SCALAR") aggregate.value = SCALAR;
        if (state !== "complete" && this.aggregates % 2) aggregate.error = "lane 3 crashed";
        this.answer("READ", true, aggregate);
        return;
      }
      case "read_fails":
        if (args.how === "RAISES") this.answer("READ", false, new Error("status.json is corrupt"));
        else this.answer("READ", true, null); // not an aggregate at all
        return;
      case "abort":
        if (!inTransit) this.controller.abort();
        return;
      case "completion": {
        if (inTransit) return;
        this.completions += 1;
        const c = completion(args.of, this.completions);
        for (const h of [...this.handlers.values()]) {
          try {
            h(c as Completion);
          } catch {
            // the seed's handler throwing (matchesHandle(null)) is the adapter's to catch
          }
        }
        return;
      }
      case "cancel":
        return; // JS has no task cancellation (wave:seed ignores it)
      case "hang":
        for (const call of ["STOP", "READ"]) {
          const p = this.pending.get(call);
          if (p !== undefined) p.hung = true;
        }
        return;
      case "deadline":
        if (!inTransit) advance();
        return;
      default:
        throw new Error(`unknown trigger ${trigger}`);
    }
  }

  observe(): Record<string, unknown> {
    const live = this.handlers.size;
    const state: Record<string, unknown> = { subscribed: live === 1 ? true : live === 0 ? false : `${live} subscriptions` };
    if (this.settled !== null && this.matched !== undefined) state.matched = this.matched;
    return state;
  }
}

async function runWalk(walk: { steps: { trigger: string; args?: Record<string, string> }[] }): Promise<unknown[]> {
  now = 0;
  timers.clear();
  const w = new Walk();
  const log: unknown[] = [{ init: w.observe() }];
  for (const s of walk.steps) {
    const args = s.args ?? {};
    const outputs = await w.step(s.trigger, args);
    log.push({ trigger: s.trigger, args, outputs, state: w.observe() });
  }
  return log;
}

// An environment probe, {"env": text | null}: the timeout a launch without spec.timeoutMs
// gives the spawn under PERK_WAVE_TIMEOUT_MS=text (wave-transport.md §5).
async function probeEnv(text: string | null): Promise<number> {
  if (text === null) delete process.env.PERK_WAVE_TIMEOUT_MS;
  else process.env.PERK_WAVE_TIMEOUT_MS = text;
  let timeoutMs = NaN;
  const adapter: import("./transport").WaveAdapter = {
    ping: async () => ({ asyncCompleteEvent: "e" }),
    onComplete: () => () => undefined,
    spawn: async (params) => {
      timeoutMs = params.timeoutMs;
      throw new Error("probe only");
    },
    stop: async () => undefined,
    readAggregate: async () => ({ state: "complete", value: [] }),
  };
  await seed.startWaveScript(adapter, { flow: FLOW, workflowScript: "s", outputSchema: {} });
  delete process.env.PERK_WAVE_TIMEOUT_MS;
  return timeoutMs;
}

async function main(): Promise<void> {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const request = JSON.parse(line);
    if ("env" in request) {
      process.stdout.write(JSON.stringify({ timeout_ms: await probeEnv(request.env) }) + "\n");
      continue;
    }
    const log = await runWalk(request);
    process.stdout.write(JSON.stringify({ log }) + "\n");
  }
}

process.on("unhandledRejection", () => {
  // a rejected `result` nobody awaits is the seed's KB8; the walk has recorded it
});

main().catch((error: unknown) => {
  process.stderr.write(`harness: ${String(error)}\n`);
  process.exit(2);
});
