import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { encryptCheckpointer } from "./encrypted-checkpointer.js";
import { ThreadwiseKeyringError } from "./errors.js";
import { createKeyring, loadKeyring, parseKeyring, retireKey, rotateKeyring } from "./keyring.js";
import { tempDir, testKey, testKeyringFile, writeKeyringFile } from "./test-support.js";

function refusal(run: () => unknown): ThreadwiseKeyringError {
  try {
    run();
  } catch (error) {
    expect(ThreadwiseKeyringError.isInstance(error)).toBe(true);
    return error as ThreadwiseKeyringError;
  }
  throw new Error("expected the keyring to be refused");
}

describe("loadKeyring refuses bad keyrings (R26)", () => {
  const dir = tempDir();
  const good = testKeyringFile(["k1", "k2"], "k2");
  const secret = good.keys.k1 as string;

  const cases: Array<{ name: string; setup: () => string; problem: string; code: string; says: RegExp }> = [
    {
      name: "no path and no env",
      setup: () => "",
      problem: "missing-path",
      code: "THREADWISE_KEYRING_MISSING_PATH",
      says: /THREADWISE_MEMORY_KEYRING is unset/,
    },
    {
      name: "missing file",
      setup: () => join(dir, "nope.json"),
      problem: "not-found",
      code: "THREADWISE_KEYRING_NOT_FOUND",
      says: /ENOENT/,
    },
    {
      name: "symlink",
      setup: () => {
        const target = writeKeyringFile(dir, good, 0o600, "target.json");
        const link = join(dir, "link.json");
        symlinkSync(target, link);
        return link;
      },
      problem: "symlink",
      code: "THREADWISE_KEYRING_SYMLINK",
      says: /symbolic link/,
    },
    {
      name: "a directory",
      setup: () => {
        mkdirSync(join(dir, "adir"));
        return join(dir, "adir");
      },
      problem: "not-a-file",
      code: "THREADWISE_KEYRING_NOT_A_FILE",
      says: /regular file/,
    },
    {
      name: "group-readable (0640)",
      setup: () => writeKeyringFile(dir, good, 0o640, "g.json"),
      problem: "permissions",
      code: "THREADWISE_KEYRING_PERMISSIONS",
      says: /mode 640.*chmod 600/,
    },
    {
      name: "other-readable (0604)",
      setup: () => writeKeyringFile(dir, good, 0o604, "o.json"),
      problem: "permissions",
      code: "THREADWISE_KEYRING_PERMISSIONS",
      says: /mode 604/,
    },
    {
      name: "group-executable (0610)",
      setup: () => writeKeyringFile(dir, good, 0o610, "x.json"),
      problem: "permissions",
      code: "THREADWISE_KEYRING_PERMISSIONS",
      says: /mode 610/,
    },
    {
      name: "invalid JSON",
      setup: () => writeKeyringFile(dir, `{"version":1, "keys": {"k1": "${secret}"`, 0o600, "j.json"),
      problem: "invalid-json",
      code: "THREADWISE_KEYRING_INVALID_JSON",
      says: /not valid JSON/,
    },
    {
      name: "unknown version",
      setup: () => writeKeyringFile(dir, { ...good, version: 2 }, 0o600, "v.json"),
      problem: "unknown-version",
      code: "THREADWISE_KEYRING_UNKNOWN_VERSION",
      says: /"version" must be the number 1 \(got a number 2\)/,
    },
    {
      name: "no version",
      setup: () => writeKeyringFile(dir, { active_kid: "k2", keys: good.keys }, 0o600, "nv.json"),
      problem: "unknown-version",
      code: "THREADWISE_KEYRING_UNKNOWN_VERSION",
      says: /"version" must be the number 1 \(got a undefined\)/,
    },
    {
      name: "an array",
      setup: () => writeKeyringFile(dir, [good], 0o600, "arr.json"),
      problem: "bad-shape",
      code: "THREADWISE_KEYRING_BAD_SHAPE",
      says: /JSON object/,
    },
    {
      name: "no keys",
      setup: () => writeKeyringFile(dir, { version: 1, active_kid: "k1", keys: {} }, 0o600, "nk.json"),
      problem: "bad-shape",
      code: "THREADWISE_KEYRING_BAD_SHAPE",
      says: /at least one/,
    },
    {
      name: "active kid absent",
      setup: () => writeKeyringFile(dir, { ...good, active_kid: "k9" }, 0o600, "a.json"),
      problem: "missing-active-kid",
      code: "THREADWISE_KEYRING_MISSING_ACTIVE_KID",
      says: /"active_kid" does not name one of the 2 key\(s\)/,
    },
    {
      name: "active kid missing",
      setup: () => writeKeyringFile(dir, { version: 1, keys: good.keys }, 0o600, "am.json"),
      problem: "missing-active-kid",
      code: "THREADWISE_KEYRING_MISSING_ACTIVE_KID",
      says: /"active_kid" must be a string naming one of the/,
    },
    {
      name: "31-byte key",
      setup: () => writeKeyringFile(dir, { ...good, keys: { ...good.keys, k2: Buffer.alloc(31, 7).toString("base64") } }, 0o600, "31.json"),
      problem: "bad-key",
      code: "THREADWISE_KEYRING_BAD_KEY",
      says: /value of key #2 in "keys" is 31 bytes; exactly 32/,
    },
    {
      name: "33-byte key",
      setup: () => writeKeyringFile(dir, { ...good, keys: { ...good.keys, k2: Buffer.alloc(33, 7).toString("base64") } }, 0o600, "33.json"),
      problem: "bad-key",
      code: "THREADWISE_KEYRING_BAD_KEY",
      says: /33 bytes/,
    },
    {
      name: "key not base64",
      setup: () => writeKeyringFile(dir, { ...good, keys: { ...good.keys, k2: `${secret.slice(0, -2)}!=` } }, 0o600, "b64.json"),
      problem: "bad-key",
      code: "THREADWISE_KEYRING_BAD_KEY",
      says: /not standard base64/,
    },
    {
      name: "key not a string",
      setup: () => writeKeyringFile(dir, { ...good, keys: { ...good.keys, k2: 42 } }, 0o600, "num.json"),
      problem: "bad-key",
      code: "THREADWISE_KEYRING_BAD_KEY",
      says: /not standard base64/,
    },
    {
      name: "bad kid",
      setup: () => writeKeyringFile(dir, { version: 1, active_kid: "a b", keys: { "a b": secret } }, 0o600, "kid.json"),
      problem: "bad-shape",
      code: "THREADWISE_KEYRING_BAD_SHAPE",
      says: /the kid of key #1 in "keys" does not match/,
    },
  ];

  it.each(cases)("$name -> $code", ({ setup, problem, code, says }) => {
    const path = setup();
    const error = refusal(() => loadKeyring(path || undefined, {}));
    expect(error.problem).toBe(problem);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(says);
    if (path) expect(error.message).toContain(path);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain(good.keys.k2 as string);
  });

  it("reads the path from THREADWISE_MEMORY_KEYRING and exposes kids, never keys", () => {
    const path = writeKeyringFile(dir, good, 0o600, "ok.json");
    const keyring = loadKeyring(undefined, { THREADWISE_MEMORY_KEYRING: path });
    expect(keyring.activeKid).toBe("k2");
    expect(keyring.kids).toEqual(["k1", "k2"]);
    expect(keyring.path).toBe(path);
    const shown = `${JSON.stringify(keyring)} ${inspect(keyring)} ${JSON.stringify(Object.entries(keyring))}`;
    expect(shown).not.toContain(secret);
    expect(shown).toContain("k2");
  });
});

