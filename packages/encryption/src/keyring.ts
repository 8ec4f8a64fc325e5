import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { inspect } from "node:util";
import { checkEnvNames, optionNames, parseOptions, THREADWISE_ENV } from "@threadwise/core";
import { ThreadwiseKeyringError } from "./errors.js";
import { addToNearestGitignore } from "./gitignore.js";

/** Env variable holding the keyring path (R26). */
export const KEYRING_ENV = THREADWISE_ENV.keyring;
/** The only keyring format version this release reads. */
export const KEYRING_VERSION = 1;
/** Length of every root key, in bytes (AES-256). */
export const ROOT_KEY_BYTES = 32;
/** Accepted key ids: 1 to 64 characters of `A-Z a-z 0-9 . _ -`, starting with a letter or digit. */
export const KID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Top-level fields of a keyring file; any other is refused (a misspelt `activeKid` must not pass). */
const KEYRING_FIELDS = new Set(["version", "active_kid", "keys"]);
/** Field names printed in errors; anything else (possibly pasted key material) is not echoed. */
const PRINTABLE_FIELD = /^[A-Za-z_]{1,32}$/;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The on-disk shape: `{ "version": 1, "active_kid": "...", "keys": { "<kid>": "<base64 of 32 bytes>" } }`. */
export interface KeyringFile {
  version: 1;
  active_kid: string;
  keys: Record<string, string>;
}

// Root keys live here, not on the instance, so no property walk, `JSON.stringify` or
// `console.log` of a keyring (or of a saver holding one) can reach them (R25).
const rootKeys = new WeakMap<Keyring, ReadonlyMap<string, Buffer>>();

/**
 * A validated keyring: the active key id and every kid that can still decrypt. Root keys are not
 * reachable through the instance; only this package derives data keys from them (R27).
 */
export class Keyring {
  /** Absolute path of the file it was loaded from; `undefined` when parsed from text. */
  readonly path: string | undefined;
  /** Kid new records are encrypted with. */
  readonly activeKid: string;
  /** Every kid in the keyring, the active one included. */
  readonly kids: readonly string[];

  /** @internal Use {@link loadKeyring} or {@link parseKeyring}. */
  constructor(path: string | undefined, activeKid: string, keys: ReadonlyMap<string, Buffer>) {
    this.path = path;
    this.activeKid = activeKid;
    this.kids = [...keys.keys()];
    rootKeys.set(this, keys);
  }

  /** `true` when `kid` is in the keyring. */
  has(kid: string): boolean {
    return this.kids.includes(kid);
  }

  toJSON(): { path: string | undefined; activeKid: string; kids: readonly string[] } {
    return { path: this.path, activeKid: this.activeKid, kids: this.kids };
  }

  [inspect.custom](): string {
    return `Keyring { path: ${JSON.stringify(this.path)}, activeKid: ${JSON.stringify(this.activeKid)}, kids: ${JSON.stringify(this.kids)} }`;
  }
}

/** @internal Root key of `kid`, for key derivation inside this package only. */
export function rootKeyOf(keyring: Keyring, kid: string): Buffer | undefined {
  return rootKeys.get(keyring)?.get(kid);
}

/** `true` for a {@link Keyring} instance. */
export function isKeyring(value: unknown): value is Keyring {
  return value instanceof Keyring && rootKeys.has(value);
}

/**
 * Validates keyring JSON text (R26). `path` only names the source in errors.
 *
 * @throws ThreadwiseKeyringError `invalid-json`, `unknown-version`, `bad-shape`, `missing-active-kid`
 *   or `bad-key` (a key that is not base64 of exactly 32 bytes; the message names the kid, never the key).
 * @example
 * const keyring = parseKeyring(await secrets.get("threadwise-keyring"), "vault:threadwise-keyring");
 */
