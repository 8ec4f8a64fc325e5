import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { groupMessageCount, indexThread } from "./thread-index.js";
import {
  type PlacementRequest,
  selectViewOf,
  type ViewDecision,
  viewMessages,
  viewReport,
  withMessageWindowCut,
  withViewDecisions,
} from "./view-request.js";

/** How many message shapes were compared (one per message an index check walks). */
const walks = vi.hoisted(() => ({ n: 0 }));
vi.mock("./message-shape.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./message-shape.js")>();
  return {
    ...actual,
    matchMessageShape: (...args: Parameters<typeof actual.matchMessageShape>) => {
      walks.n += 1;
      return actual.matchMessageShape(...args);
    },
  };
});

const texts = {
  en: ["Where should I stay in Busan?", "Haeundae is close to the beach.", "And for the food?", "Seomyeon, near the station."],
  ko: ["부산에서 어디에 묵으면 좋을까요?", "해운대가 바다와 가까워요.", "먹거리는요?", "서면역 근처요."],
};

function thread(t: readonly string[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let i = 0; i < 6; i += 1) {
    messages.push(new HumanMessage({ id: `u${i}`, content: `${t[(2 * i) % 4]} ${i}` }));
    messages.push(new AIMessage({ id: `a${i}`, content: [{ type: "text", text: `${t[(2 * i + 1) % 4]} ${i}` }] }));
  }
  return messages;
}

const requestOf = (messages: BaseMessage[]) => ({
  messages,
  systemMessage: new SystemMessage("You plan trips."),
  state: { messages },
  runtime: { configurable: { thread_id: "view-request-walks" } },
});

/** What the view sends, as a process that never saw the thread computes it (a copy of the array). */
function freshView(messages: readonly BaseMessage[], firstKept: BaseMessage): string[] {
  const copy = [...messages];
  const decided = withViewDecisions(requestOf(copy), [{ kind: "cut", producer: "test", reason: "window", firstKept }]);
  return viewMessages(decided).map((m) => `${m.id}:${JSON.stringify(m.content)}`);
}

describe("a view request checks the thread's index once per selection and per render", () => {
  beforeEach(() => {
    walks.n = 0;
  });

  for (const [lang, t] of Object.entries(texts)) {
    it(`walks each message once, and sees an edit made between two calls (${lang})`, () => {
      const messages = thread(t);
      const request = requestOf(messages);
      indexThread(messages);
      walks.n = 0;
      // A window's selection: the index is checked once, not again to find where the view starts.
      const selection = selectViewOf(request, { limit: 4, cost: groupMessageCount, costKey: "messages" });
      expect(walks.n).toBe(messages.length);
      const firstKept = selection.messages[0] as BaseMessage;
      // An edit in place between the selection and the render is seen by the render's own check.
      const edited = 10;
      (messages[edited] as BaseMessage).content = `${t[2]} (edited)`;
      walks.n = 0;
      const decided = withViewDecisions(request, [{ kind: "cut", producer: "test", reason: "window", firstKept }]);
      // The render checks the index once (up to the edited message, then indexes the thread
      // again): the assembly takes the index it was handed.
      expect(walks.n).toBe(edited + 1);
      walks.n = 0;
      withViewDecisions(request, [{ kind: "cut", producer: "test", reason: "window", firstKept }]);
      expect(walks.n).toBe(messages.length);
      const view = viewMessages(decided).map((m) => `${m.id}:${JSON.stringify(m.content)}`);
      expect(view).toEqual(freshView(messages, firstKept));
      expect(view.some((line) => line.includes("(edited)"))).toBe(true);
    });
  }
});

/** One unit of a generated thread: a turn, a tool call with its results, a stored system message, a stray result. */
type Unit = { kind: "user" | "ai" | "system" | "stray"; text: number } | { kind: "tools"; calls: number; answered: number; text: number };

const lines = [...texts.en, ...texts.ko];

