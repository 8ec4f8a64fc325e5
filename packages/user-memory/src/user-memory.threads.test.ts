/**
 * The user-memory block over several threads said at interleaved times. The index orders a user's
 * items by when they were stored, across threads: thread A's turn, then B's, then A's again. A
 * recalled message's neighbours were the entries next to it in that order, so a line of thread B
 * sat between two lines of A and read as part of A's exchange. Neighbours now come from the
 * message's own thread (A's earlier turn, past B's lines), each thread's lines stand together, and
 * a `---` line separates two threads.
 */
import { InMemoryStore } from "@langchain/langgraph";
import { THREAD_BREAK } from "@threadwise/recall";
import { describe, expect, it } from "vitest";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";

const scope = { tenantId: "default", userId: "u1" };

const CASES = [
  {
    lang: "en",
    // [thread, text], in the order they were said (and stored): A and B interleaved, then C.
    said: [
      ["A", "I'm planning a trip to Jeju next month."],
      ["B", "My new job at the bank starts on Monday."],
      ["A", "I booked the ferry for the Friday morning."],
      ["B", "My manager there is called Mr. Park."],
      ["C", "We adopted a puppy named Bori."],
    ],
    // Matches A's ferry line only.
    one: "Which ferry did I book?",
    // Matches A's ferry line and B's manager line.
    two: "Which ferry did I book, and who is my manager?",
  },
  {
    lang: "ko",
    said: [
      ["A", "다음 달에 제주도 여행을 계획하고 있어요."],
      ["B", "은행에 새로 취직해서 월요일부터 출근해요."],
      ["A", "금요일 아침 페리를 예약했어요."],
      ["B", "팀장님 성함은 박민수예요."],
      // Not `이름은 보리예요`: the question's honorific `성함` gives `이름` too (session 60), and C must share no term.
      ["C", "강아지를 입양했는데 보리라고 불러요."],
    ],
    one: "페리 언제로 예약했죠?",
    two: "페리 언제로 예약했죠? 그리고 팀장님 성함이 뭐였죠?",
  },
] as const;

async function userOf(said: ReadonlyArray<readonly [string, string]>) {
  const store = new InMemoryStore();
  const engine = new UserMemoryEngine(resolveUserMemoryOptions({ env: {}, factsMode: "off" }));
  const start = Date.parse("2026-03-02T09:00:00Z");
  for (const [i, [threadId, text]] of said.entries()) {
    const at = new Date(start + i * 3_600_000).toISOString();
    await engine.commit(store, scope, { threadId, messages: [{ id: `m${i}`, text, at }], now: at });
  }
  return { store, engine };
}

/**
 * The said texts the block's message lines show (a fact line or the break excepted), in block order:
 * a line is the text whole, or its start cut with `…` (a neighbour's line is at most 15 tokens).
 */
function shown(text: string, said: ReadonlyArray<readonly [string, string]>): string[] {
  return text
    .split("\n")
    .filter((line) => line !== THREAD_BREAK && !line.startsWith("- fact"))
    .map((line) => {
      const body = line.replace(/^user( \([^)]*\))?: /, "");
      const found = said.find(([, t]) => t === body || (body.endsWith("…") && t.startsWith(body.slice(0, -1))));
      return found ? found[1] : `(not said: ${body})`;
    });
}

describe("the user-memory block over threads said at interleaved times", () => {
  for (const c of CASES) {
    const textsOf = (thread: string) => c.said.filter(([t]) => t === thread).map(([, text]) => text as string);

    it(`${c.lang}: a recalled message's neighbours come from its own thread, never from a thread said between its turns`, async () => {
      const { store, engine } = await userOf(c.said);
      const recalled = await engine.recall(store, scope, { text: c.one, threadId: "D" });
      const lines = shown(recalled.text, c.said);
      expect(lines).toContain(textsOf("A")[1]);
      // A's earlier turn is the ferry line's neighbour in A, though B's first turn was stored between them.
      expect(lines).toEqual(textsOf("A"));
      expect(recalled.text).not.toContain(THREAD_BREAK);
    });

    it(`${c.lang}: two threads' lines stand apart: each thread's together, a break between them, each part saying when`, async () => {
      const { store, engine } = await userOf(c.said);
      const recalled = await engine.recall(store, scope, { text: c.two, threadId: "D" });
      const all = recalled.text.split("\n").filter((line) => !line.startsWith("- fact"));
      const cut = all.indexOf(THREAD_BREAK);
      expect(cut).toBeGreaterThan(0);
      const parts = [all.slice(0, cut), all.slice(cut + 1)];
      expect(parts[1]).not.toContain(THREAD_BREAK);
      // A's lines (its first turn was stored first), then B's, each in the order said.
      expect(parts.map((part) => shown(part.join("\n"), c.said))).toEqual([textsOf("A"), textsOf("B")]);
      for (const part of parts) expect(part[0]).toMatch(/^user \(\d{4}-\d\d-\d\dT[\d:.]+Z\): /);
      expect(shown(recalled.text, c.said)).not.toContain(textsOf("C")[0]);
      expect(recalled.tokens).toBeLessThanOrEqual(engine.options.maxTokens);
      expect(recalled.tokens).toBe(engine.countText(`[${engine.options.label}]\n${recalled.text}`));
    });
  }
});
