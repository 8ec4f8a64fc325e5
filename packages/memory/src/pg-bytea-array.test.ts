import pg from "pg";
import { describe, expect, it } from "vitest";
import { BYTEA_ARRAY_OID, memoryPoolTypes, parseHexByteaArray } from "./pg-bytea-array.js";

/** A parser by oid (pg-types' signature types oids as its enum of built-ins, which lists no array type). */
type ParserOf = (oid: number, format: string) => (text: string) => unknown;
/** pg-types' own parser of text bytea[]: the reference. */
const reference = (pg.types.getTypeParser as ParserOf)(BYTEA_ARRAY_OID, "text");
const hexOf = (bytes: Buffer | null) => (bytes === null ? "NULL" : `"\\\\x${bytes.toString("hex")}"`);
const literal = (value: unknown): string => (Array.isArray(value) ? `{${value.map(literal).join(",")}}` : hexOf(value as Buffer | null));

describe("parseHexByteaArray (PostgresSaver's bytea[] reads)", () => {
  const cases: Array<[string, unknown]> = [
    ["empty", []],
    ["one empty bytea", [Buffer.alloc(0)]],
    ["1-D with NULL", [Buffer.from("messages"), null, Buffer.from('{"a":"\\"},"}', "utf8")]],
    // The shape of getTuple's channel_values: one [channel, type, blob] row per channel.
    [
      "2-D channel rows",
      [
        [Buffer.from("messages"), Buffer.from("json"), Buffer.from(JSON.stringify([{ text: 'ünïcode, "quotes" {braces}' }]))],
        [Buffer.from("_threadwise_summary"), Buffer.from("json"), Buffer.from("{}")],
      ],
    ],
    [
      "2-D with NULL",
      [
        [Buffer.from("a"), null],
        [null, Buffer.from([0, 255, 16])],
      ],
    ],
  ];
  for (const [name, value] of cases)
    it(`${name}: the same values as pg-types`, () => {
      const text = literal(value);
      expect(parseHexByteaArray(text)).toEqual(value);
      expect(parseHexByteaArray(text)).toEqual(reference(text));
    });

  it("leaves other shapes to pg-types (undefined): escape format, decorations, unbalanced", () => {
    for (const text of ['{"abc\\\\000"}', '[1:1]={"\\\\x41"}', '{"\\\\x41"', '{"\\\\x4g"}', '{"\\\\x41"}x', "{NULLX}", '{"\\\\x41",}'])
      expect(parseHexByteaArray(text)).toBeUndefined();
  });

  it("memoryPoolTypes: bytea[] through the fast parser with pg-types' result on every shape; other types pg's", () => {
    const types = memoryPoolTypes(pg.types);
    const parse = (types.getTypeParser as ParserOf)(BYTEA_ARRAY_OID, "text");
    for (const text of ['{"abc\\\\000"}', '{"\\\\x41",NULL}', "{}", "", '{{"\\\\x41"},{"\\\\x42"}}'])
      expect(parse(text)).toEqual(reference(text));
    expect(types.getTypeParser(20, "text")).toBe(pg.types.getTypeParser(20, "text"));
    expect((types.getTypeParser as ParserOf)(BYTEA_ARRAY_OID, "binary")).toBe(
      (pg.types.getTypeParser as ParserOf)(BYTEA_ARRAY_OID, "binary"),
    );
  });

  it("random arrays of random bytes: the same values as pg-types", () => {
    let seed = 27;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 200; n += 1) {
      const rows = Array.from({ length: next() % 4 }, () =>
        Array.from({ length: 3 }, () => (next() % 7 === 0 ? null : Buffer.from(Array.from({ length: next() % 40 }, () => next() % 256)))),
      );
      const text = literal(rows);
      expect(parseHexByteaArray(text)).toEqual(reference(text));
    }
  });
});

// test/global-setup.ts provides a server (PGlite when THREADWISE_TEST_POSTGRES_URL is unset; required in CI).
describe("parseHexByteaArray on PostgreSQL's own output", () => {
  const url = process.env.THREADWISE_TEST_POSTGRES_URL;
  it("reads what the server sends for 1-D, 2-D, NULL and empty bytea[] as pg-types does", async () => {
    // One connection (PGlite serves one at a time); the parsers set per query.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const both = async (text: string) =>
      [await client.query({ text, types: memoryPoolTypes(pg.types) }), await client.query(text)] as const;
    try {
      const sql = `SELECT array['a'::bytea, NULL, '\\x00ff'::bytea] AS one, array[array['m'::bytea, 'json'::bytea, convert_to('{"x":"é"}', 'UTF8')], array['n'::bytea, NULL, ''::bytea]] AS two, '{}'::bytea[] AS none`;
      const [fast, slow] = await both(sql);
      expect(fast.rows).toEqual(slow.rows);
      expect((fast.rows[0].two as Buffer[][])[0]?.[2]?.toString("utf8")).toBe('{"x":"é"}');
      expect((fast.rows[0].one as Array<Buffer | null>)[2]).toEqual(Buffer.from([0, 255]));
      // A server set to the escape format: pg-types' parser takes over, same values.
      await client.query("SET bytea_output = 'escape'");
      const [fastEscaped, slowEscaped] = await both(sql);
      expect(fastEscaped.rows).toEqual(slowEscaped.rows);
      expect(fastEscaped.rows).toEqual(slow.rows);
    } finally {
      await client.end();
    }
  });
});