export function parseKeyring(text: string, path?: string): Keyring {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // The parser's message can quote file content (key material): do not chain it.
    throw new ThreadwiseKeyringError("invalid-json", path, `is not valid JSON (${(error as Error).name})`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new ThreadwiseKeyringError("bad-shape", path, `must be a JSON object with "version", "active_kid" and "keys"`);
  const file = raw as Record<string, unknown>;
  // No message below quotes a value from the file: any field may hold pasted key material (R25).
  const unknown = Object.keys(file).filter((field) => !KEYRING_FIELDS.has(field));
  if (unknown.length > 0)
    throw new ThreadwiseKeyringError(
      "bad-shape",
      path,
      `unknown field(s) ${unknown.map((f) => (PRINTABLE_FIELD.test(f) ? JSON.stringify(f) : "(not shown)")).join(", ")}; only "version", "active_kid" and "keys" are allowed`,
    );
  if (file.version !== KEYRING_VERSION)
    throw new ThreadwiseKeyringError(
      "unknown-version",
      path,
      `"version" must be the number ${KEYRING_VERSION} (got a ${typeof file.version}${typeof file.version === "number" ? ` ${Number.isSafeInteger(file.version) && Math.abs(file.version) < 1000 ? file.version : "out of range"}` : ""}); this release reads version ${KEYRING_VERSION}`,
    );
  const keys = file.keys;
  if (keys === null || typeof keys !== "object" || Array.isArray(keys) || Object.keys(keys).length === 0)
    throw new ThreadwiseKeyringError("bad-shape", path, `"keys" must be an object with at least one "<kid>": "<base64 key>" entry`);
  const parsed = new Map<string, Buffer>();
  for (const [index, [kid, value]] of Object.entries(keys as Record<string, unknown>).entries()) {
    // Kids are named by position: a kid could itself be key material pasted in the wrong place.
    const which = `key #${index + 1} in "keys"`;
    if (!KID_PATTERN.test(kid)) throw new ThreadwiseKeyringError("bad-shape", path, `the kid of ${which} does not match ${KID_PATTERN}`);
    if (typeof value !== "string" || !BASE64.test(value))
      throw new ThreadwiseKeyringError("bad-key", path, `the value of ${which} is not standard base64`);
    const bytes = Buffer.from(value, "base64");
    if (bytes.length !== ROOT_KEY_BYTES)
      throw new ThreadwiseKeyringError(
        "bad-key",
        path,
        `the value of ${which} is ${bytes.length} bytes; exactly ${ROOT_KEY_BYTES} are required`,
      );
    parsed.set(kid, bytes);
  }
  const active = file.active_kid;
  if (typeof active !== "string" || active === "")
    throw new ThreadwiseKeyringError("missing-active-kid", path, `"active_kid" must be a string naming one of the ${parsed.size} key(s)`);
  if (!parsed.has(active))
    throw new ThreadwiseKeyringError("missing-active-kid", path, `"active_kid" does not name one of the ${parsed.size} key(s) in "keys"`);
  return new Keyring(path, active, parsed);
}

/**
 * Loads and validates the keyring file at `path`, or at env `THREADWISE_MEMORY_KEYRING` (R26).
 * Fail-closed: any problem throws; there is never a fallback to plaintext or an in-memory key.
 *
 * @param path Keyring file path; default env `THREADWISE_MEMORY_KEYRING`.
 * @param from The setting `path` came from (`memory.keyringPath`, `--keyring`), named in errors
 *   as their `source`; without `path` it is `THREADWISE_MEMORY_KEYRING`.
 * @throws ThreadwiseKeyringError `missing-path` (no path and no env, or a blank path), `not-found`,
 *   `unreadable` (EACCES/EPERM), `owner` (not owned by the process's user), `symlink`,
 *   `not-a-file`, `permissions` (any group or other permission bit set: run `chmod 600 <path>`),
 *   and every problem of {@link parseKeyring}.
 * @example
 * const keyring = loadKeyring(); // reads $THREADWISE_MEMORY_KEYRING
 */
export function loadKeyring(path?: string, env: NodeJS.ProcessEnv = process.env, from?: string): Keyring {
  if (path === undefined) checkEnvNames(env);
  // Without a path and without the variable, nothing named a file: the message says so itself.
  const source = path === undefined ? (env[KEYRING_ENV] === undefined ? undefined : KEYRING_ENV) : from;
  try {
    return loadKeyringFile(path, env);
  } catch (error) {
    if (!ThreadwiseKeyringError.isInstance(error) || source === undefined || error.source !== undefined) throw error;
    throw new ThreadwiseKeyringError(error.problem, error.path, error.detail, { source, cause: error.cause });
  }
}

function loadKeyringFile(path: string | undefined, env: NodeJS.ProcessEnv): Keyring {
  const given = path ?? env[KEYRING_ENV];
  if (given === undefined)
    throw new ThreadwiseKeyringError(
      "missing-path",
      undefined,
      `no keyring path given and ${KEYRING_ENV} is unset; create one with \`threadwise keyring create <path>\``,
      { option: KEYRING_ENV },
    );
  assertKeyringPath(given, "path");
  // A blank path is a mistake, never "no keyring": refusing it keeps encryption from silently going away.
  if (given.trim() === "")
    throw new ThreadwiseKeyringError(
      "missing-path",
      undefined,
      `the keyring path${path === undefined ? ` (${KEYRING_ENV})` : ""} is blank`,
    );
  if (given !== given.trim())
    throw new ThreadwiseKeyringError("missing-path", undefined, "the keyring path has leading or trailing spaces");
  const file = resolve(given);
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") throw unreadable(file, code);
    throw new ThreadwiseKeyringError(
      "not-found",
      file,
      `cannot be read (${code ?? "error"}); create one with \`threadwise keyring create ${given}\``,
    );
  }
  if (stat.isSymbolicLink()) throw new ThreadwiseKeyringError("symlink", file, "is a symbolic link; point the setting at the real file");
  if (!stat.isFile()) throw new ThreadwiseKeyringError("not-a-file", file, "is not a regular file");
  // Check and read the same open file (O_NOFOLLOW), so a swap after the lstat cannot slip through.
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ThreadwiseKeyringError("symlink", file, "is a symbolic link; point the setting at the real file");
    if (code === "EACCES" || code === "EPERM") throw unreadable(file, code);
    throw new ThreadwiseKeyringError("not-found", file, `cannot be read (${code ?? "error"})`);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new ThreadwiseKeyringError("not-a-file", file, "is not a regular file");
    // The owner could replace the keys: it must be the user this process runs as (R26).
    const uid = process.getuid?.();
    if (uid !== undefined && opened.uid !== uid)
      throw new ThreadwiseKeyringError(
        "owner",
        file,
        `is owned by uid ${opened.uid}, not by the user this process runs as (uid ${uid}); run \`chown $(id -u) ${file}\``,
      );
    if (process.platform !== "win32" && (opened.mode & 0o077) !== 0)
      throw new ThreadwiseKeyringError(
        "permissions",
        file,
        `grants access to group or others (mode ${(opened.mode & 0o777).toString(8)}); run \`chmod 600 ${file}\``,
      );
    return parseKeyring(readFileSync(fd, "utf8"), file);
  } finally {
    closeSync(fd);
  }
}

