import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchMessageShape, PLAIN_WALK_OBJECTS, recordMessageShape } from "./message-shape.js";

function shapeOf(message: BaseMessage): unknown[] {
  const shape: unknown[] = [];
  recordMessageShape(message, shape);
  return shape;
}

/** The arguments of an AI message's first tool call. */
const argsOf = (m: AIMessage) => (m.tool_calls as NonNullable<AIMessage["tool_calls"]>)[0]?.args as Record<string, unknown>;

const unchanged = (message: BaseMessage, shape: unknown[]) => matchMessageShape(message, shape, 0) === shape.length;

describe("message shapes", () => {
  for (const [lang, text, other] of [
    ["en", "I moved to Busan last spring.", "I moved to Daegu last spring."],
    ["ko", "작년 봄에 부산으로 이사했어요.", "작년 봄에 대구로 이사했어요."],
  ] as const) {
    it(`tell an unchanged message from one edited in place, field by field (${lang})`, () => {
      const make = () =>
        new AIMessage({
          id: "a1",
          content: [{ type: "text", text }],
          tool_calls: [{ id: "c1", name: "note", args: { text, tags: ["home"] }, type: "tool_call" }],
          additional_kwargs: { reasoning: { summary: [{ type: "summary_text", text }] } },
          response_metadata: { model_name: "m" },
        });
      const edits: Array<(m: AIMessage) => void> = [
        (m) => {
          m.content = other;
        },
        (m) => {
          (m.content as Array<{ text: string }>)[0]!.text = other;
        },
        (m) => {
          (m.content as unknown[]).push({ type: "text", text: other });
        },
        (m) => {
          (argsOf(m) as { text: string }).text = other;
        },
        (m) => {
          (argsOf(m).tags as string[]).push("work");
        },
        (m) => {
          argsOf(m).when = "spring";
        },
        (m) => {
          delete argsOf(m).tags;
        },
        (m) => {
          m.tool_calls?.pop();
        },
        (m) => {
          (m.additional_kwargs.reasoning as { summary: Array<{ text: string }> }).summary[0]!.text = other;
        },
        (m) => {
          m.response_metadata.output_version = "v1";
        },
        (m) => {
          m.name = "assistant";
        },
        (m) => {
          m.id = "a2";
        },
      ];
      for (const edit of edits) {
        const message = make();
        const shape = shapeOf(message);
        expect(unchanged(message, shape)).toBe(true);
        edit(message);
        expect(unchanged(message, shape)).toBe(false);
        // Recorded again, it describes the message as it is now.
        expect(unchanged(message, shapeOf(message))).toBe(true);
      }
    });

    it(`reads shapes one after another, and a tool result's call id (${lang})`, () => {
      const messages = [new HumanMessage({ id: "u1", content: text }), new ToolMessage({ id: "t1", content: text, tool_call_id: "c1" })];
      const shape: unknown[] = [];
      for (const m of messages) recordMessageShape(m, shape);
      const after = matchMessageShape(messages[0] as BaseMessage, shape, 0);
      expect(matchMessageShape(messages[1] as BaseMessage, shape, after)).toBe(shape.length);
      (messages[1] as ToolMessage).tool_call_id = "c2";
      expect(matchMessageShape(messages[1] as BaseMessage, shape, after)).toBe(-1);
    });
  }

  for (const [lang, text] of [
    ["en", "The flight to Jeju leaves at nine."],
    ["ko", "제주 가는 비행기는 아홉 시에 떠나요."],
  ] as const) {
    it(`tell an unchanged message holding NaN from one edited in place (${lang})`, () => {
      // A provider's metadata may hold NaN (a logprob, a latency not measured): NaN !== NaN, so a
      // comparison by === called every such message edited, and each index and view copy was rebuilt.
      const message = new AIMessage({ id: "a1", content: text, response_metadata: { logprob: Number.NaN } });
      const shape = shapeOf(message);
      expect(unchanged(message, shape)).toBe(true);
      message.response_metadata.logprob = -1.5;
      expect(unchanged(message, shape)).toBe(false);
    });
  }

  it("keeps class instances by identity and walks an object that holds itself", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const loop: Record<string, unknown> = { a: 1 };
    loop.left = loop;
    loop.right = loop;
    const message = new HumanMessage({ id: "u1", content: "x", additional_kwargs: { bytes, loop } });
    const shape = shapeOf(message);
    expect(unchanged(message, shape)).toBe(true);
    message.additional_kwargs.bytes = new Uint8Array([1, 2, 3]);
    expect(unchanged(message, shape)).toBe(false);
  });
});

/**
 * Objects that count each property read: a read through a proxy of a plain object or an array is
 * what a shape walk does for each value it visits.
 */
function counted<T extends object>(target: T, reads: { n: number }): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      reads.n += 1;
      return Reflect.get(t, key, receiver);
    },
  });
}

/**
 * A DAG of `levels` plain objects, each holding the next one twice (and once more in an array),
 * the last one holding `text`: 2^levels paths, `levels + 1` objects.
 */
