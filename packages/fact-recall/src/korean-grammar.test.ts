import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean grammar classes the rules read (rules-korean.ts), one `describe` per class. The
 * sentences are written for these tests: none is taken from a labelled bench set.
 */
const facts = (text: string) => extractFactsHeuristic(text).map((f) => [f.subject, f.attribute, f.value, f.ended ?? false]);
const pairs = (text: string) => extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}`);

describe("verb endings: 해요체, 합쇼체, 반말, connective and written-casual forms say the same", () => {
  it.each([
    // likes: the connective (-는데, -거든), -죠, the written-casual -함 and -더라.
    ["저 떡볶이 진짜 좋아하는데 요즘 못 먹었어요", "user:likes", "떡볶이"],
    ["나 재즈 좋아하거든", "user:likes", "재즈"],
    ["팥빙수 엄청 좋아함", "user:likes", "팥빙수"],
    ["저는 등산을 좋아합니다", "user:likes", "등산"],
    // dislikes with a colloquial degree adverb (`젤`, `디게`, `겁나`).
    ["겨울이 젤 싫어", "user:dislikes", "겨울"],
    ["나 당근 디게 싫어함", "user:dislikes", "당근"],
    // a 하다 verb written without a space (`일하는데`, `근무중`).
    ["저 수원에 있는 물류센터에서 일하는데 야간조예요", "user:work", "물류센터"],
    ["강남에서 근무중이에요", "user:work", "강남"],
    // honorific connectives about a parent (`사시고`, `하시는데`).
    ["어머니는 청주 사시고 아버지는 서울 계세요", "user's 어머니:residence", "청주"],
    ["아빠는 요즘 볼링 좋아하시는데", "user's 아빠:likes", "볼링"],
  ])("%s", (text, pair, value) => {
    const found = extractFactsHeuristic(text).find((f) => `${f.subject}:${f.attribute}` === pair);
    expect(found?.value).toContain(value);
  });
});

describe("negation: 안/못/-지 않-/-지 못하-, spaced or not, with degree adverbs between", () => {
  it.each([
    ["회는 진짜 못 먹겠어요", "회"],
    ["저 오이 잘 못먹어요", "오이"],
    ["난 매운거 아예 못먹음", "매운거"],
    ["술은 거의 안 마셔요", "술"],
    ["우유를 마시지 못해요", "우유"],
  ])("%s: a food or drink the speaker does not take", (text, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.attribute === "constraint");
    expect(found?.value).toContain(value);
  });

  it("a meal skipped or a past meal is no diet (`점심을 거의 안 먹어요`, `밥 잘 못 먹었어`)", () => {
    expect(pairs("점심을 거의 안 먹어요")).toEqual([]);
    expect(pairs("밥 잘 못 먹었어")).toEqual([]);
  });

  it("`좋아하지 않아요` is a dislike; `안 좋아하는 건 아니에요` states none", () => {
    expect(facts("저는 단 음식을 좋아하지 않아요")).toEqual([["user", "dislikes", "단 음식", false]]);
    expect(pairs("커피를 안 좋아하는 건 아니에요")).not.toContain("user:likes");
  });
});

describe("plans: -기로 했다, -ㄹ 거예요/거야/거라, -려구요, a date then a verb of going", () => {
  it.each([
    ["여름휴가는 가족이랑 오키나와 가기로 했어요", "오키나와"],
    ["다음 달에 이직할 거라 정신없어", "이직"],
    ["토요일에 치과 가보려구요", "치과"],
    ["10월에 하프마라톤 나가기로 했어", "하프마라톤"],
    ["올해 안에 운전면허 따려고", "운전면허"],
  ])("%s", (text, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.attribute === "plan");
    expect(found?.value).toContain(value);
  });

  it("a plan someone else made, or a suggestion, is none of the speaker's", () => {
    expect(pairs("친구가 내년에 유학 가기로 했대")).not.toContain("user:plan");
    expect(pairs("담주에 밥 먹자")).toEqual([]);
  });
});

describe("kinship: in-laws and colloquial names of a spouse are relatives", () => {
  it.each([
    ["형부가 울산에서 일해요", "user's 형부", "work", "울산"],
    ["매형은 경찰이에요", "user's 매형", "work", "경찰"],
    ["신랑이 요즘 골프 배우고 있어요", "user's 신랑", "hobby", "골프"],
    ["새언니는 대구 살아", "user's 새언니", "residence", "대구"],
    ["시누이가 간호사예요", "user's 시누이", "work", "간호사"],
  ])("%s", (text, subject, attribute, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.subject === subject && f.attribute === attribute);
    expect(found?.value).toContain(value);
  });
});

describe("what held and holds no longer: -다가, quitting verbs, a past time with a connective", () => {
  it.each([
    ["삼성전자 다니다가 작년에 그만뒀어요", "user", "work", "삼성전자"],
    ["저 원래 인천에서 오래 살다가 작년에 이사왔어요", "user", "residence", "인천"],
    ["테니스는 재작년까지 치다가 그만뒀어", "user", "hobby", "테니스"],
    ["아버지는 은행 다니시다가 작년에 퇴직하셨어요", "user's 아버지", "work", "은행"],
    ["저도 예전에 제주에서 2년 살아서 좀 알아요", "user", "residence", "제주"],
  ])("%s", (text, subject, attribute, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.subject === subject && f.attribute === attribute && f.ended);
    expect(found?.value).toContain(value);
  });

  it("quitting a habit (`담배 끊었어요`) ends it", () => {
    expect(facts("담배는 재작년에 끊었어요")).toEqual([["user", "health", "담배", true]]);
    expect(facts("저 술 끊은 지 1년 됐어요")).toEqual([["user", "health", "술", true]]);
  });
});

describe("honorific verbs are never the speaker's: a sentence with one and no subject is the relative named before", () => {
  it("`엄마는 … 하셔. 등산도 좋아하시고`: both about 엄마", () => {
    expect(facts("엄마는 요즘 수영 다니셔. 등산도 좋아하시고")).toEqual([
      ["user's 엄마", "hobby", "수영", false],
      ["user's 엄마", "likes", "등산", false],
    ]);
  });

  it("no relative before: an honorific verb states nothing of the speaker (`등산 좋아하세요`)", () => {
    expect(pairs("등산 좋아하세요")).toEqual([]);
    // 마시다 is no honorific: `마셔요` is the speaker's.
    expect(pairs("우유를 못 마셔요")).toEqual(["user:constraint"]);
  });

  it("a degree word or a time before a verb of liking is not what is liked (`지금은 제일 좋아해요`)", () => {
    expect(pairs("지금은 제일 좋아해요")).toEqual([]);
  });
});

describe("copula connectives: -이라/-라서/-인데 end a clause that states a fact", () => {
  it.each([
    ["롯데 팬이라 사직구장 자주 가", "user", "likes", "롯데"],
    ["저 약사인데 주말에도 일해요", "user", "work", "약사"],
    ["동생이 군인이라서 잘 못 봐요", "user's 동생", "work", "군인"],
  ])("%s", (text, subject, attribute, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.subject === subject && f.attribute === attribute);
    expect(found?.value).toContain(value);
  });
});

describe("relative clauses: the speaker's verb modifying a noun that is then named", () => {
  it.each([
    ["제가 다니는 회사는 한화시스템이에요", "user", "work", "한화시스템"],
    ["내가 다니는 학교는 경북대야", "user", "school", "경북대"],
    ["제가 키우는 강아지는 말티즈예요", "user", "pet", "말티즈"],
    ["요즘 제가 제일 많이 듣는 가수는 데이식스예요", "user", "likes", "데이식스"],
  ])("%s", (text, subject, attribute, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.subject === subject && f.attribute === attribute);
    expect(found?.value).toContain(value);
  });

  it("someone else's relative clause is not the speaker's (`친구가 다니는 회사는 …`)", () => {
    expect(pairs("친구가 다니는 회사는 카카오예요")).not.toContain("user:work");
  });
});

describe("quoted speech and hearsay (-대, -래, -다고 했어, -다더라) are not the speaker's facts", () => {
  it.each(["내년에 졸업한대", "부산으로 이사간다고 했어", "거기 직원들 다 개발자래", "그 집 사장님 일본 사람이라더라"])("%s", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:"))).toEqual([]);
  });

  it("a relative's hearsay is stored about the relative (`누나가 내년에 결혼한대` is not the speaker's)", () => {
    expect(pairs("누나가 캐나다로 이사간대").every((p) => !p.startsWith("user:"))).toBe(true);
  });
});

describe("time expressions: a habit said with 매주/요즘/N요일마다 and a 하다 verb written as one word", () => {
  it.each([
    ["매주 일요일 오후에 배드민턴하는데 재밌어요", "배드민턴"],
    ["요즘 매일 아침 요가해요", "요가"],
    ["화요일마다 도자기 공방 다녀", "공방"],
    ["평일 저녁마다 헬스장 가요", "헬스"],
  ])("%s", (text, value) => {
    const found = extractFactsHeuristic(text).find((f) => f.attribute === "hobby");
    expect(found?.value).toContain(value);
  });

  it("work done every day is no hobby (`매일 야근해요`)", () => {
    expect(pairs("요즘 매일 야근해요")).not.toContain("user:hobby");
  });
});

describe("playing an instrument or a sport: 연주하다 with any instrument, 치다/켜다/불다/타다 with a closed class of nouns", () => {
  const hobby = (text: string) => extractFactsHeuristic(text).find((f) => f.attribute === "hobby");

  it.each([
    // 연주하다 in the polite, formal, plain, progressive and past forms, with or without the particle.
    ["바이올린을 연주해요.", "user", "바이올린"],
    ["저는 첼로를 연주합니다", "user", "첼로"],
    ["나 플루트 연주해", "user", "플루트"],
    ["요즘 색소폰을 연주하고 있어요", "user", "색소폰"],
    ["중학교 때부터 비올라를 연주했어요", "user", "비올라"],
    ["해금 연주를 해요", "user", "해금"],
    // 치다 (keyboard, guitar, drums; ball sports), 켜다 (bowed strings), 불다 (wind), 타다 (what is ridden for sport).
    ["저는 테니스를 쳐요.", "user", "테니스"],
    ["나 드럼 쳐", "user", "드럼"],
    ["요즘 탁구 치고 있어", "user", "탁구"],
    ["저 골프 칩니다", "user", "골프"],
    ["바이올린 켜요", "user", "바이올린"],
    ["하모니카를 불어요", "user", "하모니카"],
    ["자전거를 타요", "user", "자전거"],
    ["겨울엔 스노보드 타", "user", "스노보드"],
    // Said of a relative: stored about them.
    ["동생은 피아노를 쳐요", "user's 동생", "피아노"],
    ["아빠는 당구 치세요", "user's 아빠", "당구"],
  ])("%s", (text, subject, value) => {
    const found = hobby(text);
    expect(found?.subject, pairs(text).join(", ")).toBe(subject);
    expect(found?.value).toBe(value);
  });

  it("adverbs of frequency or skill may stand before the verb (`골프는 가끔 쳐요`, `스키 잘 타요`)", () => {
    expect(hobby("골프는 가끔 쳐요")?.value).toBe("골프");
    expect(hobby("저 스노보드 꽤 잘 타요")?.value).toBe("스노보드");
  });

  it("연주하다 after a place, a companion or an adverb names no instrument", () => {
    for (const text of ["공연에서 연주했어요", "친구들이랑 연주해요", "직접 연주했어요", "그 곡을 연주했어요"])
      expect(pairs(text), text).not.toContain("user:hobby");
  });

  it("`<noun>이/가 취미예요`: the hobby named before 취미, a bare noun before it kept (`기타 연주가 취미예요`)", () => {
    expect(hobby("기타 연주가 취미예요")?.value).toBe("기타 연주");
    expect(hobby("저는 등산이 취미야")?.value).toBe("등산");
  });

  it("치다/타다 with any other object is no hobby (`문을 쳐요`, `버스를 타요`, `박수를 쳐요`)", () => {
    for (const text of ["문을 쳐요", "박수를 쳐요", "소리를 쳐요", "버스를 타요", "지하철 타고 출근해요", "택시 타", "사고를 쳤어요"])
      expect(pairs(text), text).not.toContain("user:hobby");
  });

  it("negated or past once is no hobby; no longer played is one that ended", () => {
    expect(pairs("저 골프 안 쳐요")).not.toContain("user:hobby");
    expect(pairs("테니스 못 쳐")).not.toContain("user:hobby");
    expect(pairs("어제 친구랑 탁구 쳤어")).not.toContain("user:hobby");
    expect(facts("이제 테니스 안 쳐요")).toEqual([["user", "hobby", "테니스", true]]);
  });
});

describe("a hobby or a liking said with a verb's modifier and a bound noun (`-는 게 취미`, `-는 걸 좋아해`)", () => {
  it("`<noun>하는 게 취미예요` names the 하다 verb's noun", () => {
    expect(facts("낚시하는 게 취미예요")).toEqual([["user", "hobby", "낚시", false]]);
  });

  it("a verb's modifier keeps the object before it (`스키 타는 걸`, `책 읽는 거`), and is never a subject", () => {
    expect(extractFactsHeuristic("스키 타는 걸 좋아해요").find((f) => f.attribute === "likes")?.value).toBe("스키 타기");
    expect(extractFactsHeuristic("저는 책 읽는 거 좋아해요").find((f) => f.attribute === "likes")?.value).toBe("책 읽기");
  });

  it("the fused past of 치다/타다 with `예전엔` is a hobby that ended (`예전엔 볼링 쳤는데`)", () => {
    expect(facts("예전엔 볼링 쳤는데")).toEqual([["user", "hobby", "볼링", true]]);
    expect(facts("예전에 인라인 탔어요")).toEqual([["user", "hobby", "인라인", true]]);
    expect(pairs("어제 택시 탔어")).toEqual([]);
  });
});

describe("a plan said with 계획하다 (`여행을 계획하고 있어요`, `계획 중이에요`)", () => {
  it.each([
    ["캐나다 여행을 계획하고 있어요", "캐나다 여행"],
    ["유럽 배낭여행 계획 중이야", "유럽 배낭여행"],
    ["나 이직 계획 세우고 있어", "이직"],
  ])("%s", (text, value) => {
    expect(extractFactsHeuristic(text).find((f) => f.attribute === "plan")?.value, pairs(text).join(", ")).toBe(value);
  });

  it("계획 alone, or someone else's, is no plan of the speaker's", () => {
    expect(pairs("계획 중이에요")).toEqual([]);
    expect(pairs("친구가 여행 계획 중이래")).toEqual([]);
  });
});

describe("a verb's modifier before a bound noun (`사진 찍는 게`, `술 마시는 거`) names the activity as `<object> <stem>기`", () => {
  const value = (text: string, attribute: string) => extractFactsHeuristic(text).find((f) => f.attribute === attribute)?.value;

  it.each([
    ["사진 찍는 게 취미예요", "hobby", "사진 찍기"],
    ["빵 만드는 게 취미야", "hobby", "빵 만들기"],
    ["걷는 게 취미예요", "hobby", "걷기"],
    ["술 마시는 거 싫어해", "dislikes", "술 마시기"],
    ["저는 노래 부르는 게 싫어요", "dislikes", "노래 부르기"],
    ["커피 마시는 거 안 좋아해요", "dislikes", "커피 마시기"],
    ["요리하는 거 좋아해요", "likes", "요리"],
    ["요리 하는 거 좋아해요", "likes", "요리"],
  ])("%s", (text, attribute, expected) => {
    expect(value(text, attribute), pairs(text).join(", ")).toBe(expected);
  });

  it("the same activity gets one value whatever bound noun follows, so a liking and a dislike of it share one key", () => {
    expect(value("스키 타는 걸 좋아해요", "likes")).toBe("스키 타기");
    expect(value("스키 타는 거 싫어", "dislikes")).toBe("스키 타기");
    expect(value("등산하는 거 싫어해요", "dislikes")).toBe("등산");
  });

  it("`사진 찍기가 취미예요`: the object before a verb's noun form `-기` is kept", () => {
    expect(value("사진 찍기가 취미예요", "hobby")).toBe("사진 찍기");
    expect(value("저는 빵 굽기가 취미예요", "hobby")).toBe("빵 굽기");
  });

  it("a relation without its particle before a verb's modifier is its object (`친구 만나는 거 좋아해`), with a particle its subject", () => {
    expect(facts("친구 만나는 거 좋아해")).toEqual([["user", "likes", "친구 만나기", false]]);
    expect(facts("친구가 사진 찍는 거 좋아해요")).toEqual([["user's 친구", "likes", "사진 찍기", false]]);
    expect(facts("동생은 술 마시는 거 싫어해")).toEqual([["user's 동생", "dislikes", "술 마시기", false]]);
  });

  it("an adjective's modifier (`맛있는 거`, `매운 거`) keeps its form: it names a thing, not an activity", () => {
    expect(value("맛있는 거 좋아해", "likes")).toBe("맛있는 거");
    expect(value("매운 거 싫어해", "dislikes")).toBe("매운 거");
  });

  it("past, negated, questioned or someone else's is none of the speaker's", () => {
    expect(pairs("사진 찍는 게 취미였어요")).toEqual([]);
    expect(pairs("사진 찍는 게 취미는 아니에요")).toEqual([]);
    expect(pairs("사진 찍는 게 취미예요?")).toEqual([]);
    expect(pairs("민수는 술 마시는 거 싫어해")).toEqual([]);
    expect(pairs("술 마시는 거 싫어해?")).toEqual([]);
    // A demonstrative object names nothing (`그거 마시는 거`).
    expect(pairs("그거 마시는 거 싫어")).toEqual([]);
    // `게` is also crab: after a name with its topic particle, the name is the subject.
    expect(pairs("민지는 게 못 먹어")).toEqual([]);
    expect(pairs("민지는 게 알레르기 있어")).toEqual([]);
    expect(facts("남편은 술 마시는 거 싫어해요")).toEqual([["user's 남편", "dislikes", "술 마시기", false]]);
  });
});

describe("a plan after a place noun ending in 도 (`제주도 여행 계획하고 있어`): the place is the plan's first noun, not a subject", () => {
  it.each([
    ["제주도 여행 계획하고 있어", "제주도 여행"],
    ["강원도 여행 계획 중이에요", "강원도 여행"],
    ["울릉도 여행을 계획하고 있어요", "울릉도 여행"],
  ])("%s", (text, expected) => {
    expect(extractFactsHeuristic(text).find((f) => f.attribute === "plan")?.value, pairs(text).join(", ")).toBe(expected);
  });

  it("a name with 도 is still someone else (`민지도 여행 계획 중이래`), and a plan past or asked is none", () => {
    expect(pairs("민지도 여행 계획 중이래")).toEqual([]);
    expect(pairs("제주도 여행 계획 중이었어")).toEqual([]);
    expect(pairs("제주도 여행 계획하고 있어?")).toEqual([]);
  });
});

describe("preparing for an event (`이사 준비하고 있어요`, `시험 준비 중이야`) is a plan; a chore prepared (`저녁 준비`) is none", () => {
  it.each([
    ["이사 준비하고 있어요", "이사"],
    ["시험 준비하고 있어요", "시험"],
    ["요즘 공무원 시험 준비 중이야", "공무원 시험"],
    ["결혼 준비를 하고 있어요", "결혼"],
    ["저 다음 주 면접 준비하는 중이에요", "면접"],
    ["신혼여행 준비해요", "신혼여행"],
    // `다들` (everyone) and a time are no part of the event's name.
    ["다들 시험 준비하고 있어요", "시험"],
    ["이번 주 발표 준비하고 있어", "발표"],
  ])("%s", (text, expected) => {
    expect(extractFactsHeuristic(text).find((f) => f.attribute === "plan")?.value, pairs(text).join(", ")).toBe(expected);
  });

  it.each([
    // Everyday chores are prepared, not planned.
    "저녁 준비하고 있어요",
    "밥 준비 중이야",
    "도시락 준비해요",
    // Past, negated, asked, or someone else's.
    "이사 준비했어요",
    "이사 준비하고 있었어요",
    "시험 준비 중이었어",
    "시험 준비 안 하고 있어",
    "이사 준비하고 있어요?",
    "동생이 시험 준비 중이에요",
    "민수는 결혼 준비하고 있어요",
  ])("%s: no plan of the speaker's", (text) => {
    expect(pairs(text)).not.toContain("user:plan");
  });
});

describe("honorific kin words: 어머님, 아버님, 할머님 are the speaker's relations as 어머니, 아버지, 할머니 are (session 66)", () => {
  it.each([
    ["어머님은 청주 사세요", "user's 어머님:residence", "청주"],
    ["우리 어머님 청주 사셔", "user's 어머님:residence", "청주"],
    ["아버님은 은행에서 일하세요", "user's 아버님:work", "은행"],
    ["할머님은 부산 사세요", "user's 할머님:residence", "부산"],
    // The plain words, and English, as before.
    ["어머니는 청주 사세요", "user's 어머니:residence", "청주"],
    ["My mother lives in Cheongju", "user's mother:residence", "Cheongju"],
  ])("%s", (text, pair, value) => {
    const found = extractFactsHeuristic(text).find((f) => `${f.subject}:${f.attribute}` === pair);
    expect(found?.value, pairs(text).join(", ")).toContain(value);
  });

  it.each([
    // Someone else's parent, or a title with 님, stays someone else's.
    "친구 어머님이 선생님이셔",
    "팀장님은 부산 사세요",
  ])("%s: no fact of the speaker's", (text) => {
    expect(pairs(text).filter((pair) => pair.startsWith("user"))).toEqual([]);
  });
});
