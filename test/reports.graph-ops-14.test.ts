/**
 * Public reports on an interrupt raised inside a subagent that a tool of the agent runs, on a
 * thread the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary
 * at 6), English and Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver`,
 * and report-agent's `expectAccepted` on every request the stack sent.
 *
 * - https://github.com/langchain-ai/deepagentsjs/issues/616 "Tool interrupt clears state history"
 *   (a parent agent whose tool runs a subagent; the subagent's tool asks for approval with
 *   `interrupt()`; after the resume, the parent had forgotten the thread's earlier messages): six
 *   turns, then a turn whose tool runs a subagent (plain `createAgent`, the tool's config, so it
 *   checkpoints under the parent's thread in the tool's namespace) whose own tool interrupts. The
 *   interrupt reaches the caller; resumed with `Command({ resume })`, then two more turns (one with
 *   parallel calls), then the same subagent again, this time refused and left for a new message.
 *   At each step the waits, the outcomes and the tool results are plain's, the whole thread
 *   (archived part included) reads as plain's, nothing of the subagent's own messages enters the
 *   parent's thread or requests, and the last request still carries the thread's summary and
 *   window (not only the last message). No bug of ours.
 * - https://github.com/langchain-ai/langgraph/issues/8764 "Crash before first durable checkpoint
 *   can silently drop an accepted run" (under `durability: "exit"` a run that fails before its end
 *   leaves no trace) and https://github.com/langchain-ai/docs/pull/1824 (what `exit` stores):
 *   turns under `exit` whose model call fails (the provider down), at several points of the
 *   thread (so, archive on, at calls that move messages to the archive before the model is
 *   called, with nothing of the run stored after), each followed by a turn under `exit` and one
 *   under the default. Each outcome, the whole thread (archived part included: a message
 *   archived by a run that stored nothing is read back once) and the last results are plain's,
 *   and every request the stack sent is accepted. No bug of ours.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import type { ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  callsOnWord,
  expectAccepted,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  isTool,
  lastOf,
  outcome,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

/** The subagent's tool: asks the user whether it may greet (one `interrupt()`). */
const permit = tool(async ({ name }: { name: string }) => `permission for ${name}: ${String(interrupt({ greet: name }))}`, {
  name: "permit",
  description: "Ask the user for permission to greet.",
  schema: z.object({ name: z.string() }),
});

/** The subagent's model: asks `permit` for its task, then greets with what the user said. */
function greeterModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `greeter: ${messageText(last)}`;
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `permit_${messages.length}`, name: "permit", args: { name: messageText(last) }, type: "tool_call" }],
      });
    },
  });
}

/** A `greet` tool running a subagent (its own model and `permit`) with the tool's config, as deepagents' `task` does. */
function greetTool() {
  const model = greeterModel();
  const subagent = createAgent({ model, tools: [permit], systemPrompt: "You greet people once allowed." });
  const greet = tool(
    async ({ name }: { name: string }, config) => {
      const result = (await subagent.invoke({ messages: [new HumanMessage(name)] }, config as never)) as { messages: BaseMessage[] };
      return messageText(lastOf(result.messages));
    },
    { name: "greet", description: "Runs the greeting subagent.", schema: z.object({ name: z.string() }) },
  );
  return { greet, model };
}

/** `GREET <name>`: one `greet` call. */
const greetOn = callsOnWord("GREET", (rest, n) => [{ id: `greet_${n}`, name: "greet", args: { name: rest } }]);

const T = {
  en: { ask: "GREET Minji at the Busan office", yes: "yes, go ahead", again: "GREET Minji once more", no: "Never mind, what time is it?" },
  ko: { ask: "GREET 부산 사무실의 민지", yes: "네, 해 주세요", again: "GREET 민지 한 번 더", no: "됐어요, 지금 몇 시예요?" },
} as const;

