/**
 * An option that another option's value makes a no-op is refused at construction, naming it
 * (newuser36 left `windowTrim({ eviction: "sliding", archived })`, accepted without a word while
 * `lowWatermark` with `sliding` was refused). Found by trying every middleware's options from
 * JavaScript: each case below was accepted before and did nothing. The same options with the one
 * they need are still accepted, and `memoryStack({ archive: true })`, which passes windowTrim its
 * archive, still builds. memoryStack refuses a setting of a part left off by its switch's default
 * (`memoryStack({ sqlitePath })` kept threads in memory, lost on restart), and leaves a switch the
 * user set, in code or env, alone.
 */
import { createTokenCounter, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { recall } from "@threadwise/recall";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const archived = async () => [];
const archiveCleared = async () => undefined;
const vectorStore = { addDocuments: async () => [], similaritySearch: async () => [] } as never;
const filter = (threadId: string) => ({ thread_id: threadId });

/** [what, construction, the option named, a word the message must hold] */
const REFUSED: [string, () => unknown, string, string][] = [
  ["windowTrim archived with sliding", () => windowTrim({ eviction: "sliding", archived }), "windowTrim.archived", '"chunked"'],
  [
    "tokenCap model with tokenCounter",
    () => tokenCap({ maxTokens: 1000, tokenCounter: createTokenCounter(), model: "gpt-4o" }),
    "tokenCap.model",
    "tokenCounter",
  ],
  [
    "tokenCap encoding with tokenCounter",
    () => tokenCap({ maxTokens: 1000, tokenCounter: createTokenCounter(), encoding: "cl100k_base" }),
    "tokenCap.encoding",
    "tokenCounter",
  ],
  ["recall vectorStoreFilter without vectorStore", () => recall({ vectorStoreFilter: filter }), "recall.vectorStoreFilter", "vectorStore"],
  [
    "recall maxNeighbourTokens with neighbours 0",
    () => recall({ neighbours: 0, maxNeighbourTokens: 20 }),
    "recall.maxNeighbourTokens",
    "neighbours",
  ],
  ["summarize archiveCleared without archived", () => summarize({ archiveCleared }), "summarize.archiveCleared", "archived"],
];

/** memoryStack: a setting of a part whose switch was left at its default (off), in code or env. */
const STACK_REFUSED: [Record<string, unknown>, string, string][] = [
  [{ sqlitePath: "./chat.sqlite" }, "memory.sqlitePath", 'backend: "sqlite"'],
  [{ postgresDsn: "postgresql://app@db/app_memory" }, "memory.postgresDsn", 'backend: "postgres"'],
  [{ factRecallMaxItems: 5 }, "memory.factRecallMaxItems", 'factsMode: "heuristic"'],
  [{ userMemoryMaxTokens: 500 }, "memory.userMemoryMaxTokens", "userMemory: true"],
];

describe("options that another option makes a no-op are refused, naming them", () => {
  it.each(STACK_REFUSED)("memoryStack(%o) names %s", (options, option, fix) => {
    let caught: unknown;
    try {
      memoryStack({ ...options, env: {} });
    } catch (error) {
      caught = error;
    }
    expect(ThreadwiseConfigError.isInstance(caught), String(caught)).toBe(true);
    expect((caught as ThreadwiseConfigError).option).toBe(option);
    expect((caught as ThreadwiseConfigError).message).toContain(fix);
  });

  it("memoryStack leaves a switch set in code or env alone (one config for several backends)", () => {
    expect(() => memoryStack({ backend: "in_memory", sqlitePath: "./unused.sqlite", env: {} })).not.toThrow();
    expect(() => memoryStack({ sqlitePath: "./unused.sqlite", env: { MEMORY_BACKEND: "in_memory" } })).not.toThrow();
    expect(() => memoryStack({ factsMode: "off", factRecallMaxItems: 5, env: {} })).not.toThrow();
    expect(() => memoryStack({ factRecallMaxItems: 5, env: { MEMORY_FACTS_MODE: "heuristic" } })).not.toThrow();
    expect(() => memoryStack({ userMemory: false, userMemoryMaxTokens: 500, env: {} })).not.toThrow();
  });

  it.each(REFUSED)("%s", (_what, build, option, word) => {
    let caught: unknown;
    try {
      build();
    } catch (error) {
      caught = error;
    }
    expect(ThreadwiseConfigError.isInstance(caught), String(caught)).toBe(true);
    expect((caught as ThreadwiseConfigError).option).toBe(option);
    expect((caught as ThreadwiseConfigError).message).toContain("applies only with");
    expect((caught as ThreadwiseConfigError).message).toContain(word);
  });

  it("the same options with what they need are accepted", () => {
    expect(() => windowTrim({ eviction: "chunked", archived })).not.toThrow();
    expect(() => windowTrim({ archived })).not.toThrow();
    expect(() => windowTrim({ eviction: "sliding", archived: undefined })).not.toThrow();
    expect(() => tokenCap({ maxTokens: 1000, tokenCounter: createTokenCounter() })).not.toThrow();
    expect(() => tokenCap({ maxTokens: 1000, model: "gpt-4o", encoding: "o200k_base" })).not.toThrow();
    expect(() => recall({ vectorStore, vectorStoreFilter: filter })).not.toThrow();
    expect(() => recall({ neighbours: 1, maxNeighbourTokens: 20 })).not.toThrow();
    expect(() => recall({ neighbours: 0 })).not.toThrow();
    expect(() => summarize({ archived, archiveCleared })).not.toThrow();
    expect(() => memoryStack({ archive: true, env: {} })).not.toThrow();
  });
});

// JavaScript, no type check: `middleware: memoryStack()` (the stack object as the array) failed in
// LangChain with `TypeError: this.options.middleware?.filter is not a function`.
describe("memoryStack() passed as the middleware option itself", () => {
  it("throws ThreadwiseConfigError naming createAgent.middleware and the spread", () => {
    let caught: unknown;
    try {
      createAgent({ model: scriptedModel(() => "ok"), tools: [], middleware: memoryStack({ env: {} }) as never });
    } catch (error) {
      caught = error;
    }
    expect(ThreadwiseConfigError.isInstance(caught), String(caught)).toBe(true);
    expect((caught as ThreadwiseConfigError).option).toBe("createAgent.middleware");
    expect((caught as Error).message).toContain("createAgent({ model, ...memoryStack() })");
  });

  it("the spread stack still has only its own keys", () => {
    const stack = memoryStack({ env: {} });
    expect(Object.keys({ ...stack })).toEqual(["middleware", "checkpointer"]);
    expect(() => createAgent({ model: scriptedModel(() => "ok"), tools: [], ...stack })).not.toThrow();
  });
});
