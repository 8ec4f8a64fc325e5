import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { questionParts, recallFacts, renderFacts } from "./fact-index.js";
import { emptyFactSlot, type FactSlot, mergeFactSlot, planFactWrite } from "./fact-store.js";
import { englishFollowUps, englishSessions } from "./fixtures/english-chat.js";
import { koreanFollowUps, koreanSessions } from "./fixtures/korean-chat.js";

function replay(sessions: string[][]): FactSlot {
  let slot = emptyFactSlot();
  sessions.flat().forEach((message, i) => {
    slot = mergeFactSlot(
      slot,
      planFactWrite(slot, extractFactsHeuristic(message), { sourceMessageId: `m${i}`, turn: i + 1, origin: "heuristic", maxFacts: 200 }),
    );
  });
  return slot;
}

describe("recall", () => {
  it.each(englishFollowUps)("English follow-up %s recalls %s first", (question, value) => {
    const slot = replay(englishSessions);
    expect(recallFacts(slot.facts, question, { maxItems: 3, minScore: 0.5 })[0]?.fact.value).toBe(value);
  });

  it.each(koreanFollowUps)("Korean follow-up %s recalls %s first", (question, value) => {
    const slot = replay(koreanSessions);
    expect(recallFacts(slot.facts, question, { maxItems: 3, minScore: 0.5 })[0]?.fact.value).toBe(value);
  });

  // A compound question asks for two facts: each part's answer is placed, though one part's
  // words score far higher than the other's (issue 25).
  it.each([
    ["고양이 이름이랑 제 알레르기가 뭐였죠?", koreanSessions, ["고양이 나비", "땅콩 알레르기"]],
    ["제가 어디 살고 무슨 일 하죠?", koreanSessions, ["부산", "회사"]],
    ["제가 사는 곳이랑 직업이 뭐였죠?", koreanSessions, ["부산", "회사"]],
    ["Where do I live and what is my job?", englishSessions, ["Busan", "paramedic"]],
  ] as const)("compound question %s places each part's fact", (question, sessions, values) => {
    const slot = replay(sessions as unknown as string[][]);
    const placed = recallFacts(slot.facts, question, { maxItems: 3 }).map((r) => r.fact.value);
    for (const value of values) expect(placed).toContain(value);
  });

  it("splits a question only where a second question begins", () => {
    expect(questionParts("What do Melanie and her kids like?")).toEqual(["What do Melanie and her kids like?"]);
    expect(questionParts("Where do I live and what is my job?")).toEqual(["Where do I live", "what is my job?"]);
    expect(questionParts("고양이 이름이랑 제 알레르기가 뭐였죠?")).toEqual(["고양이 이름이랑", "제 알레르기가 뭐였죠?"]);
    expect(questionParts("제가 어디 살고 무슨 일 하죠?")).toEqual(["제가 어디 살고", "무슨 일 하죠?"]);
    expect(questionParts("제가 몇 살이죠?")).toEqual(["제가 몇 살이죠?"]);
  });

  it("returns nothing for small talk that shares no word with any fact", () => {
    const slot = replay(englishSessions);
    expect(recallFacts(slot.facts, "Thanks, that's all!", { maxItems: 3 })).toEqual([]);
    expect(recallFacts(slot.facts, "How are you?", { maxItems: 3 })).toEqual([]);
  });

  it("never returns more than maxItems and renders one line per fact", () => {
    const slot = replay(englishSessions);
    const ranked = recallFacts(slot.facts, "health allergy vegetarian wrist", { maxItems: 2 });
    expect(ranked).toHaveLength(2);
    expect(renderFacts(ranked.map((r) => r.fact)).split("\n")).toEqual(ranked.map((r) => `- ${r.fact.text}`));
  });
});
