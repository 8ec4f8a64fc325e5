/**
 * Helpers for this package's tests (not exported from the package): keyrings with known keys and
 * temporary directories.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Keyring, type KeyringFile, parseKeyring } from "./keyring.js";

/** A deterministic 32-byte key (base64) for `seed`. */
export function testKey(seed: string): string {
  return createHash("sha256").update(seed).digest("base64");
}

/** Keyring JSON with one key per kid (seeded by the kid); the last kid is active unless `active` is given. */
export function testKeyringFile(kids: readonly string[] = ["k1"], active = kids[kids.length - 1] as string, seed = ""): KeyringFile {
  return { version: 1, active_kid: active, keys: Object.fromEntries(kids.map((kid) => [kid, testKey(`${seed}${kid}`)])) };
}

/** A parsed keyring with known keys. */
export function testKeyring(kids: readonly string[] = ["k1"], active?: string, seed = ""): Keyring {
  return parseKeyring(JSON.stringify(testKeyringFile(kids, active, seed)), "test-keyring");
}

/** A fresh temporary directory. */
export function tempDir(prefix = "tw-enc-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `content` (JSON or raw text) as a keyring file with `mode`; returns its path. */
export function writeKeyringFile(dir: string, content: unknown, mode = 0o600, name = "keyring.json"): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content), { mode });
  return path;
}
