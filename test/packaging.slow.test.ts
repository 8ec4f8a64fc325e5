/**
 * Every published package, packed and installed alone into a fresh project (only its declared
 * dependencies, plus the peers a user installs), imports from ESM and CJS and runs a one-turn
 * agent; publint and @arethetypeswrong/cli pass on it. See scripts/check-packages.ts.
 * Needs the npm registry (for the peers); slow (several minutes: it builds better-sqlite3 once).
 */
import { describe, expect, it } from "vitest";
import { checkPackages } from "../scripts/check-packages.js";

describe("packaging", () => {
  it("each package installs alone and works from ESM and CJS", { timeout: 30 * 60_000 }, () => {
    const lines = checkPackages();
    console.log(lines.join("\n"));
    expect(lines).toHaveLength(11);
    for (const line of lines) expect(line).toMatch(/publint ok, attw ok, esm ok: \d+ exports; cjs ok: \d+ exports/);
  });
});
