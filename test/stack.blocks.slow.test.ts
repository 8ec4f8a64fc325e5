/**
 * A fuzz dimension the other slow fuzzers lack: content-block messages mixed with LangGraph's state
 * operations. The model's answers carry provider blocks (Anthropic `thinking` with a signature and
 * `server_tool_use` with its `web_search_tool_result`, Bedrock `reasoning_content` with a signature,
 * calls made by code execution: `tool_use` with a `caller`), user turns carry images, one tool answers
 * with a `Command({ update })` holding its ToolMessage, and between turns the user edits by id
 * (`updateState` of a stored message with new content), removes by id (`RemoveMessage`), and writes a
 * note `asNode` each node of the agent's graph (the model node, the tools node and every middleware
 * node of the stack). `cacheBreakpoints({ anyModel: true })` runs after the stack.
 *
 * Oracle, per operation: memoryStack with the message archive (in_memory or SQLite) and a control
 * without it (in_memory) have the same outcome (ran, or refused with the same typed error), store
 * the same messages and send the same requests; every request passes the strict validator for
 * OpenAI, Anthropic (no prefill), Gemini and Bedrock. English and Korean turns.
 *
 * Seeds: STACK_BLOCKS_SEED (default 20261206), STACK_BLOCKS_RUNS cases, STACK_BLOCKS_CASE one case.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText, ThreadwiseError } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { cacheBreakpoints, memoryStack, ThreadwiseArchivedMessageError } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { lookup, requests } from "./support/report-agent.js";

const SEED = Number(process.env.STACK_BLOCKS_SEED ?? 20261206);
const RUNS = Number(process.env.STACK_BLOCKS_RUNS ?? 4);
const ONLY = process.env.STACK_BLOCKS_CASE === undefined ? undefined : Number(process.env.STACK_BLOCKS_CASE);
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

const KINDS = ["thinking", "reasoning", "server", "code", "plain"] as const;
type Kind = (typeof KINDS)[number];

const mark = tool(
  async ({ n }: { n: number }, runtime) =>
    new Command({
      update: {
        messages: [
          new ToolMessage({ content: `marked ${n}`, tool_call_id: (runtime as { toolCall?: { id?: string } }).toolCall?.id ?? "" }),
        ],
      },
    }),
  { name: "mark", description: "Marks a number.", schema: z.object({ n: z.number() }) },
);

/**
 * `CALL <kind> <k>`: an answer of `kind` blocks with k parallel calls (lookup, and mark last);
 * after results a `kind` answer; else "ok: <first line>". Deterministic on the request.
 */
function model() {
  return strictModel({
    noPrefill: true,
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      const n = messages.length;
      const lines = messageText(last).split("\n");
      const context = lines.findIndex((line) => line.startsWith("[Context"));
      const text = (context === -1 ? lines : lines.slice(0, context)).filter((line) => line.trim() !== "").at(-1) ?? "";
      const call = /^CALL (\w+) (\d)/.exec(text);
      const kind: Kind = last.getType() === "tool" ? "thinking" : ((call?.[1] as Kind | undefined) ?? "plain");
      const k = last.getType() === "tool" || !call ? 0 : Number(call[2]);
      const calls = Array.from({ length: k }, (_, i) => ({
        id: `toolu_${n}_${i}`,
        name: i === k - 1 && k > 1 ? "mark" : "lookup",
        args: { n: i },
        type: "tool_call" as const,
      }));
      const words = last.getType() === "tool" ? `done: ${messageText(last)}` : `ok: ${text}`;
      const uses = calls.map((c, i) => ({
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: c.args,
        ...(kind === "code" && i === k - 1 ? { caller: { type: "code_execution_20250825", tool_id: `srvtoolu_${n}` } } : {}),
      }));
      const content =
        kind === "thinking"
          ? [{ type: "thinking", thinking: `think ${n}`, signature: `sig-${n}` }, { type: "text", text: words }, ...uses]
          : kind === "reasoning"
            ? [
                { type: "reasoning_content", reasoningText: { text: `reason ${n}`, signature: `rsig-${n}` } },
                { type: "text", text: words },
                ...uses,
              ]
            : kind === "server"
              ? [
                  { type: "server_tool_use", id: `srvtoolu_${n}`, name: "web_search", input: { query: text } },
                  { type: "web_search_tool_result", tool_use_id: `srvtoolu_${n}`, content: [] },
                  { type: "text", text: words },
                  ...uses,
                ]
              : kind === "code"
                ? [
                    { type: "text", text: words },
                    ...(k > 0 ? [{ type: "server_tool_use", id: `srvtoolu_${n}`, name: "code_execution", input: { code: "f()" } }] : []),
                    ...uses,
                  ]
                : words;
      return new AIMessage({ content: content as never, tool_calls: calls });
    },
  });
}

