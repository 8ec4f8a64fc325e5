import { describe, expect, it } from "vitest";
import { consonantSkeleton, crossScriptKeys } from "./cross-script.js";
import { tokenize } from "./text-analysis.js";

/** Whether two terms (as `tokenize` writes them) share a cross-script key. */
const meet = (a: string, b: string) => {
  const x = crossScriptKeys(a);
  const y = crossScriptKeys(b);
  return x !== undefined && y !== undefined && x.keys.some((key) => y.keys.includes(key));
};
/** The one term `tokenize` gives a word alone. */
const term = (word: string) => {
  const terms = tokenize(word);
  return terms[0] as string;
};

describe("cross-script keys: a loan word in Latin letters meets its Hangul spelling (session 59)", () => {
  it("gives a brand in Latin letters and in Hangul one consonant skeleton, as tokenize writes each", () => {
    const pairs: Array<[string, string]> = [
      ["Netflix", "넷플릭스가"],
      ["Figma", "피그마로"],
      ["Slack", "슬랙에"],
      ["Dyson", "다이슨을"],
      ["AirPods", "에어팟이라"],
      ["iPhone", "아이폰"],
      ["Unity", "유니티를"],
      ["MacBook", "맥북"],
    ];
    for (const [latin, hangul] of pairs) expect([latin, hangul, meet(term(latin), term(hangul))]).toEqual([latin, hangul, true]);
    expect(consonantSkeleton("netflix")).toBe("NTPLKS");
    expect(consonantSkeleton("netpeullikseu")).toBe("NTPLKS");
  });

  it("spells an acronym by its letters' Korean names (PT, LG, MBTI, KT)", () => {
    expect(meet(term("PT"), term("피티"))).toBe(true);
    expect(meet(term("LG"), term("엘지"))).toBe(true);
    expect(meet(term("MBTI"), term("엠비티아이는"))).toBe(true);
    expect(meet(term("KT"), term("케이티"))).toBe(true);
    expect(crossScriptKeys("lg")?.keys).toContain("spell:엘지");
  });

  it("keeps unrelated words apart and gives no key to digits, one letter or one syllable", () => {
    expect(meet(term("Netflix"), term("넷마블"))).toBe(false);
    expect(meet(term("Slack"), term("사랑"))).toBe(false);
    expect(meet(term("Figma"), term("피자"))).toBe(false);
    expect(crossScriptKeys("2027")).toBeUndefined();
    expect(crossScriptKeys("x")).toBeUndefined();
    expect(crossScriptKeys("집")).toBeUndefined();
    expect(crossScriptKeys("ai")?.keys).toEqual(["spell:에이아이"]);
    expect(crossScriptKeys("넷플릭스")?.script).toBe("hangul");
    expect(crossScriptKeys("netflix")).toEqual({ script: "latin", keys: ["sound:NTPLKS"] });
  });
});

describe("cross-script keys: two-consonant skeletons carry their vowels, silent letters and -ing (session 60)", () => {
  it("no longer pairs unrelated words that only share two consonants (terms as tokenize wrote them in the fixtures)", () => {
    const apart: Array<[string, string]> = [
      ["bad", "바다"],
      ["zoom", "처음"],
      ["zoom", "시험"],
      ["pt", "받으"],
      ["pt", "파트"],
      ["ds", "디자"],
      ["canin", "끝나"],
      ["mock", "먹히"],
      ["jira", "시일"],
    ];
    for (const [latin, hangul] of apart) expect([latin, hangul, meet(latin, hangul)]).toEqual([latin, hangul, false]);
  });

  it("keeps the two-consonant loan words that do meet (Unity, AirPods, iPhone, game, Canin, TOEIC)", () => {
    const pairs: Array<[string, string]> = [
      ["Unity", "유니티"],
      ["AirPods", "에어팟"],
      ["iPhone", "아이폰"],
      ["game", "게임"],
      ["Canin", "캐닌"],
      ["TOEIC", "토익"],
      ["coffee", "커피"],
    ];
    for (const [latin, hangul] of pairs) expect([latin, hangul, meet(term(latin), term(hangul))]).toEqual([latin, hangul, true]);
  });

  it("meets a Hangul loan of an -ing word and a word with silent letters", () => {
    const pairs: Array<[string, string]> = [
      ["meeting", "미팅"],
      ["marketing", "마케팅"],
      ["Brompton", "브롬톤"],
      ["Simpson", "심슨"],
      ["knife", "나이프"],
      ["climb", "클라임"],
      ["castle", "캐슬"],
    ];
    for (const [latin, hangul] of pairs) expect([latin, hangul, meet(term(latin), term(hangul))]).toEqual([latin, hangul, true]);
    // The written letters keep their own key: `Hampton` meets `햄프턴` as well.
    expect(meet(term("Hampton"), term("햄프턴"))).toBe(true);
  });
});
