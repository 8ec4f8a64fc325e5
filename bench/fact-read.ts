/**
 * fact-recall's per-call check of the stored thread (spec R37, `planFactRead`): at every model
 * call the stored user messages are compared with the slot's `read` record, so that an edit in
 * place, a removal or a rewrite anywhere is seen. Measures that check's CPU time per call on
 * LoCoMo threads of several sizes, each call on fresh message objects (as a checkpointer hands
 * them over), one new user message per call, without and with the thread's `ReadEntryCache`
 * (what `factRecall` keeps per thread), and whether both give the same plan at every call.
 *
 * Run: pnpm tsx bench/fact-read.ts                       (prints a table)
 *      pnpm tsx bench/fact-read.ts --data <file> --json   (another LoCoMo file; figures as JSON)
 * Options: `--sizes` (user messages per thread, default 100,500,2000), `--calls` (timed calls per
 * size and variant, default 300).
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type FactSlot, planFactRead, ReadEntryCache, readEntryOf } from "@threadwise/fact-recall";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, loadLocomo } from "./support/locomo.js";

const args = benchArgs(LOCOMO_PATH, { sizes: { type: "string", default: "100,500,2000" }, calls: { type: "string", default: "300" } });
const sizes = String(args.values.sizes)
  .split(",")
  .map((size) => Number(size));
const calls = Number(args.values.calls);
const texts = loadLocomo(args.data).flatMap((conversation) => conversation.turns.map((turn) => `${turn.speaker}: ${turn.text}`));

/** The thread's first `users` exchanges, as new objects (a checkpointer's deserialized copy). */
function threadOf(users: number): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let k = 0; k < users; k += 1) {
    // JSON round trip: new string objects, as a checkpointer's deserialization gives.
    const text = JSON.parse(JSON.stringify(texts[k % texts.length])) as string;
    messages.push(new HumanMessage({ id: `u${k}`, content: text }));
    messages.push(new AIMessage({ id: `a${k}`, content: "Noted." }));
  }
  return messages;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface Row {
  userMessages: number;
  calls: number;
  /** Median CPU time of one check without the cache, microseconds. */
  uncachedUs: number;
  /** Median CPU time of one check with the thread's cache, microseconds. */
  cachedUs: number;
  /** Calls at which the two plans differed (pending, read and facts compared as JSON). */
  differingPlans: number;
}

const rows: Row[] = [];
for (const size of sizes) {
  const cache = new ReadEntryCache();
  const uncached: number[] = [];
  const cached: number[] = [];
  let differing = 0;
  for (let call = 0; call < calls; call += 1) {
    // The thread as stored after `size + call` user messages, the newest not read yet.
    const messages = threadOf(size + call);
    const users = messages.filter((m) => m.getType() === "human");
    const slot: FactSlot = {
      facts: [],
      cursor: `u${size + call - 2}`,
      read: users.slice(0, -1).map(readEntryOf),
      turn: size + call - 1,
      recalled: [],
    };
    let start = process.cpuUsage();
    const plain = planFactRead(messages, slot);
    uncached.push(process.cpuUsage(start).user);
    start = process.cpuUsage();
    const withCache = planFactRead(messages, slot, undefined, cache);
    cached.push(process.cpuUsage(start).user);
    const shape = (plan: typeof plain) => JSON.stringify([plan.facts, plan.read, plan.pending.map((p) => p.cursor)]);
    if (shape(plain) !== shape(withCache)) differing += 1;
  }
  rows.push({ userMessages: size, calls, uncachedUs: median(uncached), cachedUs: median(cached), differingPlans: differing });
}

if (args.json) printJson({ data: args.data, rows });
else {
  console.log("| user messages | calls | check without cache (µs, median) | with the thread's cache (µs, median) | plans differing |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const row of rows)
    console.log(`| ${row.userMessages} | ${row.calls} | ${row.uncachedUs} | ${row.cachedUs} | ${row.differingPlans} |`);
}
