/**
 * Every published package, packed and installed alone into a fresh project (only its declared
 * dependencies, plus its required peers), once with the lowest peer versions its ranges allow
 * (zod 3.25 included) and once with the newest: imports from ESM and CJS and runs a one-turn
 * agent; publint and @arethetypeswrong/cli pass on it. Then the README quick start runs in an app
 * that installed only the packed window-trim and summarize, under both peer sets.
 * See scripts/check-packages.ts. Needs the npm registry; slow (several minutes).
 */
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPackages, checkQuickStart, packageNames } from "../scripts/check-packages.js";

describe("packaging", () => {
  it("each package installs alone with the floor and the latest peers, and works from ESM and CJS", { timeout: 40 * 60_000 }, () => {
    const lines = checkPackages();
    console.log(lines.join("\n"));
    expect(lines).toHaveLength(2 * packageNames().length);
    expect(packageNames()).toEqual(readdirSync(resolve(import.meta.dirname, "../packages")).sort());
    for (const line of lines)
      expect(line).toMatch(/\[(floor|latest): .*\]: publint ok, attw ok, esm ok: \d+ exports; cjs ok: \d+ exports$/);
    expect(lines.filter((line) => line.includes("[floor: "))).toHaveLength(packageNames().length);
  });

  it("an app with only the packed window-trim and summarize runs the README quick start offline, floor and latest peers", {
    timeout: 20 * 60_000,
  }, () => {
    const lines = checkQuickStart();
    console.log(lines.join("\n"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^README quick start \[floor: .*langchain@1\.4\.0 .*\]: output as in the README$/);
  });
});
