import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { groupMessageCount, indexThread } from "./thread-index.js";
import { selectViewOf, viewMessages, withViewDecisions } from "./view-request.js";

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