/** Result of {@link createKeyring} and {@link rotateKeyring}. */
export interface KeyringWriteResult {
  /** Absolute path of the keyring file. */
  path: string;
  /** The new active kid. */
  kid: string;
  /** `.gitignore` that lists the file ({@link createKeyring} only). */
  gitignore?: string;
}

/** Options of {@link createKeyring} and {@link rotateKeyring} by name (`kidd` made a random kid). */
const KEYRING_WRITE_NAMES = optionNames(["kid"]);

/**
 * Writes a new development keyring with one random 32-byte key, mode 0600, and lists it in the
 * nearest `.gitignore` (R26). Behind `threadwise keyring create [path]`.
 *
 * @param path Where to write; parent directories are created.
 * @param options.kid Kid of the key; default `k<yyyymmdd>-<4 hex>`.
 * @throws ThreadwiseKeyringError `exists` when the file exists (never overwritten), `bad-shape` for a bad kid;
 *   ThreadwiseUnknownOptionError for a misspelt option (`kidd`: was ignored, the kid was random). Nothing is written then.
 * @example
 * createKeyring(".threadwise/keyring.json"); // then export THREADWISE_MEMORY_KEYRING=.threadwise/keyring.json
 */
export function createKeyring(path: string, options: { kid?: string } = {}): KeyringWriteResult {
  parseOptions("createKeyring", KEYRING_WRITE_NAMES, options);
  assertKeyringPath(path, "createKeyring.path");
  const file = resolve(path);
  const kid = checkKid(options.kid ?? newKid(), file);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const content: KeyringFile = { version: 1, active_kid: kid, keys: { [kid]: randomBytes(ROOT_KEY_BYTES).toString("base64") } };
  writeSecretFile(file, content, "wx");
  return { path: file, kid, gitignore: addToNearestGitignore(file) };
}

