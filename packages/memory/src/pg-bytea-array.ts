import type pg from "pg";

/** PostgreSQL's type oid of `bytea[]`. */
export const BYTEA_ARRAY_OID = 1001;

/** Hex digits only (what PostgreSQL's `bytea_output = hex` writes after `\x`). */
const HEX = /^[0-9a-fA-F]*$/;

/** Thrown inside {@link parseHexByteaArray} when the text is not the common shape; the caller falls back. */
const NOT_HEX_SHAPE = Symbol("not-hex-shape");

/**
 * Parses the text form of a `bytea[]` value (any number of dimensions) whose elements are all in
 * PostgreSQL's hex format (`"\\x4142"`) or `NULL`, as PostgresSaver's `getTuple` reads every
 * channel blob and pending write (`array_agg(array[channel::bytea, type::bytea, blob])`).
 * Same output as pg-types' parser (nested arrays of `Buffer | null`), in one pass with native
 * `Buffer.from(hex)` instead of one object per character and a copy of the rest of the text per
 * nested array (pg-types' `postgres-array`), which made that parse about a fifth of the CPU of a
 * PostgreSQL agent step.
 * @returns the parsed array, or `undefined` when `text` has another shape (escape-format bytea,
 *   dimension decorations): then the caller uses pg-types' parser.
 */
export function parseHexByteaArray(text: string): unknown[] | undefined {
  let at = 0;
  const parseArray = (): unknown[] => {
    if (text.charCodeAt(at) !== 123 /* { */) throw NOT_HEX_SHAPE;
    at += 1;
    const out: unknown[] = [];
    if (text.charCodeAt(at) === 125 /* } */) {
      at += 1;
      return out;
    }
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 123 /* { */) out.push(parseArray());
      else if (c === 34 /* " */ && text.startsWith("\\\\x", at + 1)) {
        const end = text.indexOf('"', at + 4);
        if (end === -1) throw NOT_HEX_SHAPE;
        const hex = text.slice(at + 4, end);
        if (!HEX.test(hex)) throw NOT_HEX_SHAPE;
        out.push(Buffer.from(hex, "hex"));
        at = end + 1;
      } else if (text.startsWith("NULL", at) && (text.charCodeAt(at + 4) === 44 || text.charCodeAt(at + 4) === 125)) {
        out.push(null);
        at += 4;
      } else throw NOT_HEX_SHAPE;
      const next = text.charCodeAt(at);
      at += 1;
      if (next === 44 /* , */) continue;
      if (next === 125 /* } */) return out;
      throw NOT_HEX_SHAPE;
    }
  };
  try {
    const parsed = parseArray();
    return at === text.length ? parsed : undefined;
  } catch (error) {
    if (error === NOT_HEX_SHAPE) return undefined;
    throw error;
  }
}

/**
 * Type parsers for a `pg.Pool` (its `types` option): pg's own (global `pg.types`, so a parser an
 * application registered there still applies), except text `bytea[]`, read with
 * {@link parseHexByteaArray} and pg's parser for any other shape. Values are the same either way.
 */
export function memoryPoolTypes(types: typeof pg.types): { getTypeParser: typeof pg.types.getTypeParser } {
  // pg-types types oids as its enum of built-ins, which lists no array type.
  const parserOf = (oid: number, format: "text" | "binary") =>
    (types.getTypeParser as (oid: number, format: string) => (value: string) => unknown)(oid, format);
  const pgParser = (text: string): unknown => parserOf(BYTEA_ARRAY_OID, "text")(text);
  const byteaArray = (text: string): unknown => (text ? (parseHexByteaArray(text) ?? pgParser(text)) : pgParser(text));
  const getTypeParser = (oid: number, format: "text" | "binary" = "text") =>
    oid === BYTEA_ARRAY_OID && format !== "binary" ? byteaArray : parserOf(oid, format);
  return { getTypeParser: getTypeParser as unknown as typeof pg.types.getTypeParser };
}
