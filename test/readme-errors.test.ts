/**
 * The READMEs name every value an error's `problem` or `reason` can take, and the keyring table
 * pairs each problem with its own `code`: a reader who looks up what a caught error carries finds
 * it. Each union is read from the source that declares it, so a new member without a README line
 * fails here. Found by helper newuser30: packages/encryption/README.md left out the keyring
 * problems `unreadable` and `owner` (own codes since the keyring checks of R26) and the decryption
 * problems `checkpoint-mismatch` and `checkpoint-altered`.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type KeyringProblem, ThreadwiseKeyringError } from "@threadwise/encryption";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(resolve(root, file), "utf8");

/** The string members of `export type <name> = "a" | "b" ...;` in `file` (comments between them allowed). */
function unionMembers(file: string, name: string): string[] {
  const body = new RegExp(`export type ${name} =([^;]+);`).exec(read(file))?.[1];
  expect(body, `${file} declares ${name}`).toBeDefined();
  return [...(body ?? "").replace(/\/\*[\s\S]*?\*\//g, "").matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
}

describe("README error tables and lists", () => {
  it.each([
    ["packages/encryption/README.md", "packages/encryption/src/errors.ts", "KeyringProblem"],
    ["packages/encryption/README.md", "packages/encryption/src/errors.ts", "DecryptionProblem"],
    ["packages/memory/README.md", "packages/memory/src/concurrent-turn-error.ts", "ConcurrentTurnReason"],
    ["packages/memory/README.md", "packages/memory/src/archived-message-error.ts", "ArchivedMessageReason"],
    ["packages/history-seed/README.md", "packages/history-seed/src/history-seed-error.ts", "HistorySeedErrorReason"],
  ])("%s names every %s member of %s", (readme, source, name) => {
    const members = unionMembers(source, name);
    expect(members.length).toBeGreaterThan(1);
    const text = read(readme);
    expect(members.filter((member) => !text.includes(`\`${member}\``))).toEqual([]);
  });

  it("packages/encryption/README.md's keyring table has one row per problem, with the code the error carries", () => {
    const rows = new Map(
      [...read("packages/encryption/README.md").matchAll(/^\|\s*`(THREADWISE_KEYRING_[A-Z_]+)`[^|]*\|\s*`([a-z-]+)`\s*\|$/gm)].map((m) => [
        m[2] as string,
        m[1] as string,
      ]),
    );
    const problems = unionMembers("packages/encryption/src/errors.ts", "KeyringProblem") as KeyringProblem[];
    expect([...rows.keys()].sort()).toEqual([...problems].sort());
    for (const problem of problems) expect(rows.get(problem), problem).toBe(new ThreadwiseKeyringError(problem, "/k", "x").code);
  });
});
