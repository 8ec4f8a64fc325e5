import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createTokenCounter, systemText, ThreadwiseConfigError, tailContextOf, withoutTailContext } from "@threadwise/core";
import { CLIENT_TEXT_FORMS, scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { recall } from "./recall.js";
import { RECALL_MAX_TOKENS_ENV, resolveRecallOptions } from "./recall-options.js";

const LABEL = "[Recalled from earlier in this conversation]";
const counter = createTokenCounter();

function recallBlockOf(system: BaseMessage | undefined): string {
  const text = systemText(system as SystemMessage);
  const at = text.indexOf(LABEL);
  return at === -1 ? "" : text.slice(at);
}

async function conversation(turns: string[], middleware: AgentMiddleware[]) {
  const model = scriptedModel(() => "ok");
  const agent = createAgent({ model, systemPrompt: "S", checkpointer: new MemorySaver(), middleware });
  const config = { configurable: { thread_id: `t-${Math.random()}` } };
  for (const content of turns) await agent.invoke({ messages: [new HumanMessage(content)] }, config);
  return { model, agent, config };
}

describe("recall in an agent", () => {
  it("places an evicted message that matches the newest user message, never one in the view", async () => {
    const turns = [
      "My sister Hana is getting married in Jeju next spring.",
      "I need to buy a new laptop for work.",
      "The weather has been cold all week.",
      "I started learning the guitar.",
      "Where is Hana's wedding again?",
    ];
    const { model } = await conversation(turns, [windowTrim({ maxMessages: 4 }), recall({ promptContextMode: "legacy_system" })]);
    const block = recallBlockOf(model.calls[4]?.messages[0]);
    expect(block).toContain("#1 user: My sister Hana is getting married in Jeju next spring.");
    // Its neighbour (the answer) came along; nothing from the view (the last 4 messages) is repeated.
    expect(block).toContain("#2 assistant: ok");
    expect(block).not.toContain("guitar");
    expect(block).not.toContain("Where is Hana");
    expect(counter.countText(block)).toBeLessThanOrEqual(300);
  });

  // Issue 27: with an archive, the messages that left the stored thread are searched with it, at
  // the positions they have in the whole thread, and a message in both places counts once.
  it("searches archived messages (`archived`), positions as in the whole thread, a message in both counted once", async () => {
    const archived = [
      new HumanMessage({ id: "u1", content: "My sister Hana is getting married in Jeju next spring." }),
      new AIMessage({ id: "a1", content: "ok" }),
      new HumanMessage({ id: "u2", content: "I need to buy a new laptop for work." }),
    ];
    const asked: string[] = [];
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [
        windowTrim({ maxMessages: 2 }),
        recall({
          promptContextMode: "legacy_system",
          archived: async (threadId) => {
            asked.push(threadId);
            return archived;
          },
        }),
      ],
    });
    const config = { configurable: { thread_id: "archived" } };
    // The stored thread starts where the archive ends; u2 is in both places (a crash between the writes).
    await agent.graph.updateState(
      { configurable: { thread_id: "archived", checkpoint_ns: "" } },
      {
        messages: [
          new HumanMessage({ id: "u2", content: "I need to buy a new laptop for work." }),
          new AIMessage({ id: "a2", content: "ok" }),
        ],
      },
      "model_request",
    );
    await agent.invoke({ messages: [new HumanMessage({ id: "u3", content: "The weather has been cold all week." })] }, config);
    await agent.invoke({ messages: [new HumanMessage({ id: "u4", content: "Where is Hana's wedding again?" })] }, config);
    const block = recallBlockOf(model.calls.at(-1)?.messages[0]);
    expect(asked).toContain("archived");
    expect(block).toContain("#1 user: My sister Hana is getting married in Jeju next spring.");
    expect(block).toContain("#2 assistant: ok");
    // Without the reader the archived wedding message is not found at all.
    const plain = await conversation(
      ["I need to buy a new laptop for work.", "The weather has been cold all week.", "Where is Hana's wedding again?"],
      [windowTrim({ maxMessages: 2 }), recall({ promptContextMode: "legacy_system" })],
    );
    expect(recallBlockOf(plain.model.calls.at(-1)?.messages[0])).not.toContain("Jeju");
  });

  // Found by test/stack.memo-equivalence.test.ts (STACK_MEMO_EDITS=1): the index syncs by ids, so a
  // message sent again under its own id (a redaction, an edit; the messages reducer replaces it in
  // place) kept its old text in the index, and recall placed the text the user had redacted.
  it("a message redacted in place under its own id: its old text is never placed again", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [windowTrim({ maxMessages: 2, startOn: "any" }), recall({ promptContextMode: "legacy_system" })],
    });
    const config = { configurable: { thread_id: "redacted" } };
    await agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "My passport number is X1234567." })] }, config);
    await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "What is my passport number?" })] }, config);
    expect(recallBlockOf(model.calls[1]?.messages[0])).toContain("X1234567");
    const redacted = new HumanMessage({ id: "u0", content: "My passport number is [redacted]." });
    await agent.invoke({ messages: [redacted, new HumanMessage({ id: "u2", content: "Tell me my passport number." })] }, config);
    const block = recallBlockOf(model.calls[2]?.messages[0]);
    expect(block).toContain("#1 user: My passport number is [redacted].");
    expect(block).not.toContain("X1234567");
  });

  it("places nothing when the whole thread is in the view, or nothing matches", async () => {
    const { model } = await conversation(["I live in Busan.", "Where do I live?"], [recall()]);
    expect(systemText(model.calls[1]?.messages[0] as SystemMessage)).toBe("S");
    const other = await conversation(
      ["I live in Busan.", "a", "b", "c", "How are you?"],
      [windowTrim({ maxMessages: 2 }), recall({ promptContextMode: "legacy_system" })],
    );
    expect(recallBlockOf(other.model.calls[4]?.messages[0])).toBe("");
  });

  it("matches Korean across particles and endings (부산으로 / 부산에서)", async () => {
    const turns = ["작년에 부산으로 이사했어요.", "요즘 회사 일이 많아요.", "주말에는 등산을 가요.", "부산에서 맛집 좀 추천해 줄래요?"];
    const { model } = await conversation(turns, [windowTrim({ maxMessages: 3 }), recall({ promptContextMode: "legacy_system" })]);
    const block = recallBlockOf(model.calls[3]?.messages[0]);
    expect(block).toContain("#1 user: 작년에 부산으로 이사했어요.");
    expect(block).not.toContain("등산");
  });

  it("searches for the user's words in an Anthropic-native tool loop, not the tool_result carrier after them (en, ko)", async () => {
    // Regression: the query was the newest human message, the carrier of the loop's results (text ""): nothing was recalled.
    const cases = [
      {
        turns: ["My sister Hana is getting married in Jeju next spring.", "a", "b", "c"],
        asked: "Where is Hana's wedding again?",
        hit: "Jeju",
      },
      { turns: ["작년에 부산으로 이사했어요.", "가", "나", "다"], asked: "부산에서 맛집 좀 추천해 줄래요?", hit: "부산으로 이사" },
    ];
    for (const { turns, asked, hit } of cases) {
      const { model, agent, config } = await conversation(turns, [
        windowTrim({ maxMessages: 4 }),
        recall({ promptContextMode: "legacy_system" }),
      ]);
      await agent.invoke(
        {
          messages: [
            new HumanMessage({ id: "q", content: asked }),
            new AIMessage({
              id: "c",
              content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { q: asked } }] as never,
              tool_calls: [],
            }),
            new HumanMessage({ id: "r", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "no results" }] as never }),
          ],
        },
        config,
      );
      expect(recallBlockOf(model.calls.at(-1)?.messages[0])).toContain(hit);
    }
  });

  it("quotes a recalled turn as the user wrote it, composed: no compatibility folding, emoji sequences whole", async () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    const turn = `넓이 공식은 x² + y² 이고 가족 사진 ${family} 은 ①번 폴더에 있어`;
    const decomposed = turn.normalize("NFD");
    const { model } = await conversation(
      [decomposed, "다른 이야기", "또 다른 이야기", "그 넓이 공식 뭐였지?"],
      [windowTrim({ maxMessages: 1 }), recall({ promptContextMode: "legacy_system" })],
    );
    const block = recallBlockOf(model.calls[3]?.messages[0]);
    expect(block).toContain("#1 user: 넓이 공식은 x² + y² 이고 가족 사진 \u{1F468}\u200D\u{1F469}\u200D\u{1F467} 은 ①번");
  });

  it.each(CLIENT_TEXT_FORMS.map((form) => [form.name, form] as const))(
    "places the block it places for the plain text when the thread or the question comes %s-encoded (macOS NFD, IME full-width, pasted invisible characters)",
    async (_name, form) => {
      const turns = [
        "민재: 나 이번에 회사 근처로 이사했어. 이제 성수동 살아 😎",
        "서윤: 3시에 meeting 있어서 PR 리뷰는 내일 할게",
        "민재: 숙소예약 완료! 체크인은 2026.03.20 15:00이야",
        "서윤: 주말에는 등산 가자 ㅋㅋ",
        "민재: 항공권 예약번호는 JX7Q2K야",
        "민재: 요즘 회사 일이 많아 ㅠㅠ",
      ];
      const questions = ["민재 요즘 어느 동네 살아?", "PR 리뷰 언제 한다고 했지?", "3월 20일 체크인 몇 시야?", "JX7Q2K 그거 뭐였지?"];
      // The thread from one client, the question from another (a phone sends NFC).
      const placed = async (encodeTurn: (text: string) => string, encodeQuestion: (text: string) => string) => {
        const out: string[] = [];
        for (const question of questions) {
          const { model } = await conversation(
            [...turns.map(encodeTurn), encodeQuestion(question)],
            [windowTrim({ maxMessages: 3 }), recall({ promptContextMode: "legacy_system" })],
          );
          out.push(recallBlockOf(model.calls[turns.length]?.messages[0]));
        }
        return out;
      };
      const plain = (text: string) => text;
      const expected = await placed(plain, plain);
      expect(expected.every((block) => /^#\d+ user/m.test(block))).toBe(true);
      // The same turns placed. A turn is quoted as sent, composed (NFC): an NFD thread's blocks are
      // the plain text's; a full-width or invisible-character turn keeps those characters in its
      // quote (and its token cost, so its cut may fall elsewhere): compared by the turns placed.
      const turnsPlaced = (block: string) => block.match(/^#\d+ \w+/gm);
      const encoded = await placed(form.encode, plain);
      if (form.name === "nfd") expect(encoded).toEqual(expected);
      else expect(encoded.map(turnsPlaced)).toEqual(expected.map(turnsPlaced));
      expect(await placed(plain, form.encode)).toEqual(expected);
    },
  );

  it("writes a message's timestamp from additional_kwargs.timestamp", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({
      model,
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: [windowTrim({ maxMessages: 2 }), recall({ promptContextMode: "legacy_system" })],
    });
    const config = { configurable: { thread_id: "ts" } };
    await agent.invoke(
      {
        messages: [
          new HumanMessage({ content: "I adopted a puppy named Bori.", additional_kwargs: { timestamp: "2026-03-02T09:15:00Z" } }),
        ],
      },
      config,
    );
    await agent.invoke({ messages: [new HumanMessage("Nothing new today.")] }, config);
    await agent.invoke({ messages: [new HumanMessage("When did I adopt Bori?")] }, config);
    expect(recallBlockOf(model.calls[2]?.messages[0])).toContain("#1 user (2026-03-02T09:15:00Z): I adopted a puppy named Bori.");
  });

  it("goes on the newest user message with stable_tail, leaving the system prompt alone", async () => {
    const turns = ["My cat is called Mochi.", "x", "y", "What is my cat called?"];
    const { model } = await conversation(turns, [windowTrim({ maxMessages: 2 }), recall({ promptContextMode: "stable_tail" })]);
    const messages = model.calls[3]?.messages as BaseMessage[];
    expect(systemText(messages[0] as SystemMessage)).toBe("S");
    // One more text block on the newest user message (core's stable_tail placement), not a message of its own.
    const last = messages[messages.length - 1] as BaseMessage;
    expect(tailContextOf(last)).toContain(`${LABEL}\n#1 user: My cat is called Mochi.`);
    expect(withoutTailContext(last).content).toBe("What is my cat called?");
  });

  it("ranks facts with the messages; a fact factRecall already placed is not repeated", async () => {
    const turns = ["I work as a nurse in Incheon.", "Lovely weather.", "Any plans?", "Not really.", "What's my job?"];
    const { model } = await conversation(turns, [
      factRecall({ promptContextMode: "legacy_system" }),
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system" }),
    ]);
    const system = systemText(model.calls[4]?.messages[0] as SystemMessage);
    expect(system).toContain("[Known facts about the user]\n- User works as a nurse");
    // Only the fact matches "job"; factRecall placed it, so recall does not say it twice.
    expect(system.match(/User works as a nurse/g)).toHaveLength(1);
    expect(recallBlockOf(model.calls[4]?.messages[0])).toBe("");
  });

  it("recalls a fact pointing at its message when factRecall does not place it", async () => {
    const turns = ["I work as a nurse in Incheon.", "Lovely weather.", "Any plans?", "Not really.", "What's my job?"];
    const { model } = await conversation(turns, [
      factRecall({ promptContextMode: "legacy_system", minScore: 1000 }),
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system", maxTokens: 30 }),
    ]);
    // 30 tokens: the fact line (about 15) fits, its source message with a neighbour does not.
    expect(recallBlockOf(model.calls[4]?.messages[0])).toBe(`${LABEL}\n- fact (from #1): User works as a nurse in Incheon (job)`);
  });

  it("says when a recalled fact holds no longer, as factRecall does (one line format: factLine)", async () => {
    const turns = [
      "I work as a nurse in Incheon.",
      "I don't work as a nurse in Incheon anymore.",
      "Any plans?",
      "Not really.",
      "What's my job?",
    ];
    const { model } = await conversation(turns, [
      factRecall({ promptContextMode: "legacy_system", minScore: 1000 }),
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system", maxTokens: 36 }),
    ]);
    expect(recallBlockOf(model.calls[4]?.messages[0])).toBe(
      `${LABEL}\n- fact (from #3): User works as a nurse in Incheon (job) (no longer true)`,
    );
  });
});

