import { spawnSync } from "node:child_process";
import { chownSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ThreadwiseKeyringError } from "./errors.js";
import { loadKeyring } from "./keyring.js";
import { tempDir, testKeyringFile, writeKeyringFile } from "./test-support.js";

/**
 * The keyring matrix (R25, R26, issue 13): key material placed in every field of a keyring file
 * never reaches an error's message, cause or stack; each refusal has its own code.
 */
describe("keyring errors never hold key material", () => {
  const dir = tempDir();
  const good = testKeyringFile(["k1"], "k1");
  const key = good.keys.k1 as string;
  const raw = Buffer.from(key, "base64");
  /** The same 32 bytes in every form someone might paste. */
  const forms = [key, raw.toString("hex"), raw.toString("base64url"), key.replace(/=+$/, "")];

  const placements: Array<[string, (material: string) => unknown, string]> = [
    ["active_kid", (m) => ({ version: 1, active_kid: m, keys: good.keys }), "THREADWISE_KEYRING_MISSING_ACTIVE_KID"],
    ["version", (m) => ({ version: m, active_kid: "k1", keys: good.keys }), "THREADWISE_KEYRING_UNKNOWN_VERSION"],
    [
      "version (number)",
      (m) => ({ version: Number.parseInt(m.slice(0, 12), 16) || 7, active_kid: "k1", keys: good.keys }),
      "THREADWISE_KEYRING_UNKNOWN_VERSION",
    ],
    ["kid", (m) => ({ version: 1, active_kid: "k1", keys: { ...good.keys, [`${m}!`]: key } }), "THREADWISE_KEYRING_BAD_SHAPE"],
    ["key of a kid (too long)", (m) => ({ version: 1, active_kid: "k1", keys: { k1: `${key}${m}` } }), "THREADWISE_KEYRING_BAD_KEY"],
    ["keys (not an object)", (m) => ({ version: 1, active_kid: "k1", keys: m }), "THREADWISE_KEYRING_BAD_SHAPE"],
    ["unknown field name", (m) => ({ version: 1, active_kid: "k1", keys: good.keys, [m]: 1 }), "THREADWISE_KEYRING_BAD_SHAPE"],
    [
      "unknown field value (activeKid)",
      (m) => ({ version: 1, active_kid: "k1", keys: good.keys, activeKid: m }),
      "THREADWISE_KEYRING_BAD_SHAPE",
    ],
    ["not JSON", (m) => `{"version": 1, "active_kid": "${m}", "keys": {`, "THREADWISE_KEYRING_INVALID_JSON"],
  ];

  it("refuses each placement with its code, and no error text holds any form of the key", () => {
    let tried = 0;
    for (const [field, build, code] of placements)
      for (const [i, material] of forms.entries()) {
        const content = build(material);
        const path = writeKeyringFile(dir, content, 0o600, `${field.replace(/\W+/g, "_")}-${i}.json`);
        let error: unknown;
        try {
          loadKeyring(path, {});
        } catch (caught) {
          error = caught;
        }
        tried += 1;
        expect(ThreadwiseKeyringError.isInstance(error), `${field} #${i}`).toBe(true);
        expect((error as ThreadwiseKeyringError).code, field).toBe(code);
        const seen = [
          String((error as Error).message),
          String((error as Error).stack),
          inspect(error, { depth: 5 }),
          JSON.stringify(error),
        ];
        for (let cause = (error as Error).cause; cause; cause = (cause as Error).cause) seen.push(inspect(cause));
        for (const form of forms) for (const text of seen) expect(text.includes(form), `${field} #${i} leaks`).toBe(false);
      }
    console.log(`[keyring matrix] ${tried} keyrings with key material in a field: ${tried} refused with their code, 0 leaked it`);
  });

  it("names activeKid (a misspelt field) without echoing values", () => {
    const path = writeKeyringFile(dir, { version: 1, active_kid: "k1", activeKid: "k1", keys: good.keys }, 0o600, "camel.json");
    expect(() => loadKeyring(path, {})).toThrow(/unknown field\(s\) "activeKid"/);
  });

  it("a blank or space-padded path is an error, not 'no keyring'", () => {
    for (const given of [" ", "   ", "\t"]) {
      expect(() => loadKeyring(given, {})).toThrow(/is blank/);
      expect(() => loadKeyring(undefined, { THREADWISE_MEMORY_KEYRING: given })).toThrow(/THREADWISE_MEMORY_KEYRING\) is blank/);
    }
    const path = writeKeyringFile(dir, good, 0o600, "padded.json");
    expect(() => loadKeyring(` ${path}`, {})).toThrow(/leading or trailing spaces/);
  });

  const asRoot = process.getuid?.() === 0;
  // Needs root: to give the file to another user, and to run a check as that user.
  it.runIf(asRoot)("EACCES has its own code; a file owned by another user is refused (owner)", () => {
    const path = writeKeyringFile(dir, good, 0o600, "root-only.json");
    const keyringModule = resolve(import.meta.dirname, "keyring.ts");
    const script = `import(${JSON.stringify(keyringModule)}).then((m) => { try { m.loadKeyring(${JSON.stringify(path)}, {}); console.log("loaded"); } catch (e) { console.log(e.code); } })`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
      uid: 65534,
      gid: 65534,
      encoding: "utf8",
      cwd: resolve(import.meta.dirname, "../../.."),
    });
    expect(child.stdout.trim(), child.stderr).toBe("THREADWISE_KEYRING_UNREADABLE");
    const foreign = join(dir, "foreign.json");
    writeFileSync(foreign, JSON.stringify(good), { mode: 0o600 });
    chownSync(foreign, 65534, 65534);
    expect(() => loadKeyring(foreign, {})).toThrow(expect.objectContaining({ code: "THREADWISE_KEYRING_OWNER" }));
  });
  it.skipIf(asRoot)("owner check (not root): a file of this user passes", () => {
    expect(loadKeyring(writeKeyringFile(dir, good, 0o600, "mine.json"), {}).activeKid).toBe("k1");
  });
});
