/**
 * A fuzz dimension the other slow fuzzers lack: the agent as a node of a parent graph (a
 * subgraph, its checkpoints in the `agent:<task id>` namespace) with a human-in-the-loop review
 * raised inside it, and what LangGraph users do around that review: answer it (approve, edit,
 * reject), leave it and send a new turn, write a note into the subgraph's state with
 * `updateState(state.tasks[0].state.config, ...)`, run a turn from the subgraph's config (LangGraph
 * starts from its `checkpoint_map[""]`), fork from a random root checkpoint of the history, and send
 * a stray tool result as a turn's input. Parallel calls mix reviewed and unreviewed tools.
 *
 * Oracle, per operation: memoryStack with the message archive (in_memory or SQLite) and a control
 * without it (in_memory) have the same outcome (ran, skipped, or refused with the same typed error:
 * a stray result as input is refused and stays stored, anything else refused stores nothing), store
 * the same parent messages and send the same requests; every request passes the strict validator
 * for OpenAI, Anthropic (no prefill), Gemini and Bedrock. English and Korean turns. (A plain
 * LangGraph run is no oracle here: its model sees requests providers refuse and answers otherwise.)
 *
 * Seeds: STACK_SUBGRAPH_SEED (default 20261205), STACK_SUBGRAPH_RUNS cases, STACK_SUBGRAPH_CASE one case.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText, ThreadwiseError, ThreadwiseStrayResultError } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { book, lookup, requests } from "./support/report-agent.js";

const SEED = Number(process.env.STACK_SUBGRAPH_SEED ?? 20261205);
const RUNS = Number(process.env.STACK_SUBGRAPH_RUNS ?? 6);
const ONLY = process.env.STACK_SUBGRAPH_CASE === undefined ? undefined : Number(process.env.STACK_SUBGRAPH_CASE);
const OPS = 14;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** mulberry32: a small seeded generator. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = {
  en: ["hello", "what did I ask", "thanks, go on", "my seat please", "Note: aisle is fine"],
  ko: ["안녕하세요", "제가 뭘 부탁했죠", "고마워요, 계속해요", "제 좌석 부탁해요", "메모: 통로도 괜찮아요"],
} as const;

/** `PARALLEL k`: k-1 lookups and one book (reviewed); after results "done: ..."; else "ok: <first line>". */
function model(strict: boolean) {
  return strictModel({
    noPrefill: true,
    ...(strict ? {} : { onViolation: "record" as const }),
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "tool") return `done: ${messageText(last)}`;
      // The newest user words: before any context block the stack placed after them (stable_tail),
      // the last line (a view sends two user turns in a row as one message).
      const lines = messageText(last).split("\n");
      const context = lines.findIndex((line) => line.startsWith("[Context"));
      const text = (context === -1 ? lines : lines.slice(0, context)).filter((line) => line.trim() !== "").at(-1) ?? "";
      const parallel = /^PARALLEL (\d)/.exec(text);
      if (parallel) {
        const k = Number(parallel[1]);
        return new AIMessage({
          content: "",
          tool_calls: Array.from({ length: k }, (_, i) => ({
            id: `call_${messages.length}_${i}`,
            name: i === k - 1 ? "book" : "lookup",
            args: i === k - 1 ? { seat: `${i + 1}A` } : { n: i },
            type: "tool_call" as const,
          })),
        });
      }
      return `ok: ${text}`;
    },
  });
}

type Setup = { plain: boolean; backend: "in_memory" | "sqlite"; archive: boolean };

function parentOf(setup: Setup) {
  const dir = mkdtempSync(join(tmpdir(), "tw-subgraph-fuzz-"));
  dirs.push(dir);
  const m = model(!setup.plain);
  const stack = memoryStack({
    backend: setup.backend,
    sqlitePath: join(dir, "m.sqlite"),
    windowSize: 4,
    summarize: true,
    summarizeThreshold: 6,
    models: { summarize: strictModel({ answer: (_messages) => "요약 summary" }) as never },
    archive: setup.archive,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({
    model: m,
    tools: [lookup, book],
    middleware: [...(setup.plain ? [] : stack.middleware), humanInTheLoopMiddleware({ interruptOn: { book: true } })] as never,
  });
  const parent = new StateGraph(MessagesAnnotation)
    .addNode("agent", agent.graph as never)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: (setup.plain ? new MemorySaver() : stack.checkpointer) as never });
  return { parent, model: m };
}

type Op =
  | { op: "turn"; text: string }
  | { op: "resume"; decision: "approve" | "reject" | "edit" }
  | { op: "fork-root"; back: number; text: string }
  | { op: "from-sub"; text: string }
  | { op: "note-sub"; text: string }
  | { op: "stray"; text: string };

function drawOps(rand: () => number, lang: "en" | "ko"): Op[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const text = () => (rand() < 0.45 ? `PARALLEL ${1 + Math.floor(rand() * 3)} ${pick(WORDS[lang])}` : pick(WORDS[lang]));
  const ops: Op[] = [];
  for (let i = 0; i < OPS; i += 1) {
    const r = rand();
    if (r < 0.3) ops.push({ op: "turn", text: text() });
    else if (r < 0.55) ops.push({ op: "resume", decision: pick(["approve", "approve", "reject", "edit"] as const) });
    else if (r < 0.65) ops.push({ op: "fork-root", back: 1 + Math.floor(rand() * 8), text: text() });
    else if (r < 0.77) ops.push({ op: "from-sub", text: text() });
    else if (r < 0.9) ops.push({ op: "note-sub", text: pick(WORDS[lang]) });
    else ops.push({ op: "stray", text: pick(WORDS[lang]) });
  }
  return ops;
}

