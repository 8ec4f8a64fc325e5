import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { createKeyring } from "@threadwise/encryption";
import { afterAll, describe, expect, it } from "vitest";
import { memoryConfigFromEnv, resolveMemoryConfig } from "./config.js";
import { memoryStack } from "./memory-stack.js";

// Issue 13: JSON.stringify of the resolved config and util.inspect of memoryStack() showed the DSN password.
const PASSWORD = "Pa55-TOPSECRET";
const DSN = `postgresql://app:${PASSWORD}@127.0.0.1:5432/app_memory`;
const dir = mkdtempSync(join(tmpdir(), "tw-redact-view-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyMaterial(path: string): string[] {
  const file = JSON.parse(readFileSync(path, "utf8")) as { keys: Record<string, string> };
  return Object.values(file.keys);
}

function printed(value: unknown): string[] {
  return [
    JSON.stringify(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: false }),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    String(value),
  ];
}

describe("resolved memory config prints redacted (R25)", () => {
  it("JSON.stringify and util.inspect mask the DSN password; the field keeps the real DSN for the driver", () => {
    const config = resolveMemoryConfig({ backend: "postgres", postgresDsn: DSN, allowPlaintext: true }, {});
    for (const text of printed(config)) expect(text).not.toContain(PASSWORD);
    expect(JSON.parse(JSON.stringify(config))).toMatchObject({
      backend: "postgres",
      postgresDsn: "postgresql://app:***@127.0.0.1:5432/app_memory",
    });
    expect(inspect(config)).toContain("postgresql://app:***@127.0.0.1:5432/app_memory");
    expect(config.postgresDsn).toBe(DSN);
    // The redaction is not a key: spreading or listing the config is unchanged.
    expect(Object.keys(config)).not.toContain("toJSON");
    expect({ ...config }.postgresDsn).toBe(DSN);
  });

  it("memoryConfigFromEnv's result (a key/value DSN from env) prints redacted too", () => {
    const fromEnv = memoryConfigFromEnv({ POSTGRES_MEMORY_DSN: `host=db user=app password=${PASSWORD} dbname=x` });
    for (const text of printed(fromEnv)) expect(text).not.toContain(PASSWORD);
    expect(JSON.stringify(fromEnv)).toContain("password=***");
  });
});

describe("memoryStack() prints redacted (R25)", () => {
  it("postgres: no DSN password in JSON.stringify or util.inspect of the stack or its checkpointer", async () => {
    const stack = memoryStack({ backend: "postgres", postgresDsn: DSN, allowPlaintext: true, env: {} });
    try {
      for (const text of [...printed(stack), ...printed(stack.checkpointer)]) expect(text).not.toContain(PASSWORD);
      expect(JSON.parse(JSON.stringify(stack))).toMatchObject({
        checkpointer: { backend: "postgres", saver: "PostgresSaver", postgresDsn: "postgresql://app:***@127.0.0.1:5432/app_memory" },
        config: { postgresDsn: "postgresql://app:***@127.0.0.1:5432/app_memory" },
      });
      expect(JSON.parse(JSON.stringify(stack)).middleware).toContain("threadwise/window-trim");
      // Spreading into createAgent carries only middleware and checkpointer.
      expect(Object.keys({ ...stack }).sort()).toEqual(["checkpointer", "middleware"]);
    } finally {
      await stack.checkpointer?.close();
    }
  });

  it("encrypted sqlite: no key material in JSON.stringify or util.inspect of the stack or its checkpointer", async () => {
    const keyringPath = join(dir, "keyring.json");
    createKeyring(keyringPath);
    const keys = keyMaterial(keyringPath);
    expect(keys.length).toBe(1);
    const stack = memoryStack({ backend: "sqlite", sqlitePath: join(dir, "m.sqlite"), keyringPath, env: {} });
    try {
      const texts = [...printed(stack), ...printed(stack.checkpointer)];
      for (const text of texts) for (const key of keys) expect(text).not.toContain(key);
      expect(JSON.parse(JSON.stringify(stack.checkpointer))).toEqual({
        checkpointer: "ThreadwiseSaver",
        backend: "sqlite",
        saver: "SqliteSaver",
        encrypted: true,
        sqlitePath: join(dir, "m.sqlite"),
        keyringPath,
      });
    } finally {
      await stack.checkpointer?.close();
    }
  });
});
