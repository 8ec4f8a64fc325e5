import { ThreadwiseError } from "@threadwise/core";

/** Why a keyring file was refused (R26). Each reason has its own stable error code. */
export type KeyringProblem =
  | "missing-path"
  | "not-found"
  | "unreadable"
  | "owner"
  | "symlink"
  | "not-a-file"
  | "permissions"
  | "invalid-json"
  | "unknown-version"
  | "bad-shape"
  | "missing-active-kid"
  | "bad-key"
  | "exists";

const KEYRING_CODES: Record<KeyringProblem, string> = {
  "missing-path": "THREADWISE_KEYRING_MISSING_PATH",
  "not-found": "THREADWISE_KEYRING_NOT_FOUND",
  unreadable: "THREADWISE_KEYRING_UNREADABLE",
  owner: "THREADWISE_KEYRING_OWNER",
  symlink: "THREADWISE_KEYRING_SYMLINK",
  "not-a-file": "THREADWISE_KEYRING_NOT_A_FILE",
  permissions: "THREADWISE_KEYRING_PERMISSIONS",
  "invalid-json": "THREADWISE_KEYRING_INVALID_JSON",
  "unknown-version": "THREADWISE_KEYRING_UNKNOWN_VERSION",
  "bad-shape": "THREADWISE_KEYRING_BAD_SHAPE",
  "missing-active-kid": "THREADWISE_KEYRING_MISSING_ACTIVE_KID",
  "bad-key": "THREADWISE_KEYRING_BAD_KEY",
  exists: "THREADWISE_KEYRING_EXISTS",
};

/**
 * A keyring file cannot be used (R26). `problem` says why, `path` which file and `source` the
 * setting that named it (`THREADWISE_MEMORY_KEYRING`, `memory.keyringPath`, `--keyring`), when
 * known: `keyring /etc/app/keyring.json (from THREADWISE_MEMORY_KEYRING): cannot be read (ENOENT)`.
 * `option` is the setting to fix, as a `ThreadwiseConfigError`'s: the `source`, or
 * `THREADWISE_MEMORY_KEYRING` when no path was given and the variable is unset. The `code` is the
 * problem's own (`THREADWISE_KEYRING_NOT_FOUND`, ...). The message never contains key material.
 * Start-up must fail on it: there is no plaintext or in-memory fallback.
 */
export class ThreadwiseKeyringError extends ThreadwiseError {
  readonly problem: KeyringProblem;
  readonly path: string | undefined;
  /** The setting the path came from (an env variable, an option, a CLI flag); `undefined` when not known. */
  readonly source: string | undefined;
  /**
   * The option, env variable or CLI flag the error is about (`memory.keyringPath`,
   * `THREADWISE_MEMORY_KEYRING`, `--keyring`), as `ThreadwiseConfigError.option`; `undefined` when
   * it is about no setting (a path given in code without naming one, a kid given to `rotate`).
   */
  readonly option: string | undefined;
  /** The message without its `keyring <path> (from <source>): ` prefix. */
  readonly detail: string;
  constructor(
    problem: KeyringProblem,
    path: string | undefined,
    message: string,
    options?: { cause?: unknown; source?: string; option?: string },
  ) {
    super(
      KEYRING_CODES[problem],
      `keyring ${path ?? "(no path)"}${options?.source ? ` (from ${options.source})` : ""}: ${message}`,
      options,
    );
    this.problem = problem;
    this.path = path;
    this.source = options?.source;
    this.option = options?.option ?? options?.source;
    this.detail = message;
  }
  static override isInstance(error: unknown): error is ThreadwiseKeyringError {
    return ThreadwiseError.isInstance(error) && error.code.startsWith("THREADWISE_KEYRING_");
  }
}

/** Why a stored record could not be opened. */
export type DecryptionProblem =
  | "authentication-failed"
  | "unknown-kid"
  | "malformed"
  | "plaintext-record"
  | "unsupported-codec"
  /** The row's checkpoint id is not the id inside the checkpoint it holds (a row copied over another). */
  | "checkpoint-mismatch"
  /** The checkpoint's parent or channel versions differ from those sealed when it was written (rollback, splice). */
  | "checkpoint-altered";

/**
 * What a `plaintext-record` {@link ThreadwiseDecryptionError} adds for a checkpoint record: the
 * usual cause (a store written without a keyring, e.g. under `MEMORY_ALLOW_PLAINTEXT`, then opened
 * with one) and the one-time fix.
 */
export const PLAINTEXT_STORE_HINT =
  "written before a keyring was configured? Seal the store's plaintext records once with @threadwise/encryption's reencrypt({ saver, encryptPlaintext: true }) (its README, \"Encrypting an existing plaintext store\"), or from the shell with `threadwise keyring reencrypt --encrypt-plaintext` (@threadwise/memory's CLI)";

/**
 * A stored record failed to decrypt: flipped bits, the wrong key, a record moved to another thread
 * or record id, a kid missing from the keyring, or a plaintext value where ciphertext was expected.
 * Names the thread and record, never the key. Reads fail whole: nothing is silently dropped (R27).
 */
export class ThreadwiseDecryptionError extends ThreadwiseError {
  readonly problem: DecryptionProblem;
  readonly threadId: string;
  readonly recordId: string;
  readonly kid: string | undefined;
  constructor(
    problem: DecryptionProblem,
    where: { threadId: string; recordId: string; kid?: string },
    message: string,
    options?: { cause?: unknown },
  ) {
    super("THREADWISE_DECRYPTION_FAILED", `record ${where.recordId} of thread ${JSON.stringify(where.threadId)}: ${message}`, options);
    this.problem = problem;
    this.threadId = where.threadId;
    this.recordId = where.recordId;
    this.kid = where.kid;
  }
  static override isInstance(error: unknown): error is ThreadwiseDecryptionError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_DECRYPTION_FAILED";
  }
}

/**
 * Encrypted data was written for another agent id than the one reading it (R29). Changing the agent
 * id of encrypted data is refused: the data keys are derived per agent.
 */
export class ThreadwiseAgentMismatchError extends ThreadwiseError {
  readonly threadId: string;
  readonly recordId: string;
  constructor(where: { threadId: string; recordId: string }, message: string) {
    super("THREADWISE_AGENT_MISMATCH", `record ${where.recordId} of thread ${JSON.stringify(where.threadId)}: ${message}`);
    this.threadId = where.threadId;
    this.recordId = where.recordId;
  }
  static override isInstance(error: unknown): error is ThreadwiseAgentMismatchError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_AGENT_MISMATCH";
  }
}

/** One requirement of strict mode (R30) that is not met. */
export type StrictModeRequirement = "postgres" | "keyring" | "retention";

/**
 * `MEMORY_STRICT_MODE=true` (or an explicit postgres backend) is set but a requirement is missing.
 * `missing` names every one, the message says how to fix each (R30).
 */
export class ThreadwiseStrictModeError extends ThreadwiseError {
  readonly missing: readonly StrictModeRequirement[];
  constructor(missing: readonly StrictModeRequirement[], message: string) {
    super("THREADWISE_STRICT_MODE", message);
    this.missing = missing;
  }
  static override isInstance(error: unknown): error is ThreadwiseStrictModeError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_STRICT_MODE";
  }
}

/** `reencrypt` was given a saver whose storage it does not know how to rewrite. */
export class ThreadwiseReencryptError extends ThreadwiseError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("THREADWISE_REENCRYPT_UNSUPPORTED", message, options);
  }
  static override isInstance(error: unknown): error is ThreadwiseReencryptError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_REENCRYPT_UNSUPPORTED";
  }
}
