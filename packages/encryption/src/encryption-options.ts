import { envString, parseOptions, THREADWISE_ENV } from "@threadwise/core";
import { z } from "zod/v4";
import { isKeyring, type Keyring, loadKeyring } from "./keyring.js";
import { RecordCipher } from "./record-cipher.js";

/** Env variable naming the tenant data keys are derived for (R27). */
export const TENANT_ENV = THREADWISE_ENV.tenantId;
/** Env variable naming the principal bound into every record (R27). */
export const PRINCIPAL_ID_ENV = THREADWISE_ENV.principalId;
/** Tenant, principal and agent id used when none is configured. */
export const DEFAULT_IDENTITY = "default";

/** The error of a keyring option; names createKeyring()'s result, the usual mix-up, and what to pass instead. */
function keyringOptionError(issue: { input?: unknown }): string {
  const input = issue.input;
  if (typeof input === "string") return "expected the keyring file's path, got an empty string";
  const written = typeof input === "object" && input !== null && "path" in input && "kid" in input;
  const got = written
    ? "createKeyring()'s result (pass its .path, or loadKeyring(result.path))"
    : input === null
      ? "null"
      : Array.isArray(input)
        ? "an array"
        : typeof input;
  return `expected a keyring file path or a Keyring from loadKeyring(), got ${got}`;
}

/**
 * A keyring option: a file path or a loaded {@link Keyring} (from `loadKeyring`). Its error says
 * what was given instead (zod's own was "Invalid input").
 */
export const keyringOptionSchema = z.union([z.string().min(1, { error: keyringOptionError }), z.custom<Keyring>(isKeyring)], {
  error: keyringOptionError,
});

/** Options shared by {@link encryptCheckpointer}, {@link encryptedSerializer} and {@link reencrypt}. */
export const encryptionOptionsSchema = z.strictObject({
  /**
   * The keyring: a file path or a loaded {@link Keyring}. Loaded and validated at construction;
   * a bad or missing keyring throws (never a plaintext fallback, R26).
   * @default env `THREADWISE_MEMORY_KEYRING`
   */
  keyring: keyringOptionSchema.optional(),
  /**
   * Agent id the data keys are derived for. Data written under one agent id is refused under
   * another (`ThreadwiseAgentMismatchError`, R29).
   * @default "default"
   */
  agentId: z.string().min(1).default(DEFAULT_IDENTITY),
  /**
   * Tenant id the data keys are derived for.
   * @default env `THREADWISE_MEMORY_TENANT_ID`, else "default"
   */
  tenantId: z.string().min(1).optional(),
  /**
   * Principal bound into the AAD of every record.
   * @default env `THREADWISE_MEMORY_PRINCIPAL_ID`, else "default"
   */
  principalId: z.string().min(1).optional(),
});

/** Options accepted by {@link encryptCheckpointer} and friends; see {@link encryptionOptionsSchema}. */
export type EncryptionOptions = z.input<typeof encryptionOptionsSchema>;

/**
 * Validates options, loads the keyring and builds the {@link RecordCipher}.
 * @throws ThreadwiseConfigError naming the bad option; ThreadwiseKeyringError for a bad keyring.
 */
export function resolveCipher(scope: string, options: EncryptionOptions | undefined, env: NodeJS.ProcessEnv = process.env): RecordCipher {
  const parsed = parseOptions(scope, encryptionOptionsSchema, options);
  const keyring = isKeyring(parsed.keyring) ? parsed.keyring : loadKeyring(parsed.keyring as string | undefined, env, `${scope}.keyring`);
  return new RecordCipher(keyring, {
    agentId: parsed.agentId,
    tenantId: parsed.tenantId ?? envString(TENANT_ENV, env) ?? DEFAULT_IDENTITY,
    principalId: parsed.principalId ?? envString(PRINCIPAL_ID_ENV, env) ?? DEFAULT_IDENTITY,
  });
}
