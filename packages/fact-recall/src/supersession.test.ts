import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { emptyFactSlot, type FactSlot, factLine, MAX_FACT_HISTORY, mergeFactSlot, planFactWrite } from "./fact-store.js";

/** Replays user messages through the heuristic rules and the store, as the middleware does. */
function replay(messages: readonly string[]): FactSlot {
  let slot = emptyFactSlot();
  messages.forEach((message, i) => {
    const plan = planFactWrite(slot, extractFactsHeuristic(message), {
      sourceMessageId: `m${i + 1}`,
      turn: i + 1,
      origin: "heuristic",
      maxFacts: 50,
    });
    slot = mergeFactSlot(slot, { ...plan, turn: i + 1 });
  });
  return slot;
}

/** The lines a model receives for the user's facts of one attribute. */
function lines(slot: FactSlot, attribute: string): string[] {
  return slot.facts.filter((f) => f.subject === "user" && f.attribute === attribute).map(factLine);
}

// Each case: what the user says, the attribute, and every line the model then receives for it.
// None may hold a value as current that the user said holds no longer (issue 25).
const cases: Array<[string, readonly string[], string, readonly string[]]> = [
  [
    "en: negation with anymore",
    ["I live in Seoul.", "I don't live in Seoul anymore."],
    "residence",
    ["User lives in Seoul (no longer true)"],
  ],
  ["en: no longer", ["I live in Seoul.", "I no longer live in Seoul."], "residence", ["User lives in Seoul (no longer true)"]],
  ["en: used to, but now", ["I used to live in Seoul, but now I live in Busan."], "residence", ["User lives in Busan (before: Seoul)"]],
  ["en: used to alone", ["I used to live in Seoul."], "residence", ["User lives in Seoul (no longer true)"]],
  ["en: then a new home", ["I don't live in Seoul anymore.", "I live in Busan."], "residence", ["User lives in Busan (before: Seoul)"]],
  [
    "en: back where it was",
    ["I live in Seoul.", "I no longer live in Seoul.", "I live in Seoul again."],
    "residence",
    ["User lives in Seoul"],
  ],
  ["en: another old value", ["I live in Busan.", "I don't live in Seoul anymore."], "residence", ["User lives in Busan (before: Seoul)"]],
  ["en: work, anymore", ["I work at Google.", "I don't work at Google anymore."], "work", ["User works at Google (job) (no longer true)"]],
  ["en: work, used to", ["I used to work at Google, but now I work at Naver."], "work", ["User works at Naver (job) (before: Google)"]],
  ["en: job title", ["I'm a teacher.", "I'm not a teacher anymore."], "work", ["User is a teacher (job) (no longer true)"]],
  ["en: no longer a title", ["I am no longer a nurse."], "work", ["User is a nurse (job) (no longer true)"]],
  ["en: I'm <Name>", ["I'm Mina."], "name", ["User's name is Mina"]],
  ["en: I'm <Name>, more", ["I'm Mina, a nurse from Busan."], "name", ["User's name is Mina"]],
  ["en: I'm <nationality> is not a name", ["I'm Korean."], "name", []],
  ["ko: 이제 ... 않아요", ["서울에 살아요.", "이제 서울에 살지 않아요."], "residence", ["사용자는 서울에 산다 (사는 곳) (지금은 아님)"]],
  ["ko: 더 이상 안", ["서울에 살아요.", "서울에 더 이상 안 살아요."], "residence", ["사용자는 서울에 산다 (사는 곳) (지금은 아님)"]],
  ["ko: 반말", ["나 서울 살아.", "이제 서울에 안 살아."], "residence", ["사용자는 서울에 산다 (사는 곳) (지금은 아님)"]],
  [
    "ko: 예전에는 ... 지금은",
    ["예전에는 서울에 살았는데 지금은 부산에 살아요."],
    "residence",
    ["사용자는 부산에 산다 (사는 곳) (이전: 서울)"],
  ],
  ["ko: 예전에는 alone", ["예전에는 대구에 살았어요."], "residence", ["사용자는 대구에 산다 (사는 곳) (지금은 아님)"]],
  [
    "ko: work, 이제 ... 않아요",
    ["삼성에서 일해요.", "이제 삼성에서 일하지 않아요."],
    "work",
    ["사용자는 삼성에서 일한다 (직장, 직업) (지금은 아님)"],
  ],
  [
    "ko: work, 예전에는",
    ["예전에는 삼성에서 일했는데 지금은 네이버에서 일해요."],
    "work",
    ["사용자는 네이버에서 일한다 (직장, 직업) (이전: 삼성)"],
  ],
  ["ko: 회사에 다녔", ["원래는 은행에 다녔어요."], "work", ["사용자는 은행에 다닌다 (직장, 직업) (지금은 아님)"]],
  ["ko: job title", ["저는 교사예요.", "이제 교사가 아니에요."], "work", ["사용자는 교사 (직업) (지금은 아님)"]],
  ["ko: 이름은 ...라고 해요", ["제 이름은 민지라고 해요."], "name", ["사용자의 이름은 민지"]],
  ["ko: 저는 <이름>예요", ["저는 민지예요."], "name", ["사용자의 이름은 민지"]],
  ["ko: 저는 <role>이에요 is not a name", ["저는 막내예요."], "name", []],
];