function sharedLevels(levels: number, text: string, reads: { n: number }): { root: Record<string, unknown>; leaf: { text: string } } {
  const leaf = counted({ text }, reads);
  let node: Record<string, unknown> = leaf;
  for (let i = 0; i < levels; i += 1) node = counted({ left: node, right: node, both: counted([node], reads) }, reads);
  return { root: node, leaf };
}

describe("message shapes of shared sub-objects", () => {
  for (const [lang, text, other] of [
    ["en", "The meeting moved to Thursday.", "The meeting moved to Friday."],
    ["ko", "회의가 목요일로 옮겨졌어요.", "회의가 금요일로 옮겨졌어요."],
  ] as const) {
    it(`walk a sub-object shared many times over in time linear in the objects (${lang})`, () => {
      // Each level holds the next one three times: a walk by path visits 3^levels objects (3^12 is
      // 531,441; at 32 levels, past any memory); one that records each object once reads each
      // object's few properties.
      const levels = 12;
      const reads = { n: 0 };
      const { root, leaf } = sharedLevels(levels, text, reads);
      const message = new AIMessage({ id: "a1", content: text, additional_kwargs: { graph: root } });
      const shape = shapeOf(message);
      // Each object has at most 3 properties, the array 1 item plus its length: a bound linear in
      // the objects, plus the plain walk the recording gives up on (at most PLAIN_WALK_OBJECTS objects).
      const bound = 20 * (2 * levels + 2) + 4 * PLAIN_WALK_OBJECTS;
      expect(reads.n).toBeLessThan(bound);
      reads.n = 0;
      expect(unchanged(message, shape)).toBe(true);
      expect(reads.n).toBeLessThan(bound);
      // An edit of the object every path ends at is seen.
      leaf.text = other;
      reads.n = 0;
      expect(unchanged(message, shape)).toBe(false);
      expect(reads.n).toBeLessThan(bound);
      leaf.text = text;
      expect(unchanged(message, shape)).toBe(true);
    });
  }

  it("tell a shared sub-object from one edited or replaced under one of its paths", () => {
    const reads = { n: 0 };
    const shared = { text: "부산", tags: ["home"] };
    const make = () =>
      new HumanMessage({ id: "u1", content: [{ type: "text", text: "x" }], additional_kwargs: { a: shared, b: [shared, shared] } });
    const message = make();
    const shape = shapeOf(message);
    expect(unchanged(message, shape)).toBe(true);
    shared.tags.push("work");
    expect(unchanged(message, shape)).toBe(false);
    shared.tags.pop();
    expect(unchanged(message, shape)).toBe(true);
    // One path now holds another object with other values: changed.
    (message.additional_kwargs.b as unknown[])[1] = { text: "Busan", tags: ["home"] };
    expect(unchanged(message, shape)).toBe(false);
    expect(reads.n).toBe(0);
  });
});