type Setup = { backend: "in_memory" | "sqlite"; archive: boolean };

function agentOf(setup: Setup) {
  const dir = mkdtempSync(join(tmpdir(), "tw-blocks-fuzz-"));
  dirs.push(dir);
  const m = model();
  const stack = memoryStack({
    backend: setup.backend,
    sqlitePath: join(dir, "m.sqlite"),
    windowSize: 4,
    summarize: true,
    summarizeThreshold: 6,
    models: { summarize: strictModel({ answer: () => "요약 summary" }) as never },
    archive: setup.archive,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({
    model: m,
    tools: [lookup, mark],
    systemPrompt: "You are a helpful assistant.",
    checkpointer: stack.checkpointer,
    middleware: [...stack.middleware, cacheBreakpoints({ anyModel: true })] as never,
  });
  return { agent, model: m, saver: stack.checkpointer };
}

type Op =
  | { op: "turn"; text: string; image: boolean }
  | { op: "edit"; pick: number; text: string }
  | { op: "remove"; pick: number }
  | { op: "note-as"; node: number; text: string };

function drawOps(rand: () => number, lang: "en" | "ko"): Op[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const text = () => (rand() < 0.6 ? `CALL ${pick(KINDS)} ${Math.floor(rand() * 3)} ${pick(WORDS[lang])}` : pick(WORDS[lang]));
  const ops: Op[] = [];
  for (let i = 0; i < OPS; i += 1) {
    const r = rand();
    if (r < 0.5) ops.push({ op: "turn", text: text(), image: rand() < 0.25 });
    else if (r < 0.68) ops.push({ op: "edit", pick: rand(), text: pick(WORDS[lang]) });
    else if (r < 0.8) ops.push({ op: "remove", pick: rand() });
    else ops.push({ op: "note-as", node: rand(), text: pick(WORDS[lang]) });
  }
  return ops;
}

const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => [
    m.getType(),
    m.id?.startsWith("h-") || m.id?.startsWith("e-") ? m.id : "",
    JSON.stringify(m.content),
    ((m as AIMessage).tool_calls ?? []).map((c) => [c.name, JSON.stringify(c.args)]),
  ]);

/** Applies `op`; `undefined` when it ran, else the error it threw. */
async function apply(
  agent: ReturnType<typeof agentOf>["agent"],
  stored: BaseMessage[],
  thread: string,
  op: Op,
  n: number,
): Promise<unknown> {
  const config = { configurable: { thread_id: thread } };
  try {
    switch (op.op) {
      case "turn": {
        const content = op.image
          ? [
              { type: "text", text: op.text },
              { type: "image", source_type: "base64", mime_type: "image/png", data: `iVBORw0KGgo${n}` },
            ]
          : op.text;
        await agent.invoke({ messages: [new HumanMessage({ id: `h-${n}`, content: content as never })] } as never, config as never);
        break;
      }
      case "edit": {
        // A stored human or AI message rewritten by id: a human's words, an AI answer's text (its blocks and calls kept).
        const editable = stored.filter(
          (m) => m.getType() === "human" || (m.getType() === "ai" && ((m as AIMessage).tool_calls ?? []).length === 0),
        );
        const target = editable[Math.floor(op.pick * editable.length)];
        if (!target) return "skipped";
        const edited =
          target.getType() === "human"
            ? new HumanMessage({ id: target.id, content: `${op.text} (edited)` })
            : new AIMessage({
                id: target.id,
                content: Array.isArray(target.content)
                  ? (target.content.map((b) =>
                      (b as { type?: string }).type === "text" ? { type: "text", text: `${op.text} (edited)` } : b,
                    ) as never)
                  : `${op.text} (edited)`,
              });
        await agent.updateState(config as never, { messages: [edited] } as never);
        break;
      }
      case "remove": {
        const target = stored[Math.floor(op.pick * stored.length)];
        if (!target?.id) return "skipped";
        await agent.updateState(config as never, { messages: [new RemoveMessage({ id: target.id })] } as never);
        break;
      }
      case "note-as": {
        const nodes = Object.keys((agent as unknown as { graph: { nodes: Record<string, unknown> } }).graph.nodes).filter(
          (name) => name !== "__start__",
        );
        const node = nodes[Math.floor(op.node * nodes.length)] as string;
        await agent.updateState(config as never, { messages: [new HumanMessage({ id: `e-${n}`, content: op.text })] } as never, node);
        break;
      }
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("stack fuzz: content-block messages with edits and removals by id, notes asNode each node", () => {
  const cases = Array.from({ length: RUNS }, (_, k) => k).filter((k) => ONLY === undefined || k === ONLY);
  it.each(cases)(`seed ${SEED} case %i: archive on stores and sends what archive off does; every request is accepted`, async (k) => {
    const rand = random(SEED * 1000 + k);
    const lang = rand() < 0.5 ? "en" : "ko";
    const setup: Setup = { backend: rand() < 0.5 ? "in_memory" : "sqlite", archive: true };
    const ops = drawOps(rand, lang);
    const stacked = agentOf(setup);
    const control = agentOf({ backend: "in_memory", archive: false });
    const thread = `blocks-${SEED}-${k}`;
    const config = { configurable: { thread_id: thread } };
    // The whole thread, archived part included (the control has none).
    const whole = async (x: typeof stacked) => (await x.saver?.readThread(config)) as BaseMessage[];
    const read = async (x: typeof stacked) => shape(await whole(x));
    const outcome = (error: unknown) =>
      error === undefined ? "ok" : error === "skipped" ? "skipped" : (ThreadwiseError.find(error)?.code ?? `untyped ${String(error)}`);
    const log: string[] = [];
    let archivedRefusals = 0;
    for (const [n, op] of ops.entries()) {
      const before = await read(stacked);
      const stored = await whole(stacked);
      const error = await apply(stacked.agent, stored, thread, op, n);
      log.push(`${n} ${JSON.stringify(op)} -> ${outcome(error)}`);
      const context = `seed ${SEED} case ${k} (${JSON.stringify(setup)}, ${lang}):\n${log.join("\n")}`;
      // A RemoveMessage of an archived id by updateState: LangGraph's reducer fails before the saver
      // can answer (README, "Edits and forks"): its untyped error, for an id archived and not hot.
      const removedArchived =
        op.op === "remove" && error instanceof Error && /^Attempting to delete a message with an ID that doesn't exist/.test(error.message);
      if (removedArchived) {
        const id = /\('([^']+)'\)/.exec((error as Error).message)?.[1];
        const hot =
          (
            (await (stacked.agent as unknown as { getState(c: object): Promise<{ values: unknown }> }).getState(config)).values as {
              messages?: BaseMessage[];
            }
          ).messages ?? [];
        expect(
          stored.some((m) => m.id === id),
          context,
        ).toBe(true);
        expect(
          hot.some((m) => m.id === id),
          context,
        ).toBe(false);
      } else expect(outcome(error).startsWith("untyped"), `${context}\n${String(error)}`).toBe(false);
      if (ThreadwiseArchivedMessageError.find(error) || removedArchived) {
        // An edit or removal by id of an archived message: refused, nothing stored, no model call;
        // the control (which archives nothing) is not given it.
        archivedRefusals += 1;
        expect(await read(stacked), context).toEqual(before);
        continue;
      }
      const controlError = await apply(control.agent, await whole(control), thread, op, n);
      expect(outcome(controlError), context).toBe(outcome(error));
      const after = await read(stacked);
      if (error !== undefined && error !== "skipped") expect(after, context).toEqual(before);
      expect(after, context).toEqual(await read(control));
      expect(requests(stacked.model).map(shape), context).toEqual(requests(control.model).map(shape));
      for (const request of requests(stacked.model))
        expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true }), context).toEqual([]);
    }
    console.log(
      `[stack.blocks] seed=${SEED} case ${k}: ${log.filter((l) => l.endsWith("ok")).length} ops ran, ${log.filter((l) => !l.endsWith("ok") && !l.endsWith("skipped")).length} refused (${archivedRefusals} archived edits), ${requests(stacked.model).length} requests`,
    );
  });
});