describe("recall options", () => {
  it("validates options and the env twin, naming them", () => {
    expect(() => resolveRecallOptions({ maxTokens: 3 })).toThrow(ThreadwiseConfigError);
    expect(() => resolveRecallOptions({ maxTokens: 3 })).toThrow(/recall\.maxTokens/);
    expect(() => resolveRecallOptions({ bogus: 1 } as never)).toThrow(/recall/);
    expect(() => resolveRecallOptions({}, { [RECALL_MAX_TOKENS_ENV]: "lots" })).toThrow(/MEMORY_RECALL_MAX_TOKENS/);
    expect(resolveRecallOptions({}, { [RECALL_MAX_TOKENS_ENV]: "500" }).maxTokens).toBe(500);
    expect(resolveRecallOptions({ maxTokens: 200 }, { [RECALL_MAX_TOKENS_ENV]: "500" }).maxTokens).toBe(200);
    expect(resolveRecallOptions({}, {}).maxTokens).toBe(300);
  });
});

describe("recall with embeddings", () => {
  it("fuses an embedding ranking with BM25 and falls back to BM25 when the embeddings fail", async () => {
    // A toy embedding: one dimension per topic word, so "pet" questions find the puppy message
    // although they share no word with it.
    const topics = ["puppy|dog|pet", "laptop|computer", "rain|weather"];
    const embed = (text: string) => topics.map((t) => (new RegExp(t, "i").test(text) ? 1 : 0));
    const embeddings = {
      embedQuery: async (text: string) => embed(text),
      embedDocuments: async (texts: string[]) => texts.map(embed),
    };
    const turns = ["We got a puppy last week.", "My laptop broke.", "It rained again.", "Tell me about my pet."];
    const { model } = await conversation(turns, [
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system", embeddings: embeddings as never, neighbours: 0 }),
    ]);
    expect(recallBlockOf(model.calls[3]?.messages[0])).toBe(`${LABEL}\n#1 user: We got a puppy last week.`);

    const failing = {
      embedQuery: async () => Promise.reject(new Error("down")),
      embedDocuments: async () => Promise.reject(new Error("down")),
    };
    const warnings: string[] = [];
    const logger = { info() {}, warn: (message: string) => warnings.push(message) };
    const second = await conversation(
      ["We got a puppy last week.", "My laptop broke.", "It rained again.", "Is the puppy well?"],
      [windowTrim({ maxMessages: 2 }), recall({ promptContextMode: "legacy_system", embeddings: failing as never, neighbours: 0, logger })],
    );
    expect(recallBlockOf(second.model.calls[3]?.messages[0])).toBe(`${LABEL}\n#1 user: We got a puppy last week.`);
    expect(warnings[0]).toMatch(/embedding ranking failed/);
  });
});

