import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ThreadwiseStrictModeError } from "./errors.js";
import { createKeyring } from "./keyring.js";
import { assertStrictMode, checkStrictMode } from "./strict-mode.js";
import { tempDir, testKeyring, writeKeyringFile } from "./test-support.js";

const dir = tempDir();
const keyringPath = createKeyring(join(dir, "k.json")).path;
const badKeyringPath = writeKeyringFile(dir, { version: 1, active_kid: "k", keys: { k: "AAAA" } }, 0o644, "bad.json");

describe("strict mode (R30)", () => {
  const all = {
    MEMORY_STRICT_MODE: "true",
    MEMORY_BACKEND: "postgres",
    THREADWISE_MEMORY_KEYRING: keyringPath,
    MEMORY_RETENTION_DAYS: "30",
  };

  it("passes when postgres, a valid keyring and a positive retention are all set", () => {
    const report = assertStrictMode({ env: all });
    expect(report).toMatchObject({ strict: true, backend: "postgres", retentionDays: 30, missing: [] });
    expect(report.keyring?.kids).toHaveLength(1);
  });

  // Every combination of the three requirements: each missing one is named, in order.
  const combos = [0, 1, 2, 3, 4, 5, 6, 7].map((mask) => ({
    postgres: (mask & 1) !== 0,
    keyring: (mask & 2) !== 0,
    retention: (mask & 4) !== 0,
  }));
  it.each(combos)("postgres=$postgres keyring=$keyring retention=$retention", ({ postgres, keyring, retention }) => {
    const env: NodeJS.ProcessEnv = { MEMORY_STRICT_MODE: "true" };
    if (postgres) env.MEMORY_BACKEND = "postgres";
    else env.MEMORY_BACKEND = "sqlite";
    if (keyring) env.THREADWISE_MEMORY_KEYRING = keyringPath;
    if (retention) env.MEMORY_RETENTION_DAYS = "7";
    const expected = [!postgres && "postgres", !keyring && "keyring", !retention && "retention"].filter(Boolean);
    expect(checkStrictMode({ env }).missing).toEqual(expected);
    if (expected.length === 0) return expect(() => assertStrictMode({ env })).not.toThrow();
    let error: unknown;
    try {
      assertStrictMode({ env });
    } catch (caught) {
      error = caught;
    }
    expect(ThreadwiseStrictModeError.isInstance(error)).toBe(true);
    const strictError = error as ThreadwiseStrictModeError;
    expect(strictError.code).toBe("THREADWISE_STRICT_MODE");
    expect(strictError.missing).toEqual(expected);
    for (const name of expected) expect(strictError.message).toContain(`- ${name}:`);
    if (!postgres) expect(strictError.message).toContain('MEMORY_BACKEND=postgres), got "sqlite"');
    if (!keyring) expect(strictError.message).toContain("threadwise keyring create");
    if (!retention) expect(strictError.message).toContain("MEMORY_RETENTION_DAYS is unset");
  });

  it("treats an invalid keyring or retention as missing, saying why", () => {
    const report = checkStrictMode({ env: { ...all, THREADWISE_MEMORY_KEYRING: badKeyringPath, MEMORY_RETENTION_DAYS: "-3" } });
    expect(report.missing).toEqual(["keyring", "retention"]);
    expect(report.problems[0]).toMatch(/grants access to group or others/);
    expect(report.problems[1]).toMatch(/expected a positive integer \(decimal digits\), got "-3"/);
    expect(checkStrictMode({ env: { ...all, MEMORY_RETENTION_DAYS: "0" } }).missing).toEqual(["retention"]);
  });

  it("takes values given in code over env", () => {
    const report = checkStrictMode({ env: { MEMORY_STRICT_MODE: "yes" }, backend: "postgres", keyring: testKeyring(), retentionDays: 14 });
    expect(report.missing).toEqual([]);
    expect(checkStrictMode({ env: all, strict: false, backend: "sqlite" }).missing).toEqual([]);
    expect(checkStrictMode({ env: all, retentionDays: 0 }).missing).toEqual(["retention"]);
  });

  it("is off by default, and an explicit postgres backend alone still requires a keyring", () => {
    expect(checkStrictMode({ env: {} })).toMatchObject({ strict: false, missing: [] });
    expect(checkStrictMode({ env: { MEMORY_BACKEND: "sqlite" } }).missing).toEqual([]);
    const report = checkStrictMode({ env: { MEMORY_BACKEND: "postgres" } });
    expect(report.missing).toEqual(["keyring"]);
    // Issue 24: a config error naming the keyring setting, not strict mode's error while strict mode is off.
    expect(() => assertStrictMode({ env: { MEMORY_BACKEND: "postgres" } })).toThrow(
      expect.objectContaining({ name: "ThreadwiseConfigError", code: "THREADWISE_INVALID_OPTION", option: "THREADWISE_MEMORY_KEYRING" }),
    );
    expect(() => assertStrictMode({ env: { MEMORY_BACKEND: "postgres" } })).toThrow(/the postgres backend cannot start without a keyring/);
    expect(checkStrictMode({ env: { MEMORY_BACKEND: "postgres", THREADWISE_MEMORY_KEYRING: keyringPath } }).missing).toEqual([]);
  });

  it("rejects a non-boolean MEMORY_STRICT_MODE naming the variable", () => {
    expect(() => checkStrictMode({ env: { MEMORY_STRICT_MODE: "maybe" } })).toThrow(/MEMORY_STRICT_MODE/);
  });
});
