/**
 * A thread read back by a process that did not write it: every turn, the interrupt and its resume
 * each run on a freshly opened stack over the same SQLite file.
 *
 * - https://github.com/langchain-ai/langgraphjs/pull/1768 "deserialize checkpointed state" (an
 *   interrupted thread read back as `{ lc: 1, type: "constructor", ... }` objects, not messages);
 * - https://github.com/langchain-ai/langgraph/issues/7066 "Checkpoint deserialization silently loses
 *   state when JsonPlusSerializer encounters unknown types" and
 *   https://github.com/langchain-ai/langgraph/issues/6970 (restored values replaced with `None`);
 * - https://github.com/NousResearch/hermes-agent/pull/10217 and
 *   https://github.com/Kilo-Org/kilocode/pull/10197 (with `store: false` the Responses API needs
 *   each reasoning item's `encrypted_content` back, byte for byte, on every later turn).
 *
 * Every request of the reopened run must equal the one-process run's: the stored answers' output
 * items (encrypted reasoning included), the summary and the tool results, and the state read back
 * must hold messages, not their serialized form.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { convertMessagesToResponsesInput } from "@langchain/openai";
import { messageText, readSummarySlot } from "@threadwise/core";
import { PROVIDERS, scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, lookup, requests, stackAgent } from "./support/report-agent.js";
import { responsesAnswer } from "./support/responses-answer.js";

const confirm = tool(async ({ seat }: { seat: string }) => `user said ${interrupt({ question: `Book ${seat}?` })} for ${seat}`, {
  name: "confirm",
  description: "Asks the user to confirm a seat.",
  schema: z.object({ seat: z.string() }),
});

/** Answers as `ChatOpenAI` (Responses API, `store: false`) stores them; each answer only from what it received. */
function responsesModel() {
  return strictModel({
    answer: (messages) => {
      // Unique per answer and the same in both runs: the user turn's id and the results so far.
      const human = messages.filter((m) => m.getType() === "human").at(-1);
      const n = `${String(human?.id).replace(/[^a-z0-9]/gi, "")}_${messages.filter(isTool).length}`;
      const rs = { type: "reasoning", id: `rs_${n}`, summary: [], encrypted_content: `gAAAA-${n}-${"x".repeat(40)}` };
      const respond = (items: object[]) => responsesAnswer(`resp_${n}`, [rs, ...items]);
      const last = lastOf(messages);
      const text = messageText(last).split("\n\n").at(-1) ?? "";
      const seat = /^seat (\w+)/.exec(text);
      if (!isTool(last) && seat)
        return respond([
          {
            type: "function_call",
            id: `fc_${n}a`,
            call_id: `call_${n}a`,
            name: "confirm",
            arguments: JSON.stringify({ seat: seat[1] }),
            status: "completed",
          },
          {
            type: "function_call",
            id: `fc_${n}b`,
            call_id: `call_${n}b`,
            name: "lookup",
            arguments: JSON.stringify({ n: messages.length }),
            status: "completed",
          },
        ]);
      const said = isTool(last)
        ? `done: ${messages
            .filter(isTool)
            .map((m) => messageText(m))
            .join(" | ")}`
        : `ok: ${text}`;
      return respond([
        {
          type: "message",
          id: `msg_${n}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: said, annotations: [] }],
        },
      ]);
    },
  });
}

const STEPS: Array<string | { resume: string }> = [
  "hello",
  "seat 12A",
  { resume: "yes" },
  "and then?",
  "what did I book?",
  "seat 3C",
  { resume: "no" },
  "thanks",
  "bye",
];

/** A request as the model got it, in a form two runs can be compared by. */
const canonical = (request: BaseMessage[]) =>
  request.map((m) => ({
    type: m.getType(),
    // A tool result's id is a fresh UUID in each run.
    id: m.getType() === "tool" ? undefined : m.id,
    content: m.content,
    calls: (m as AIMessage).tool_calls?.map((c) => [c.id, c.name, c.args]),
    result: (m as ToolMessage).tool_call_id,
    output: (m.response_metadata as { output?: unknown }).output,
  }));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function run(reopenEachStep: boolean) {
  const dir = mkdtempSync(join(tmpdir(), "tw-reopen-"));
  dirs.push(dir);
  const sqlitePath = join(dir, "thread.sqlite");
  const config = { configurable: { thread_id: "reopened" } };
  const seen: BaseMessage[][] = [];
  let current: ReturnType<typeof open> | undefined;
  function open() {
    const model = responsesModel();
    // From what it reads, not its call count: each process's summarizer counts from 0.
    const summarizer = scriptedModel((messages) => `summary of ${messages.map((m) => messageText(m)).join("").length} characters`);
    const made = stackAgent({
      backend: "sqlite",
      sqlitePath,
      model,
      windowSize: 4,
      summarizeThreshold: 6,
      summarizer: summarizer as never,
      tools: [confirm as never, lookup],
      stack: { factsMode: "heuristic" },
    });
    return { ...made, summarizer };
  }
  for (const step of STEPS) {
    if (!current || reopenEachStep) {
      if (current) seen.push(...requests(current.model));
      current = open();
    }
    const input =
      typeof step === "string"
        ? { messages: [new HumanMessage({ id: `h-${step}`, content: step })] }
        : new Command({ resume: step.resume });
    await current.agent.invoke(input as never, config);
  }
  const agent = (current as ReturnType<typeof open>).agent;
  seen.push(...requests((current as ReturnType<typeof open>).model));
  const state = await agent.graph.getState(config);
  return { seen, state: state.values as { messages: BaseMessage[] } };
}

describe("public reports: a thread reopened by a fresh process at every step", () => {
  it("every request equals the one-process run's, encrypted reasoning and summary included; the state holds messages", async () => {
    const once = await run(false);
    const reopened = await run(true);
    expect(reopened.seen.length).toBe(once.seen.length);
    expect(reopened.seen.map(canonical)).toEqual(once.seen.map(canonical));
    expect(readSummarySlot(reopened.state).summary?.text).toMatch(/^summary of \d+ characters$/);
    // Its text and what it covers (the digests differ only by the results' fresh ids).
    expect(readSummarySlot(reopened.state).summary?.text).toBe(readSummarySlot(once.state).summary?.text);
    for (const m of reopened.state.messages) expect(["human", "ai", "tool"]).toContain(m.getType());
    expect(reopened.state.messages.filter((m) => AIMessage.isInstance(m)).length).toBeGreaterThan(0);
    for (const request of reopened.seen) {
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      // Each reasoning item goes back with its encrypted content, as the answer stored it.
      const input = convertMessagesToResponsesInput({ messages: request, zdrEnabled: true, model: "gpt-5" }) as Array<{
        type?: string;
        id?: string;
        encrypted_content?: string;
      }>;
      for (const item of input.filter((i) => i.type === "reasoning")) expect(item.encrypted_content).toMatch(/^gAAAA-\w+-x{40}$/);
    }
    expect(reopened.state.messages.filter(isTool).map((m) => messageText(m))).toEqual(
      expect.arrayContaining(["user said yes for 12A", "user said no for 3C"]),
    );
  });
});
