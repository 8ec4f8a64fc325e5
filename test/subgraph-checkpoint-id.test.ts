/**
 * A run of a parent graph given a subgraph's config: the `config` of a task's state from
 * `getState(config, { subgraphs: true })` (a human-in-the-loop review raised inside an agent that
 * is a node of a parent graph), whose `checkpoint_ns` is the subgraph's (`agent:<task id>`) and whose
 * `checkpoint_id` is a checkpoint of that namespace. LangGraph's root run drops both and starts
 * from the config's `checkpoint_map[""]` (the parent's checkpoint the subgraph ran under).
 * `turnAdmission`'s refusal of a `checkpoint_id` the thread does not hold (`#refuseUnknownStart`,
 * root namespace) looked the subgraph's id up in the root namespace and refused a checkpoint the
 * thread holds (was: `ThreadwiseConfigError` "thread has no checkpoint ..."); it now looks it up in
 * the namespace the caller named. An id that namespace does not hold is still refused, naming the
 * namespace, with nothing stored. The thread then reads what a plain `MemorySaver` run gives.
 * memoryStack's in_memory and SQLite backends, archive off and on, English and Korean turns.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText, ThreadwiseConfigError } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { lookup, requests } from "./support/report-agent.js";
import { model, notStartedUpdate, TEXT } from "./support/subgraph-pending.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type SubConfig = { thread_id: string; checkpoint_ns: string; checkpoint_id: string; checkpoint_map?: Record<string, string> };

/** The parent graph over an agent with a review on `lookup`, on the stack's checkpointer (`plain`: a MemorySaver and no stack). */
function parentGraph(plain: boolean, backend: "in_memory" | "sqlite", archive: boolean) {
  const dir = mkdtempSync(join(tmpdir(), "tw-subgraph-id-"));
  dirs.push(dir);
  const m = model(!plain);
  const stack = memoryStack({
    backend,
    sqlitePath: join(dir, "m.sqlite"),
    windowSize: 6,
    archive,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({
    model: m,
    tools: [lookup],
    middleware: [...(plain ? [] : stack.middleware), humanInTheLoopMiddleware({ interruptOn: { lookup: true } })] as never,
  });
  const parent = new StateGraph(MessagesAnnotation)
    .addNode("agent", agent.graph as never)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: (plain ? new MemorySaver() : stack.checkpointer) as never });
  return { parent, model: m };
}

async function scenario(plain: boolean, backend: "in_memory" | "sqlite", archive: boolean, lang: "en" | "ko") {
  const { parent, model } = parentGraph(plain, backend, archive);
  const config = { configurable: { thread_id: `subgraph-id-${lang}` } };
  const texts = async () => ((await parent.getState(config as never)).values.messages as BaseMessage[]).map((m) => messageText(m));
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][0])] }, config);
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][1])] }, config);
  const state = await parent.getState(config as never, { subgraphs: true } as never);
  const sub = (state.tasks[0]?.state as { config?: { configurable?: SubConfig } } | undefined)?.config?.configurable as SubConfig;
  expect(sub.checkpoint_ns.startsWith("agent:")).toBe(true);
  await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, config);
  const head = await texts();
  // A subgraph's id the thread does not hold, in that namespace: refused by the stack, nothing stored.
  const bogus = await parent
    .invoke({ messages: [new HumanMessage(TEXT[lang][2])] }, {
      configurable: { ...sub, checkpoint_id: "no-such-checkpoint", checkpoint_map: undefined },
    } as never)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (!plain) {
    const refused = ThreadwiseConfigError.find(bogus);
    expect(refused?.option).toBe("configurable.checkpoint_id");
    expect(refused?.message).toContain(`namespace "${sub.checkpoint_ns}"`);
    expect(await texts()).toEqual(head);
  }
  // The subgraph's own config, as getState gave it: a run from the parent's checkpoint it names.
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][2])] }, { configurable: sub } as never);
  return { texts: await texts(), requests: requests(model) };
}

describe.each([
  ["in_memory", false],
  ["sqlite", false],
  ["sqlite", true],
] as const)("a subgraph's checkpoint config given to the parent graph (%s, archive %s)", (backend, archive) => {
  it.each(["en", "ko"] as const)(
    "runs as on a plain MemorySaver; an id the namespace does not hold is refused naming it (%s)",
    async (lang) => {
      const plain = await scenario(true, "in_memory", false, lang);
      const stacked = await scenario(false, backend, archive, lang);
      expect(stacked.texts).toEqual(plain.texts);
      expect(stacked.texts.at(-2)).toBe(TEXT[lang][2]);
      for (const request of stacked.requests)
        expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    },
  );
});

