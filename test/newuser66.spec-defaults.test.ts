/**
 * docs/MEMORY-SPEC.md as a user reads it: each default and choice list it writes in a
 * requirement's signature is what the code resolves with no option and an empty env. R8 listed
 * two prompt-context modes (`legacy_system`, `stable_tail`) where every middleware accepts three
 * (`cache_aware` too, documented in the READMEs and R36).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROMPT_CONTEXT_MODES } from "@threadwise/core";
import { FACT_MODES, resolveFactRecallConfig } from "@threadwise/fact-recall";
import { resolveHistorySeedOptions } from "@threadwise/history-seed";
import { DEFAULT_PG_POOL_MAX, MEMORY_BACKENDS, resolveMemoryConfig } from "@threadwise/memory";
import { resolveSummarizeOptions } from "@threadwise/summarize";
import { resolveWindowTrimOptions } from "@threadwise/window-trim";
import { workMemoryOptionsSchema } from "@threadwise/work-memory";
import { describe, expect, it } from "vitest";

const spec = readFileSync(resolve(import.meta.dirname, "../docs/MEMORY-SPEC.md"), "utf8");

/** The text of requirement `id` (from its bold heading to the next requirement). */
function requirement(id: string): string {
  const start = spec.indexOf(`**${id} `);
  expect(start, `${id} in the spec`).toBeGreaterThanOrEqual(0);
  const next = spec.slice(start + 1).search(/\*\*R\d+ /);
  return spec.slice(start, next < 0 ? undefined : start + 1 + next).replace(/\s+/g, " ");
}

/** The `name = N` default a requirement's signature writes. */
function stated(id: string, name: string): number {
  const match = new RegExp(`\\b${name} = (\\d+)`).exec(requirement(id));
  expect(match, `${id} states ${name}'s default`).not.toBeNull();
  return Number(match?.[1]);
}

const env = {};

describe("docs/MEMORY-SPEC.md states the defaults the code resolves", () => {
  it("R2 windowTrim maxMessages", () => {
    expect(resolveWindowTrimOptions({}, env).maxMessages).toBe(stated("R2", "maxMessages"));
  });

  it("R10 summarize windowSize and threshold", () => {
    const resolved = resolveSummarizeOptions({}, env);
    expect(resolved.keep).toEqual({ messages: stated("R10", "windowSize") });
    expect(resolved.trigger).toEqual([{ messages: stated("R10", "threshold") }]);
  });

  it("R15 factRecall maxItems and modes", () => {
    expect(resolveFactRecallConfig({}, env).maxItems).toBe(stated("R15", "maxItems"));
    for (const mode of FACT_MODES) expect(requirement("R15")).toContain(`"${mode}"`);
  });

  it("R18 workMemory maxItems and maxCharacters", () => {
    const parsed = workMemoryOptionsSchema.parse({});
    expect(parsed.maxItems).toBe(stated("R18", "maxItems"));
    expect(parsed.maxCharacters).toBe(stated("R18", "maxCharacters"));
  });

  it("R19 historySeed maxMessages", () => {
    expect(resolveHistorySeedOptions({}, env).maxMessages).toBe(stated("R19", "maxMessages"));
  });

  it("R20 backends and the default database name; R22 pool size", () => {
    for (const backend of MEMORY_BACKENDS) expect(requirement("R20")).toContain(backend);
    const config = resolveMemoryConfig({ backend: "postgres", allowPlaintext: true, project: "acme" }, env);
    expect(String(config.postgresDsn)).toMatch(/\/acme_memory$/);
    expect(requirement("R20")).toContain("`<project>_memory`");
    expect(requirement("R22")).toContain(`At most ${DEFAULT_PG_POOL_MAX} connections per process by default`);
  });

  it("R8 names every prompt-context mode, legacy_system the default", () => {
    const r8 = requirement("R8");
    for (const mode of PROMPT_CONTEXT_MODES) expect(r8, `R8 names ${mode}`).toContain(`\`${mode}\``);
    expect(r8).toContain("`legacy_system` (default)");
    expect(resolveMemoryConfig({}, env).promptContextMode).toBe("legacy_system");
  });
});
