/**
 * The recall block's budget: line costs are estimated piece by piece (a line's head, its body, its
 * timestamp), which runs above the count of the joined text when the tokenizer merges across the
 * pieces. The block is counted exactly before a ranked line is left out for want of budget, so the
 * slack is spent on the next ranked line, and the block never goes over `maxTokens`.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex, type RecallEntry } from "./message-index.js";
import { excerpt, rankRecall, renderRecall } from "./recall-block.js";

// A counter that charges one token per call besides the text's length, as a BPE tokenizer pays for
// a piece's edges (`Ana: ` alone ends in a space the joined text merges into the next word).
const countText = (text: string) => (text === "" ? 0 : Math.ceil(text.length / 4) + 1);

const CASES = [
  {
    lang: "en",
    query: "Where did they go kayaking?",
    lines: [
      "We went kayaking on the lake near the old mill last Saturday.",
      "Kayaking again next week, maybe down the river to the bridge.",
      "The kayaking club meets at the boathouse on Thursday nights.",
      "I rented a kayak for the whole day, it was cheaper that way.",
      "Kayaking in the rain was fun, the water was calm all morning.",
    ],
  },
  {
    lang: "ko",
    query: "카약 어디서 탔어?",
    lines: [
      "지난 토요일에 호수 옆 물레방아 근처에서 카약 탔어. 물이 엄청 잔잔했어.",
      "다음 주에 카약 또 타러 가자. 이번엔 강 따라서 다리까지 내려가 보자.",
      "카약 동호회는 목요일 저녁마다 보트하우스에서 모인대. 회비는 만원이래.",
      "하루 종일 카약 빌렸어. 시간으로 빌리는 것보다 그게 훨씬 싸더라고.",
      "비 오는 날 카약 타는 것도 재밌었어. 아침 내내 물결이 하나도 없었어.",
    ],
  },
];

describe("renderRecall: the budget counted exactly before a ranked line is left out", () => {
  for (const { lang, query, lines } of CASES) {
    it(`places the ranked line the estimate alone would leave out, within maxTokens (${lang})`, () => {
      const messages = lines.map((content, i) => new HumanMessage({ id: `${lang}${i}`, content, name: "Ana" }));
      const index = new MessageIndex({ maxMessages: 100 });
      index.sync(messages);
      const terms = tokenize(query);
      const items = rankRecall({ messages: index, terms, query, inView: () => false, depth: 30 });
      expect(items).toHaveLength(lines.length);
      const header = "[Recalled]\n";
      // What the estimate charges for each whole line: position, `Ana: `, body, newline.
      const estimates = lines.map((text) => 2 + countText("Ana: ") + countText(text) + 1);
      const exactAll = countText(header + lines.map((text, i) => `#${i + 1} Ana: ${text}`).join("\n"));
      // A budget the five whole lines fit in, exactly counted, with room for one line's overestimate
      // (so the last line's estimate fits what the exact count leaves), which their estimates exceed.
      const over = Math.max(...estimates.map((e, i) => e - countText(`#${i + 1} Ana: ${lines[i]}\n`)));
      const maxTokens = exactAll + over;
      expect(countText(header) + estimates.reduce((a, b) => a + b, 0)).toBeGreaterThan(maxTokens);
      const block = renderRecall(items, index, {
        maxTokens,
        neighbours: 0,
        maxMessageTokens: 1000,
        maxNeighbourTokens: 15,
        maxItems: 12,
        label: "Recalled",
        countText,
        inView: () => false,
        terms,
      });
      expect([...block.messageIds].sort()).toEqual(messages.map((m) => m.id).sort());
      expect(block.tokens).toBeLessThanOrEqual(maxTokens);
      expect(block.tokens).toBe(countText(`${header}${block.text}`));
    });
  }
});

describe("excerpt: one entry measured by two counters", () => {
  // Two recall middlewares with their own counters may render the same entry object; the oracle
  // is the excerpt a process that never measured it makes with the counter it is given.
  const byCharacter = (text: string) => text.length;
  const byWord = (text: string) => text.split(/\s+/).filter(Boolean).length;
  for (const [lang, text, query] of [
    ["en", "I adopted a grey cat last spring. She sleeps on the piano. Her name is Mochi and she hates rain.", "cat name"],
    ["ko", "작년 봄에 회색 고양이를 입양했어요. 피아노 위에서 자요. 이름은 모찌이고 비를 싫어해요.", "고양이 이름"],
  ] as const) {
    it(`counts with the counter of the call, not the first call's (${lang})`, () => {
      const make = (): RecallEntry => ({ seq: 0, id: "m1", position: 1, role: "user", text, terms: tokenize(text) });
      const terms = new Set(tokenize(query));
      const entry = make();
      excerpt(entry, terms, 20, byCharacter);
      expect(excerpt(entry, terms, 20, byWord)).toEqual(excerpt(make(), terms, 20, byWord));
      expect(excerpt(entry, terms, 20, byCharacter)).toEqual(excerpt(make(), terms, 20, byCharacter));
    });
  }
});