function threadOf(units: readonly Unit[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let n = 0;
  const text = (k: number) => `${lines[k % lines.length]} ${n}`;
  for (const unit of units) {
    n += 1;
    if (unit.kind === "tools") {
      const calls = Array.from({ length: unit.calls }, (_, k) => ({
        id: `c${n}-${k}`,
        name: "lookup",
        args: { q: text(k) },
        type: "tool_call" as const,
      }));
      out.push(new AIMessage({ id: `t${n}`, content: "", tool_calls: calls }));
      for (const call of calls.slice(0, unit.answered))
        out.push(new ToolMessage({ id: `r${call.id}`, tool_call_id: call.id, content: text(unit.text) }));
    } else if (unit.kind === "user") out.push(new HumanMessage({ id: `u${n}`, content: text(unit.text) }));
    else if (unit.kind === "ai") out.push(new AIMessage({ id: `a${n}`, content: [{ type: "text", text: text(unit.text) }] }));
    else if (unit.kind === "system") out.push(new SystemMessage({ id: `s${n}`, content: text(unit.text) }));
    else if (unit.kind === "stray") out.push(new ToolMessage({ id: `r${n}`, tool_call_id: `nobody${n}`, content: text(unit.text) }));
  }
  return out;
}

/** What a request sends and reports, by value: the messages, the system text, the view's figures. */
function sent(request: PlacementRequest) {
  const report = viewReport(request);
  return {
    messages: request.messages.map((m) => [m.type, m.id, m.content, (m as AIMessage).tool_calls ?? []]),
    system: request.systemMessage.content,
    view: viewMessages(request).map((m) => m.id),
    report: { ...report, summary: report.summary ?? null, compaction: report.compaction ?? null },
  };
}

function outcome<T>(run: () => T): { value: T } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: String(error) };
  }
}

describe("withMessageWindowCut: selectViewOf then withViewDecisions, in one call", () => {
  const unit: fc.Arbitrary<Unit> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom("user" as const, "ai" as const), text: fc.nat(20) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("system" as const, "stray" as const), text: fc.nat(20) }) },
    {
      weight: 2,
      arbitrary: fc
        .record({ calls: fc.integer({ min: 1, max: 3 }), answered: fc.nat(3), text: fc.nat(20) })
        .map((u) => ({ kind: "tools" as const, ...u, answered: Math.min(u.answered, u.calls) })),
    },
  );
  const options = fc.record({
    limit: fc.integer({ min: 1, max: 12 }),
    eviction: fc.constantFrom("sliding" as const, "chunked" as const),
    low: fc.nat(11),
    startOn: fc.constantFrom("human" as const, "any" as const, undefined),
    costBefore: fc.option(fc.nat(30), { nil: undefined }),
  });
  // Decisions stated before the window: a start rule, a cap, a summary's coverage, a replacement.
  const before = fc.record({
    startOn: fc.constantFrom("human" as const, "any" as const, undefined),
    cap: fc.option(fc.nat(40), { nil: undefined }),
    coverage: fc.option(fc.nat(40), { nil: undefined }),
    replace: fc.option(fc.nat(40), { nil: undefined }),
  });

  it("states the same cut and sends the same request as the two calls, on a copy of the thread (English and Korean)", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 24 }), options, before, fc.boolean(), (units, o, b, rendered) => {
        const messages = threadOf(units);
        const at = (k: number | undefined) =>
          k === undefined || messages.length === 0 ? undefined : (messages[k % messages.length] as BaseMessage);
        const decisions: ViewDecision[] = [];
        if (b.startOn) decisions.push({ kind: "startOn", producer: "test/rule", startOn: b.startOn });
        const capped = at(b.cap);
        if (capped) decisions.push({ kind: "cut", producer: "test/cap", reason: "cap", firstKept: capped });
        const original = at(b.replace);
        if (original)
          decisions.push({
            kind: "replace",
            producer: "test/short",
            original,
            replacement: new HumanMessage({ id: original.id, content: "짧게 (short)" }),
          });
        const uncovered = at(b.coverage);
        if (uncovered) decisions.push({ kind: "coverage", producer: "test/summary", firstUncovered: uncovered });
        const eviction = o.eviction;
        const selectOptions = {
          costKey: "messages",
          limit: o.limit,
          eviction,
          ...(eviction === "chunked" ? { lowWatermark: Math.min(o.low, o.limit - 1) } : {}),
          ...(o.startOn ? { startOn: o.startOn } : {}),
          ...(o.costBefore === undefined ? {} : { costBefore: o.costBefore }),
        };
        const cut = { producer: "test/window", limit: o.limit };
        // Each side on its own array (a fresh process's index), from a request rendered or not.
        const requestFor = (thread: BaseMessage[]) => {
          const request = requestOf(thread);
          return rendered || decisions.length > 0 ? withViewDecisions(request, decisions) : request;
        };
        const fused = outcome(() => {
          const { request, selection } = withMessageWindowCut(requestFor(messages.slice()), selectOptions, cut);
          return { ...sent(request), firstKept: selection.firstKept?.id ?? null, dropped: selection.droppedGroups };
        });
        const twoCalls = outcome(() => {
          const request = requestFor(messages.slice());
          const selection = selectViewOf(request, { ...selectOptions, cost: groupMessageCount });
          const next = withViewDecisions(request, [{ kind: "cut", reason: "window", firstKept: selection.firstKept, ...cut }]);
          return { ...sent(next), firstKept: selection.firstKept?.id ?? null, dropped: selection.droppedGroups };
        });
        expect(fused).toEqual(twoCalls);
      }),
      { numRuns: 400, seed: 541 },
    );
  });
});
