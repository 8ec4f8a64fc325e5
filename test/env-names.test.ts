/**
 * The env variables threadwise reads (core's `THREADWISE_ENV`, the one list `checkEnvNames`
 * checks names against) and the READMEs agree: each one is documented in a README, and every
 * variable the root README's env table names is one threadwise reads.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { THREADWISE_ENV } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { readmePaths } from "../scripts/readme-block.js";

const repo = resolve(import.meta.dirname, "..");
const readmes = readmePaths(repo).map((path) => readFileSync(resolve(repo, path), "utf8"));
const root = readFileSync(resolve(repo, "README.md"), "utf8");

describe("THREADWISE_ENV and the READMEs", () => {
  it("every variable threadwise reads is documented in a README", () => {
    const undocumented = Object.values(THREADWISE_ENV).filter((name) => !readmes.some((text) => text.includes(`\`${name}\``)));
    expect(undocumented).toEqual([]);
  });

  it("every variable in the root README's env table is one threadwise reads", () => {
    const section = root.slice(root.indexOf("## Environment variables"), root.indexOf("Examples, tests and benchmarks only"));
    const rows = section.split("\n").filter((line) => line.startsWith("| `"));
    const named = rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1] as string));
    expect(named.length).toBeGreaterThan(30);
    const known = new Set<string>(Object.values(THREADWISE_ENV));
    expect(named.filter((name) => !known.has(name))).toEqual([]);
  });
});