/**
 * Adds a fresh key to an existing keyring and makes it active; older kids stay so existing
 * records still decrypt (R29). Then run `reencrypt`, then {@link retireKey} on the old kid.
 *
 * @throws ThreadwiseKeyringError every problem of {@link loadKeyring}; `bad-shape` when `kid` exists;
 *   ThreadwiseUnknownOptionError for a misspelt option (`kidd`), before the file is read.
 */
export function rotateKeyring(path: string, options: { kid?: string } = {}): KeyringWriteResult {
  parseOptions("rotateKeyring", KEYRING_WRITE_NAMES, options);
  const { file, content } = readForUpdate(path);
  const kid = checkKid(options.kid ?? newKid(), file);
  if (kid in content.keys) throw new ThreadwiseKeyringError("bad-shape", file, `kid ${JSON.stringify(kid)} already exists`);
  content.keys[kid] = randomBytes(ROOT_KEY_BYTES).toString("base64");
  content.active_kid = kid;
  writeSecretFile(file, content, "replace");
  return { path: file, kid };
}

/**
 * Removes `kid` from the keyring (after `reencrypt` moved every record to the active kid, R29).
 * Records still under `kid` become unreadable: they fail with `unknown-kid`.
 *
 * @throws ThreadwiseKeyringError `bad-shape` when `kid` is the active kid or is not in the keyring.
 */
export function retireKey(path: string, kid: string): void {
  const { file, content } = readForUpdate(path);
  if (content.active_kid === kid)
    throw new ThreadwiseKeyringError("bad-shape", file, `kid ${JSON.stringify(kid)} is active and cannot be retired`);
  if (!(kid in content.keys)) throw new ThreadwiseKeyringError("bad-shape", file, `kid ${JSON.stringify(kid)} is not in the keyring`);
  delete content.keys[kid];
  writeSecretFile(file, content, "replace");
}

/**
 * A keyring path given from JavaScript as something other than a string (a number, an object)
 * failed inside node:path with a `TypeError` naming nothing of ours.
 * @throws ThreadwiseKeyringError (`missing-path`, `option` the argument) when `path` is not a string.
 */
function assertKeyringPath(path: unknown, option: string): asserts path is string {
  if (typeof path !== "string")
    throw new ThreadwiseKeyringError(
      "missing-path",
      undefined,
      `the keyring path must be a string (a file path), got ${path === null ? "null" : typeof path}`,
      { option },
    );
}

function readForUpdate(path: string): { file: string; content: KeyringFile } {
  const keyring = loadKeyring(path);
  const file = keyring.path as string;
  return { file, content: JSON.parse(readFileSync(file, "utf8")) as KeyringFile };
}

function checkKid(kid: string, file: string): string {
  if (!KID_PATTERN.test(kid))
    throw new ThreadwiseKeyringError("bad-shape", file, `kid ${JSON.stringify(kid)} does not match ${KID_PATTERN}`);
  return kid;
}

function newKid(): string {
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, "");
  return `k${day}-${randomBytes(2).toString("hex")}`;
}

// Writes through a 0600 temp file and a rename, so the keyring is never briefly readable by
// others and never half-written.
function writeSecretFile(file: string, content: KeyringFile, mode: "wx" | "replace"): void {
  const text = `${JSON.stringify(content, null, 2)}\n`;
  if (mode === "wx") {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST")
        throw new ThreadwiseKeyringError("exists", file, "already exists; it is never overwritten");
      throw error;
    }
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const temp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}

function unreadable(file: string, code: string): ThreadwiseKeyringError {
  return new ThreadwiseKeyringError(
    "unreadable",
    file,
    `exists but this process may not read it (${code}); check its owner and mode (0600)`,
  );
}