describe("recall with a vector store", () => {
  it("adds each new message once with thread-scoped ids and metadata, and fuses the store's ranking", async () => {
    const added: Array<{ id: string; metadata: Record<string, unknown> }> = [];
    const docs: Array<{ pageContent: string; metadata: Record<string, unknown> }> = [];
    const store = {
      addDocuments: async (batch: typeof docs, options: { ids: string[] }) => {
        batch.forEach((doc, i) => {
          added.push({ id: options.ids[i] as string, metadata: doc.metadata });
          docs.push(doc);
        });
      },
      // "Semantic": the pet question finds the puppy message without a shared word.
      similaritySearch: async (query: string) => (/pet/.test(query) ? docs.filter((d) => /puppy/.test(d.pageContent)) : []),
    };
    const embeddings = { embedQuery: async () => [1], embedDocuments: async (texts: string[]) => texts.map(() => [1]) };
    const turns = ["We got a puppy last week.", "My laptop broke.", "It rained again.", "Tell me about my pet."];
    const { model } = await conversation(turns, [
      windowTrim({ maxMessages: 2 }),
      recall({ promptContextMode: "legacy_system", embeddings: embeddings as never, vectorStore: store as never, neighbours: 0 }),
    ]);
    expect(recallBlockOf(model.calls[3]?.messages[0])).toBe(`${LABEL}\n#1 user: We got a puppy last week.`);
    // Every message indexed so far went to the store exactly once, under `<thread>:<message id>`.
    const ids = added.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(7);
    expect(added.every((a) => a.id === `${a.metadata.thread_id}:${a.metadata.message_id}`)).toBe(true);
  });
});

