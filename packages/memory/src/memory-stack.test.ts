import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import {
  isContextMessage,
  messageText,
  readSummarySlot,
  ThreadwiseConfigError,
  ThreadwiseUnknownOptionError,
  tailContextOf,
  withoutTailContext,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { DEFAULT_SUMMARY_PROMPT } from "@threadwise/summarize";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { type MemoryStackOptions, memoryStack } from "./memory-stack.js";
import { prune } from "./prune.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { ThreadwiseThreadIdError } from "./thread-id.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

const dir = mkdtempSync(join(tmpdir(), "tw-memory-stack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/** A model answering `echo:<newest user text>`; `.calls` shows what it saw. */
function echo() {
  return scriptedModel((messages) => `echo:${text(messages.filter((m) => m.getType() === "human").at(-1) as BaseMessage)}`);
}

async function say(agent: ReturnType<typeof createAgent>, thread: string, words: string) {
  return agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: thread } });
}

describe("memoryStack backends", () => {
  it("off: no middleware, no checkpointer, every call is a fresh thread", async () => {
    const stack = memoryStack({ env: { MEMORY_BACKEND: "off" } });
    expect(stack.middleware).toEqual([]);
    expect("checkpointer" in stack).toBe(false);
    const model = echo();
    const agent = createAgent({ model, ...stack });
    await say(agent, "t", "one");
    await say(agent, "t", "two");
    expect(model.calls[1]?.messages.map(text)).toEqual(["two"]);
  });

  it("in_memory: the thread persists across turns in this process; middleware order is fixed", async () => {
    // The env twins turn the preset's summary and recall off: the window alone shapes the view.
    const stack = memoryStack({
      env: { MEMORY_BACKEND: "in_memory", MEMORY_WINDOW_SIZE: "3", MEMORY_SUMMARIZE: "false", MEMORY_RECALL_MAX_TOKENS: "0" },
    });
    expect(stack.checkpointer).toBeInstanceOf(ThreadwiseSaver);
    expect(stack.middleware.map((m) => m.name)).toEqual([
      "threadwise/turn-admission",
      "threadwise/placement-mode",
      "threadwise/window-trim",
      "threadwise/history-aware",
    ]);
    const model = echo();
    const agent = createAgent({ model, systemPrompt: "You are terse.", ...stack });
    for (const w of ["a", "b", "c", "d"]) await say(agent, "t1", w);
    // System prompt with the R7 note, then a window of 3 messages.
    const [system, ...rest] = model.calls[3]?.messages ?? [];
    expect(system?.getType()).toBe("system");
    expect(text(system as BaseMessage)).toContain("This conversation continues from earlier turns");
    expect(rest.map(text)).toEqual(["c", "echo:c", "d"]);
    const state = await agent.graph.getState({ configurable: { thread_id: "t1" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual([
      "a",
      "echo:a",
      "b",
      "echo:b",
      "c",
      "echo:c",
      "d",
      "echo:d",
    ]);
  });

  it("adds tokenCap innermost when MAX_HISTORY_TOKENS is set", () => {
    const stack = memoryStack({
      env: {
        MAX_HISTORY_TOKENS: "2000",
        MEMORY_HISTORY_AWARE: "false",
        MEMORY_WINDOW_SIZE: "0",
        MEMORY_SUMMARIZE: "false",
        MEMORY_RECALL_MAX_TOKENS: "0",
      },
    });
    expect(stack.middleware.map((m) => m.name)).toEqual(["threadwise/turn-admission", "threadwise/placement-mode", "threadwise/token-cap"]);
  });

  it("sqlite: a second stack on the same file continues the thread (restart)", async () => {
    const sqlitePath = join(dir, "restart.sqlite");
    const first = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
    await say(createAgent({ model: echo(), ...first }), "t", "remember kiwi");
    await first.checkpointer?.close();
    const second = memoryStack({ env: { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: sqlitePath } });
    const model = echo();
    await say(createAgent({ model, ...second }), "t", "what fruit?");
    expect(model.calls[0]?.messages.map(text)).toEqual(["remember kiwi", "echo:remember kiwi", "what fruit?"]);
    await second.checkpointer?.close();
  });

  it.each(["in_memory", "sqlite"] as const)(
    "%s: deleting a thread leaves a tombstone; reusing the id fails with a named error",
    async (backend) => {
      const stack = memoryStack({ backend, sqlitePath: join(dir, "tomb.sqlite"), env: {} });
      const agent = createAgent({ model: echo(), ...stack });
      await say(agent, "gone", "hello");
      await say(agent, "kept", "hello");
      const saver = stack.checkpointer as ThreadwiseSaver;
      const outcome = await saver.deleteThreadWithOutcome("gone");
      expect(outcome.status).toBe("deleted");
      expect(outcome.counts.checkpoints).toBeGreaterThan(0);
      expect(await saver.getTuple({ configurable: { thread_id: "gone" } })).toBeUndefined();
      expect((await saver.registry.tombstone("gone"))?.reason).toBe("api");
      const error = await say(agent, "gone", "again").catch((e: unknown) => e);
      expect(ThreadwiseThreadDeletedError.isInstance(error)).toBe(true);
      expect((error as ThreadwiseThreadDeletedError).threadId).toBe("gone");
      // Other threads are untouched and still writable.
      await say(agent, "kept", "again");
      const kept = await agent.graph.getState({ configurable: { thread_id: "kept" } });
      expect((kept.values as { messages: BaseMessage[] }).messages).toHaveLength(4);
      expect((await saver.deleteThreadWithOutcome("gone")).status).toBe("already_deleted");
      await saver.close();
    },
  );
});

describe("the whole stack", () => {
  it("every middleware on, in the documented order; summary and facts placed by mode; tokenCap innermost", async () => {
    const env = {
      MEMORY_BACKEND: "sqlite",
      MEMORY_SQLITE_PATH: join(dir, "full.sqlite"),
      MEMORY_WINDOW_SIZE: "4",
      MEMORY_SUMMARIZE: "true",
      MEMORY_SUMMARIZE_THRESHOLD: "6",
      MEMORY_FACTS_MODE: "heuristic",
      MEMORY_WORK_MEMORY: "true",
      A2A_HISTORY_MAX_MESSAGES: "10",
      MAX_HISTORY_TOKENS: "4000",
      MEMORY_PERSIST_TRIM_KEEP_GROUPS: "40",
      MEMORY_RECALL_MAX_TOKENS: "300",
    };
    const stack = memoryStack({ env });
    expect(stack.middleware.map((m) => m.name)).toEqual([
      "threadwise/turn-admission",
      "threadwise/placement-mode",
      "threadwise/history-seed",
      "threadwise/window-trim",
      "threadwise/summary-slot",
      "threadwise/summarize",
      "threadwise/work-memory",
      "threadwise/fact-recall",
      "threadwise/history-aware",
      "threadwise/persist-trim",
      "threadwise/recall",
      "threadwise/token-cap",
    ]);
    const model = scriptedModel((messages) => {
      const newest = messages.filter((m) => m.getType() === "human").at(-1);
      return `noted: ${newest ? text(newest).slice(0, 40) : "?"}`;
    });
    const agent = createAgent({ model, systemPrompt: "You are a helpful assistant.", ...stack });
    const words = [
      "My name is Ada.",
      "I live in Busan.",
      "I like green tea.",
      "What's new?",
      "Tell me more.",
      "And then?",
      "Where do I live?",
    ];
    for (const w of words) await say(agent, "full", w);
    const last = model.calls.at(-1)?.messages ?? [];
    const system = text(last[0] as BaseMessage);
    // legacy_system: facts (and the summary, once made) are labelled blocks in the system prompt.
    expect(system).toContain("You are a helpful assistant.");
    expect(system).toContain("Busan");
    expect(system).toContain("[Previous conversation summary]");
    // The window: the newest user message is last, and only a few earlier messages are sent.
    expect(text(last.at(-1) as BaseMessage)).toBe("Where do I live?");
    expect(last.length).toBeLessThanOrEqual(1 + 4);
    const state = await agent.graph.getState({ configurable: { thread_id: "full" } });
    // Nothing was deleted from the stored thread.
    expect((state.values as { messages: BaseMessage[] }).messages.filter((m) => m.getType() === "human").map(text)).toEqual(words);
    await stack.checkpointer?.close();
  });

  it("stable_tail: memory goes after the newest user message, never into the stored thread", async () => {
    const stack = memoryStack({ env: { MEMORY_FACTS_MODE: "heuristic", THREADWISE_PROMPT_CONTEXT_MODE: "stable_tail" } });
    // Echoes the newest user message without the context block threadwise put on it.
    const model = scriptedModel(
      (messages) => `echo:${messageText(withoutTailContext(messages.filter((m) => m.getType() === "human").at(-1) as BaseMessage))}`,
    );
    const agent = createAgent({ model, systemPrompt: "Sys.", ...stack });
    await say(agent, "st", "I live in Busan.");
    await say(agent, "st", "Where do I live?");
    const last = model.calls.at(-1)?.messages ?? [];
    expect(text(last[0] as BaseMessage)).not.toContain("Busan");
    expect(tailContextOf(last.at(-1) as BaseMessage)).toContain("User lives in Busan");
    expect(withoutTailContext(last.at(-1) as BaseMessage).content).toBe("Where do I live?");
    const state = await agent.graph.getState({ configurable: { thread_id: "st" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual([
      "I live in Busan.",
      "echo:I live in Busan.",
      "Where do I live?",
      "echo:Where do I live?",
    ]);
  });
});

describe("the summary slot is declared once", () => {
  // LangChain parses the declared state schema of every middleware with wrapModelCall at each model
  // call (every threadwise middleware has one); workMemory, userMemory and persistTrim each declared
  // the slot, three parses per call. Only the hook-less summary-slot middleware declares it now.
  it.each([
    ["summarize, workMemory, userMemory, persistTrim", { summarize: true, workMemory: true, userMemory: true, persistTrimKeepGroups: 40 }],
    ["workMemory alone (no summarize)", { summarize: false, workMemory: true, recallMaxTokens: false as const, historyAware: false }],
    ["persistTrim alone (no summarize)", { summarize: false, persistTrimKeepGroups: 10, recallMaxTokens: false as const }],
  ])("%s: only threadwise/summary-slot declares it, and the stack still runs", async (_name, options) => {
    const stack = memoryStack({ env: {}, logger: false, ...options });
    const declaring = stack.middleware.filter(
      (m) => m.stateSchema !== undefined && "_threadwise_summary" in ((m.stateSchema as { fields?: object }).fields ?? {}),
    );
    expect(declaring.map((m) => m.name)).toEqual(["threadwise/summary-slot"]);
    const agent = createAgent({ model: echo(), ...stack });
    for (const w of ["one", "two", "three"]) await say(agent, "slot-once", w);
    const state = await agent.graph.getState({ configurable: { thread_id: "slot-once" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text).at(-1)).toBe("echo:three");
  });
});

describe("persistTrim through the stack", () => {
  it("deletes older groups from the stored thread only when configured (irreversible)", async () => {
    const model = echo();
    // Without summarize: with it (the preset's default) persistTrim keeps what is not summarized yet.
    const agent = createAgent({ model, ...memoryStack({ env: { MEMORY_PERSIST_TRIM_KEEP_GROUPS: "4", MEMORY_SUMMARIZE: "false" } }) });
    for (const w of ["a", "b", "c", "d"]) await say(agent, "trim", w);
    const state = await agent.graph.getState({ configurable: { thread_id: "trim" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual(["c", "echo:c", "d", "echo:d"]);
  });
});

describe("prune on SQLite", () => {
  it("dry run lists with counts and deletes nothing; --apply deletes and tombstones", async () => {
    const sqlitePath = join(dir, "prune.sqlite");
    const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
    const agent = createAgent({ model: echo(), ...stack });
    for (const id of ["old-1", "old-2", "new-1"]) await say(agent, id, "hi");
    await stack.checkpointer?.close();
    const future = () => new Date(Date.now() + 10 * 86_400_000);
    // All three are 10 "days" idle in the future; ask for one of them by id first.
    const one = await prune({ sqlitePath, threadId: "old-1", now: future });
    expect(one.dryRun).toBe(true);
    expect(one.candidates.map((c) => c.threadId)).toEqual(["old-1"]);
    const dry = await prune({ sqlitePath, olderThanDays: 5, now: future });
    expect(dry.candidates.map((c) => c.threadId).sort()).toEqual(["new-1", "old-1", "old-2"]);
    expect(dry.totals.threads).toBe(3);
    expect(dry.totals.checkpoints).toBe(dry.candidates.reduce((s, c) => s + c.checkpoints, 0));
    expect(dry.totals.checkpoints).toBeGreaterThan(0);
    expect(dry.outcomes).toEqual([]);
    // Nothing went: a second dry run sees the same rows.
    expect((await prune({ sqlitePath, olderThanDays: 5, now: future })).totals).toEqual(dry.totals);
    // Not idle long enough: nothing matches.
    expect((await prune({ sqlitePath, olderThanDays: 30, now: future })).candidates).toEqual([]);
    const applied = await prune({ sqlitePath, threadId: "old-1", apply: true });
    expect(applied.outcomes.map((o) => o.status)).toEqual(["deleted"]);
    expect(applied.totals.checkpoints).toBe(dry.candidates.find((c) => c.threadId === "old-1")?.checkpoints);
    const after = await prune({ sqlitePath, olderThanDays: 5, now: future });
    expect(after.candidates.map((c) => c.threadId).sort()).toEqual(["new-1", "old-2"]);
    const reopened = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
    const error = await say(createAgent({ model: echo(), ...reopened }), "old-1", "back?").catch((e: unknown) => e);
    expect(ThreadwiseThreadDeletedError.isInstance(error)).toBe(true);
    await reopened.checkpointer?.close();
  });
});

// Regression (issue 12): windowTrim after summarize with the same window hid the messages that had
// left the window but were not yet summarized (in neither the view nor the summary). memoryStack
// now builds [windowTrim, summarize] and core keeps whatever the summary does not cover.
describe("memoryStack with summarize", () => {
  it("every stored message is either in the view or covered by the summary", async () => {
    const stack = memoryStack({
      backend: "in_memory",
      summarize: true,
      windowSize: 4,
      summarizeThreshold: 8,
      historyAware: false,
      recallMaxTokens: false,
      env: {},
    });
    expect(stack.middleware.map((m) => m.name)).toEqual([
      "threadwise/turn-admission",
      "threadwise/placement-mode",
      "threadwise/window-trim",
      "threadwise/summary-slot",
      "threadwise/summarize",
    ]);
    const model = echo();
    const agent = createAgent({ model, ...stack });
    const config = { configurable: { thread_id: "sum" } };
    let summaries = 0;
    for (let turn = 1; turn <= 12; turn += 1) {
      await say(agent, "sum", `word ${turn}`);
      const state = await agent.graph.getState(config);
      const stored = (state.values as { messages: BaseMessage[] }).messages;
      const covered = readSummarySlot(state.values).summary?.coveredCount ?? 0;
      const lastCall = model.calls.filter((c) => !c.messages.some((m) => text(m).startsWith("Summarize"))).at(-1);
      const seen = (lastCall?.messages ?? []).filter((m) => m.getType() !== "system" && !isContextMessage(m)).map(text);
      // The view starts right after what the summary covers and runs to the newest user message.
      expect(seen).toEqual(stored.slice(covered, -1).map(text));
      if (covered > 0) summaries += 1;
    }
    expect(summaries).toBeGreaterThan(0);
  });
});

// Issue 24: with no options the preset built only placement, windowTrim and historyAware, so past
// 20 messages older turns were neither sent, nor summarized, nor recallable.
describe("memoryStack() with no options keeps what leaves the window", () => {
  it("summarizes with the agent's own model and recalls an old detail the window dropped", async () => {
    const stack = memoryStack({ env: {} });
    expect(stack.middleware.map((m) => m.name)).toEqual([
      "threadwise/turn-admission",
      "threadwise/placement-mode",
      "threadwise/window-trim",
      "threadwise/summary-slot",
      "threadwise/summarize",
      "threadwise/history-aware",
      "threadwise/recall",
    ]);
    const summarizerCalls: number[] = [];
    const model = scriptedModel((messages, call) => {
      if (messageText(messages[0] as BaseMessage).startsWith(DEFAULT_SUMMARY_PROMPT)) {
        summarizerCalls.push(call);
        return "The user, Mina, chatted about her week.";
      }
      return `echo:${text(messages.filter((m) => m.getType() === "human").at(-1) as BaseMessage)}`;
    });
    const agent = createAgent({ model, systemPrompt: "You are terse.", ...stack });
    await say(agent, "preset", "My locker code is 4417.");
    for (let turn = 1; turn < 24; turn += 1) await say(agent, "preset", `small talk ${turn}`);
    await say(agent, "preset", "What is my locker code?");
    // One summary of what left the window, by the agent's own model (48 messages, threshold 40).
    expect(summarizerCalls.length).toBeGreaterThanOrEqual(1);
    const last = model.calls.at(-1)?.messages ?? [];
    const sent = last.slice(1).map(text);
    expect(sent.length).toBeLessThanOrEqual(21);
    expect(sent).not.toContain("My locker code is 4417.");
    const system = text(last[0] as BaseMessage);
    expect(system).toContain("The user, Mina, chatted about her week.");
    // Recall brings back the exact detail the summary does not hold.
    expect(system).toContain("[Recalled from earlier in this conversation]");
    expect(system).toContain("4417");
  });
});

describe("memoryStack({ userMemory })", () => {
  it("MEMORY_USER_MEMORY=true adds userMemory inside the window and returns the store createAgent gets", async () => {
    const infos: string[] = [];
    const logger = { info: (m: string) => void infos.push(m), warn: () => {} };
    const stack = memoryStack({ logger, env: { MEMORY_USER_MEMORY: "true", MEMORY_USER_MEMORY_MAX_TOKENS: "200" } });
    const names = stack.middleware.map((m) => m.name);
    expect(names.indexOf("threadwise/user-memory")).toBeGreaterThan(names.indexOf("threadwise/window-trim"));
    expect(stack.store?.constructor.name).toBe("InMemoryStore");
    expect(JSON.parse(JSON.stringify(stack)).store).toBe("InMemoryStore");
    const model = scriptedModel(() => "noted");
    const agent = createAgent({ model, ...stack });
    await agent.invoke(
      { messages: [new HumanMessage("I moved to Busan last month.")] },
      { configurable: { thread_id: "um-1", user_id: "u1" } },
    );
    await agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, { configurable: { thread_id: "um-2", user_id: "u1" } });
    expect(JSON.stringify(model.calls.at(-1)?.messages)).toContain("Busan");
    expect(infos.at(-1)).toMatch(/user_memory=on$/);
    await agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, { configurable: { thread_id: "um-3" } });
    expect(JSON.stringify(model.calls.at(-1)?.messages)).not.toContain("Busan");
    expect(infos.at(-1)).toMatch(/user_memory=no_user_id$/);
  });

  // A new user on SQLite restarted and found the user memory gone, the threads kept: said in the README only.
  it("on sqlite without a store warns that user memory is kept in memory only; with a store, no warning", async () => {
    const warns: string[] = [];
    const logger = { info: () => {}, warn: (m: string) => void warns.push(m) };
    const sqlitePath = join(dir, "user-memory-warning.sqlite");
    const stack = memoryStack({ backend: "sqlite", sqlitePath, userMemory: true, logger, env: {} });
    expect(warns).toEqual([
      'memoryStack: userMemory on sqlite keeps user memory in an InMemoryStore, lost on restart (the threads are not); pass `store` for a durable one (LangGraph.js has no SQLite store: a PostgresStore, see "Durable user memory beside a SQLite file" in @threadwise/memory\'s README)',
    ]);
    await stack.checkpointer?.close();
    const own = memoryStack({ backend: "sqlite", sqlitePath, userMemory: true, store: stack.store, logger, env: {} });
    expect(warns).toHaveLength(1);
    await own.checkpointer?.close();
  });

  // Two tenants' stacks built from their own env objects, one store: user memory keyed on the
  // tenant of process.env (the default) recalled one tenant's user in the other's threads.
  it("takes the tenant from the stack's env, as the checkpointer does: tenants sharing a store stay apart", async () => {
    const shared = memoryStack({ userMemory: true, env: {} }).store;
    const stackOf = (tenant: string) => memoryStack({ userMemory: true, store: shared, env: { THREADWISE_MEMORY_TENANT_ID: tenant } });
    const model = scriptedModel(() => "noted");
    const t1 = createAgent({ model, ...stackOf("t1") });
    const t2 = createAgent({ model, ...stackOf("t2") });
    const asUser = (thread: string) => ({ configurable: { thread_id: thread, user_id: "u1" } });
    await t1.invoke({ messages: [new HumanMessage("I moved to Busan last month.")] }, asUser("tn-1"));
    await t2.invoke({ messages: [new HumanMessage("Where do I live now?")] }, asUser("tn-2"));
    expect(JSON.stringify(model.calls.at(-1)?.messages)).not.toContain("Busan");
    await t1.invoke({ messages: [new HumanMessage("Where do I live now?")] }, asUser("tn-3"));
    expect(JSON.stringify(model.calls.at(-1)?.messages)).toContain("Busan");
  });

  it("is off by default: no user-memory middleware and no store", () => {
    const stack = memoryStack({ env: {} });
    expect(stack.middleware.map((m) => m.name)).not.toContain("threadwise/user-memory");
    expect(stack.store).toBeUndefined();
  });
});

describe("a run without a thread id", () => {
  // Was: the preset's saver threw "thread_id: expected a string, got undefined" and left the caller
  // to find where a thread id goes (LangGraph's own savers say it; the preset's did not).
  it("is refused naming thread_id and showing the config that passes one", async () => {
    const agent = createAgent({ model: echo(), ...memoryStack({ env: {} }) });
    const error = await agent.invoke({ messages: [new HumanMessage("hi")] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ThreadwiseThreadIdError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain("thread_id: expected a string, got undefined; ");
    expect((error as Error).message).toContain('{ configurable: { thread_id: "..." } }');
  });
});

describe("memoryStack refuses a misspelt option", () => {
  // Was: "memory.loger: unknown option "loger"; accepted: backend, ..., turnLeaseMs", with no
  // suggestion: only the config's keys were listed, not env, logger, models, store and the rest.
  it("suggests and lists the code-only options too", () => {
    for (const [key, suggestion] of [
      ["loger", "logger"],
      ["modles", "models"],
      ["stor", "store"],
      ["encrypton", "encryption"],
      ["windowSze", "windowSize"],
    ] as const) {
      let thrown: unknown;
      try {
        memoryStack({ [key]: {}, env: {} } as never);
      } catch (error) {
        thrown = error;
      }
      expect(ThreadwiseUnknownOptionError.isInstance(thrown), key).toBe(true);
      const error = thrown as ThreadwiseUnknownOptionError;
      expect(error.option).toBe(`memory.${key}`);
      expect(error.suggestion).toBe(suggestion);
      expect(error.accepted).toEqual(
        expect.arrayContaining(["windowSize", "env", "logger", "models", "store", "serde", "pool", "encryption"]),
      );
    }
  });
});

describe("memoryStack refuses misspelt env names", () => {
  it.each([
    [{ THREADWISE_ARCHIVE: "ture" }, "THREADWISE_ARCHIVE", "MEMORY_ARCHIVE"],
    [{ THREADWISE_ARCHVE: "1" }, "THREADWISE_ARCHVE", "MEMORY_ARCHIVE"],
    [{ THREADWISE_MEMORY_KEYRNG: "/etc/keyring.json" }, "THREADWISE_MEMORY_KEYRNG", "THREADWISE_MEMORY_KEYRING"],
  ])("%o throws naming the variable (was: the default stack, the setting silently not applied)", (env, option, suggestion) => {
    let error: unknown;
    try {
      memoryStack({ env });
    } catch (thrown) {
      error = thrown;
    }
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(option);
    expect((error as Error).message).toContain(`did you mean ${suggestion}?`);
  });

  it("a near miss of a MEMORY_* name is reported to the stack's logger, once", () => {
    const warnings: string[] = [];
    const logger = { info() {}, warn: (message: string) => void warnings.push(message) };
    const stack = memoryStack({ env: { MEMORY_BACKND: "sqlite", MEMORY_WINDOWSIZE: "5" }, logger });
    expect(stack.checkpointer?.toJSON()).toMatchObject({ backend: "in_memory" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("MEMORY_BACKND (did you mean MEMORY_BACKEND?)");
    expect(warnings[0]).toContain("MEMORY_WINDOWSIZE (did you mean MEMORY_WINDOW_SIZE?)");
  });
});

// Found trying the README as a new user: the README says memoryStack throws ThreadwiseConfigError,
// ThreadwiseUnknownOptionError and ThreadwiseStrictModeError, but @threadwise/memory exported none of
// them, so an app on @threadwise/memory alone (pnpm: no access to packages it did not add) could not
// tell them apart with `isInstance` or find them with `.find`.
// In JavaScript nothing type-checks createAgent's options: `middleware: [memoryStack()]` built an
// agent with no memory and no checkpointer, silently (createAgent skips an entry with no name and
// no hooks). The casts below stand for the missing type check.
describe("the stack nested in createAgent's middleware array (JavaScript) is refused", () => {
  const nestedError = (middleware: unknown[]) => {
    try {
      createAgent({ model: scriptedModel(() => "ok"), middleware: middleware as never });
    } catch (error) {
      return error;
    }
    throw new Error("expected createAgent to throw");
  };

  it("middleware: [memoryStack()] throws at createAgent, naming the spread", () => {
    for (const backend of ["in_memory", "off"] as const) {
      const error = nestedError([memoryStack({ backend, logger: false, env: {} })]);
      expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
      expect((error as ThreadwiseConfigError).option).toBe("createAgent.middleware");
      expect((error as Error).message).toContain("memoryStack() (an object of createAgent options");
      expect((error as Error).message).toContain("createAgent({ model, ...memoryStack() })");
    }
  });

  it("middleware: [stack.middleware] and [memoryMiddleware(config)] throw too", async () => {
    const { memoryMiddleware, resolveMemoryConfig } = await import("./index.js");
    const stack = memoryStack({ backend: "in_memory", logger: false, env: {} });
    const nestedArray = nestedError([stack.middleware]);
    expect((nestedArray as ThreadwiseConfigError).option).toBe("createAgent.middleware");
    expect((nestedArray as Error).message).toContain("memoryStack().middleware (an array of middlewares)");
    const config = resolveMemoryConfig({ backend: "in_memory", recallMaxTokens: false }, {});
    const nestedMiddleware = nestedError([memoryMiddleware(config, { logger: false })]);
    expect((nestedMiddleware as Error).message).toContain("memoryMiddleware() (an array of middlewares)");
  });

  it("spread, or the array passed as is, still works: the guard adds no key and shadows no middleware field", async () => {
    const stack = memoryStack({ backend: "in_memory", windowSize: 3, summarize: false, recallMaxTokens: false, logger: false, env: {} });
    expect(Object.keys(stack)).toEqual(["middleware", "checkpointer"]);
    expect(Object.keys({ ...stack })).toEqual(["middleware", "checkpointer"]);
    expect(stack.middleware.map((m) => m.name)).toEqual([...stack.middleware].map((m) => m.name));
    for (const agentOptions of [{ ...stack }, { middleware: stack.middleware, checkpointer: stack.checkpointer }]) {
      const model = echo();
      const agent = createAgent({ model, ...agentOptions });
      for (const w of ["a", "b", "c"]) await say(agent, "spread", w);
      expect(model.calls[2]?.messages.map(text)).toEqual(["b", "echo:b", "c"]);
    }
  });
});

describe("the errors memoryStack throws are exported by @threadwise/memory", () => {
  const thrown = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error;
    }
    throw new Error("expected memoryStack to throw");
  };

  it("ThreadwiseError, ThreadwiseConfigError, ThreadwiseUnknownOptionError, ThreadwiseStrictModeError", async () => {
    const memory = await import("./index.js");
    const strict = thrown(() => memory.memoryStack({ strictMode: true, env: {} }));
    expect(memory.ThreadwiseStrictModeError?.isInstance(strict)).toBe(true);
    const bad = thrown(() => memory.memoryStack({ windowSize: -1, env: {} }));
    expect(memory.ThreadwiseConfigError?.isInstance(bad)).toBe(true);
    const misspelt = thrown(() => memory.memoryStack({ windowSise: 3, env: {} } as never));
    expect(memory.ThreadwiseUnknownOptionError?.isInstance(misspelt)).toBe(true);
    for (const error of [strict, bad, misspelt]) expect(memory.ThreadwiseError?.find(error)).toBe(error);
  });

  // The stack's historySeed (historySeedMaxMessages) throws HistorySeedError from invoke on outside
  // history it rejects; @threadwise/memory did not export it.
  it("HistorySeedError, from a turn whose outside history is rejected", async () => {
    const memory = await import("./index.js");
    const stack = memory.memoryStack({ backend: "in_memory", historySeedMaxMessages: 5, recallMaxTokens: false, logger: false, env: {} });
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: stack.checkpointer,
      middleware: stack.middleware,
    });
    const rejected = await agent
      .invoke({ messages: [new HumanMessage("hi")] }, {
        configurable: { thread_id: "seed-rejected" },
        context: { seedHistory: "not an array" },
      } as never)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const seedError = memory.ThreadwiseError.find(rejected);
    expect(memory.HistorySeedError?.isInstance(seedError)).toBe(true);
    expect((seedError as { reason?: string } | undefined)?.reason).toBe("not_an_array");
  });

  // Found by helper newuser30 trying the README as a new user: a stack with a keyring throws
  // ThreadwiseKeyringError at construction, and its turns ThreadwiseDecryptionError or
  // ThreadwiseAgentMismatchError on records of another keyring or agent id; with user memory, a
  // turn whose user_id is not a string throws ThreadwiseUserIdError. @threadwise/memory exported
  // none of them: an app on it alone could not tell them apart with `isInstance`.
  it("ThreadwiseKeyringError, ThreadwiseDecryptionError, ThreadwiseAgentMismatchError, ThreadwiseUserIdError", async () => {
    const memory = await import("./index.js");
    const keyring = join(dir, "errors-keyring.json");
    createKeyring(keyring);
    const open = join(dir, "errors-keyring-open.json");
    createKeyring(open);
    chmodSync(open, 0o644);
    const badKeyring = thrown(() => memory.memoryStack({ keyringPath: open, logger: false, env: {} }));
    expect(memory.ThreadwiseKeyringError?.isInstance(badKeyring)).toBe(true);

    const sqlitePath = join(dir, "errors-sealed.sqlite");
    const turn = async (options: Partial<MemoryStackOptions>, configurable: Record<string, unknown> = { thread_id: "sealed" }) => {
      const stack = memory.memoryStack({ backend: "sqlite", sqlitePath, recallMaxTokens: false, logger: false, env: {}, ...options });
      const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
      try {
        return await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable }).then(
          () => undefined,
          (error: unknown) => memory.ThreadwiseError.find(error),
        );
      } finally {
        await stack.checkpointer?.close();
      }
    };
    expect(await turn({ keyringPath: keyring })).toBeUndefined();
    const other = join(dir, "errors-keyring-other.json");
    createKeyring(other);
    expect(memory.ThreadwiseDecryptionError?.isInstance(await turn({ keyringPath: other }))).toBe(true);
    expect(memory.ThreadwiseAgentMismatchError?.isInstance(await turn({ keyringPath: keyring, encryption: { agentId: "another" } }))).toBe(
      true,
    );
    const userId = await turn({ backend: "in_memory", userMemory: true }, { thread_id: "u", user_id: 42 });
    expect(memory.ThreadwiseUserIdError?.isInstance(userId)).toBe(true);
  });
});
