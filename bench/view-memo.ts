/**
 * core's per-thread `ViewMemo` (issue 16): CPU per model call of a view cut from the memo against
 * `selectView` from scratch, and the memory the memo holds per stored message.
 *
 *   pnpm tsx bench/view-memo.ts                   # 1k, 10k, 50k messages
 *   pnpm tsx bench/view-memo.ts --sizes 1000,10000 --calls 30 --json
 *
 * Method: a LoCoMo thread (bench/support/locomo.ts) cut at each size; each call gets FRESH message
 * objects (same ids) plus 2 new messages, as a checkpointer hands the thread back; building them is
 * not timed. Timed (CPU, `process.cpuUsage`, median over calls after 3 warm-up calls): for the memo,
 * `memo.index(thread, messages)` and `selectIndexedView`; from scratch, `selectView`. Two cuts: a
 * 20-message window (sliding, message counts) and an 8,000-token cap with chunked eviction
 * (js-tiktoken o200k_base through core's cached counter). Memory: heap used after a full GC with the
 * memo holding one thread of each size, minus the heap before, per message; next to the memo's own
 * estimate (`estimatedBytes`).
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createTokenCounter, type MessageGroup, selectIndexedView, selectView, ViewMemo } from "@threadwise/core";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, locomoThread } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const cli = benchArgs(LOCOMO_PATH, { sizes: { type: "string", default: "1000,10000,50000" }, calls: { type: "string", default: "20" } });
const SIZES = String(cli.values.sizes).split(",").map(Number);
const CALLS = Number(cli.values.calls);
const WARMUP = 3;

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const specs = locomoThread(Math.max(...SIZES) + 2 * (WARMUP + CALLS) + 4, cli.data);
const materialize = (n: number): BaseMessage[] =>
  specs
    .slice(0, n)
    .map((s) =>
      s.type === "human" ? new HumanMessage({ id: s.id, content: s.content }) : new AIMessage({ id: s.id, content: s.content }),
    );

const counter = createTokenCounter({ encoding: "o200k_base" });
const tokens = (group: MessageGroup) => counter.countMessages(group.messages);
const count = (group: MessageGroup) => group.messages.length;

interface Row {
  size: number;
  cut: string;
  memoMs: number;
  scratchMs: number;
}

function time(run: (messages: BaseMessage[], call: number) => void, size: number): number {
  const times: number[] = [];
  for (let call = 0; call < WARMUP + CALLS; call += 1) {
    const messages = materialize(size + 2 * call);
    collectGarbage();
    const c0 = cpuNow();
    run(messages, call);
    if (call >= WARMUP) times.push(cpuNow() - c0);
  }
  return median(times);
}

const rows: Row[] = [];
const cuts = [
  { cut: "window 20 messages (sliding)", options: { cost: count, limit: 20, costKey: "messages" } },
  { cut: "8,000 tokens (chunked)", options: { cost: tokens, limit: 8000, eviction: "chunked" as const, costKey: "tokens" } },
];
console.log(`machine: ${machineLine()}; ${CALLS} timed calls after ${WARMUP} warm-up`);
for (const size of SIZES) {
  for (const { cut, options } of cuts) {
    const memo = new ViewMemo();
    const memoMs = time((messages) => selectIndexedView(memo.index("t", messages), options), size);
    const scratchMs = time((messages) => selectView(messages, options), size);
    rows.push({ size, cut, memoMs, scratchMs });
    console.log(
      `${String(size).padStart(6)} msgs  ${cut.padEnd(30)} memo ${memoMs.toFixed(3)} ms/call  from scratch ${scratchMs.toFixed(3)} ms/call`,
    );
  }
}

// Memory held per message: one memo, one thread per size, token costs cached. A WeakRef's target
// stays alive until the current job ends: let it end before each collection.
await new Promise((done) => setTimeout(done, 10));
collectGarbage();
const before = process.memoryUsage().heapUsed;
const memo = new ViewMemo();
for (const size of SIZES) memo.index(`t${size}`, materialize(size)).costPrefix("tokens", tokens);
await new Promise((done) => setTimeout(done, 10));
collectGarbage();
const held = process.memoryUsage().heapUsed - before;
const messages = SIZES.reduce((a, b) => a + b, 0);
const memory = { messages, heapBytesPerMessage: held / messages, estimatedBytesPerMessage: memo.estimatedBytes / messages };
console.log(
  `memory: ${memory.heapBytesPerMessage.toFixed(0)} bytes per message measured (heap, ${messages} messages in ${memo.size} threads), ${memory.estimatedBytesPerMessage.toFixed(0)} estimated`,
);
if (cli.json) printJson({ bench: "view-memo", machine: machineLine(), calls: CALLS, rows, memory });