describe("message index hooks on a thread of messages", () => {
  it("indexes AI text, skips system and tool messages", async () => {
    const { MessageIndex } = await import("./message-index.js");
    const index = new MessageIndex({ maxMessages: 10 });
    const stored = [
      new SystemMessage("s"),
      new HumanMessage({ content: "hello Busan", id: "u1" }),
      new AIMessage({ content: "Busan is nice", id: "a1" }),
    ];
    expect(index.sync(stored)).toEqual({ added: 2, discarded: 0, rebuilt: false });
    expect(index.entries().map((e) => [e.id, e.position, e.role])).toEqual([
      ["u1", 2, "user"],
      ["a1", 3, "assistant"],
    ]);
  });
});

describe("recall after the stored thread is edited (R37)", () => {
  // The index synced by ids (first and last message) and kept embeddings by message id, so a
  // message edited in place under its own id was searched and ranked by its old text: the block
  // differed from the one a fresh process places for the same stored state.
  it("places what a fresh process places after a message is edited in place, with embeddings", async () => {
    // One dimension per topic: seats, tea, anything else.
    const embed = (t: string) => (/seat|sit/i.test(t) ? [1, 0, 0] : /tea/i.test(t) ? [0, 1, 0] : [0, 0, 1]);
    const embeddings = { embedDocuments: async (texts: string[]) => texts.map(embed), embedQuery: async (t: string) => embed(t) };
    const stack = () => [
      windowTrim({ maxMessages: 2, startOn: "any" }),
      recall({ promptContextMode: "legacy_system", embeddings: embeddings as never, neighbours: 0 }),
    ];
    const checkpointer = new MemorySaver();
    const warm = scriptedModel(() => "ok");
    const agent = createAgent({ model: warm, systemPrompt: "S", checkpointer, middleware: stack() });
    const config = { configurable: { thread_id: "edited" } };
    for (const [id, content] of [
      ["u0", "I like green tea."],
      ["u1", "The dog barked all night."],
      ["u2", "Any plans for the weekend?"],
    ] as const) {
      await agent.invoke({ messages: [new HumanMessage({ id, content })] }, config);
    }
    // The evicted u0 is corrected in place; the next question matches only its new text.
    await agent.updateState(config, { messages: [new HumanMessage({ id: "u0", content: "My seat is 14C, by the window." })] });
    const before = (await checkpointer.getTuple(config))?.config ?? config;
    const turn = { messages: [new HumanMessage({ id: "u3", content: "Where do I sit on the plane?" })] };
    await agent.invoke(turn, config);
    const fresh = scriptedModel(() => "ok");
    const freshAgent = createAgent({ model: fresh, systemPrompt: "S", checkpointer, middleware: stack() });
    await freshAgent.invoke(turn, before);
    const sent = (model: typeof warm) => {
      const call = model.calls[model.calls.length - 1];
      return { system: recallBlockOf(call?.messages[0]), messages: call?.messages.slice(1).map((m) => [m.getType(), m.content]) };
    };
    expect(sent(fresh).system).toContain("#1 user: My seat is 14C, by the window.");
    expect(sent(warm)).toEqual(sent(fresh));
  });
});

