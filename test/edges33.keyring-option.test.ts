/**
 * A refused keyring names the setting to fix as `option`, as every ThreadwiseConfigError does
 * (`error.option`), not only in its message and `source`: a new user's memoryStack with a
 * `keyringPath` that does not exist threw `keyring ... (from memory.keyringPath): cannot be read`
 * with no `option` field. The codes stay the ones per problem (`THREADWISE_KEYRING_NOT_FOUND`, ...).
 * Paths with English and Korean names.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ThreadwiseError } from "@threadwise/core";
import { loadKeyring } from "@threadwise/encryption";
import { memoryStack, ThreadwiseKeyringError } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-keyring-option-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(run: () => unknown): ThreadwiseKeyringError {
  try {
    run();
  } catch (error) {
    if (ThreadwiseKeyringError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ThreadwiseKeyringError");
}

describe("ThreadwiseKeyringError.option", () => {
  for (const name of ["keyring.json", "열쇠.json"]) {
    const missing = join(dir, name);
    it(`memoryStack({ keyringPath }) (${name}): option memory.keyringPath, code kept`, () => {
      const error = refusal(() => memoryStack({ env: {}, backend: "in_memory", keyringPath: missing }));
      expect(error.option).toBe("memory.keyringPath");
      expect(error.code).toBe("THREADWISE_KEYRING_NOT_FOUND");
      expect(error.problem).toBe("not-found");
      expect(error.message).toContain(`keyring ${missing} (from memory.keyringPath): cannot be read (ENOENT)`);
      expect(ThreadwiseError.isInstance(error)).toBe(true);
    });

    it(`memoryStack with THREADWISE_MEMORY_KEYRING (${name}): option is the variable`, () => {
      const error = refusal(() => memoryStack({ env: { THREADWISE_MEMORY_KEYRING: missing }, backend: "in_memory" }));
      expect(error.option).toBe("THREADWISE_MEMORY_KEYRING");
      expect(error.source).toBe("THREADWISE_MEMORY_KEYRING");
    });
  }

  it("loadKeyring: the setting given (an option, a CLI flag) is the option; with none, the unset variable is", () => {
    const missing = join(dir, "none.json");
    expect(refusal(() => loadKeyring(missing, {}, "encryptCheckpointer.keyring")).option).toBe("encryptCheckpointer.keyring");
    expect(refusal(() => loadKeyring(missing, {}, "--keyring")).option).toBe("--keyring");
    const unset = refusal(() => loadKeyring(undefined, {}));
    expect(unset.code).toBe("THREADWISE_KEYRING_MISSING_PATH");
    expect(unset.option).toBe("THREADWISE_MEMORY_KEYRING");
    // Nothing named a file: no source is claimed, as before.
    expect(unset.source).toBeUndefined();
    // A path given in code with no setting named: no option to point at.
    expect(refusal(() => loadKeyring(missing, {})).option).toBeUndefined();
  });
});
