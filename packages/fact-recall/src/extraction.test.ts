import { describe, expect, it } from "vitest";
import { detectLanguage, extractFactsHeuristic } from "./extract-heuristic.js";
import { emptyFactSlot, type FactSlot, mergeFactSlot, planFactWrite } from "./fact-store.js";
import { englishExpectedUserFacts, englishSessions } from "./fixtures/english-chat.js";
import { koreanExpectedUserFacts, koreanSessions } from "./fixtures/korean-chat.js";

function replay(sessions: string[][]): FactSlot {
  let slot = emptyFactSlot();
  let turn = 0;
  for (const message of sessions.flat()) {
    turn += 1;
    const plan = planFactWrite(slot, extractFactsHeuristic(message), {
      sourceMessageId: `m${turn}`,
      turn,
      origin: "heuristic",
      maxFacts: 200,
    });
    slot = mergeFactSlot(slot, { ...plan, turn });
  }
  return slot;
}

const userFacts = (slot: FactSlot) => slot.facts.filter((f) => f.subject === "user").map((f) => [f.attribute, f.value]);

describe("heuristic extraction, English fixture", () => {
  const slot = replay(englishSessions);

  it("finds the 20 stated user facts over three sessions, with superseded values gone", () => {
    expect(englishExpectedUserFacts.length).toBeGreaterThanOrEqual(20);
    expect(userFacts(slot)).toEqual(expect.arrayContaining(englishExpectedUserFacts));
    expect(userFacts(slot)).toHaveLength(englishExpectedUserFacts.length);
  });

  it("replaces Seoul by Busan and keeps the old value as previousValue", () => {
    const residence = slot.facts.find((f) => f.key === "user|residence");
    expect(residence).toMatchObject({
      value: "Busan",
      previousValue: "Seoul",
      sourceMessageId: "m18",
      text: "User moved to Busan and lives there",
    });
  });

  it("turns 'I love jazz' into a dislike after the correction (one preference key)", () => {
    const jazz = slot.facts.filter((f) => f.value === "jazz music");
    expect(jazz).toEqual([
      expect.objectContaining({ attribute: "dislikes", previousValue: "jazz music", key: "user|preference|jazz music" }),
    ]);
  });

  it("stores what the user says about a relative as a fact about that person", () => {
    expect(slot.facts.find((f) => f.subject === "user's sister")).toMatchObject({
      attribute: "residence",
      value: "Daegu",
      text: "User's sister lives in Daegu",
    });
  });

  it("stores nothing from questions, hypotheticals or other people", () => {
    for (const text of [
      "What's a good place for lunch?",
      "If I won the lottery I would buy a boat.",
      "He lives in Tokyo.",
      "Do you live in Seoul?",
      "Maybe I'll move to Paris.",
    ]) {
      expect(extractFactsHeuristic(text), text).toEqual([]);
    }
  });

  it("reads a speaker prefix as the subject when asked", () => {
    const [fact] = extractFactsHeuristic("Caroline: I went to a LGBTQ support group yesterday.", { speakerPrefix: true });
    expect(fact).toMatchObject({ subject: "Caroline", attribute: "event", value: "went to a LGBTQ support group" });
    expect(fact?.text).toContain("yesterday");
    expect(extractFactsHeuristic("Caroline: I went to a LGBTQ support group yesterday.").some((f) => f.subject === "Caroline")).toBe(false);
  });
});

