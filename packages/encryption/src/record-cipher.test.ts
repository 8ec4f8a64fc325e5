import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EncryptedSerializer } from "./encrypted-serializer.js";
import { ThreadwiseAgentMismatchError, ThreadwiseDecryptionError } from "./errors.js";
import { CODEC_VERSION, RecordCipher, SEALED_PREFIX, sealedKid } from "./record-cipher.js";
import { testKeyring } from "./test-support.js";

const identity = { tenantId: "acme", agentId: "support", principalId: "user-1" };
const at = { threadId: "thread-1", recordId: '["channel-value","","messages","3"]' };
const plaintext = Buffer.from("My passport number is X1234567");

function flipBit(sealed: string, bit: number): string {
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
  raw[bit >> 3] = (raw[bit >> 3] as number) ^ (1 << (bit & 7));
  return SEALED_PREFIX + raw.toString("base64url");
}

function problemOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (ThreadwiseDecryptionError.isInstance(error)) return error.problem;
    if (ThreadwiseAgentMismatchError.isInstance(error)) return "agent-mismatch";
    throw error;
  }
  return "opened";
}

describe("RecordCipher (R27)", () => {
  const cipher = new RecordCipher(testKeyring(["k1"]), identity);

  it("round-trips, with a fresh nonce per record and no plaintext in the output", () => {
    const a = cipher.seal(plaintext, "channel-value", at);
    const b = cipher.seal(plaintext, "channel-value", at);
    expect(a).not.toBe(b);
    expect(a.startsWith(SEALED_PREFIX)).toBe(true);
    expect(Buffer.from(a.slice(SEALED_PREFIX.length), "base64url").toString("latin1")).not.toContain("passport");
    expect(cipher.open(a, "channel-value", at)).toEqual({ plaintext, kid: "k1" });
    expect(sealedKid(a)).toBe("k1");
    // Header: magic, codec version, purpose, kid; the nonces differ.
    const raw = Buffer.from(a.slice(SEALED_PREFIX.length), "base64url");
    expect(raw.subarray(0, 3).toString()).toBe("TWE");
    expect(raw[3]).toBe(CODEC_VERSION);
    expect(raw.subarray(6, 8).toString()).toBe("k1");
    expect(raw.length).toBe(3 + 3 + 2 + 8 + 12 + plaintext.length + 16);
  });

  it("fails with a named error for every single flipped bit (property)", () => {
    const sealed = cipher.seal(plaintext, "channel-value", at);
    const bits = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url").length * 8;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bits - 1 }), (bit) => {
        expect(problemOf(() => cipher.open(flipBit(sealed, bit), "channel-value", at))).not.toBe("opened");
      }),
      { numRuns: 300 },
    );
    // A flip inside the ciphertext or tag is an authentication failure.
    expect(problemOf(() => cipher.open(flipBit(sealed, bits - 1), "channel-value", at))).toBe("authentication-failed");
    expect(problemOf(() => cipher.open(flipBit(sealed, (3 + 3 + 2 + 8 + 12) * 8 + 5), "channel-value", at))).toBe("authentication-failed");
  });

  it("binds thread, record, purpose, principal and tenant", () => {
    const sealed = cipher.seal(plaintext, "channel-value", at);
    expect(problemOf(() => cipher.open(sealed, "channel-value", { ...at, threadId: "thread-2" }))).toBe("authentication-failed");
    expect(problemOf(() => cipher.open(sealed, "channel-value", { ...at, recordId: '["channel-value","","messages","4"]' }))).toBe(
      "authentication-failed",
    );
    expect(problemOf(() => cipher.open(sealed, "pending-write", at))).toBe("authentication-failed");
    const otherPrincipal = new RecordCipher(testKeyring(["k1"]), { ...identity, principalId: "user-2" });
    expect(problemOf(() => otherPrincipal.open(sealed, "channel-value", at))).toBe("authentication-failed");
    const otherTenant = new RecordCipher(testKeyring(["k1"]), { ...identity, tenantId: "globex" });
    expect(problemOf(() => otherTenant.open(sealed, "channel-value", at))).toBe("agent-mismatch");
  });

  it("refuses a wrong key, an unknown kid, another agent id and plaintext by name", () => {
    const sealed = cipher.seal(plaintext, "channel-value", at);
    const wrongKey = new RecordCipher(testKeyring(["k1"], "k1", "other-seed"), identity);
    expect(problemOf(() => wrongKey.open(sealed, "channel-value", at))).toBe("authentication-failed");
    const noKid = new RecordCipher(testKeyring(["k2"]), identity);
    expect(problemOf(() => noKid.open(sealed, "channel-value", at))).toBe("unknown-kid");
    const otherAgent = new RecordCipher(testKeyring(["k1"]), { ...identity, agentId: "billing" });
    expect(problemOf(() => otherAgent.open(sealed, "channel-value", at))).toBe("agent-mismatch");
    expect(problemOf(() => cipher.open("hello", "channel-value", at))).toBe("plaintext-record");
    expect(problemOf(() => cipher.open({ text: "hello" }, "channel-value", at))).toBe("plaintext-record");
    expect(problemOf(() => cipher.open(`${sealed.slice(0, -4)}!!!!`, "channel-value", at))).toBe("malformed");
    expect(problemOf(() => cipher.open(sealed.slice(0, 30), "channel-value", at))).toBe("malformed");
  });

  it("a plaintext record's error says how to seal a store written before the keyring (the step a new user misses)", () => {
    for (const value of ["hello", "안녕하세요, 부산에 살아요"]) {
      try {
        cipher.open(value, "channel-value", at);
        throw new Error("expected a ThreadwiseDecryptionError");
      } catch (error) {
        expect((error as ThreadwiseDecryptionError).problem).toBe("plaintext-record");
        expect((error as Error).message).toContain("reencrypt({ saver, encryptPlaintext: true })");
        // The plaintext itself is never echoed.
        expect((error as Error).message).not.toContain(value);
      }
    }
  });

  it("errors name the thread and record, never key material or plaintext", () => {
    const keyring = testKeyring(["k1"]);
    const sealed = cipher.seal(plaintext, "channel-value", at);
    try {
      new RecordCipher(keyring, { ...identity, principalId: "p" }).open(sealed, "channel-value", at);
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("thread-1");
      expect(message).toContain("messages");
      expect(message).not.toContain("passport");
    }
    expect(JSON.stringify(cipher)).not.toMatch(/[A-Za-z0-9+/]{43}=/);
  });

  it("reseals under the active kid and leaves active-kid records alone", () => {
    const old = new RecordCipher(testKeyring(["k1"]), identity).seal(plaintext, "metadata", at);
    const both = new RecordCipher(testKeyring(["k1", "k2"], "k2"), identity);
    const moved = both.reseal(old, "metadata", at) as string;
    expect(sealedKid(moved)).toBe("k2");
    expect(both.open(moved, "metadata", at).plaintext).toEqual(plaintext);
    expect(both.reseal(moved, "metadata", at)).toBeUndefined();
  });
});

