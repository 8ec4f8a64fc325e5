/**
 * messageArchive groups the hot part once per archiving call (session 62, issue 27): the choice of
 * what may leave (`messagesToArchive`, persistTrim's `messagesToDelete`), the aligned batch and the
 * window mark read the same groups. It grouped the same array four times per archiving call
 * before. Core's `groupMessages` is wrapped (module mock) to see which arrays the middleware and
 * persistTrim group through core's entry point (core's own thread index groups through its module,
 * not counted here). The answers themselves are checked against the functions grouping on their
 * own, over generated threads (English and Korean text, tool calls, stray results, system messages).
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { groupMessages } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import fc from "fast-check";
import { createAgent } from "langchain";
import { expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { memoryStack } from "./memory-stack.js";
import { alignedBatch, messageArchive, messagesToArchive, nextArchivedWindow } from "./message-archive.js";
import type { ThreadwiseSaver } from "./threadwise-saver.js";

const grouped = vi.hoisted(() => new Map<readonly unknown[], number>());
vi.mock("@threadwise/core", async (importOriginal) => {
  const core = await importOriginal<typeof import("@threadwise/core")>();
  return {
    ...core,
    groupMessages: (messages: readonly BaseMessage[]) => {
      grouped.set(messages, (grouped.get(messages) ?? 0) + 1);
      return core.groupMessages(messages);
    },
  };
});

const lookup = tool(async ({ key }: { key: string }) => `${key}: 값 value`, {
  name: "lookup",
  description: "Looks a key up.",
  schema: z.object({ key: z.string() }),
});

it("an archiving model call groups the hot part once, and archives", async () => {
  const stack = memoryStack({
    backend: "in_memory",
    archive: true,
    windowSize: 6,
    summarizeThreshold: 10,
    recallMaxTokens: false,
    models: { summarize: scriptedModel((messages) => `요약 summary of ${messages.length}`, { strict: false }) },
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  // The archive tight, so a short thread archives several batches.
  const middleware = stack.middleware.map((m) =>
    m.name === "threadwise/message-archive"
      ? messageArchive(saver, { keepGroups: 7, batchMessages: 2, alignMessages: 3, logger: false })
      : m,
  );
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    const turn = Number(String(last.id).slice(1));
    if (HumanMessage.isInstance(last) && turn % 3 === 1)
      return new AIMessage({
        id: `call-${turn}`,
        content: "",
        tool_calls: [{ id: `c${turn}`, name: "lookup", args: { key: `k${turn}` } }],
      });
    return new AIMessage({ id: `a-${call}`, content: `답 answer ${call}` });
  });
  const agent = createAgent({ model, tools: [lookup], checkpointer: saver, middleware });
  const thread = { configurable: { thread_id: "groupings" } };
  for (let k = 1; k <= 16; k += 1) {
    const content = k % 2 === 0 ? `질문 ${k}: 제 사물함 번호가 뭐였죠?` : `question ${k}: what did I say about the trip?`;
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content })] }, thread);
  }
  expect((await saver.archivedMessages("groupings")).length).toBeGreaterThan(0);
  // Every array grouped through core's entry point (the hot parts, the batches) once; it was four times per archiving call.
  expect(grouped.size).toBeGreaterThan(0);
  expect(Math.max(...grouped.values())).toBe(1);
});

it("the choice, the batch and the mark from the call's groups are the ones each function computes on its own", () => {
  const kinds = fc.constantFrom("human", "ai", "korean", "tool-call", "stray-result", "system", "empty-human");
  fc.assert(
    fc.property(
      fc.array(kinds, { maxLength: 50 }),
      fc.integer({ min: 1, max: 10 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: -1, max: 49 }),
      fc.constantFrom("human" as const, "any" as const),
      fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
      (shape, keep, align, boundary, startOn, before) => {
        const thread: BaseMessage[] = [];
        for (const [i, kind] of shape.entries()) {
          if (kind === "human") thread.push(new HumanMessage({ id: `m${i}`, content: `u${i}: where do I live?` }));
          else if (kind === "korean") thread.push(new HumanMessage({ id: `m${i}`, content: `저는 서울에 살아요 ${i}` }));
          else if (kind === "empty-human") thread.push(new HumanMessage({ id: `m${i}`, content: "" }));
          else if (kind === "ai") thread.push(new AIMessage({ id: `m${i}`, content: `a${i}` }));
          else if (kind === "system") thread.push(new SystemMessage({ id: `m${i}`, content: `s${i}` }));
          else if (kind === "stray-result") {
            const calls = [`e${i}`, `d${i}`].map((id) => ({ id, name: "f", args: {}, type: "tool_call" as const }));
            thread.push(new AIMessage({ id: `m${i}`, content: "", tool_calls: calls }));
            thread.push(new ToolMessage({ id: `s${i}`, content: "r", tool_call_id: `c${i}` }));
            thread.push(new ToolMessage({ id: `t${i}`, content: "r", tool_call_id: `d${i}` }));
          } else {
            thread.push(new AIMessage({ id: `m${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "f", args: {}, type: "tool_call" }] }));
            thread.push(new ToolMessage({ id: `t${i}`, content: "결과 r", tool_call_id: `c${i}` }));
          }
        }
        const at = boundary < 0 ? undefined : thread[Math.min(boundary, thread.length - 1)];
        const summary = boundary < 0 ? undefined : { coveredThroughId: at?.id ?? null };
        const groups = groupMessages(thread);
        const leaving = messagesToArchive(thread, summary, keep, groups);
        expect(leaving).toEqual(messagesToArchive(thread, summary, keep));
        const batch = alignedBatch(thread, leaving, align, startOn, groups);
        expect(batch).toEqual(alignedBatch(thread, leaving, align, startOn));
        expect(nextArchivedWindow(thread, batch, before, startOn, groups)).toEqual(nextArchivedWindow(thread, batch, before, startOn));
      },
    ),
    { seed: 62, numRuns: 300 },
  );
});