/**
 * `updateState` given a subgraph namespace holding no checkpoint to update: a live task's namespace
 * with a `checkpoint_id` it does not hold, or a namespace no task has (`agent:no-such-task`).
 * LangGraph (a plain MemorySaver too) starts either from an empty state and stores it: in the live
 * task's namespace the subgraph's state became the note alone, and the resume (an approval of the
 * pending tool call) answered the note instead: the tool call under review never ran and is in
 * neither state. The stack refuses
 * both with `ThreadwiseConfigError` naming the option, namespace and id; nothing is stored, and the
 * resume goes on as if neither update was made (as a plain run without them).
 */
async function subgraphUpdate(plain: boolean, backend: "in_memory" | "sqlite", archive: boolean, lang: "en" | "ko", bogusUpdates: boolean) {
  const { parent, model } = parentGraph(plain, backend, archive);
  const config = { configurable: { thread_id: `subgraph-update-${lang}` } };
  const texts = async () => ((await parent.getState(config as never)).values.messages as BaseMessage[]).map((m) => messageText(m));
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][0])] }, config);
  await parent.invoke({ messages: [new HumanMessage(TEXT[lang][1])] }, config);
  const state = await parent.getState(config as never, { subgraphs: true } as never);
  const sub = (state.tasks[0]?.state as { config?: { configurable?: SubConfig } } | undefined)?.config?.configurable as SubConfig;
  const subTexts = async () => {
    const s = await parent.getState(config as never, { subgraphs: true } as never);
    return ((s.tasks[0]?.state as { values?: { messages?: BaseMessage[] } } | undefined)?.values?.messages ?? []).map((m) =>
      messageText(m),
    );
  };
  const before = { parent: await texts(), sub: await subTexts() };
  const refusals: unknown[] = [];
  if (bogusUpdates) {
    const attempts = [
      { ...sub, checkpoint_id: "no-such-checkpoint", checkpoint_map: undefined },
      { thread_id: sub.thread_id, checkpoint_ns: "agent:no-such-task" },
    ];
    for (const configurable of attempts)
      refusals.push(
        await parent.updateState({ configurable } as never, { messages: [new HumanMessage(TEXT[lang][2])] }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
  }
  const after = { parent: await texts(), sub: await subTexts() };
  await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, config);
  return { before, after, refusals, sub, texts: await texts(), requests: requests(model) };
}

describe.each([
  ["in_memory", false],
  ["sqlite", false],
  ["sqlite", true],
] as const)("updateState on a subgraph namespace with no checkpoint to update (%s, archive %s)", (backend, archive) => {
  it.each(["en", "ko"] as const)("is refused naming the namespace; the resume runs as without it (%s)", async (lang) => {
    const plainBogus = await subgraphUpdate(true, "in_memory", false, lang, true);
    const plain = await subgraphUpdate(true, "in_memory", false, lang, false);
    // What LangGraph does: the live task's namespace restarted from the note alone, so the resume
    // answered the note; the tool call under review and its result are in neither state.
    expect(plainBogus.after.sub).toEqual([TEXT[lang][2]]);
    expect(plainBogus.texts).toEqual([...plain.before.parent, TEXT[lang][2], `ok: ${TEXT[lang][2]}`]);
    expect(plain.texts.some((t) => t.startsWith("done"))).toBe(true);
    const stacked = await subgraphUpdate(false, backend, archive, lang, true);
    const [badId, badNs] = stacked.refusals.map((e) => ThreadwiseConfigError.find(e));
    expect(badId?.option).toBe("configurable.checkpoint_id");
    expect(badId?.message).toContain(`no checkpoint "no-such-checkpoint" in namespace "${stacked.sub.checkpoint_ns}"`);
    expect(badNs?.option).toBe("configurable.checkpoint_ns");
    expect(badNs?.message).toContain(`namespace "agent:no-such-task"`);
    expect(stacked.after).toEqual(stacked.before);
    expect(stacked.texts).toEqual(plain.texts);
    expect(stacked.texts.slice(0, 3)).toEqual([TEXT[lang][0], `ok: ${TEXT[lang][0]}`, TEXT[lang][1]]);
    for (const request of stacked.requests) expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
  });
});