describe("a refused keyring names the setting its path came from", () => {
  const dir = tempDir();
  const missing = join(dir, "missing.json");

  it.each([
    ["env", () => loadKeyring(undefined, { THREADWISE_MEMORY_KEYRING: missing }), "THREADWISE_MEMORY_KEYRING"],
    ["an option", () => loadKeyring(missing, {}, "encryptCheckpointer.keyring"), "encryptCheckpointer.keyring"],
    ["a CLI flag", () => loadKeyring(missing, {}, "--keyring"), "--keyring"],
  ])("from %s", (_, load, source) => {
    const error = refusal(load);
    expect(error.problem).toBe("not-found");
    expect(error.source).toBe(source);
    expect(error.path).toBe(missing);
    expect(error.message).toContain(`keyring ${missing} (from ${source}): cannot be read (ENOENT)`);
  });

  it("a bad file's content problem names the source too (parse errors included)", () => {
    const path = writeKeyringFile(dir, { version: 2, active_kid: "k1", keys: {} }, 0o600, "v2.json");
    const error = refusal(() => loadKeyring(undefined, { THREADWISE_MEMORY_KEYRING: path }));
    expect(error.problem).toBe("unknown-version");
    expect(error.message).toContain(`(from THREADWISE_MEMORY_KEYRING): "version" must be the number 1`);
  });

  it("no path and no variable: no source is claimed", () => {
    const error = refusal(() => loadKeyring(undefined, {}));
    expect(error.problem).toBe("missing-path");
    expect(error.source).toBeUndefined();
    expect(error.message).toBe(
      "keyring (no path): no keyring path given and THREADWISE_MEMORY_KEYRING is unset; create one with `threadwise keyring create <path>`",
    );
  });

  it("without a named source the message is as before", () => {
    const error = refusal(() => loadKeyring(missing, {}));
    expect(error.source).toBeUndefined();
    expect(error.message).toContain(`keyring ${missing}: cannot be read`);
  });
});