const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => [m.getType(), messageText(m), ((m as AIMessage).tool_calls ?? []).map((c) => [c.name, JSON.stringify(c.args)])]);

/** Applies `op`; `undefined` when it ran, else the error it threw. */
async function apply(parent: ReturnType<typeof parentOf>["parent"], thread: string, op: Op, n: number): Promise<unknown> {
  const config = { configurable: { thread_id: thread } };
  const state = await parent.getState(config as never, { subgraphs: true } as never);
  const waiting = state.tasks.some(
    (t) =>
      (t.interrupts ?? []).length > 0 ||
      ((t.state as { tasks?: Array<{ interrupts?: unknown[] }> })?.tasks ?? []).some((x) => (x.interrupts ?? []).length > 0),
  );
  const sub = (state.tasks[0]?.state as { config?: { configurable?: object } } | undefined)?.config?.configurable;
  try {
    switch (op.op) {
      case "turn":
        await parent.invoke({ messages: [new HumanMessage({ id: `h${n}`, content: op.text })] }, config);
        break;
      case "resume": {
        if (!waiting) return "skipped";
        const decision =
          op.decision === "edit"
            ? { type: "edit", editedAction: { name: "book", args: { seat: "9Z" } } }
            : op.decision === "reject"
              ? { type: "reject", message: "not now" }
              : { type: "approve" };
        await parent.invoke(new Command({ resume: { decisions: [decision] } }) as never, config);
        break;
      }
      case "fork-root": {
        const history = [];
        for await (const s of parent.getStateHistory(config as never)) history.push(s);
        const at = history[Math.min(op.back, history.length - 1)];
        if (!at) return "skipped";
        await parent.invoke({ messages: [new HumanMessage({ id: `h${n}`, content: op.text })] }, at.config as never);
        break;
      }
      case "from-sub":
        if (!sub) return "skipped";
        await parent.invoke({ messages: [new HumanMessage({ id: `h${n}`, content: op.text })] }, { configurable: sub } as never);
        break;
      case "note-sub":
        if (!sub) return "skipped";
        await parent.updateState(
          { configurable: sub } as never,
          { messages: [new HumanMessage({ id: `h${n}`, content: op.text })] } as never,
        );
        break;
      case "stray":
        await parent.invoke({ messages: [new ToolMessage({ id: `s${n}`, tool_call_id: `call_gone_${n}`, content: op.text })] }, config);
        break;
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("stack fuzz: an agent subgraph with reviews, forks from its config, notes in its state", () => {
  const cases = Array.from({ length: RUNS }, (_, k) => k).filter((k) => ONLY === undefined || k === ONLY);
  it.each(cases)(`seed ${SEED} case %i: archive on stores and sends what archive off does; every request is accepted`, async (k) => {
    const rand = random(SEED * 1000 + k);
    const lang = rand() < 0.5 ? "en" : "ko";
    const setup: Setup = { plain: false, backend: rand() < 0.5 ? "in_memory" : "sqlite", archive: true };
    const ops = drawOps(rand, lang);
    const stacked = parentOf(setup);
    const control = parentOf({ plain: false, backend: "in_memory", archive: false });
    const thread = `fuzz-${SEED}-${k}`;
    const read = async (p: typeof stacked.parent) =>
      shape(((await p.getState({ configurable: { thread_id: thread } } as never)).values.messages ?? []) as BaseMessage[]);
    const outcome = (error: unknown) =>
      error === undefined ? "ok" : error === "skipped" ? "skipped" : (ThreadwiseError.find(error)?.code ?? `untyped ${String(error)}`);
    const log: string[] = [];
    for (const [n, op] of ops.entries()) {
      const before = await read(stacked.parent);
      const error = await apply(stacked.parent, thread, op, n);
      const controlError = await apply(control.parent, thread, op, n);
      log.push(`${n} ${JSON.stringify(op)} -> ${outcome(error)}`);
      const context = `seed ${SEED} case ${k} (${JSON.stringify(setup)}, ${lang}):\n${log.join("\n")}`;
      // The same outcome on both; anything refused is refused with a typed error.
      expect(outcome(controlError), context).toBe(outcome(error));
      expect(outcome(error).startsWith("untyped"), `${context}\n${String(error)}`).toBe(false);
      const after = await read(stacked.parent);
      if (error !== undefined && error !== "skipped") {
        // A stray result as input stays stored (nothing lost); anything else refused stores nothing.
        if (op.op === "stray" && ThreadwiseStrayResultError.find(error)) expect(after, context).toEqual([...before, ["tool", op.text, []]]);
        else expect(after, context).toEqual(before);
      }
      expect(after, context).toEqual(await read(control.parent));
      expect(requests(stacked.model).map(shape), context).toEqual(requests(control.model).map(shape));
      for (const request of requests(stacked.model))
        expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true }), context).toEqual([]);
    }
    console.log(
      `[stack.subgraph] seed=${SEED} case ${k}: ${log.filter((l) => l.endsWith("ok")).length} ops ran, ${log.filter((l) => !l.endsWith("ok") && !l.endsWith("skipped")).length} refused, ${requests(stacked.model).length} requests`,
    );
  });
});