describe("facts that hold no longer, in English and Korean (issue 25)", () => {
  it.each(cases)("%s", (_name, messages, attribute, expected) => {
    expect(lines(replay(messages), attribute)).toEqual(expected);
  });

  it("a dislike stated with 'anymore' replaces the liking under one preference key", () => {
    const en = replay(["I like coffee.", "I don't like coffee anymore."]);
    expect(en.facts.map((f) => [f.key, f.attribute, f.endedTurn])).toEqual([["user|preference|coffee", "dislikes", undefined]]);
    const ko = replay(["커피를 좋아해요.", "이제 커피를 안 좋아해요."]);
    expect(ko.facts.map((f) => [f.key, f.attribute])).toEqual([["user|preference|커피", "dislikes"]]);
    // A liking that ended in the past stays a liking, marked as ended.
    expect(lines(replay(["I used to love jazz music."]), "likes")).toEqual(["User loves jazz music (likes) (no longer true)"]);
  });

  it("keeps what was true when: each earlier value with the turn it stopped holding, bounded", () => {
    const slot = replay([
      "I live in Seoul.",
      "I moved to Daegu.",
      "I don't live in Daegu anymore.",
      "I moved to Busan.",
      "I moved to Incheon.",
      "I moved to Jeju.",
    ]);
    const residence = slot.facts.find((f) => f.key === "user|residence");
    expect(residence).toMatchObject({ value: "Jeju", previousValue: "Incheon" });
    expect(residence?.endedTurn).toBeUndefined();
    expect(residence?.history).toHaveLength(MAX_FACT_HISTORY);
    expect(residence?.history?.map(({ value, untilTurn }) => ({ value, untilTurn }))).toEqual([
      { value: "Daegu", untilTurn: 3 },
      { value: "Busan", untilTurn: 5 },
      { value: "Incheon", untilTurn: 6 },
    ]);
    // Each earlier value keeps its statement (R37: what a fact rolls back to after an edit).
    expect(residence?.history?.[0]).toMatchObject({
      text: expect.stringContaining("Daegu"),
      attribute: "residence",
      language: "en",
      ended: true,
    });
  });

  it("an ended fact stated again as ended is one fact with one more mention", () => {
    const slot = replay(["I don't live in Seoul anymore.", "I no longer live in Seoul."]);
    expect(slot.facts).toEqual([expect.objectContaining({ value: "Seoul", endedTurn: 1, mentions: 2, createdTurn: 1 })]);
  });

  it("questions and hypotheticals about the past end nothing", () => {
    const slot = replay([
      "I live in Seoul.",
      "Did I use to live in Seoul?",
      "If I didn't live in Seoul anymore I would be sad.",
      "예전에 서울에 살았나요?",
    ]);
    expect(lines(slot, "residence")).toEqual(["User lives in Seoul"]);
  });
});