describe("heuristic extraction, Korean fixture", () => {
  const slot = replay(koreanSessions);

  it("finds the 22 stated user facts over three sessions", () => {
    expect(koreanExpectedUserFacts.length).toBeGreaterThanOrEqual(20);
    expect(userFacts(slot)).toEqual(expect.arrayContaining(koreanExpectedUserFacts));
    expect(userFacts(slot)).toHaveLength(koreanExpectedUserFacts.length);
  });

  it("moves the user from 서울 to 부산 (이사했어요 supersedes 살아요)", () => {
    expect(slot.facts.find((f) => f.key === "user|residence")).toMatchObject({ value: "부산", previousValue: "서울", language: "ko" });
  });

  it("handles particles glued to nouns and both polite and plain endings", () => {
    expect(extractFactsHeuristic("저는 부산에서 살아요.")[0]).toMatchObject({ attribute: "residence", value: "부산" });
    expect(extractFactsHeuristic("나는 부산에 산다.")[0]).toMatchObject({ attribute: "residence", value: "부산" });
    expect(extractFactsHeuristic("요가를 좋아한다.")[0]).toMatchObject({
      attribute: "likes",
      value: "요가",
      text: "사용자는 요가를 좋아한다 (좋아함)",
    });
    expect(extractFactsHeuristic("제가 커피를 좋아합니다.")[0]).toMatchObject({
      attribute: "likes",
      value: "커피",
      text: "사용자는 커피를 좋아한다 (좋아함)",
    });
  });

  it("stores a relative's fact under that relative, and drops other people", () => {
    expect(slot.facts.find((f) => f.subject === "user's 동생")).toMatchObject({ attribute: "residence", value: "대구" });
    expect(extractFactsHeuristic("그는 의사예요.")).toEqual([]);
    expect(extractFactsHeuristic("민수씨는 서울에 살아요.")).toEqual([]);
  });

  it("stores nothing from questions or hypotheticals", () => {
    for (const text of ["점심 뭐 먹을까요?", "어디 사세요?", "만약 부자가 되면 집을 살 거예요.", "부산에 살고 싶어요.", "서울에 사나요"]) {
      expect(extractFactsHeuristic(text), text).toEqual([]);
    }
  });

  it("detects the language per message", () => {
    expect(detectLanguage("저는 서울에 살아요")).toBe("ko");
    expect(detectLanguage("I live in 서울")).toBe("en");
  });
});

describe("Korean third persons, former jobs, dated moves (issue 25)", () => {
  const facts = (text: string) => extractFactsHeuristic(text).map((f) => `${f.subject}|${f.attribute}|${f.value}`);

  it("keeps a person introduced by name and title off the speaker, and 출신 with a job is no hometown", () => {
    expect(facts("회사 동료 중에 최민재 대리라고, 클라이밍 강사 출신인 사람이 있어요.")).toEqual([]);
    expect(facts("새로 오신 분이 박지훈 과장님이라고, 은행원 출신인데 엄청 꼼꼼해요.")).toEqual([]);
    expect(facts("우리 팀에 한지우 씨라고 하는 분이 대구에 살아요.")).toEqual([]);
    expect(facts("저는 간호사 출신이에요.")).toEqual([]);
    expect(facts("저는 부산 출신이에요.")).toEqual(["user|hometown|부산"]);
  });

  it("reads a move with a date between the place and the verb as the residence", () => {
    expect(facts("성수동으로 4월 28일에 이사했어요.")).toEqual(["user|residence|성수동"]);
    expect(facts("대전으로 지난달에 이사했어.")).toEqual(["user|residence|대전"]);
  });

  it("keeps stacked particles off the noun", () => {
    expect(facts("저는 등산도를 싫어해요.")).toEqual(["user|dislikes|등산"]);
  });
});

describe("Korean names that belong to a pet or a relative named before them", () => {
  const facts = (text: string) => extractFactsHeuristic(text).map((f) => `${f.subject}|${f.attribute}|${f.value}`);

  it("a bare 이름은 after a sentence naming a pet or a relative is theirs, not the speaker's", () => {
    expect(facts("고양이를 키워요. 이름은 나비예요.")).toEqual(["user|pet|고양이", "user|pet|고양이 나비"]);
    expect(facts("강아지 한 마리 키우는데 이름은 콩이에요.")).toEqual(["user|pet|강아지 콩"]);
    expect(facts("남편이 있어요. 이름은 준호예요.")).toEqual(["user|family|남편", "user|family|남편 준호"]);
  });

  it("a bare 이름은 with no pet or relative before it is still the speaker's (개발자 is no 개)", () => {
    expect(facts("안녕하세요. 이름은 민지예요.")).toEqual(["user|name|민지"]);
    expect(facts("저는 개발자예요. 이름은 민지예요.")).toEqual(["user|work|개발자", "user|name|민지"]);
  });

  it("a pet named where it is kept; a count is no name", () => {
    expect(facts("고양이 나비를 키워요.")).toEqual(["user|pet|고양이 나비"]);
    expect(facts("고양이 두 마리를 키워요.")).toEqual(["user|pet|고양이"]);
    expect(extractFactsHeuristic("고양이 두 마리를 키워요.")[0]?.text).toBe("사용자는 반려동물 고양이 두 마리를 키운다");
  });
});

