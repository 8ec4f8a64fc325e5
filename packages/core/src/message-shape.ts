import type { BaseMessage } from "@langchain/core/messages";

/**
 * The fields of a message a view, a group or a count reads: its type and id, `name`, content,
 * tool calls (and invalid ones), a ToolMessage's `tool_call_id`, and the provider fields beside
 * them (`additional_kwargs`: reasoning, raw calls, signatures; `response_metadata`: Responses
 * output items, `output_version`).
 */
const SHAPED_FIELDS = [
  "type",
  "id",
  "name",
  "content",
  "tool_call_id",
  "tool_calls",
  "invalid_tool_calls",
  "additional_kwargs",
  "response_metadata",
] as const;

/** Nesting past which a value is kept by identity (a structure no message holds). */
const MAX_DEPTH = 32;
/** Nesting past which a value that holds itself (a cycle) is looked for among its ancestors. */
const CYCLE_CHECK_DEPTH = 8;

/** The objects being walked, outermost first (reused by every walk; walks never nest). */
const ancestors: object[] = [];

/**
 * Whether `value` is kept by identity: not an array or plain object, too deep, or inside itself.
 * Only the objects from {@link CYCLE_CHECK_DEPTH} down are tracked: a cycle repeats one of them
 * within one turn of it.
 */
function keptAsIs(value: object, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  if (!Array.isArray(value) && !isPlainObject(value)) return true;
  return depth > CYCLE_CHECK_DEPTH && ancestors.includes(value);
}

/** Enters `value` at `depth` (tracked for cycles past {@link CYCLE_CHECK_DEPTH}). */
function enter(value: object, depth: number): void {
  if (depth >= CYCLE_CHECK_DEPTH) ancestors.push(value);
}

/** Leaves what {@link enter} entered at `depth`. */
function leave(depth: number): void {
  if (depth >= CYCLE_CHECK_DEPTH) ancestors.pop();
}

/** Marks where an array starts in a shape; the next entry is its length. */
const ARRAY = Symbol("array");
/** Marks where a plain object starts in a shape; the next entry is its key count. */
const OBJECT = Symbol("object");

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function record(value: unknown, into: unknown[], depth: number): void {
  // A class instance (a Uint8Array of image bytes, a Date) is kept by identity.
  if (value === null || typeof value !== "object" || keptAsIs(value, depth)) {
    into.push(value);
    return;
  }
  enter(value, depth);
  if (Array.isArray(value)) {
    into.push(ARRAY, value.length);
    for (const item of value) record(item, into, depth + 1);
  } else {
    into.push(OBJECT);
    const at = into.length;
    into.push(0);
    let keys = 0;
    for (const key in value) {
      into.push(key);
      record((value as Record<string, unknown>)[key], into, depth + 1);
      keys += 1;
    }
    into[at] = keys;
  }
  leave(depth);
}

/** The position after `value`'s shape when `shape` from `at` is the shape of `value`, else `-1`. */
function match(value: unknown, shape: readonly unknown[], at: number, depth: number): number {
  // Object.is, not ===: a NaN (a provider's metadata may hold one) equals the NaN it was recorded as.
  if (value === null || typeof value !== "object" || keptAsIs(value, depth)) return Object.is(shape[at], value) ? at + 1 : -1;
  enter(value, depth);
  const p = Array.isArray(value) ? matchArray(value, shape, at, depth) : matchObject(value as Record<string, unknown>, shape, at, depth);
  leave(depth);
  return p;
}

function matchArray(value: readonly unknown[], shape: readonly unknown[], at: number, depth: number): number {
  if (shape[at] !== ARRAY || shape[at + 1] !== value.length) return -1;
  let p = at + 2;
  for (let i = 0; i < value.length && p >= 0; i += 1) p = match(value[i], shape, p, depth + 1);
  return p;
}

function matchObject(value: Record<string, unknown>, shape: readonly unknown[], at: number, depth: number): number {
  if (shape[at] !== OBJECT) return -1;
  const keys = shape[at + 1] as number;
  let p = at + 2;
  let seen = 0;
  for (const key in value) {
    seen += 1;
    if (seen > keys || shape[p] !== key) return -1;
    p = match(value[key], shape, p + 1, depth + 1);
    if (p < 0) return -1;
  }
  return seen === keys ? p : -1;
}

/**
 * Appends to `into` the shape of `message`: every value of its read fields (`SHAPED_FIELDS`),
 * arrays and plain objects walked (strings, numbers and class instances kept as they are), so
 * that {@link matchMessageShape} can tell later whether the message still holds the same values.
 * O(size of those fields); strings are kept by reference, never copied.
 */
export function recordMessageShape(message: BaseMessage, into: unknown[]): void {
  const m = message as unknown as Record<string, unknown>;
  ancestors.length = 0;
  for (const field of SHAPED_FIELDS) record(m[field], into, 0);
}

/**
 * Whether `message` holds the values its shape recorded at `shape[at]` (see
 * {@link recordMessageShape}): the position after that shape when it does, `-1` when anything was
 * changed in place since (content reassigned, a text block's text, a tool call's arguments, a key
 * added or removed). O(size of the fields), no allocation; unchanged strings compare by reference.
 */
export function matchMessageShape(message: BaseMessage, shape: readonly unknown[], at: number): number {
  const m = message as unknown as Record<string, unknown>;
  ancestors.length = 0;
  let p = at;
  for (const field of SHAPED_FIELDS) {
    p = match(m[field], shape, p, 0);
    if (p < 0) return -1;
  }
  return p;
}