describe("threads held in the process (issue 21)", () => {
  // A process serving more threads than it holds builds an evicted thread's index again from the
  // stored thread: what it places is what a process holding every thread places.
  it("places the same blocks whether every thread is held or each call evicts the other thread", async () => {
    const turns = [
      "My sister Hana is getting married in Jeju next spring.",
      "I need to buy a new laptop for work.",
      "The weather has been cold all week.",
      "I started learning the guitar.",
      "Where is Hana's wedding again?",
      "What did I say about the laptop?",
    ];
    const serve = async (options: { maxHeldCharacters?: number; maxThreads?: number }) => {
      const model = scriptedModel(() => "ok");
      const agent = createAgent({
        model,
        systemPrompt: "S",
        checkpointer: new MemorySaver(),
        middleware: [windowTrim({ maxMessages: 4 }), recall({ promptContextMode: "legacy_system", ...options })],
      });
      for (const content of turns)
        for (const thread of ["one", "two"])
          await agent.invoke({ messages: [new HumanMessage(`${content} (${thread})`)] }, { configurable: { thread_id: thread } });
      return model.calls.map((call) => recallBlockOf(call.messages[0]));
    };
    const held = await serve({});
    expect(held[8]).toContain("#1 user: My sister Hana is getting married in Jeju next spring. (one)");
    expect(held[11]).toContain("laptop for work. (two)");
    expect(await serve({ maxHeldCharacters: 1 })).toEqual(held);
    expect(await serve({ maxThreads: 1 })).toEqual(held);
  });

  it("validates maxHeldCharacters", () => {
    expect(() => recall({ maxHeldCharacters: 0 })).toThrow(ThreadwiseConfigError);
    expect(resolveRecallOptions({}).maxHeldCharacters).toBe(36_000_000);
  });
});