describe("leaving a job names the job that ended", () => {
  const facts = (text: string) =>
    extractFactsHeuristic(text).map((f) => `${f.subject}|${f.attribute}|${f.value}|${f.ended ? "ended" : "holds"}`);

  it("English: stopped working at, quit my job at, retired from a named employer (a date after it is not the job)", () => {
    expect(facts("I stopped working at Google.")).toEqual(["user|work|Google|ended"]);
    expect(facts("I quit my job at Google.")).toEqual(["user|work|Google|ended"]);
    expect(facts("I stopped working for my uncle last year.")).toEqual(["user|work|my uncle|ended"]);
    expect(facts("I retired from Boeing in 2019.")).toEqual(["user|work|Boeing|ended"]);
    expect(facts("I quit my job.")).toEqual(["user|work|no job|holds"]);
    expect(facts("I retired from teaching in May.")).toEqual(["user|statement|retired from teaching in May|holds"]);
  });

  it("Korean: 퇴사 names a workplace; 그만두다 only with a workplace's form", () => {
    expect(facts("삼성을 퇴사했어요.")).toEqual(["user|work|삼성|ended"]);
    expect(facts("작년에 삼성전자를 그만뒀어요.")).toEqual(["user|work|삼성전자|ended"]);
    expect(facts("저는 국민은행을 그만뒀어요.")).toEqual(["user|work|국민은행|ended"]);
    expect(facts("회사를 그만뒀어요.")).toEqual(["user|work|퇴사|holds"]);
    expect(facts("운동을 그만뒀어요.")).toEqual([]);
  });
});

describe("English values without the preposition (regression: `I work at Naver` gave `work=at Naver`)", () => {
  const one = (text: string) => extractFactsHeuristic(text).map((f) => [f.attribute, f.value, f.text]);
  it.each([
    ["I work at Naver.", ["work", "Naver", "User works at Naver (job)"]],
    ["I work for Google.", ["work", "Google", "User works for Google (job)"]],
    ["I work as a nurse.", ["work", "nurse", "User works as a nurse (job)"]],
    ["I work in Seoul.", ["work", "Seoul", "User works in Seoul (job)"]],
    ["I study at Seoul National University.", ["study", "Seoul National University", "User studies at Seoul National University (school)"]],
    ["I study computer science.", ["study", "computer science", "User studies computer science (school)"]],
    ["I live in Seoul.", ["residence", "Seoul", "User lives in Seoul"]],
  ])("%s", (text, expected) => {
    expect(one(text)).toEqual([expected]);
  });
});

describe("a work fact stored with the former English value (`at Naver`)", () => {
  it("is the same value as the rules give now: one more mention, no history", () => {
    const candidates = extractFactsHeuristic("I work at Naver.");
    const [fresh] = mergeFactSlot(
      emptyFactSlot(),
      planFactWrite(emptyFactSlot(), candidates, { sourceMessageId: "a", turn: 1, origin: "heuristic", maxFacts: 200 }),
    ).facts;
    if (!fresh) throw new Error("no work fact");
    const former: FactSlot = { ...emptyFactSlot(), turn: 1, facts: [{ ...fresh, value: "at Naver" }] };
    const after = mergeFactSlot(
      former,
      planFactWrite(former, candidates, { sourceMessageId: "b", turn: 2, origin: "heuristic", maxFacts: 200 }),
    );
    expect(after.facts.map((f) => [f.value, f.mentions, f.history])).toEqual([["at Naver", 2, undefined]]);
  });
});