describe.each([false, true])("updateState on a task whose subgraph has not checkpointed yet (sqlite, archive %s)", (archive) => {
  it.each(["en", "ko"] as const)(
    "lands where LangGraph puts it and the thread reads as LangGraph's; another task id of the node is refused naming the namespace (%s)",
    async (lang) => {
      const plain = await notStartedUpdate(true, false, lang, "task");
      expect((plain.task.state as { values?: object } | undefined)?.values ?? {}).toEqual({});
      expect(plain.outcome).toBeUndefined();
      expect(plain.texts).toEqual([TEXT[lang][0], TEXT[lang][2], `ok: ${TEXT[lang][2]}`]);
      const stacked = await notStartedUpdate(false, archive, lang, "task");
      expect(stacked.outcome).toBeUndefined();
      expect(stacked.texts).toEqual(plain.texts);
      expect(stacked.next).toEqual(plain.next);
      const refused = await notStartedUpdate(false, archive, lang, "other");
      const error = ThreadwiseConfigError.find(refused.outcome);
      expect(error?.option).toBe("configurable.checkpoint_ns");
      expect(error?.message).toContain(`namespace "${refused.ns}"`);
      expect(error?.message).toContain("nothing was stored");
      // Nothing stored: the task ran from the parent's state alone.
      expect(refused.texts).toEqual([TEXT[lang][0], `ok: ${TEXT[lang][0]}`]);
      const onParent = await notStartedUpdate(false, archive, lang, "root");
      expect(onParent.outcome).toBeUndefined();
      const plainParent = await notStartedUpdate(true, false, lang, "root");
      expect(onParent.texts).toEqual(plainParent.texts);
      expect(onParent.next).toEqual(plainParent.next);
      for (const request of [...stacked.requests, ...refused.requests, ...onParent.requests])
        expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    },
  );
});

describe.each([false, true])("updateState on a Send task whose subgraph has not checkpointed yet (sqlite, archive %s)", (archive) => {
  it.each(["en", "ko"] as const)("lands where LangGraph puts it and the thread reads as LangGraph's (%s)", async (lang) => {
    const plain = await notStartedUpdate(true, false, lang, "task", "send");
    expect(plain.outcome).toBeUndefined();
    const stacked = await notStartedUpdate(false, archive, lang, "task", "send");
    expect(stacked.outcome).toBeUndefined();
    expect(stacked.texts).toEqual(plain.texts);
    expect(stacked.next).toEqual(plain.next);
    const refused = await notStartedUpdate(false, archive, lang, "other", "send");
    expect(ThreadwiseConfigError.find(refused.outcome)?.option).toBe("configurable.checkpoint_ns");
    for (const request of [...stacked.requests, ...refused.requests])
      expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
  });
});

describe.each([false, true])("updateState on a pending task of a thread over the window (sqlite, archive %s)", (archive) => {
  it.each(["en", "ko"] as const)("gives plain LangGraph's thread, every request valid (%s)", async (lang) => {
    const plain = await notStartedUpdate(true, false, lang, "task", "edge", 5);
    const stacked = await notStartedUpdate(false, archive, lang, "task", "edge", 5);
    expect(stacked.outcome).toBeUndefined();
    expect(stacked.texts).toEqual(plain.texts);
    expect(stacked.next).toEqual(plain.next);
    for (const request of stacked.requests) expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
  });
});

describe("updateState on a pending task (in_memory, archive on)", () => {
  it.each(["en", "ko"] as const)("gives plain LangGraph's thread; another task id is refused (%s)", async (lang) => {
    const plain = await notStartedUpdate(true, false, lang, "task", "edge", 2);
    const stacked = await notStartedUpdate(false, true, lang, "task", "edge", 2, "in_memory");
    expect(stacked.outcome).toBeUndefined();
    expect(stacked.texts).toEqual(plain.texts);
    expect(stacked.next).toEqual(plain.next);
    const refused = await notStartedUpdate(false, true, lang, "other", "edge", 2, "in_memory");
    expect(ThreadwiseConfigError.find(refused.outcome)?.option).toBe("configurable.checkpoint_ns");
    for (const request of [...stacked.requests, ...refused.requests])
      expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
  });
});

describe("updateState on a task listed before the parent's state changed (sqlite, archive on)", () => {
  it.each(["en", "ko"] as const)(
    "is refused naming the namespace; plain LangGraph stores a checkpoint no task reads (%s)",
    async (lang) => {
      const plain = await notStartedUpdate(true, false, lang, "stale");
      expect(plain.outcome).toBeUndefined();
      // Plain's update went where no task reads it: the task ran from the parent's state.
      expect(plain.texts.slice(0, 2)).toEqual([TEXT[lang][0], TEXT[lang][1]]);
      expect(plain.texts).not.toContain(TEXT[lang][2]);
      const stacked = await notStartedUpdate(false, true, lang, "stale");
      const error = ThreadwiseConfigError.find(stacked.outcome);
      expect(error?.option).toBe("configurable.checkpoint_ns");
      expect(error?.message).toContain(`namespace "${stacked.ns}"`);
      expect(stacked.texts).toEqual(plain.texts);
      expect(stacked.next).toEqual(plain.next);
      for (const request of stacked.requests)
        expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    },
  );
});
