import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { PLAINTEXT_STORE_HINT, ThreadwiseAgentMismatchError, ThreadwiseDecryptionError } from "./errors.js";
import { type Keyring, rootKeyOf } from "./keyring.js";

/** Version of the record format (header layout, AAD layout, key derivation). Bound into every record. */
export const CODEC_VERSION = 1;
/** Every sealed record, as stored, starts with this text. */
export const SEALED_PREFIX = "twe1:";

/**
 * What a data key is for; each purpose has its own HKDF-derived key (R27). `user-memory` seals the
 * store values of `@threadwise/user-memory` (R40). The position in this list is stored in every
 * record's header, so new purposes are only ever appended.
 */
export type RecordPurpose = "channel-value" | "pending-write" | "metadata" | "serializer" | "user-memory";
const PURPOSES: readonly RecordPurpose[] = ["channel-value", "pending-write", "metadata", "serializer", "user-memory"];

/** Where a record lives. Both are bound into the AAD, so a record moved elsewhere fails to open. */
export interface RecordLocation {
  /** `configurable.thread_id` of the record. */
  threadId: string;
  /** Stable id of the record inside the thread, e.g. `["channel-value", ns, channel, version]` as JSON. */
  recordId: string;
}

/** Identity a {@link RecordCipher} derives keys and AAD from (R27). */
export interface RecordCipherIdentity {
  /** Tenant the data keys are derived for (env `THREADWISE_MEMORY_TENANT_ID`). */
  tenantId: string;
  /** Agent the data keys are derived for; changing it on existing data is refused (R29). */
  agentId: string;
  /** Principal bound into every record's AAD (env `THREADWISE_MEMORY_PRINCIPAL_ID`). */
  principalId: string;
}

const MAGIC = Buffer.from("TWE", "ascii");
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FINGERPRINT_BYTES = 8;
const HKDF_SALT = Buffer.from("threadwise/memory/hkdf-salt/v1", "utf8");

/** Parsed header of a sealed record. */
interface Header {
  kid: string;
  purpose: RecordPurpose;
  fingerprint: Buffer;
  nonce: Buffer;
  /** Header bytes through the nonce: authenticated as AAD. */
  bytes: Buffer;
  body: Buffer;
}

/**
 * AES-256-GCM for single records (R27). Data keys are HKDF-SHA256 of each root key per tenant,
 * agent and purpose, derived once at construction; the cipher keeps only derived keys, never the
 * root keys. Each record: a fresh random 12-byte nonce, and AAD binding the header (codec version,
 * purpose, kid, agent fingerprint, nonce), principal, tenant, thread id and record id.
 *
 * Record layout (then `base64url`, prefixed with {@link SEALED_PREFIX}):
 * `"TWE" | codec u8 | purpose u8 | kid length u8 | kid | agent fingerprint (8) | nonce (12) | ciphertext | tag (16)`.
 */
export class RecordCipher {
  /** Kid new records are sealed with. */
  readonly activeKid: string;
  /** Kids this cipher can open. */
  readonly kids: readonly string[];
  readonly identity: Readonly<RecordCipherIdentity>;
  readonly #dataKeys = new Map<string, Buffer>();
  readonly #fingerprint: Buffer;

  constructor(keyring: Keyring, identity: RecordCipherIdentity) {
    this.activeKid = keyring.activeKid;
    this.kids = keyring.kids;
    this.identity = Object.freeze({ ...identity });
    for (const kid of keyring.kids) {
      const root = rootKeyOf(keyring, kid) as Buffer;
      for (const purpose of PURPOSES) {
        const info = Buffer.from(JSON.stringify(["threadwise/data-key/v1", identity.tenantId, identity.agentId, purpose]), "utf8");
        this.#dataKeys.set(`${kid}\u0000${purpose}`, Buffer.from(hkdfSync("sha256", root, HKDF_SALT, info, 32)));
      }
    }
    this.#fingerprint = agentFingerprint(identity.tenantId, identity.agentId);
  }