describe("message shapes against the values themselves (property)", () => {
  const WORDS = ["Busan", "부산", "spring", "봄", "", "Jeju at nine", "아홉 시"];
  const leaf = fc.oneof(
    fc.constantFrom(...WORDS),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom(Number.NaN, true, null, undefined),
    fc.constant("bytes" as const),
  );
  type Plan = { kind: "array" | "object"; items: Array<{ key: string; ref: number | null; leaf: unknown }> };
  /** Nodes built bottom-up: each item is a leaf or an earlier node (shared when two items name one). */
  const plans = fc.array(
    fc.record({
      kind: fc.constantFrom("array", "object"),
      items: fc.array(fc.record({ key: fc.constantFrom("a", "b", "text", "글"), ref: fc.option(fc.nat(), { nil: null }), leaf }), {
        maxLength: 4,
      }),
    }),
    { minLength: 1, maxLength: 8 },
  );
  const bytes = new Uint8Array([1, 2]);
  const leafValue = (v: unknown) => (v === "bytes" ? bytes : v);

  /** The value the plans build; `tree` uses each node at most once (a later use gets a leaf). */
  function build(list: readonly Plan[], tree: boolean): unknown {
    const nodes: unknown[] = [];
    const used = new Set<number>();
    for (const plan of list) {
      const children = plan.items.map((item) => {
        if (item.ref === null || nodes.length === 0) return leafValue(item.leaf);
        const j = item.ref % nodes.length;
        if (tree && used.has(j)) return leafValue(item.leaf);
        used.add(j);
        return nodes[j];
      });
      if (plan.kind === "array") nodes.push(children);
      else nodes.push(Object.fromEntries(plan.items.map((item, k) => [`${item.key}${k}`, children[k]])));
    }
    return nodes[nodes.length - 1];
  }

  /** A copy of `value` path by path, class instances kept as they are. */
  function snapshot(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(snapshot);
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, snapshot(v)]));
    return value;
  }

  /** Equal path by path: same keys in the same order, leaves by Object.is. */
  function same(a: unknown, b: unknown): boolean {
    if (Array.isArray(a) || Array.isArray(b))
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
    const plain = (v: unknown) => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
    if (plain(a) || plain(b)) {
      if (!plain(a) || !plain(b)) return false;
      const ka = Object.keys(a as object);
      const kb = Object.keys(b as object);
      return (
        ka.length === kb.length &&
        ka.every((k, i) => k === kb[i] && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      );
    }
    return Object.is(a, b);
  }

  /** Every array and plain object in `value`, each once. */
  function objectsOf(value: unknown, into = new Set<object>()): object[] {
    if (
      value !== null &&
      typeof value === "object" &&
      !into.has(value) &&
      (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype)
    ) {
      into.add(value);
      for (const v of Object.values(value)) objectsOf(v, into);
    }
    return [...into];
  }

  const edit = fc.record({
    target: fc.nat(),
    how: fc.constantFrom("set", "delete", "push", "same", "copy"),
    word: fc.constantFrom(...WORDS),
  });

  /** The fields a view, a group or a count reads (message-shape.ts records them by name, in this order). */
  const READ_FIELDS = [
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
  /** Fields of a message that no view reads: an edit of them is not a change. */
  const OTHER_FIELDS = ["usage_metadata", "lc_namespace"] as const;

  it("say unchanged exactly when each field a view reads holds the same values, whichever field was edited", () => {
    const fields = [...READ_FIELDS, ...OTHER_FIELDS];
    const value = fc.oneof(
      leaf,
      plans.map((list) => build(list, true)),
    );
    fc.assert(
      fc.property(
        fc.array(value, { minLength: fields.length, maxLength: fields.length }),
        fc.array(fc.record({ field: fc.nat(fields.length - 1), value, copy: fc.boolean() }), { maxLength: 3 }),
        fc.constantFrom(0, PLAIN_WALK_OBJECTS),
        (values, edits, plainObjects) => {
          // Every field set as an own data property (a class's `type` included), values of both languages.
          const message = new AIMessage({ id: "a1", content: "Jeju at nine, 아홉 시" }) as unknown as Record<string, unknown>;
          const set = (field: string, v: unknown) =>
            Object.defineProperty(message, field, { value: v, writable: true, enumerable: true, configurable: true });
          for (const [k, field] of fields.entries()) set(field, leafValue(values[k]));
          const shape: unknown[] = [];
          recordMessageShape(message as unknown as BaseMessage, shape, plainObjects);
          const before = READ_FIELDS.map((field) => snapshot(message[field]));
          for (const e of edits) {
            const field = fields[e.field] as string;
            set(field, e.copy ? snapshot(message[field]) : leafValue(e.value));
          }
          const equal = READ_FIELDS.every((field, k) => same(before[k], message[field]));
          expect(matchMessageShape(message as unknown as BaseMessage, shape, 0) === shape.length).toBe(equal);
        },
      ),
      { numRuns: 400, seed: 541 },
    );
  });

  for (const tree of [true, false]) {
    it(`say unchanged exactly when the values are the same${tree ? "" : ", and never wrongly when sub-objects are shared"}`, () => {
      fc.assert(
        fc.property(plans, fc.array(edit, { maxLength: 3 }), fc.constantFrom(0, PLAIN_WALK_OBJECTS), (list, edits, plainObjects) => {
          const value = build(list, tree);
          const message = new AIMessage({ id: "a1", content: "봄에 부산", additional_kwargs: { value } });
          const shape: unknown[] = [];
          recordMessageShape(message, shape, plainObjects);
          const before = snapshot(message.additional_kwargs.value);
          expect(matchMessageShape(message, shape, 0)).toBe(shape.length);
          for (const e of edits) {
            const objects = objectsOf(message.additional_kwargs.value);
            const target = objects[e.target % objects.length] as Record<string, unknown> | unknown[];
            if (e.how === "copy") message.additional_kwargs.value = snapshot(message.additional_kwargs.value);
            else if (Array.isArray(target)) {
              if (e.how === "push") target.push(e.word);
              else if (e.how === "delete") target.pop();
              else if (e.how === "set" && target.length > 0) target[0] = e.word;
              else if (e.how === "same" && target.length > 0) target.splice(0, 1, target[0]);
            } else if (target) {
              const key = Object.keys(target)[0];
              if (e.how === "push") target.added = e.word;
              else if (e.how === "delete" && key !== undefined) delete target[key];
              else if (e.how === "set" && key !== undefined) target[key] = e.word;
              else if (e.how === "same" && key !== undefined) Object.assign(target, { [key]: target[key] });
            }
          }
          const unchanged = matchMessageShape(message, shape, 0) === shape.length;
          const equal = same(before, message.additional_kwargs.value);
          // A tree is told exactly; with shared objects an equal copy under one path may read as
          // changed (built again), never a change as unchanged.
          if (tree) expect(unchanged).toBe(equal);
          else if (unchanged) expect(equal).toBe(true);
        }),
        { numRuns: 400, seed: 539 },
      );
    });
  }
});