interface Snapshot {
  tasks: Array<{ interrupts: Array<{ value: unknown }> }>;
  values: { messages?: BaseMessage[] };
}

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 14 (%o)", (c) => {
  const t = T[c.lang];

  it(`deepagentsjs#616: an interrupt inside a subagent a tool runs, resumed, keeps the thread; waits, results and thread are plain's (${graphOpsLabel(c)})`, async () => {
    const tools = { agent: greetTool(), plain: greetTool() };
    // One greet tool per agent (each its own subagent and model); same name and answers.
    const a = graphOpsAgents({ ...c, tools: [tools.agent.greet], more: greetOn });
    const b = graphOpsAgents({ ...c, tools: [tools.plain.greet], more: greetOn });
    const pair = [graphOpsPair(a)[0], graphOpsPair(b)[1]] as const;
    const threadId = `subagent-interrupt-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    const seen: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of pair) {
      const log = seen[name] as unknown[];
      const waits = async () =>
        ((await target.getState(cfg)) as unknown as Snapshot).tasks.flatMap((task) => task.interrupts).map((i) => i.value);
      const results = async () =>
        ((await target.getState(cfg)).values.messages ?? []).filter((m) => m.getType() === "tool").map((m) => messageText(m));
      await warmGraphOps(target, c.lang, cfg);
      log.push(await outcome(target.invoke({ messages: [new HumanMessage(t.ask)] }, cfg)));
      log.push(await waits());
      log.push(await outcome(target.invoke(new Command({ resume: t.yes }), cfg)));
      log.push(await waits());
      log.push(await results());
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].turn(7))] }, cfg);
      await target.invoke({ messages: [new HumanMessage("PARALLEL 2")] }, cfg);
      // Asked again; this time the user moves on instead of answering.
      log.push(await outcome(target.invoke({ messages: [new HumanMessage(t.again)] }, cfg)));
      log.push((await waits()).length);
      await target.invoke({ messages: [new HumanMessage(t.no)] }, cfg);
      log.push(await waits());
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      log.push(await results());
    }
    expect(seen.agent).toEqual(seen.plain);
    const greeted = `greeter: permission for ${t.ask.slice(6)}: ${t.yes}`;
    expect(seen.agent?.slice(0, 4)).toEqual(["ok", [{ greet: t.ask.slice(6) }], "ok", []]);
    expect(seen.agent?.[4]).toEqual([greeted]);
    expect(seen.agent?.slice(5, 8)).toEqual(["ok", 1, []]);
    // The stack's whole thread (archived part first) against plain's (b's plain agent ran it).
    expect(threadShape(await wholeThread(a, threadId))).toEqual(threadShape(await storedMessages(b.plain as never, threadId)));
    expectAccepted(a.m);
    // Neither the subagent's task, its call nor its approval entered the parent's requests; its
    // greeting did, as the tool's result.
    const texts = requests(a.m).flatMap((request) => request.map((m) => messageText(m)));
    expect(texts.some((text) => text.startsWith("permission for"))).toBe(false);
    expect(texts).toContain(greeted);
    // The last request still holds the thread: the summary and the window before the question.
    const last = requests(a.m).at(-1) as BaseMessage[];
    expect(messageText(last.at(-1) as BaseMessage)).toContain(GRAPH_OPS_TEXT[c.lang].after);
    expect(last.length).toBeGreaterThan(3);
    expect(last.map((m) => messageText(m)).join("\n")).toContain("summary");
    expectAccepted(tools.agent.model);
  });

  it(`langgraph#8764, docs#1824: turns under durability exit whose model call fails leave the thread as plain's, archived part included (${graphOpsLabel(c)})`, async () => {
    const down = { en: "DOWN please answer", ko: "DOWN 대답해 주세요" }[c.lang];
    // The provider fails at a last line starting with DOWN (an Error answer: the model throws).
    const more = (text: string) => (text.startsWith("DOWN") ? (new Error("provider down") as unknown as AIMessage) : undefined);
    const a = graphOpsAgents({ ...c, more });
    const threadId = `exit-failed-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    const exit = { ...cfg, durability: "exit" as const };
    // Archive writes made by the failed runs (the stack's), counted.
    const saver = a.stack.checkpointer as unknown as ThreadwiseSaver;
    const archiveWrite = saver.archiveMessages.bind(saver);
    const failing = { on: false, archived: 0 };
    saver.archiveMessages = (id, messages) => {
      if (failing.on) failing.archived += messages.length;
      return archiveWrite(id, messages);
    };
    const seen: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of graphOpsPair(a)) {
      const log = seen[name] as unknown[];
      await warmGraphOps(target, c.lang, cfg, 3);
      for (let round = 0; round < 4; round += 1) {
        failing.on = true;
        log.push(await outcome(target.invoke({ messages: [new HumanMessage(`${down} ${round}`)] }, exit)));
        failing.on = false;
        log.push(await outcome(target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].turn(10 + round))] }, exit)));
        log.push(await outcome(target.invoke({ messages: [new HumanMessage("PARALLEL 2")] }, cfg)));
      }
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      // The newest results (with the archive on the older ones are in the archive: the whole thread is compared below).
      log.push(
        ((await target.getState(cfg)).values.messages ?? [])
          .filter((m) => m.getType() === "tool")
          .map((m) => messageText(m))
          .slice(-2),
      );
    }
    expect(seen.agent).toEqual(seen.plain);
    expect(seen.agent?.[0]).toMatch(/provider down/);
    expect(seen.agent?.[1]).toBe("ok");
    const thread = await wholeThread(a, threadId);
    expect(threadShape(thread)).toEqual(threadShape(await storedMessages(a.plain as never, threadId)));
    // The failed turns' own messages: each in the thread at most once, as plain's has them.
    for (let round = 0; round < 4; round += 1)
      expect(thread.filter((m) => messageText(m) === `${down} ${round}`).length).toBeLessThanOrEqual(1);
    // Archive on, failed runs moved messages to the archive and stored nothing after: read back once each.
    if (c.archive) expect(failing.archived).toBeGreaterThan(0);
    else expect(failing.archived).toBe(0);
    expectAccepted(a.m);
  });
});