describe("EncryptedSerializer", () => {
  const serializer = new EncryptedSerializer(new RecordCipher(testKeyring(["k1"]), identity), new JsonPlusSerializer());

  it("wraps the inner serializer: typed values survive, bytes round-trip", async () => {
    const value = { text: "hello", when: new Date(0).toISOString(), bytes: new Uint8Array([1, 2, 3]), nested: [1, null, "x"] };
    const sealed = await serializer.sealTyped(value, "channel-value", at);
    expect(await serializer.openTyped(sealed, "channel-value", at)).toEqual(value);
    const raw = new Uint8Array([0, 255, 7]);
    expect(await serializer.openTyped(await serializer.sealTyped(raw, "pending-write", at), "pending-write", at)).toEqual(raw);
  });

  it("works as a plain SerializerProtocol, storing a JSON string and passing sealed values through", async () => {
    const [type, bytes] = await serializer.dumpsTyped({ secret: "hello" });
    expect(type).toBe("json");
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith(`"${SEALED_PREFIX}`)).toBe(true);
    expect(text).not.toContain("hello");
    expect(await serializer.loadsTyped("json", bytes)).toEqual({ secret: "hello" });
    const [, again] = await serializer.dumpsTyped(JSON.parse(text));
    expect(new TextDecoder().decode(again)).toBe(text);
    await expect(serializer.loadsTyped("json", new TextEncoder().encode('{"secret":"hello"}'))).rejects.toMatchObject({
      code: "THREADWISE_DECRYPTION_FAILED",
    });
  });
});
