/**
 * memoryStack's `models.summarize`, `models.workMemory` and `models.facts` were ignored without a
 * word when their part was off (newuser38 left it): `memoryStack({ summarize: false, models: {
 * summarize } })` built a stack that never called that model. So were `store` without user memory
 * and `pool` on a backend other than postgres (found by newuser39's probe). Now refused naming
 * `memory.<option>` when the switch is in code or at its default; a switch set by env is the
 * deployment's choice and is left alone, as `summarizeThreshold` with `MEMORY_SUMMARIZE=false` is.
 */
import { InMemoryStore } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import pg from "pg";
import { describe, expect, it } from "vitest";

const model = scriptedModel(() => "ok");
const names = (options: Parameters<typeof memoryStack>[0]) => memoryStack(options).middleware.map((m) => m.name);

/** [code options, env, the option named, the switch's value the message must name] */
const REFUSED: [string, Record<string, unknown>, NodeJS.ProcessEnv, string, string][] = [
  ["summarize off in code", { summarize: false, models: { summarize: model } }, {}, "memory.models.summarize", "summarize: true"],
  ["work memory off by default", { models: { workMemory: model } }, {}, "memory.models.workMemory", "workMemory: true"],
  ["work memory off in code", { workMemory: false, models: { workMemory: model } }, {}, "memory.models.workMemory", "workMemory: true"],
  ["facts off by default", { models: { facts: model } }, {}, "memory.models.facts", 'factsMode: "llm"'],
  [
    "facts heuristic in code",
    { factsMode: "heuristic", models: { facts: "openai:gpt-4o-mini" } },
    {},
    "memory.models.facts",
    'factsMode: "llm"',
  ],
  ["store without user memory (default)", { store: new InMemoryStore() }, {}, "memory.store", "userMemory: true"],
  ["store with user memory off in code", { userMemory: false, store: new InMemoryStore() }, {}, "memory.store", "userMemory: true"],
  ["pool on the default backend", { pool: new pg.Pool() }, {}, "memory.pool", 'backend: "postgres"'],
  [
    "pool on sqlite in code",
    { backend: "sqlite", sqlitePath: "/nonexistent/never-made.sqlite", pool: new pg.Pool() },
    {},
    "memory.pool",
    'backend: "postgres"',
  ],
  // Code wins over env: the code's switch is what this stack runs with.
  [
    "summarize off in code, on in env",
    { summarize: false, models: { summarize: model } },
    { MEMORY_SUMMARIZE: "true" },
    "memory.models.summarize",
    "summarize: true",
  ],
];

describe("memoryStack refuses a code-only option for a part that does not read it", () => {
  it.each(REFUSED)("%s", (_what, options, env, option, fix) => {
    let caught: unknown;
    try {
      memoryStack({ ...options, env });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ThreadwiseConfigError);
    expect((caught as ThreadwiseConfigError).option).toBe(option);
    expect((caught as Error).message).toContain(fix);
  });

  it("accepts each model with its part on, and builds that part", () => {
    expect(names({ env: {}, models: { summarize: model } })).toContain("threadwise/summarize");
    expect(names({ env: {}, workMemory: true, models: { workMemory: model } })).toContain("threadwise/work-memory");
    expect(names({ env: {}, factsMode: "llm", models: { facts: model } })).toContain("threadwise/fact-recall");
  });

  it("leaves a store and a pool alone when env chose the switch", () => {
    const built = memoryStack({
      env: { MEMORY_USER_MEMORY: "false", MEMORY_BACKEND: "in_memory" },
      store: new InMemoryStore(),
      pool: new pg.Pool(),
    });
    expect(built.store).toBeUndefined();
    expect(built.checkpointer).toBeDefined();
  });

  it("leaves a part turned off by env alone (one code for several deployments)", () => {
    const env = { MEMORY_SUMMARIZE: "false", MEMORY_WORK_MEMORY: "false", MEMORY_FACTS_MODE: "heuristic" };
    const built = names({ env, models: { summarize: model, workMemory: model, facts: model } });
    expect(built).not.toContain("threadwise/summarize");
    expect(built).not.toContain("threadwise/work-memory");
    expect(built).toContain("threadwise/fact-recall");
  });
});