describe("createKeyring / rotateKeyring / retireKey", () => {
  it("writes a 0600 keyring with one 32-byte key and lists it in the nearest .gitignore", () => {
    const root = tempDir();
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".gitignore"), "node_modules");
    const result = createKeyring(join(root, "config", "dev", "keyring.json"), { kid: "dev1" });
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(result.gitignore).toBe(join(root, ".gitignore"));
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("node_modules\n/config/dev/keyring.json\n");
    const file = JSON.parse(readFileSync(result.path, "utf8"));
    expect(file.version).toBe(1);
    expect(file.active_kid).toBe("dev1");
    expect(Buffer.from(file.keys.dev1, "base64")).toHaveLength(32);
    expect(loadKeyring(result.path).activeKid).toBe("dev1");
    // Idempotent .gitignore, never overwrites a keyring.
    expect(refusal(() => createKeyring(result.path)).problem).toBe("exists");
    expect(readFileSync(join(root, ".gitignore"), "utf8").match(/keyring\.json/g)).toHaveLength(1);
  });

  it("creates .gitignore at the git root when there is none, beside the file outside a repository", () => {
    const repo = tempDir();
    mkdirSync(join(repo, ".git"));
    createKeyring(join(repo, "secrets", "k.json"));
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe("/secrets/k.json\n");
    // Outside a repository a .gitignore above the file ignores nothing: it is written beside the
    // file. Was: the nearest one above, whatever it belonged to (/tmp/.gitignore grew with every
    // test run's keyring; found by helper newuser30 with `threadwise keyring create /tmp/x/k.json`).
    const loose = tempDir();
    writeFileSync(join(loose, ".gitignore"), "node_modules\n");
    const result = createKeyring(join(loose, "secrets", "k.json"));
    expect(result.gitignore).toBe(join(loose, "secrets", ".gitignore"));
    expect(readFileSync(join(loose, "secrets", ".gitignore"), "utf8")).toBe("/k.json\n");
    expect(readFileSync(join(loose, ".gitignore"), "utf8")).toBe("node_modules\n");
  });

  it("rotates to a new active kid keeping the old one, and retires only inactive kids", () => {
    const dir = tempDir();
    const { path } = createKeyring(join(dir, "k.json"), { kid: "a" });
    const before = JSON.parse(readFileSync(path, "utf8"));
    expect(rotateKeyring(path, { kid: "b" }).kid).toBe("b");
    const after = JSON.parse(readFileSync(path, "utf8"));
    expect(after.active_kid).toBe("b");
    expect(after.keys.a).toBe(before.keys.a);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(refusal(() => retireKey(path, "b")).message).toMatch(/is active/);
    expect(refusal(() => rotateKeyring(path, { kid: "a" })).message).toMatch(/already exists/);
    retireKey(path, "a");
    expect(loadKeyring(path).kids).toEqual(["b"]);
  });

  it("refuses to rotate a keyring that is itself refused", () => {
    const dir = tempDir();
    const { path } = createKeyring(join(dir, "k.json"));
    chmodSync(path, 0o644);
    expect(refusal(() => rotateKeyring(path)).problem).toBe("permissions");
  });

  it("parseKeyring accepts keyring text from elsewhere", () => {
    const keyring = parseKeyring(JSON.stringify({ version: 1, active_kid: "x", keys: { x: testKey("x") } }), "vault:x");
    expect(keyring.path).toBe("vault:x");
  });
});

// Was "encryptCheckpointer.keyring: Invalid input" (zod's message for a union) for anything but a
// path or a Keyring, createKeyring()'s result included, which a new user passes first.
describe("a keyring option of the wrong kind", () => {
  const dir = tempDir();
  const refused = (keyring: unknown) => {
    try {
      encryptCheckpointer(new MemorySaver(), { keyring: keyring as string });
    } catch (error) {
      if (ThreadwiseConfigError.isInstance(error)) return error;
      throw error;
    }
    throw new Error("not refused");
  };

  it("names createKeyring()'s result and what to pass instead", () => {
    const error = refused(createKeyring(join(dir, "created.json")));
    expect(error.option).toBe("encryptCheckpointer.keyring");
    expect(error.message).toBe(
      "encryptCheckpointer.keyring: expected a keyring file path or a Keyring from loadKeyring(), got createKeyring()'s result (pass its .path, or loadKeyring(result.path))",
    );
  });

  it("names what else was given", () => {
    expect(refused(42).message).toBe(
      "encryptCheckpointer.keyring: expected a keyring file path or a Keyring from loadKeyring(), got number",
    );
    expect(refused("").message).toBe("encryptCheckpointer.keyring: expected the keyring file's path, got an empty string");
    const path = createKeyring(join(dir, "accepted.json")).path;
    expect(() => encryptCheckpointer(new MemorySaver(), { keyring: path })).not.toThrow();
    expect(() => encryptCheckpointer(new MemorySaver(), { keyring: loadKeyring(path) })).not.toThrow();
  });
});
