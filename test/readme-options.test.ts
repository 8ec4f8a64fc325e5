/**
 * Each middleware package's README lists, in its "## Options" table, exactly the options its
 * factory accepts (the keys of its strict options schema), and a row for an option that takes one
 * of a few strings names every string the schema accepts. A reader who copies a name or a value
 * from a table gets one the factory takes, and finds every option the factory takes.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { encryptionOptionsSchema } from "@threadwise/encryption";
import { factRecallOptionsSchema } from "@threadwise/fact-recall";
import { historyAwareOptionsSchema } from "@threadwise/history-aware";
import { historySeedOptionsSchema, resolveHistorySeedOptions } from "@threadwise/history-seed";
import { MEMORY_ENV, memoryConfigSchema, resolveMemoryConfig } from "@threadwise/memory";
import { persistTrimOptionsSchema } from "@threadwise/persist-trim";
import { recallOptionsSchema, resolveRecallOptions } from "@threadwise/recall";
import { resolveSummarizeOptions, summarizeOptionsSchema } from "@threadwise/summarize";
import { tokenCapOptionsSchema } from "@threadwise/token-cap";
import { resolveUserMemoryOptions, userMemoryOptionsSchema } from "@threadwise/user-memory";
import { resolveWindowTrimOptions, windowTrimOptionsSchema } from "@threadwise/window-trim";
import { workMemoryOptionsSchema } from "@threadwise/work-memory";
import { describe, expect, it } from "vitest";
import type { z } from "zod/v4";

const root = resolve(import.meta.dirname, "..");

/** The factory's options schema of each package whose README has an "## Options" table. */
const SCHEMAS: Record<string, z.ZodObject> = {
  encryption: encryptionOptionsSchema,
  "fact-recall": factRecallOptionsSchema,
  "history-aware": historyAwareOptionsSchema,
  "history-seed": historySeedOptionsSchema,
  "persist-trim": persistTrimOptionsSchema,
  recall: recallOptionsSchema,
  summarize: summarizeOptionsSchema,
  "token-cap": tokenCapOptionsSchema,
  "user-memory": userMemoryOptionsSchema,
  "window-trim": windowTrimOptionsSchema,
  "work-memory": workMemoryOptionsSchema,
};

/** The rows of the first table under `heading`, by the option their first cell names. */
function optionRows(pkg: string, heading = "## Options"): Map<string, string> {
  const text = readFileSync(resolve(root, "packages", pkg, "README.md"), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `packages/${pkg}/README.md has no "${heading}" section`).toBeGreaterThan(0);
  const lines = text.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows = new Map<string, string>();
  for (const line of lines.slice(first)) {
    if (!line.startsWith("|")) break;
    const name = /^\|\s*`([A-Za-z]+)`\s*\|/.exec(line)?.[1];
    if (name) rows.set(name, line);
  }
  return rows;
}

/** The strings an option accepts when it is an enum (under optional or default), else undefined. */
function enumValues(schema: unknown): string[] | undefined {
  let inner = schema as { def?: { type?: string; innerType?: unknown }; options?: unknown };
  while (inner.def?.type === "optional" || inner.def?.type === "default") inner = inner.def.innerType as typeof inner;
  return inner.def?.type === "enum" && Array.isArray(inner.options) ? (inner.options as string[]) : undefined;
}

describe("README options tables and the factories' schemas", () => {
  it.each(Object.keys(SCHEMAS))("packages/%s/README.md names every option the factory takes, and no other", (pkg) => {
    const schema = SCHEMAS[pkg] as z.ZodObject;
    const documented = [...optionRows(pkg).keys()].sort();
    expect(documented).toEqual(Object.keys(schema.shape).sort());
  });

  it.each(Object.keys(SCHEMAS))("packages/%s/README.md names every value of an option that takes one of a few strings", (pkg) => {
    const schema = SCHEMAS[pkg] as z.ZodObject;
    const rows = optionRows(pkg);
    const missing = Object.entries(schema.shape).flatMap(([option, field]) =>
      (enumValues(field) ?? []).filter((value) => !rows.get(option)?.includes(value)).map((value) => `${option}: ${value}`),
    );
    expect(missing).toEqual([]);
  });
});

