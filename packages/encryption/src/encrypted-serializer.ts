import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { type EncryptionOptions, resolveCipher } from "./encryption-options.js";
import { ThreadwiseDecryptionError } from "./errors.js";
import { isSealed, type RecordCipher, type RecordLocation, type RecordPurpose } from "./record-cipher.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Location bound into records written through the plain {@link SerializerProtocol} methods. */
export const SERIALIZER_SCOPE: RecordLocation = Object.freeze({ threadId: "*", recordId: "serializer" });

/**
 * A serializer that encrypts: it serializes with the saver's own serializer (`inner`, e.g.
 * `JsonPlusSerializer`), then seals the typed bytes with AES-256-GCM (R27, R28).
 *
 * Two ways to use it:
 * - {@link EncryptedSerializer.sealTyped} / {@link EncryptedSerializer.openTyped} take the record's
 *   location (thread id, record id) and bind it into the AAD. {@link encryptCheckpointer} uses
 *   these; prefer it.
 * - As a plain `SerializerProtocol` (`new SqliteSaver(db, serializer)`), for savers that only accept
 *   a serializer. The serializer API does not say which thread a value belongs to, so records are
 *   bound to principal, tenant, agent and codec version but NOT to thread or record, and metadata
 *   becomes one sealed string, so `list({ filter })` finds nothing on SQL savers. Stored values are
 *   JSON strings (`"twe1:..."`), which every saver stores as text.
 */
export class EncryptedSerializer implements SerializerProtocol {
  /** The saver's own serializer, used for the plaintext bytes. */
  readonly inner: SerializerProtocol;
  readonly cipher: RecordCipher;

  constructor(cipher: RecordCipher, inner: SerializerProtocol = new JsonPlusSerializer()) {
    this.cipher = cipher;
    this.inner = inner;
  }

  /** Serializes `value` with the inner serializer and seals `type` and bytes for `location`. */
  async sealTyped(value: unknown, purpose: RecordPurpose, location: RecordLocation): Promise<string> {
    const [type, bytes] = await this.inner.dumpsTyped(value);
    const typeBytes = encoder.encode(type);
    if (typeBytes.length > 255) throw new TypeError(`serializer type tag is too long (${typeBytes.length} bytes)`);
    const plaintext = new Uint8Array(1 + typeBytes.length + bytes.length);
    plaintext[0] = typeBytes.length;
    plaintext.set(typeBytes, 1);
    plaintext.set(bytes, 1 + typeBytes.length);
    return this.cipher.seal(plaintext, purpose, location);
  }

  /**
   * Opens a record written by {@link EncryptedSerializer.sealTyped} at `location` and deserializes it.
   * @throws ThreadwiseDecryptionError / ThreadwiseAgentMismatchError, see {@link RecordCipher.open}.
   */
  async openTyped(sealed: unknown, purpose: RecordPurpose, location: RecordLocation): Promise<unknown> {
    const { plaintext } = this.cipher.open(sealed, purpose, location);
    const typeLength = plaintext[0] as number;
    const type = decoder.decode(plaintext.subarray(1, 1 + typeLength));
    return this.inner.loadsTyped(type, new Uint8Array(plaintext.subarray(1 + typeLength)));
  }

  async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
    // PostgresSaver re-serializes stored metadata before loading it: pass sealed values through.
    const sealed = isSealed(data) ? data : await this.sealTyped(data, "serializer", SERIALIZER_SCOPE);
    return ["json", encoder.encode(JSON.stringify(sealed))];
  }

  async loadsTyped(_type: string, data: Uint8Array | string): Promise<unknown> {
    const text = typeof data === "string" ? data : decoder.decode(data);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ThreadwiseDecryptionError("plaintext-record", SERIALIZER_SCOPE, "expected an encrypted record, found other data");
    }
    return this.openTyped(value, "serializer", SERIALIZER_SCOPE);
  }
}

/**
 * Builds an {@link EncryptedSerializer} around `inner` (default `JsonPlusSerializer`, what every
 * LangGraph saver uses). For savers that take a serializer only; see the class docs for what the
 * plain serializer API cannot bind, and prefer {@link encryptCheckpointer}.
 *
 * @throws ThreadwiseKeyringError when the keyring is missing or bad (R26); ThreadwiseConfigError for bad options.
 * @example
 * const saver = new SqliteSaver(new Database("memory.db"), encryptedSerializer({ keyring: "keyring.json" }));
 */
export function encryptedSerializer(
  options: EncryptionOptions & { inner?: SerializerProtocol } = {},
  env: NodeJS.ProcessEnv = process.env,
): EncryptedSerializer {
  const { inner, ...rest } = options;
  return new EncryptedSerializer(resolveCipher("encryptedSerializer", rest, env), inner);
}
