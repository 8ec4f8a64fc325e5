import { ThreadwiseError } from "@threadwise/core";
import { isSealed, type Keyring, RecordCipher, ThreadwiseDecryptionError } from "@threadwise/encryption";
import { type UserItem, userItemSchema } from "./user-items.js";
import type { UserScope } from "./user-scope.js";

/**
 * A stored user-memory value cannot be used: it is not a user-memory item (`malformed`), it belongs
 * to another user or tenant than the namespace it was read from (`foreign-owner`), or it is sealed
 * and this process has no keyring (`sealed-without-keyring`). Sealed values that fail to open are
 * `ThreadwiseDecryptionError`s (`@threadwise/encryption`), as for checkpoints.
 */
export class ThreadwiseUserMemoryItemError extends ThreadwiseError {
  readonly problem: "malformed" | "foreign-owner" | "sealed-without-keyring";
  readonly key: string;
  constructor(problem: ThreadwiseUserMemoryItemError["problem"], key: string, message: string) {
    super(
      problem === "foreign-owner"
        ? "THREADWISE_USER_MEMORY_FOREIGN_ITEM"
        : problem === "malformed"
          ? "THREADWISE_USER_MEMORY_MALFORMED_ITEM"
          : "THREADWISE_USER_MEMORY_SEALED_ITEM",
      `user memory item ${key}: ${message}`,
    );
    this.problem = problem;
    this.key = key;
  }
  static override isInstance(error: unknown): error is ThreadwiseUserMemoryItemError {
    return ThreadwiseError.isInstance(error) && error.code.startsWith("THREADWISE_USER_MEMORY_") && error.code.endsWith("_ITEM");
  }
}

/** Decoded items a codec remembers (see `UserItemCodec`); the oldest go first. */
const MAX_DECODED_ITEMS = 50_000;

/** What the store holds per item: `{ v: 1, sealed }` with encryption, `{ v: 1, item }` without. */
export type StoredUserValue = { v: 1; sealed: string } | { v: 1; item: UserItem };

/** Identity of the sealing keys (`@threadwise/encryption`'s, without the tenant: that comes from each run). */
export interface SealingIdentity {
  keyring: Keyring;
  /** Agent id the data keys are derived for. @default "default" */
  agentId: string;
  /** Principal bound into every value. @default "default" */
  principalId: string;
}

/**
 * Encodes and decodes user-memory items (spec R40). With a keyring, every value is sealed with
 * `@threadwise/encryption`'s `RecordCipher` (AES-256-GCM, purpose `user-memory`, data key per
 * tenant), its AAD binding tenant, user and item key: a value copied to another user, tenant or
 * key fails to open (`THREADWISE_DECRYPTION_FAILED`, problem `authentication-failed`), and so does
 * a flipped bit; a plaintext value where a sealed one is expected is refused
 * (`plaintext-record`). Without a keyring, values are plaintext JSON and a sealed value is refused.
 * Either way the decoded item's owner must be the scope read, else `THREADWISE_USER_MEMORY_FOREIGN_ITEM`.
 */
export class UserItemCodec {
  readonly #identity: SealingIdentity | undefined;
  readonly #ciphers = new Map<string, RecordCipher>();
  /**
   * Items already decoded, by scope and key, with the stored value they came from: the same sealed
   * text (compared in full) or the same plaintext object is not opened and checked again. A value
   * that differs in any byte is decoded from scratch, so tamper and copy checks still apply.
   */
  readonly #decoded = new Map<string, { value: unknown; item: UserItem }>();

  constructor(identity?: SealingIdentity) {
    this.#identity = identity;
  }

  /** Kid of the keyring's active key (what {@link UserItemCodec.encode} seals with); `undefined` without a keyring. */
  get activeKid(): string | undefined {
    return this.#identity?.keyring.activeKid;
  }

  /** `true` when values are sealed. */
  get sealed(): boolean {
    return this.#identity !== undefined;
  }

  #cipher(tenantId: string): RecordCipher {
    const identity = this.#identity as SealingIdentity;
    let cipher = this.#ciphers.get(tenantId);
    if (!cipher) {
      cipher = new RecordCipher(identity.keyring, { tenantId, agentId: identity.agentId, principalId: identity.principalId });
      if (this.#ciphers.size >= 256) this.#ciphers.delete(this.#ciphers.keys().next().value as string);
      this.#ciphers.set(tenantId, cipher);
    }
    return cipher;
  }

  static #location(scope: UserScope, key: string) {
    return { threadId: `user-memory:${JSON.stringify([scope.tenantId, scope.userId])}`, recordId: key };
  }

  /** The value to store for `item` under `scope`. */
  encode(scope: UserScope, item: UserItem): StoredUserValue {
    if (!this.#identity) return { v: 1, item };
    const plaintext = Buffer.from(JSON.stringify(item), "utf8");
    return { v: 1, sealed: this.#cipher(scope.tenantId).seal(plaintext, "user-memory", UserItemCodec.#location(scope, item.key)) };
  }

  /**
   * The item stored under `key` in `scope`'s namespace.
   * @throws ThreadwiseDecryptionError (tamper, copy, wrong key, plaintext where sealed is expected).
   * @throws ThreadwiseUserMemoryItemError (`malformed`, `foreign-owner`, `sealed-without-keyring`).
   */
  decode(scope: UserScope, key: string, value: unknown): UserItem {
    const stored = value as Partial<{ v: number; sealed: unknown; item: unknown }> | null;
    const cacheKey = `${scope.tenantId}\u0000${scope.userId}\u0000${key}`;
    const source = this.#identity ? stored?.sealed : stored?.item;
    const cached = this.#decoded.get(cacheKey);
    if (cached && source !== undefined && cached.value === source) return cached.item;
    const item = this.#decodeFresh(scope, key, stored);
    if (source !== undefined) {
      if (this.#decoded.size >= MAX_DECODED_ITEMS) this.#decoded.delete(this.#decoded.keys().next().value as string);
      this.#decoded.set(cacheKey, { value: source, item });
    }
    return item;
  }

  #decodeFresh(scope: UserScope, key: string, stored: Partial<{ v: number; sealed: unknown; item: unknown }> | null): UserItem {
    let raw: unknown;
    if (this.#identity) {
      const location = UserItemCodec.#location(scope, key);
      if (!stored || !isSealed(stored.sealed))
        throw new ThreadwiseDecryptionError(
          "plaintext-record",
          location,
          "expected a sealed user-memory value, found plaintext (refusing to read it)",
        );
      const { plaintext } = this.#cipher(scope.tenantId).open(stored.sealed, "user-memory", location);
      raw = JSON.parse(plaintext.toString("utf8"));
    } else {
      if (stored && stored.sealed !== undefined)
        throw new ThreadwiseUserMemoryItemError(
          "sealed-without-keyring",
          key,
          "the value is sealed; give user memory the keyring it was written with",
        );
      raw = stored?.item;
    }
    const parsed = userItemSchema.safeParse(raw);
    if (!parsed.success) throw new ThreadwiseUserMemoryItemError("malformed", key, "not a user-memory item");
    const item = parsed.data;
    if (item.key !== key || item.tenantId !== scope.tenantId || item.userId !== scope.userId)
      throw new ThreadwiseUserMemoryItemError(
        "foreign-owner",
        key,
        "belongs to another user, tenant or key than the namespace it was read from",
      );
    return item;
  }
}