/** The options each factory resolves with nothing given (empty env), for the packages that export their resolver. */
const RESOLVED: Record<string, () => object> = {
  "history-seed": () => resolveHistorySeedOptions({}, {}),
  recall: () => resolveRecallOptions({}, {}),
  summarize: () => resolveSummarizeOptions({}, {}),
  "user-memory": () => resolveUserMemoryOptions({}, {}),
  "window-trim": () => resolveWindowTrimOptions({}, {}),
};

/** The index, in a row split on `|`, of the column whose header is `default`. */
function defaultColumn(pkg: string): number {
  const text = readFileSync(resolve(root, "packages", pkg, "README.md"), "utf8");
  const header =
    text
      .slice(text.indexOf("\n## Options\n"))
      .split("\n")
      .find((line) => line.startsWith("|")) ?? "";
  return header.split("|").findIndex((cell) => cell.trim().toLowerCase() === "default");
}

describe("README options tables and the factories' defaults", () => {
  // A default written as one value at the start of its cell (`20`, `true`, `"chunked"`,
  // `user_id`, 1000) is what the factory applies; one in words or code (`floor(maxMessages / 2)`,
  // `process.env`, "required", "env X, else Y", a constant's name) is not compared.
  it.each(Object.keys(RESOLVED))("packages/%s/README.md: each literal default is the one the factory applies", (pkg) => {
    const resolved = (RESOLVED[pkg] as () => Record<string, unknown>)();
    const column = defaultColumn(pkg);
    expect(column, `packages/${pkg}/README.md's options table has a "default" column`).toBeGreaterThan(0);
    const compared = [...optionRows(pkg)].flatMap(([option, row]) => {
      const cell = /^(?:`"?([\w-]+)"?`|(\d+))(?:\s|$)/.exec(row.split(/(?<!\\)\|/)[column]?.trim() ?? "");
      const shown = cell?.[1] ?? cell?.[2];
      // A constant's name (`DEFAULT_SUMMARY_PROMPT`) names a value, not the value.
      return shown === undefined || /^[A-Z][A-Z0-9_]+$/.test(shown) ? [] : [[option, shown, String(resolved[option])]];
    });
    expect(compared.length, `packages/${pkg}/README.md has literal defaults`).toBeGreaterThan(0);
    expect(compared.filter(([, shown, applied]) => shown !== applied)).toEqual([]);
  });
});

describe("packages/memory/README.md's \"Options and env\" table and memoryStack's config", () => {
  const rows = optionRows("memory", "## Options and env");
  const cells = (option: string) => (rows.get(option) ?? "").split(/(?<!\\)\|/).map((cell) => cell.trim());

  it("names every config option, and no other", () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(memoryConfigSchema.shape).sort());
  });

  it("names each option's env twin", () => {
    const wrong = Object.entries(MEMORY_ENV)
      .filter(([option, variable]) => /`([A-Z0-9_]+)`/.exec(cells(option)[5] ?? "")?.[1] !== variable)
      .map(([option, variable]) => `${option}: ${variable}`);
    expect(wrong).toEqual([]);
  });

  it("a default written as one literal is the one resolveMemoryConfig applies", () => {
    const defaults = resolveMemoryConfig({ project: "app" }, {}) as unknown as Record<string, unknown>;
    const literal = [...rows.keys()].flatMap((option) => {
      const shown = /^`([^`]+)`$/.exec(cells(option)[3] ?? "")?.[1]?.replaceAll("<project>", "app");
      return shown === undefined ? [] : [[option, shown, String(defaults[option])]];
    });
    expect(literal.length).toBeGreaterThan(15);
    expect(literal.filter(([, shown, applied]) => shown !== applied)).toEqual([]);
  });

  it("names every value of an option that takes one of a few strings", () => {
    const missing = Object.entries(memoryConfigSchema.shape).flatMap(([option, field]) =>
      (enumValues(field) ?? []).filter((value) => !rows.get(option)?.includes(value)).map((value) => `${option}: ${value}`),
    );
    expect(missing).toEqual([]);
  });
});