  /** Encrypts `plaintext` for `location` under the active kid; returns the sealed text. */
  seal(plaintext: Uint8Array, purpose: RecordPurpose, location: RecordLocation): string {
    const kid = this.activeKid;
    const kidBytes = Buffer.from(kid, "utf8");
    const nonce = randomBytes(NONCE_BYTES);
    const header = Buffer.concat([
      MAGIC,
      Buffer.from([CODEC_VERSION, PURPOSES.indexOf(purpose), kidBytes.length]),
      kidBytes,
      this.#fingerprint,
      nonce,
    ]);
    const cipher = createCipheriv("aes-256-gcm", this.#key(kid, purpose), nonce);
    cipher.setAAD(this.#aad(header, location));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return SEALED_PREFIX + Buffer.concat([header, body]).toString("base64url");
  }

  /**
   * Decrypts a sealed record stored at `location`.
   *
   * @throws ThreadwiseDecryptionError `plaintext-record` (not sealed), `malformed`, `unsupported-codec`,
   *   `unknown-kid` (kid not in the keyring), `authentication-failed` (flipped bits, wrong key, or a
   *   record moved to another thread, record or purpose).
   * @throws ThreadwiseAgentMismatchError when the record was sealed for another agent id (R29).
   */
  open(sealed: unknown, purpose: RecordPurpose, location: RecordLocation): { plaintext: Buffer; kid: string } {
    const header = parseSealed(sealed, location);
    const where = { ...location, kid: header.kid };
    if (header.purpose !== purpose)
      throw new ThreadwiseDecryptionError("authentication-failed", where, `record was sealed as ${header.purpose}, read as ${purpose}`);
    if (!this.kids.includes(header.kid))
      throw new ThreadwiseDecryptionError(
        "unknown-kid",
        where,
        `sealed with kid ${JSON.stringify(header.kid)}, which is not in the keyring (${this.kids.join(", ")})`,
      );
    if (!header.fingerprint.equals(this.#fingerprint))
      throw new ThreadwiseAgentMismatchError(
        location,
        `sealed for another agent id (or tenant) than ${JSON.stringify(this.identity.agentId)} (tenant ${JSON.stringify(this.identity.tenantId)}); changing the agent id of encrypted data is refused`,
      );
    const { body } = header;
    if (body.length < TAG_BYTES) throw new ThreadwiseDecryptionError("malformed", where, "record is truncated");
    const decipher = createDecipheriv("aes-256-gcm", this.#key(header.kid, purpose), header.nonce);
    decipher.setAAD(this.#aad(header.bytes, location));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      return { plaintext: Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]), kid: header.kid };
    } catch {
      throw new ThreadwiseDecryptionError(
        "authentication-failed",
        where,
        "authentication failed: the record was altered, sealed with a different key, or moved from another thread or record",
      );
    }
  }

  /**
   * Re-seals `sealed` under the active kid (R29). Returns `undefined` when it already is.
   * @throws the errors of {@link RecordCipher.open}.
   */
  reseal(sealed: unknown, purpose: RecordPurpose, location: RecordLocation): string | undefined {
    if (sealedKid(sealed) === this.activeKid) return undefined;
    return this.seal(this.open(sealed, purpose, location).plaintext, purpose, location);
  }

  #key(kid: string, purpose: RecordPurpose): Buffer {
    return this.#dataKeys.get(`${kid}\u0000${purpose}`) as Buffer;
  }

  #aad(header: Buffer, location: RecordLocation): Buffer {
    const bound = JSON.stringify([this.identity.principalId, this.identity.tenantId, location.threadId, location.recordId]);
    return Buffer.concat([header, Buffer.from(bound, "utf8")]);
  }

  toJSON(): { activeKid: string; kids: readonly string[]; identity: Readonly<RecordCipherIdentity> } {
    return { activeKid: this.activeKid, kids: this.kids, identity: this.identity };
  }
}

/** `true` when `value` is a sealed record string. */
export function isSealed(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(SEALED_PREFIX);
}

/** Kid in the header of a sealed record, or `undefined` when `value` is not one. */
export function sealedKid(value: unknown): string | undefined {
  try {
    return parseSealed(value, { threadId: "", recordId: "" }).kid;
  } catch {
    return undefined;
  }
}

// Unkeyed on purpose: a wrong key must surface as an authentication failure, not as an agent
// mismatch. Agent ids are not secrets.
function agentFingerprint(tenantId: string, agentId: string): Buffer {
  return createHash("sha256")
    .update(JSON.stringify(["threadwise/agent-fingerprint/v1", tenantId, agentId]))
    .digest()
    .subarray(0, FINGERPRINT_BYTES);
}

function parseSealed(sealed: unknown, location: RecordLocation): Header {
  if (!isSealed(sealed))
    throw new ThreadwiseDecryptionError(
      "plaintext-record",
      location,
      `expected an encrypted record, found a plaintext value (refusing to read it): ${PLAINTEXT_STORE_HINT}`,
    );
  const text = sealed.slice(SEALED_PREFIX.length);
  const raw = Buffer.from(text, "base64url");
  // Buffer.from skips characters outside the alphabet; a damaged character must not pass unnoticed.
  if (raw.toString("base64url") !== text) throw new ThreadwiseDecryptionError("malformed", location, "record is not valid base64url");
  if (raw.length < MAGIC.length + 3 || !raw.subarray(0, MAGIC.length).equals(MAGIC))
    throw new ThreadwiseDecryptionError("malformed", location, "record header is damaged");
  const codec = raw[3] as number;
  if (codec !== CODEC_VERSION)
    throw new ThreadwiseDecryptionError("unsupported-codec", location, `codec version ${codec} is not supported`);
  const purpose = PURPOSES[raw[4] as number];
  const kidLength = raw[5] as number;
  const kidEnd = 6 + kidLength;
  const nonceEnd = kidEnd + FINGERPRINT_BYTES + NONCE_BYTES;
  if (purpose === undefined || raw.length < nonceEnd + TAG_BYTES)
    throw new ThreadwiseDecryptionError("malformed", location, "record header is damaged");
  return {
    kid: raw.subarray(6, kidEnd).toString("utf8"),
    purpose,
    fingerprint: raw.subarray(kidEnd, kidEnd + FINGERPRINT_BYTES),
    nonce: raw.subarray(kidEnd + FINGERPRINT_BYTES, nonceEnd),
    bytes: raw.subarray(0, nonceEnd),
    body: raw.subarray(nonceEnd),
  };
}
