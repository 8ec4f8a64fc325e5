import type { BaseMessage } from "@langchain/core/messages";

/*
 * The fields of a message a view, a group or a count reads, its shaped fields: its type and id,
 * `name`, content, tool calls (and invalid ones), a ToolMessage's `tool_call_id`, and the provider
 * fields beside them (`additional_kwargs`: reasoning, raw calls, signatures; `response_metadata`:
 * Responses output items, `output_version`). Read by name, in that order ({@link recordFields},
 * {@link matchFields}).
 */

/** Nesting past which a value is kept by identity (a structure no message holds). */
const MAX_DEPTH = 32;
/**
 * Arrays and plain objects a message's first walk enters before it starts again recording each
 * object once ({@link recordMessageShape}): far more than any message holds, so that walk is the
 * plain one, and what a message whose sub-objects are shared costs before that is bounded.
 */
export const PLAIN_WALK_OBJECTS = 1024;

/** Marks where an array starts in a shape; the next entry is its length. */
const ARRAY = Symbol("array");
/** Marks where a plain object starts in a shape; the next entry is its key count. */
const OBJECT = Symbol("object");
/** Starts a message's shape recorded object by object (see {@link recordMessageShape}). */
const BY_OBJECT = Symbol("by object");
/** An object met again in a shape recorded object by object; the next entry is where its own shape starts. */
const SEEN = Symbol("seen");

/**
 * The state of the one walk running (walks never nest): in a plain walk, the objects it may still
 * enter; in a walk by object (`seen` set), each object's shape position.
 */
let budget = 0;
let seen: Map<object, number> | undefined;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is kept by identity: not an array or plain object, or too deep. */
function keptAsIs(value: object, depth: number): boolean {
  return depth > MAX_DEPTH || (!Array.isArray(value) && !isPlainObject(value));
}

function record(value: unknown, into: unknown[], depth: number): void {
  // A class instance (a Uint8Array of image bytes, a Date) is kept by identity.
  if (value === null || typeof value !== "object" || keptAsIs(value, depth)) {
    into.push(value);
    return;
  }
  if (seen) {
    // An object met again (shared, or holding itself) refers to its first shape.
    const first = seen.get(value);
    if (first !== undefined) {
      into.push(SEEN, first);
      return;
    }
    seen.set(value, into.length);
  } else {
    budget -= 1;
    if (budget < 0) return; // the walk starts again by object
  }
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
}

/** The position after `value`'s shape when `shape` from `at` is the shape of `value`, else `-1`. */
function match(value: unknown, shape: readonly unknown[], at: number, depth: number): number {
  // Object.is, not ===: a NaN (a provider's metadata may hold one) equals the NaN it was recorded as.
  if (value === null || typeof value !== "object" || keptAsIs(value, depth)) return Object.is(shape[at], value) ? at + 1 : -1;
  if (seen) {
    // The same object the walk met where this one's shape starts: its values were compared there.
    if (shape[at] === SEEN) return seen.get(value) === shape[at + 1] ? at + 2 : -1;
    if (!seen.has(value)) seen.set(value, at);
  }
  // Every object compared takes at least two entries of the shape: a walk is O(shape).
  return Array.isArray(value) ? matchArray(value, shape, at, depth) : matchObject(value as Record<string, unknown>, shape, at, depth);
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
  let seenKeys = 0;
  for (const key in value) {
    seenKeys += 1;
    if (seenKeys > keys || shape[p] !== key) return -1;
    p = match(value[key], shape, p + 1, depth + 1);
    if (p < 0) return -1;
  }
  return seenKeys === keys ? p : -1;
}

/**
 * Appends to `into` the shape of `message`: every value of its read fields (see {@link recordFields}),
 * arrays and plain objects walked (strings, numbers and class instances kept as they are), so
 * that {@link matchMessageShape} can tell later whether the message still holds the same values.
 * O(size of those fields); strings are kept by reference, never copied. An object the fields hold
 * more than once (shared, or holding itself) is walked once: a message whose walk enters more than
 * `plainObjects` arrays and objects is recorded again object by object, each object met again
 * recorded as a reference to its first shape. @default plainObjects {@link PLAIN_WALK_OBJECTS}
 */
export function recordMessageShape(message: BaseMessage, into: unknown[], plainObjects = PLAIN_WALK_OBJECTS): void {
  const m = message as unknown as Record<string, unknown>;
  const start = into.length;
  seen = undefined;
  budget = plainObjects;
  recordFields(m, into);
  if (budget >= 0) return;
  into.length = start;
  into.push(BY_OBJECT);
  seen = new Map();
  try {
    recordFields(m, into);
  } finally {
    seen = undefined;
  }
}

/**
 * {@link record} of each shaped field (type, id, name, content, tool_call_id, tool_calls,
 * invalid_tool_calls, additional_kwargs, response_metadata), in that order, read by name: a message's
 * classes differ (`HumanMessage`, `AIMessage`, ...), and a load by a constant name keeps an inline
 * cache per field where a loop over the names makes every load generic.
 */
function recordFields(m: Record<string, unknown>, into: unknown[]): void {
  record(m.type, into, 0);
  record(m.id, into, 0);
  record(m.name, into, 0);
  record(m.content, into, 0);
  record(m.tool_call_id, into, 0);
  record(m.tool_calls, into, 0);
  record(m.invalid_tool_calls, into, 0);
  record(m.additional_kwargs, into, 0);
  record(m.response_metadata, into, 0);
}

/** {@link match} of each shaped field in {@link recordFields}' order: the position after them, else `-1`. */
function matchFields(m: Record<string, unknown>, shape: readonly unknown[], at: number): number {
  let p = match(m.type, shape, at, 0);
  if (p >= 0) p = match(m.id, shape, p, 0);
  if (p >= 0) p = match(m.name, shape, p, 0);
  if (p >= 0) p = match(m.content, shape, p, 0);
  if (p >= 0) p = match(m.tool_call_id, shape, p, 0);
  if (p >= 0) p = match(m.tool_calls, shape, p, 0);
  if (p >= 0) p = match(m.invalid_tool_calls, shape, p, 0);
  if (p >= 0) p = match(m.additional_kwargs, shape, p, 0);
  if (p >= 0) p = match(m.response_metadata, shape, p, 0);
  return p;
}

/**
 * Whether `message` holds the values its shape recorded at `shape[at]` (see
 * {@link recordMessageShape}): the position after that shape when it does, `-1` when anything was
 * changed in place since (content reassigned, a text block's text, a tool call's arguments, a key
 * added or removed, a shared object replaced under one of its paths). O(size of the shape), no
 * allocation for a shape recorded plainly; unchanged strings compare by reference.
 */
export function matchMessageShape(message: BaseMessage, shape: readonly unknown[], at: number): number {
  const m = message as unknown as Record<string, unknown>;
  let p = at;
  if (shape[p] === BY_OBJECT) {
    p += 1;
    seen = new Map();
  }
  try {
    return matchFields(m, shape, p);
  } finally {
    seen = undefined;
  }
}
