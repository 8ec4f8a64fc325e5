import { describe, expect, it } from "vitest";
import { CLIENT_TEXT_FORMS } from "./testing/client-text.js";
import { isStopword, koreanStem, stemEnglish, stripKoreanSuffix, tokenize } from "./text-analysis.js";

describe("tokenizer", () => {
  it("strips Korean particles and endings and adds bigrams for long stems", () => {
    expect(tokenize("부산으로 이사했어요")).toEqual(["부산", "이사"]);
    expect(tokenize("개발자로 일해요")).toEqual(["개발자", "개발", "발자", "일"]);
    expect(stripKoreanSuffix("바다")).toBe("바다");
    expect(stripKoreanSuffix("살죠")).toBe("살");
  });

  it("reads irregular English forms as their base, so a question meets the past tense it asks about", () => {
    expect(["go", "goes", "went", "gone"].map(stemEnglish)).toEqual(["go", "go", "go", "go"]);
    expect(["make", "makes", "making", "made"].map(stemEnglish)).toEqual(["mak", "mak", "mak", "mak"]);
    expect(["buy", "bought"].map(stemEnglish)).toEqual(["buy", "buy"]);
    expect(["child", "children"].map(stemEnglish)).toEqual(["child", "child"]);
    expect(tokenize("What did Melanie make for her kids?")).toEqual(expect.arrayContaining(["mak"]));
    expect(tokenize("I made a pottery bowl for the kids")).toEqual(expect.arrayContaining(["mak"]));
    expect(tokenize("Where did she go?")).toEqual(tokenize("Where she went"));
    // A form that is as often another word keeps its own term.
    expect(stemEnglish("rose")).toBe("ros");
  });

  it("stems English lightly and drops function words", () => {
    expect(["live", "lives", "lived", "living"].map(stemEnglish)).toEqual(["liv", "liv", "liv", "liv"]);
    expect(tokenize("Where do I live? Busan's nice")).toEqual(["liv", "busan", "nic"]);
    expect(tokenize("how are you doing today 뭐 해요?")).toEqual(["today"]);
    expect(tokenize("what is it")).toEqual([]);
  });
});

describe("tokenize's word memo (issue 21)", () => {
  it("gives every word's terms from its text alone: a result changed by its caller or a full memo changes no later result", () => {
    const first = tokenize("Busan's beaches 개발자로 Living");
    expect(first).toEqual(["busan", "beach", "개발자", "개발", "발자", "liv"]);
    first.length = 0;
    first.push("changed");
    expect(tokenize("Busan's beaches 개발자로 Living")).toEqual(["busan", "beach", "개발자", "개발", "발자", "liv"]);
    // More distinct words than the memo keeps (50,000): the oldest leave, the terms are the same.
    for (let i = 0; i < 60_000; i += 1) tokenize(`word${i}x`);
    expect(tokenize("Busan's beaches 개발자로 Living")).toEqual(["busan", "beach", "개발자", "개발", "발자", "liv"]);
    // The same word in another case is its own key, with the same terms.
    expect(tokenize("LIVING living Living")).toEqual(["liv", "liv", "liv"]);
  });
});

describe("Korean stems (issue 25)", () => {
  // One verb in the endings a chat uses, polite and casual, present, past, question, connective.
  it.each([
    ["이사해요", "이사"],
    ["이사하나요", "이사"],
    ["이사합니다", "이사"],
    ["이사했습니다", "이사"],
    ["이사했어요", "이사"],
    ["이사했어", "이사"],
    ["이사했는데", "이사"],
    ["이사하셨어요", "이사"],
    ["이사했었나요", "이사"],
    ["이사할까요", "이사"],
    ["운동하나요", "운동"],
    ["확인하셨대요", "확인"],
    ["살았었는데", "살"],
    ["먹었어요", "먹"],
    ["다녀요", "다녀"],
    ["다니려고요", "다니"],
    ["잡혔대", "잡히"],
    ["끝냈어", "끝내"],
  ])("%s -> %s", (word, stem) => {
    expect(koreanStem(word)).toBe(stem);
  });

  // One noun with each common particle: every form meets the bare noun.
  it.each(["은", "는", "이", "가", "을", "를", "에", "에서", "으로", "로", "도", "만", "에서는", "이랑", "까지"])(
    "서울/학교/고양이 + %s meet the bare noun",
    (particle) => {
      for (const noun of ["서울", "학교", "고양이", "제주도"]) {
        // A particle is written after the noun's form that takes it; a wrong pairing is not Korean.
        if (["은", "이", "을", "으로"].includes(particle) && !/[울]$/.test(noun)) continue;
        if (["는", "가", "를", "로"].includes(particle) && /[울]$/.test(noun)) continue;
        expect(tokenize(`${noun}${particle}`)[0]).toBe(tokenize(noun)[0]);
      }
    },
  );

  it("keeps one-syllable nouns with their particle apart from verb endings", () => {
    expect(tokenize("집에 밥을 차를")).toEqual(["집", "밥", "차"]);
    expect(tokenize("팀장님이요 선생님께서")).toEqual(["팀장", "선생"]);
    // Nouns that end like a particle keep it when nothing else is left.
    expect(["바다", "하나", "사과", "누나", "영어", "아이"].map(koreanStem)).toEqual(["바다", "하나", "사과", "누나", "영어", "아이"]);
  });

  it("gives no term for an ending alone: -하나요 is not the numeral 하나 (regression, issue 25)", () => {
    expect(tokenize("어떻게 하나요?")).toEqual([]);
    expect(tokenize("사과 하나만 주세요")).toEqual(["사과", "하나"]);
    // The question finds the numeral's turn only through what they share.
    const question = new Set(tokenize("요즘 무슨 운동을 하나요?"));
    expect(tokenize("사과 하나 샀어요").filter((t) => question.has(t))).toEqual([]);
  });

  it("makes bigrams of stems, never of endings", () => {
    // `들었어요` is 들다's or 듣다's (a ㄷ irregular's ㄹ; session 61): both stems, no `었어`.
    expect(tokenize("들었어요")).toEqual(["들", "듣"]);
    expect(tokenize("꼼꼼하시더라")).toEqual(["꼼꼼"]);
    expect(tokenize("고기국수를 먹었는데")).toEqual(["고기국수", "고기", "기국", "국수", "먹"]);
    expect(tokenize("있어요 없어요 했어요 같아요 봤어요")).toEqual([]);
  });
});

describe("stop words", () => {
  it("covers both languages in one list", () => {
    expect(["the", "what", "뭐", "어디", "그리고"].every(isStopword)).toBe(true);
    expect(isStopword("busan")).toBe(false);
    expect(tokenize("그리고 저는 서울에서 일하고 서울은 좋아요")).toEqual(["서울", "일", "서울", "좋"]);
  });
});

/** Korean as clients send it (chat, 반말 and 존댓말, code switching, dates, emoji), and English. */
const CLIENT_SENTENCES = [
  "PR 리뷰 했어? 3시에 meeting 있어서 ㅠㅠ",
  "나 요즘 성수동 살아 ㅋㅋ 🙌",
  "저는 부산으로 이사했어요. 회의실 예약은 제가 할게요!",
  "회의실예약 완료 👍 Airbnb 체크인은 15:00이고 예약번호 JX7Q2K야",
  "2026.03.02에 출발, 삼월 이일 아니고 3월 2일 맞지?",
  "다음 주 화요일에 release 있어서 바빠 🧑‍💻",
  "I moved to Busan in May 2023 and I'm a backend developer now.",
];

describe("text as clients send it: the terms of the plain text for every encoding", () => {
  it.each(CLIENT_TEXT_FORMS.map((form) => [form.name, form] as const))("%s", (_name, form) => {
    for (const text of CLIENT_SENTENCES) expect(tokenize(form.encode(text)), text).toEqual(tokenize(text));
  });
});

describe("dates however they are written", () => {
  it("reads a date in digits as the year, month and day 2026년 3월 2일 gives", () => {
    const terms = tokenize("2026년 3월 2일");
    expect(terms).toEqual(["2026", "month:3", "2"]);
    for (const text of ["2026.03.02", "2026. 3. 2.", "2026/3/2", "２０２６．０３．０２"]) expect(tokenize(text), text).toEqual(terms);
    expect(tokenize("2026.03.02에 출발")).toEqual([...terms, "출발"]);
    // Not dates: a version, a month 13, a decimal.
    expect(tokenize("v2026.13.02 3.14")).not.toContainEqual(expect.stringMatching(/^month:/));
  });

  it("reads Sino-Korean months anywhere and days after a month", () => {
    expect(tokenize("삼월 이일")).toEqual(tokenize("3월 2일"));
    expect(tokenize("삼월 이십일부터 삼박 사일")).toEqual(["month:3", "20", "삼박", "사일"]);
    expect(tokenize("유월이랑 시월에는 바빠요")).toEqual(["month:6", "month:10", "바빠", "바쁘"]);
    expect(tokenize("십이월 삼십일일")).toEqual(["month:12", "31"]);
    // `십` alone is ten: the tenth (was the word itself, `십` read as a digit).
    expect(tokenize("삼월 십일에")).toEqual(tokenize("3월 10일에"));
    // `일십` is not written: no day.
    expect(tokenize("삼월 일십일")).not.toContain("11");
    // Without a month before it, 오일 is oil, not the fifth.
    expect(tokenize("오일 교환")).toEqual(["오일", "교환"]);
  });
});

describe("반말 and 존댓말 meet", () => {
  it.each([
    ["나 성수동 살아", "저 성수동 살아요"],
    ["밥 먹어", "밥 먹어요"],
    ["그거 좋아", "그거 좋아요"],
    ["오이 싫어", "오이 싫어요"],
    ["책 읽어", "책 읽어요"],
    ["같이 갈래", "같이 갈래요"],
    ["어디 갈까", "어디 갈까요"],
    ["이사했어", "이사했어요"],
    ["개발자야", "개발자예요"],
  ])("%s / %s", (plain, polite) => {
    expect(tokenize(plain)).toEqual(tokenize(polite));
  });

  it("meets an auxiliary verb written apart or together (찾아놨어 / 찾아 놨어)", () => {
    for (const [together, apart] of [
      ["찾아놨어", "찾아 놨어"],
      ["알아봤어요", "알아 봤어요"],
      ["만들어줬어", "만들어 줬어"],
    ]) {
      const terms = new Set(tokenize(together as string));
      expect(tokenize(apart as string)[0], `${together} / ${apart}`).toSatisfy((main: string) => terms.has(main));
    }
  });

  it("keeps nouns shaped like a plain ending whole (영어, 단어)", () => {
    expect(["영어", "단어", "연어"].map(koreanStem)).toEqual(["영어", "단어", "연어"]);
  });
});

/** Word classes a question and the statement it asks about write apart (session 39). */
describe("Korean forms a question and its statement write apart meet", () => {
  const shares = (a: string, b: string) => tokenize(a).filter((t) => tokenize(b).includes(t));

  it("a one-syllable verb stem before the connective -고/-며 (살고, 먹고) meets its other forms", () => {
    expect(koreanStem("살고")).toBe("살");
    expect(koreanStem("먹으며")).toBe("먹");
    expect(shares("어디 살아?", "저는 대전에 살고 있어요")).toContain("살");
    // Nouns of that shape stay whole.
    expect(["광고", "창고", "신고"].map(koreanStem)).toEqual(["광고", "창고", "신고"]);
  });

  it("a verb's adnominal -는 leaves the verb, not a noun and a subject particle (나가는 -> 나가, not 나)", () => {
    expect(koreanStem("나가는")).toBe("나가");
    expect(shares("무슨 대회 나가?", "다음 달에 대회 나가는 거 알지")).toContain("나가");
    // A noun with one particle still loses it.
    expect(koreanStem("차를")).toBe("차");
  });

  it("a psych verb -어하다 meets its adjective (싫어하는 / 싫어)", () => {
    expect(shares("제일 싫어하는 음식은?", "나 오이 진짜 싫어")).toContain("싫");
  });

  it("kinship words meet across register (아버지 / 아빠 / 아버님, 어머니 / 엄마, 아내 / 와이프 / 집사람, 남편 / 신랑)", () => {
    expect(shares("아버지는 무슨 일 하셔?", "우리 아빠는 은행 다니셔")).toContain("kin:father");
    expect(shares("어머님 고향은?", "엄마는 전주 사람이야")).toContain("kin:mother");
    expect(shares("와이프 직업은?", "집사람은 간호사예요")).toContain("kin:wife");
    expect(shares("남편 회사는?", "신랑이 판교 다녀요")).toContain("kin:husband");
    expect(shares("형 어디 살아?", "오빠는 부산 살아").length).toBeGreaterThan(1);
  });

  it("the contractions 엔 (에는) and the copula 라/라서 after a vowel come off (작년엔, 판교라)", () => {
    expect(koreanStem("작년엔")).toBe("작년");
    expect(koreanStem("판교라")).toBe("판교");
    expect(koreanStem("판교라서")).toBe("판교");
  });

  it("a verb with 못 written together meets the verb (못먹어 / 먹는)", () => {
    expect(shares("못 먹는 건 뭐야?", "나 고수 못먹겠어")).toContain("먹");
  });

  it("question determiners and 것 contractions are function words (어느, 건, 걸)", () => {
    expect(tokenize("어느 회사 건 걸")).toEqual(["회사"]);
  });
});

describe("Korean forms off the tuning data meet (session 51)", () => {
  // Every pair below is a statement and a later question or remark that says the same thing in
  // another register or spelling; each must share the term named.
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a)).toContain(term);
    expect(tokenize(b)).toContain(term);
  };

  it("reads the formal (합쇼체) ending fused into a vowel stem as that stem", () => {
    meet("동생은 다음 달에 군대에서 나옵니다", "동생 언제 나오는데?", "나오");
    meet("서류는 내일 오전에 드립니다", "서류 드리고 올게", "드리");
    meet("매일 아침 일기를 씁니다", "일기 쓰는 습관", "쓰");
    meet("로비에서 잠시 기다리십시오", "로비에서 기다리고 있어", "기다리");
    meet("현관에서 신발을 벗으십시오", "신발 벗고 들어와", "벗");
    expect(koreanStem("머뭅니다")).toBe("머무");
    // The ending list still reads -습니다, 합니다 and 입니다 whole.
    expect(["좋습니다", "출발합니다", "학생입니다", "도착했습니다"].map(koreanStem)).toEqual(["좋", "출발", "학생", "도착"]);
  });

  it("reads a contracted 반말/해요체 verb as its stem, a bare one as both forms, a noun with a particle as itself", () => {
    meet("책상을 창가 쪽으로 옮겨요", "책상 옮기는 거 도와줘", "옮기");
    meet("요즘 저녁마다 기타를 배워", "기타 배우고 싶다", "배우");
    meet("피자 반씩 나눠", "피자를 나누어 먹었어", "나누");
    meet("그 사람 이름은 몰라요", "이름 모르는 사람", "모르");
    expect(tokenize("짐 좀 옮겨")).toEqual(["짐", "옮겨", "옮기"]);
    expect(tokenize("짐을 옮겨요")).toEqual(["짐", "옮기"]);
    expect(tokenize("고려를 안 했어")).toEqual(["고려"]);
  });

  it("reads numerals in Hangul as their digits", () => {
    meet("강아지 세 마리를 키워요", "강아지 3마리", "3");
    meet("조카가 올해 다섯 살이에요", "조카는 5살", "5");
    meet("우리 팀장님은 서른둘이야", "팀장 32살", "32");
    meet("커피 한 잔에 삼천오백 원", "커피값 3,500원", "3500");
    meet("월급이 백오십만 원 올랐어", "150만 원 인상", "150");
    meet("역까지 이십 분 걸려", "역까지 20분", "20");
    // Not a numeral here: an answer, an honorific verb, a day count, a word that starts like a counter.
    expect(tokenize("네, 시간 돼요")).not.toContain("4");
    expect(tokenize("가방은 거기 두시고요")).not.toContain("2");
    expect(tokenize("천일 기념")).not.toContain("1001");
    expect(tokenize("네 주머니에 있어")).not.toContain("4");
  });

  it("reads a number with thousands separators as one number, in English too", () => {
    expect(tokenize("The ticket was 2,500 dollars")).toEqual(tokenize("The ticket was 2500 dollars"));
    // A sum counted in 원 glued to its digits is money, as apart (session 61).
    expect(tokenize("2,500원")).toEqual(["2500", "원", "concept:money"]);
  });

  it("strips the contracted particles chat writes and the ending -어야 after the copula", () => {
    meet("대전에선 칼국수가 유명해", "대전에서 뭐 먹었어?", "대전");
    meet("조카한텐 비밀이야", "조카한테 말했어?", "조카");
    meet("앞으론 버스 타고 다닐래", "버스로 다녀?", "버스");
    meet("방은 남향이어야 해", "남향 방 구했어?", "남향");
  });

  it("reads a month and day with a slash before Korean as the date, and leaves English and fractions alone", () => {
    meet("이사는 3/15에 해", "3월 15일에 뭐 해?", "month:3");
    expect(tokenize("이사는 3/15에 해")).toContain("15");
    expect(tokenize("Add 1/2 cup of sugar")).not.toContain("month:1");
    expect(tokenize("we met on 8/1")).not.toContain("month:8");
  });

  it("reads a bound noun written onto the word before as the two words apart", () => {
    meet("그 영화 재미있는듯", "재미있는 영화 추천해줘", "재미있");
    meet("주말에 눈이 내릴듯", "눈 내릴 거래", "내릴");
    meet("입학식때 엄마가 오셨어", "입학식에 누가 왔어?", "입학식");
    meet("점심은 라면 먹은것뿐이야", "점심에 라면 먹었어?", "먹");
    // Nouns that end in 때 lose nothing.
    expect(tokenize("그때 말했잖아")).toEqual(["그때"]);
  });

  it("reads a loanword's old and new spellings as one", () => {
    meet("아침은 오렌지 쥬스만", "주스 뭐 마셨어?", "주스");
    meet("카드 캐쉬백 받았어", "캐시백 얼마야", "캐시백");
    meet("그 식당 쉐프가 바뀌었대", "셰프 이름", "셰프");
    expect(tokenize("좀 아쉬워")).not.toContain("아시워");
  });
});

describe("Korean forms off the tuning data meet (session 52)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a)).toContain(term);
    expect(tokenize(b)).toContain(term);
  };

  it("keeps a two-syllable noun whose last syllable is also a particle or ending whole", () => {
    meet("이 동네에 괜찮은 병원 있어요?", "동네 분위기는 어때?", "동네");
    meet("다음 달에 휴가를 내요", "휴가 며칠 썼어?", "휴가");
    meet("보증금이 꼭 필요해요", "필요한 서류가 뭐야?", "필요");
    meet("시험 결과는 다음 주에 나와", "결과 나왔어?", "결과");
    meet("청소기는 중고로 샀어", "중고 거래 해봤어?", "중고");
    meet("경영학과 학과 사무실", "학과 행사", "학과");
    // `주요`, `수요` are not the stop stem `주`/`수` (and so dropped).
    expect(tokenize("주요 일정")).toEqual(["주요", "일정"]);
    expect(koreanStem("동네에서")).toBe("동네");
    expect(tokenize("동네에")).not.toContain("동");
    // A one-syllable noun still loses its particle: 집에, 밥을, 차로, 길이, 살고/먹어 as verbs.
    expect(["집에", "밥을", "차로", "길이", "살고", "먹어"].map(koreanStem)).toEqual(["집", "밥", "차", "길", "살", "먹"]);
  });

  it("reads the promise ending -ㄹ게/-을게 (and the spelling -ㄹ께) as the verb's stem", () => {
    meet("필요하면 전동드릴 빌려줄게요", "드릴은 누가 빌려주기로 했어?", "빌려주");
    meet("이사 끝나고 연락할께요", "연락했어?", "연락");
    meet("오늘 저녁은 내가 만들게", "저녁 누가 만들었어?", "만들");
    meet("남은 케이크는 내가 먹을게", "케이크 먹었어?", "먹");
    meet("토요일에 도와주러 갈게", "토요일에 갈래?", "갈");
    // A stem in ㄹ or a vowel stem: `살게` is read both ways (살다, 사다).
    expect(tokenize("짜장면 살게")).toEqual(expect.arrayContaining(["사", "살"]));
    // Nouns in 게 are not promises; a light verb's ㄹ is not kept (`할게` gives nothing).
    expect(["가게에", "무게", "집게"].map(koreanStem)).toEqual(["가게", "무게", "집게"]);
    expect(tokenize("할게 될게")).toEqual([]);
  });

  it("reads a few nouns that name one thing as one term: the renamed community centre, a register's pair", () => {
    meet("어제 동사무소 가서 전입신고 했어", "주민센터에서 뭐 했어?", "concept:community-centre");
    meet("청소기는 작년에 구입했어요", "청소기 언제 구매했어?", "concept:purchase");
    meet("월급은 세전 230이래", "인턴 급여는 얼마야?", "concept:pay");
    // English words are not mapped; nor `살`, which is also the verb 살다; nor a reason and `때문에`.
    expect(tokenize("무릎 때문에 그만둔 이유").some((t) => t.startsWith("concept:"))).toBe(false);
    expect(tokenize("the reason is because of work").some((t) => t.startsWith("concept:"))).toBe(false);
    expect(tokenize("서울에 살아 살고 싶은 곳").some((t) => t.startsWith("concept:"))).toBe(false);
  });

  it("reads an age counted in 살 (or digits and 세) and the word 나이 as one term; 살다 is none", () => {
    meet("이름은 콩이고 올해 일곱 살이에요", "콩이 나이가 어떻게 돼?", "concept:age");
    meet("우리 딸은 세 살이야", "딸 나이는?", "concept:age");
    meet("동생은 3살 어려요", "동생 몇 살이야?", "concept:age");
    meet("할머니 연세가 많으셔", "할머니는 올해 여든다섯 살이야", "concept:age");
    meet("7세 이상 입장 가능", "몇 살부터 들어가?", "concept:age");
    expect(tokenize("스물다섯살이에요")).toContain("concept:age");
    // 살다 and a number with another counter are no age.
    for (const text of ["서울에 살아", "부산에서 살았어요", "세 마리 키워요", "3세대 아파트", "살 빼야 돼"])
      expect(tokenize(text), text).not.toContain("concept:age");
  });

  it("reads 네 before 살 as four years of age, not the yes-word before 살다 (factfix33)", () => {
    meet("우리 딸은 네 살이에요", "딸 나이는?", "concept:age");
    expect(tokenize("막내는 네살이야")).toContain("concept:age");
    // The yes-word, then 살다: apart by a comma, or in a verb's ending (`살아요`, `살게요`, `살고`).
    for (const text of ["네, 살아요", "네, 살게요", "네 살아요", "세 살고 싶은 집", "네, 살 거예요"])
      expect(tokenize(text), text).not.toContain("concept:age");
  });

  it("reads 까지 with the polite 요 as the particle", () => {
    meet("오후 3시까지요", "3시까지 와", "시");
    expect(tokenize("내일까지요")).toEqual(["내일"]);
  });
});

describe("Korean and English forms off the tuning data meet (session 55)", () => {
  it("reads a number written apart at 만 as one number (만 이천 원 is 12000, not 2000), and a unit before 원", () => {
    expect(tokenize("만 이천 원이었어")).toEqual(expect.arrayContaining(["12000"]));
    expect(tokenize("만 이천 원이었어")).not.toContain("2000");
    expect(tokenize("이만 삼천 원")).toEqual(expect.arrayContaining(["23000"]));
    expect(tokenize("1만 2천원")).toEqual(expect.arrayContaining(["12000"]));
    expect(tokenize("커피값은 이천원이에요")).toEqual(expect.arrayContaining(["2000"]));
    expect(tokenize("천 원짜리")).toEqual(expect.arrayContaining(["1000"]));
    // Each number alone reads as before, and a word that only looks like one is no number.
    expect(tokenize("오천 원")).toEqual(["오천", "5000", "원", "concept:money"]);
    expect(tokenize("일원이 되었어")).not.toContain("1");
  });

  it("reads a loanword borrowed or spelled in another form as its standard form (알러지 / 알레르기)", () => {
    expect(tokenize("땅콩 알러지가 있어")).toEqual(tokenize("땅콩 알레르기가 있어"));
    expect(tokenize("앨러지")).toEqual(tokenize("알레르기"));
    expect(tokenize("메세지를 보냈어")).toEqual(tokenize("메시지를 보냈어"));
    expect(tokenize("까페에서")).toEqual(tokenize("카페에서"));
  });

  it("takes the possessive 의 off a one-syllable noun and keeps the nouns in -의 whole", () => {
    expect(tokenize("차의 색")).toEqual(["차", "색"]);
    expect(tokenize("집의 구조")).toEqual(tokenize("집 구조"));
    expect(tokenize("회의")).toEqual(["회의"]);
    expect(tokenize("강의에서")).toEqual(["강의"]);
  });

  it("reads the intent ending -(으)려던/-(으)려는 and the purpose -으러 as the verb's stem", () => {
    expect(tokenize("뽑으려던")).toEqual(tokenize("뽑았어"));
    expect(tokenize("먹으려는")).toEqual(["먹"]);
    // `가요` is the motion verb's term since session 56.
    expect(tokenize("먹으러 가요")).toEqual(["먹", "가"]);
    expect(tokenize("만들려던")).toEqual(tokenize("만들었어"));
    // The nouns in -려 keep their 려 (`고려는` is `고려` and `는`).
    expect(tokenize("고려는")).toEqual(["고려"]);
  });

  it("reads English -ied as -ies and the base (tried / tries / try)", () => {
    expect(["try", "tries", "tried", "trying"].map(stemEnglish)).toEqual(["try", "try", "try", "try"]);
    expect(tokenize("She studied French")).toEqual(tokenize("Does she study French?"));
    expect(stemEnglish("died")).toBe(stemEnglish("die"));
  });
});

describe("Korean questions, numerals and honorifics off the tuning data (session 56)", () => {
  it("keeps the motion verbs 가다/오다 after an ending, so a where/when question meets its plan (en parity)", () => {
    const shared = (a: string, b: string) => tokenize(a).filter((term) => tokenize(b).includes(term));
    // The question word is a function word: the verb is all the question has.
    expect(shared("제가 어디로 가요?", "토요일에 강릉으로 기차 타고 가요.")).toEqual(["가"]);
    expect(shared("제가 언제 가요?", "다음 주 화요일에 제주로 갔어요.")).toEqual(["가"]);
    expect(tokenize("동생이 언제 와요?")).toEqual(tokenize("동생이 언제 왔어요?"));
    expect(tokenize("동생이 언제 와요?")).toEqual(tokenize("동생이 오세요"));
    expect(shared("Where am I driving?", "I'm driving to Gangneung on Saturday.")).toEqual(["driv"]);
    // A bare 가/오 is a particle or an interjection: no term.
    expect(tokenize("가")).toEqual([]);
    expect(tokenize("오 멋지다")).not.toContain("오");
  });

  it("keeps a verb stem in 나 before -요/-나요 (만나요 / 만났어요, 끝나요 / 끝났어요)", () => {
    expect(tokenize("누구 만나요?")).toEqual(tokenize("동료를 만났어요").filter((term) => term !== "동료"));
    expect(tokenize("회의는 몇 시에 끝나요?")).toContain("끝나");
    expect(tokenize("회의가 다섯 시에 끝났어요")).toContain("끝나");
    expect(tokenize("언제 떠나요")).toEqual(tokenize("어제 떠났어요").filter((term) => term !== "어제"));
    // The question ending -나요 still comes off a stem that is not one of these verbs.
    expect(tokenize("수영하나요")).toEqual(["수영"]);
    expect(tokenize("하나요")).toEqual([]);
  });

  it("reads a Sino-Korean numeral ending in 이 as the whole number, and one in 일 as days", () => {
    expect(tokenize("이십이")).toContain("22");
    expect(tokenize("이십이")).not.toContain("20");
    expect(tokenize("십이")).toContain("12");
    expect(tokenize("사십이 명")).toContain("42");
    expect(tokenize("오십이명")).toContain("52");
    // With an ending after it both readings stand: 22 + 에요, or 20 + 이에요.
    expect(tokenize("삼십이에요")).toEqual(expect.arrayContaining(["32", "30"]));
    // A numeral in 일 is the day, as `20일` is, and its own value before a counter.
    expect(tokenize("이십일에 만나")).toEqual(expect.arrayContaining(["20"]));
    expect(tokenize("이십일명")).toEqual(expect.arrayContaining(["21"]));
    expect(tokenize("백일 잔치")).toContain("100");
  });

  it("drops the honorific 씨/님 after a name, apart or written onto it (민수 씨 / 민수씨가 / 민수가)", () => {
    expect(tokenize("지훈씨가 그랬어요")).toEqual(tokenize("지훈이가 그랬어요"));
    expect(tokenize("지훈 씨가 그랬어요")).toEqual(tokenize("지훈이가 그랬어요"));
    expect(tokenize("지훈씨가")).toEqual(["지훈"]);
    expect(tokenize("지훈 씨")).toEqual(["지훈"]);
    expect(tokenize("소연 님께")).toEqual(["소연"]);
    expect(tokenize("소연님께서")).toEqual(["소연"]);
    // Nouns in -씨 keep it: the weather, the man, a skill.
    expect(tokenize("날씨가 좋아")).toContain("날씨");
    expect(tokenize("아저씨가")).toContain("아저씨");
    expect(tokenize("솜씨")).toContain("솜씨");
  });
});

describe("nouns in 기, British spellings (session 57)", () => {
  const shared = (a: string, b: string) => tokenize(a).filter((term) => tokenize(b).includes(term));

  it("keeps a noun in 기 whole with its parts (비행기, 세탁기, 이야기); the nominalizer still comes off a verb", () => {
    expect(tokenize("비행기를 놓쳤어")).toContain("비행기");
    expect(shared("비행기 몇 시 거야?", "비행기가 두 시간 늦게 떴어")).toContain("비행기");
    expect(tokenize("세탁기가 고장났어요")).toContain("세탁기");
    expect(tokenize("그 이야기 들었어")).toContain("이야기");
    // `만들기` keeps `만들` among its terms, as `만들었어` gives.
    expect(shared("쿠키 만들기", "쿠키 만들었어")).toEqual(["쿠키", "만들"]);
    expect(tokenize("기다리기 힘들어")).toContain("기다리");
    expect(tokenize("공부하기 싫어")).toContain("공부");
    expect(shared("Which planes were late?", "The plane was late.")).toEqual(["plan", "lat"]);
  });
  it("reads British spellings as American ones (metres / meters, colour / color, organised / organized)", () => {
    expect(tokenize("The hall is 40 square metres")).toEqual(tokenize("the hall is 40 square meters"));
    for (const [uk, us] of [
      ["colour", "color"],
      ["favourite", "favorite"],
      ["neighbours", "neighbors"],
      ["centre", "center"],
      ["litres", "liters"],
      ["organised", "organized"],
      ["organisation", "organization"],
      ["analyse", "analyze"],
    ])
      expect(tokenize(uk as string)).toEqual(tokenize(us as string));
    // Words that only look so keep their terms: too short before `our`, a vowel before `re`.
    expect(tokenize("four hours")).toEqual(["four", "hour"]);
    expect(tokenize("more fire")).toEqual(["fir"]);
    // Korean loanwords have their own variant rule; Korean text is unchanged.
    expect(tokenize("센터에서 만나")).toContain("센터");
  });
});

describe("Korean `-기`: a verb's nominalizer against a noun's own 기 (session 58)", () => {
  const shared = (a: string, b: string) => tokenize(a).filter((term) => tokenize(b).includes(term));

  it("reads a two-syllable verb stem with `-기` as the verb, one term as its other forms give (en parity: drawing / drew)", () => {
    // Session 57 kept these whole with two more terms (`만들기`, `들기`), which lengthened the message.
    for (const [nominal, verb] of [
      ["만들기", "만들었어"],
      ["그리기", "그렸어"],
      ["맞추기는", "맞춰요"],
      ["부르기", "불렀어"],
      ["배우기", "배웠어요"],
      ["보내기", "보냈어"],
      ["만나기", "만났어요"],
      ["다니기로", "다녀요"],
    ] as const) {
      expect(tokenize(nominal)).toEqual([koreanStem(nominal)]);
      expect(tokenize(nominal)).toEqual(tokenize(verb));
    }
    expect(tokenize("달리기 대회")).toEqual(["달리", "대회"]);
    expect(shared("쿠키 만들기 수업", "어제 쿠키 만들었어")).toEqual(["쿠키", "만들"]);
    expect(shared("What did she draw?", "Drawing is her hobby")).toEqual(["draw"]);
  });

  it("keeps a noun whose 기 is its own whole in every form, with a particle or `-로` after it (비행기로 was 비행)", () => {
    for (const noun of ["비행기", "급성기", "충전기", "도자기", "청소기", "이야기", "재채기"]) {
      expect(tokenize(`${noun}로`)).toContain(noun);
      expect(tokenize(`${noun}를`)).toEqual(tokenize(noun));
    }
    expect(tokenize("비행기로 갔어")).toContain("비행기");
    expect(shared("비행기 몇 시야?", "부산은 비행기로 가")).toContain("비행기");
    expect(shared("Which planes were late?", "We went by plane.")).toEqual(["plan"]);
  });
});

/** 존댓말 (해요체, 합니다체, the honorific `-시-`) against 반말, by grammar fact (session 60). */
describe("Korean 존댓말 forms of a verb meet its other forms (session 60)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };

  it("drops the linking 으 a consonant stem takes before the honorific -(으)시- (찾으세요 / 찾아요)", () => {
    meet("어떤 거 찾으세요?", "저 운동화 찾아요", "찾");
    meet("정장 입으셨어요?", "어제 정장 입었어", "입");
    meet("여기 앉으시는데 괜찮으세요?", "나 여기 앉을게", "앉");
    meet("택배 받으셨어요?", "택배 받았어", "받");
    meet("책 읽으세요", "책 읽고 있어", "읽");
    // Before 으 a ㄹ is a ㄷ irregular's (a ㄹ stem takes no 으): 걸으세요 / 걷고, 들을게요 / 듣는.
    meet("아빠 혼자 걸으셨어?", "아빠가 오늘 처음 걷고 계세요", "걷");
    meet("그 노래 들을게요", "요즘 무슨 노래 듣는데?", "듣");
    meet("선생님께 물으세요", "길 묻고 왔어", "묻");
    // A vowel stem in -시 keeps it when no -시- came off it (마시고), and 으 after a vowel stays.
    expect(tokenize("커피 마시고")).toContain("마시");
  });

  it("reads the future -(으)ㄹ 거예요, written apart or together, as the verb (갈 거예요 / 가요)", () => {
    meet("내일 부산 갈 거예요", "부산 언제 가요?", "가");
    meet("편지 쓸 거예요", "편지 쓰세요", "쓰");
    meet("케이크 만들거예요", "케이크 만들었어", "만들");
    meet("저녁에 뭐 먹을 거야?", "저녁은 집에서 먹어요", "먹");
    meet("다음 달에 결혼할 겁니다", "결혼했어요", "결혼");
    meet("마실 거예요", "뭐 마시고 싶어요?", "마시");
    // Not after a word without the ㄹ, and not before another word.
    expect(tokenize("제 거예요")).not.toContain("제게");
    expect(tokenize("늘 거기")).toEqual(["늘", "거기"]);
    // The bound noun is read with the verb: no term of its own (`거지` there is no beggar; review60).
    for (const text of ["저녁에 뭐 먹을 거야?", "내일 갈 거지?", "볼 거고", "할 건데"])
      expect([text, tokenize(text).filter((term) => /^(?:거야|거지|거고|건데)$/.test(term))]).toEqual([text, []]);
    expect(tokenize("거지가 있었어")).toContain("거지");
  });

  it("reads the connective -아서/-어서 fused into a one-syllable open stem as the verb (가서 / 가요, 와서 / 왔어요)", () => {
    meet("부산에 가서 회 먹었어요", "부산 언제 가요?", "가");
    meet("친구가 와서 같이 놀았어", "친구 언제 왔어요?", "오");
    meet("버스 타서 연락 드릴게요", "버스 탔어?", "타");
    // After a final ㄹ, 라서 is a 르 irregular's -아서, not the copula (which follows a vowel: 판교라서).
    meet("색이 달라서 바꿨어요", "색깔 다르죠?", "다르");
    meet("제가 골라서 보내 드릴게요", "하나 고르세요", "고르");
    expect(koreanStem("판교라서")).toBe("판교");
    // Nouns in -서 keep it (부서, 비서, 도서).
    expect(["부서에", "비서가", "도서관"].map(koreanStem)).toEqual(["부서", "비서", "도서관"]);
  });

  it("reads honorific vocabulary as the plain word too, both ways (성함 / 이름, 드시다 / 먹다)", () => {
    meet("성함이 어떻게 되세요?", "내 이름은 지수야", "이름");
    meet("이름이 뭐야?", "제 성함은 김지수입니다", "이름");
    meet("어머님 생신이 언제세요?", "엄마 생일은 5월이야", "생일");
    meet("댁이 어디세요?", "우리 집은 수원이야", "집");
    meet("점심 드시고 오세요", "점심 먹고 올게", "먹");
    meet("저녁은 잡수셨어요?", "저녁 먹었어", "먹");
    meet("할아버지는 일찍 주무세요", "나는 일찍 자요", "자");
    // 계시다 is 있다, a function word, as 있다 is.
    expect(tokenize("사장님 계세요?")).toEqual(tokenize("사장님 있어요?"));
    // The plain words read as before; 드 (also 들다: 마음에 드세요) is not read as 먹다.
    expect(tokenize("집에서 밥 먹어")).toEqual(["집", "밥", "먹"]);
    expect(tokenize("마음에 드세요?")).not.toContain("먹");
    expect(tokenize("What is your name? I eat at home")).toEqual(["nam", "eat", "hom"]);
  });
});

/** Irregular verbs (ㅂ, ㅅ, ㄷ, ㅡ), stems in 시 and fused endings against their other forms (session 61). */
describe("Korean irregular verbs meet their other forms (session 61)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("puts back an ㅂ irregular's ㅂ before 우/워 and 와 after ㅗ (추워요 / 춥고, 도와줘 / 돕는)", () => {
    meet("오늘 진짜 추워요", "어제는 별로 안 춥고 좋았어", "춥");
    meet("시험 많이 어려웠어요?", "시험 어렵고 길었어", "어렵");
    meet("회사 가까워서 좋아요", "회사가 집에서 가깝습니다", "가깝");
    meet("친구가 이사 도와줬어요", "이사 돕는 거 힘들어", "돕");
    meet("엄마가 도와주세요?", "내가 도울게", "돕");
    meet("고기 구우셨어요?", "고기 굽고 있어", "굽");
    // Regular `-우` verbs and loanwords in `워` are no ㅂ stem (`지워` is not `집`, `샤워` not `샵`).
    lacks("낙서 지워", "집");
    lacks("기타 배워요", "뱁");
    lacks("아침에 샤워해요", "샵");
    lacks("타워 앞에서 만나", "탑");
  });

  it("puts back an ㅅ irregular's ㅅ before a vowel, for the six ㅅ irregular verbs only (지었어요 / 짓는, 나아요 / 낫고)", () => {
    meet("부모님이 집을 새로 지으셨어요", "집 짓는 중이야", "짓");
    meet("이름은 할머니가 지어 주셨어", "이름 짓고 싶어", "짓");
    meet("감기 다 나았어요", "감기 빨리 낫고 싶다", "낫");
    meet("발이 부어서 못 걷겠어", "발이 붓고 아파", "붓");
    // A regular stem in ㅅ keeps it, and gives nothing else.
    meet("손 씻어요", "손 씻고 와", "씻");
    lacks("기어 바꿨어", "깃");
  });

  it("puts back a ㄷ irregular's ㄷ before -어/-았 for the listed verbs, keeping the ㄹ reading (들었어 / 듣는, 걸어서 / 걷고)", () => {
    meet("그 노래 들었어?", "요즘 무슨 노래 듣는데?", "듣");
    meet("역까지 걸어서 왔어요", "매일 한 시간씩 걷고 있어", "걷");
    meet("선생님께 물어봤어", "길 묻고 왔어", "묻");
    meet("트럭에 짐 실었어요", "짐 싣고 출발", "싣");
    // `들어` is as often 들다's: both. `들어가다`/`들어오다` (enter) are 들다's only; `길어` is 길다's.
    expect(tokenize("가방 들어")).toEqual(expect.arrayContaining(["들", "듣"]));
    lacks("먼저 들어가요", "듣");
    lacks("머리가 길어졌어", "긷");
  });

  it("reads a ㅡ stem's -어/-아 form that elided its ㅡ (써요 / 쓰고, 바빠 / 바쁘세요, 아파요 / 아프세요)", () => {
    meet("편지 써요", "편지 쓰는 중", "쓰");
    meet("어제 일기 썼어", "일기 쓰세요", "쓰");
    meet("요즘 너무 바빠", "요즘 바쁘세요?", "바쁘");
    meet("배가 아파요", "어디 아프세요?", "아프");
    meet("딸이 많이 커서 놀랐어", "아이가 크는 게 빨라", "크");
    meet("꽃이 예뻐요", "예쁘다", "예쁘");
    // Not where the syllable is most often a noun's, a loanword's or 것 in chat.
    lacks("벌써 왔어", "벌쓰");
    lacks("이거 내 꺼야", "끄");
    lacks("슈퍼 가자", "슈프");
    lacks("아빠 어디 가?", "아쁘");
    lacks("요즘 어떠세요?", "어뜨");
  });

  it("keeps a verb stem in 시 (마셔요 / 마시고, 모셨어요 / 모시고), and takes -시- off its honorific forms", () => {
    meet("커피 마셔요", "커피 마시고 싶다", "마시");
    meet("어제 술 마셨어요", "술 마십니다", "마시");
    meet("부모님 모셨어요", "부모님 모시고 살아", "모시");
    meet("커피 마시셨어요?", "커피 마셨어", "마시");
    // Another verb's honorific -시- still comes off (가셨어요 / 가요).
    meet("어디 가셨어요?", "어디 가요?", "가");
  });

  it("reads -(으)시- before the adnominal -는 after two syllables as a verb's (만드시는 / 만드세요, 좋아하시는 / 좋아해요)", () => {
    meet("직접 만드시는 거예요?", "직접 만드세요?", "만드");
    meet("좋아하시는 음식", "그 음식 좋아하세요?", "좋아");
    meet("기다리시는 분", "기다리고 있어요", "기다리");
    // Nouns in 시 with the topic 는 keep it.
    expect(tokenize("도시는 복잡해")).toContain("도시");
    expect(tokenize("택시는 비싸")).toContain("택시");
    // Longer nouns in 시 too: the honorific -시- follows an open syllable (a ㄹ stem drops its ㄹ:
    // 만드시는), so 서울시는 / 콜택시는 are nouns; 도시 and 열두시 end nouns after an open syllable.
    for (const [text, noun] of [
      ["서울시는 크다", "서울시"],
      ["콜택시는 비싸", "택시"],
      ["신도시는 조용해", "도시"],
      ["대도시는 복잡해", "도시"],
      ["열두시는 늦어", "열두시"],
    ] as const) {
      expect(tokenize(text), text).toContain(noun);
    }
  });

  it("reads the connective -ㄴ데 fused into a vowel stem or the copula (바쁜데 / 바빠요, 친군데 / 친구)", () => {
    meet("요즘 좀 바쁜데", "요즘 바빠요", "바쁘");
    meet("밖이 추운데요", "밖이 추워요", "춥");
    meet("걔 내 친군데", "내 친구야", "친구");
    meet("여기 싼데", "여기 싸요", "싸");
    // The nouns `군데`, `가운데` and `-ㄹ 텐데` are no such form.
    lacks("두 군데 가 봤어", "구");
    lacks("방 가운데", "갑");
  });

  it("reads 와 after a verb ending as 오 + -아 (나와요 / 나왔어요, 들어와서 / 들어오고), not the particle", () => {
    meet("언제 나와요?", "어제 나왔어요", "나오");
    meet("집에 들어와서 씻었어", "집에 들어오고 나서", "들어오");
    // The particle 와 after a noun comes off as before.
    expect(tokenize("친구와 같이")).toContain("친구");
  });

  it("keeps frequent nouns ending in the syllables these rules read whole, with their particles (바다가 was `바` + `-다가`, 나라는 `나` + `라는`)", () => {
    for (const noun of [
      "도서관",
      "가방",
      "나라",
      "바다",
      "친구",
      "회사",
      "샤워",
      "타워",
      "배우",
      "새우",
      "소파",
      "커피",
      "도시",
      "택시",
      "우유",
      "가수",
      "의자",
    ])
      for (const particle of ["", "를", "가"]) expect(tokenize(`${noun}${particle}`), `${noun}${particle}`).toContain(noun);
    // Session 60's review: none gains a term with a ㄹ read back.
    for (const [text, junk] of [
      ["어머니", "어멀"],
      ["할머니", "할멀"],
      ["친구네", "친굴"],
    ] as const)
      lacks(text, junk);
  });
});

/** The classes session 61 left: ㄹ stems' dropped ㄹ, `-지`/`-면` after one syllable, nouns read as verbs (session 62). */
describe("Korean ㄹ stems and the forms session 61 left meet their other forms (session 62)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("gives a listed ㄹ stem back before -는, -네, -ㅂ니다, -시- and -ㄴ데 (사세요 / 살아요, 만드는 / 만들었어, 압니다 / 알아요)", () => {
    meet("어디 사세요?", "서울에 살아요", "살");
    meet("부산에서 사는 친구", "부산에 살았어", "살");
    meet("케이크 만드는 중", "케이크 만들었어", "만들");
    meet("그 사람 잘 압니다", "그 사람 알아요", "알");
    meet("주말에 뭐 하고 노세요?", "주말에 친구랑 놀았어", "놀");
    meet("시장에서 파시는 분", "시장에서 팔아요", "팔");
    meet("요즘 많이 힘든데", "요즘 힘들어", "힘들");
    meet("머리 긴 사람", "머리가 길어요", "길");
    meet("그 얘기 아시는데요", "그 얘기 알지", "알");
    // `사다` (buy) keeps its reading beside 살다's.
    expect(tokenize("어디서 사세요?")).toEqual(expect.arrayContaining(["사", "살"]));
    // Not for the vowel stems whose ㄹ reading is another verb or a noun (`주세요`, `가세요`, `나세요`),
    // nor for nouns with a particle, nor for 드시다 (eat).
    lacks("물 좀 주세요", "줄");
    lacks("조심히 가세요", "갈");
    lacks("화 나세요?", "날");
    lacks("친구네요", "친굴");
    lacks("우리 아니요", "알");
    lacks("산에 갔어", "살");
    lacks("점심 드시고 오세요", "들");
    // A noun in `시` + `아`/`어` or alone is no honorific form (`-시-` + `-어` is `셔`): 아시아 is no 알다.
    lacks("아시아 여행 갔어", "알");
    lacks("아시아에서 왔어", "알");
    lacks("미시 경제", "밀");
    // An adjective takes no `-는`: 기는 is 기다's (crawl), never 길다's (긴, 기네요 are).
    lacks("아기가 기는 모습", "길");
    lacks("바닥을 기는데", "길");
    meet("머리 기네요", "머리가 길어요", "길");
    meet("그 얘기 아시고 오셨어요?", "그 얘기 알아요", "알");
  });

  it("reads -지 after a one-syllable stem whose final no Sino-Korean noun has, -면 and -(으)ㄹ지 after ㄹ (받지 / 받아, 살면 / 살아)", () => {
    meet("그 전화 받지 마", "전화 받았어", "받");
    meet("날씨 좋지?", "날씨 좋아요", "좋");
    meet("손 씻지 않았어", "손 씻고 와", "씻");
    meet("서울에 살면 좋겠다", "서울에 살아요", "살");
    meet("그거 알지?", "그거 알아요", "알");
    meet("어디서 살지 고민이야", "어디서 살아?", "살");
    // Nouns of a Sino-Korean syllable and `지`/`면` stay whole; so does the adjective stem 멋지.
    expect(tokenize("잡지 샀어")).toContain("잡지");
    expect(tokenize("편지 썼어")).toContain("편지");
    expect(tokenize("업무 일지 써")).toContain("일지");
    expect(tokenize("쫄면 먹자")).toContain("쫄면");
    expect(tokenize("라면 먹자")).toContain("라면");
    expect(tokenize("정말 멋지다")).toContain("멋지");
    lacks("정말 멋지다", "멋");
  });

  it("gives 걸다 beside 걷다 for 걸었어 (전화 걸었어 is no walk only), as 들었어 gives 들 and 듣", () => {
    meet("전화 걸었어", "전화 걸고 있어", "걸");
    expect(tokenize("역까지 걸었어요")).toEqual(expect.arrayContaining(["걸", "걷"]));
    // `걸` alone is still 것을, a function word.
    expect(tokenize("그 걸 봤어")).not.toContain("걸");
  });

  it("reads the bare 도와 as 돕다's, whose 와 is no particle (도와 / 돕는)", () => {
    meet("나 좀 도와", "이사 돕는 거 힘들어", "돕");
    // The particle 와 after a longer noun comes off as before (경기도와 is no 돕다).
    lacks("경기도와 서울", "돕");
  });

  it("keeps listed nouns whole that read as a verb's form or a shorter noun and an ending (어머니, 사서, 기와, 소파)", () => {
    for (const [text, noun] of [
      ["어머니가 오셨어", "어머니"],
      ["할머니는 건강하셔", "할머니"],
      ["아버지께 말했어", "아버지"],
      ["도서관 사서가 친절해", "사서"],
      ["기와를 얹었어", "기와"],
      ["소파에 앉아", "소파"],
    ] as const)
      expect(tokenize(text), text).toContain(noun);
    lacks("소파에 앉아", "소프");
    lacks("기와를 얹었어", "기오");
    lacks("어머니가 오셨어", "어멀");
    // The kinship term still meets the other words for the same person.
    meet("어머니가 오셨어", "엄마가 왔어", "kin:mother");
  });
});

describe("Korean ㅡ elision after a fused past and -시- before -는데 after one syllable (session 62)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("reads ㄲ and ㅍ+ㅓ as a ㅡ stem's when the past tense is fused in (껐어 / 끄세요, 슬펐어 / 슬프다)", () => {
    meet("불 껐어", "불 좀 끄세요", "끄");
    meet("너무 슬펐어요", "너무 슬프다", "슬프");
    // Without the past tense `꺼` is still chat's 것 and `퍼` a loanword's.
    lacks("이거 내 꺼야", "끄");
    lacks("슈퍼 갔어", "슈프");
  });

  it("takes the honorific -시- off a one-syllable stem before -는데 (가시는데 / 가요, 타시는데 / 타요)", () => {
    meet("어디 가시는데요?", "어디 가요?", "가");
    meet("버스 타시는데", "버스 타요", "타");
    // A stem in 시 keeps it (마시는데 is 마시다's), and a noun's 시 before the topic 는 stays.
    meet("커피 마시는데", "커피 마셔요", "마시");
    expect(tokenize("다시는 안 해")).toContain("다시");
  });
});

describe("Korean left classes (session 63)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("reads a ㄹ stem's dropped ㄹ before -(으)니까 (사니까 / 살아요, 만드니까 / 만들어요)", () => {
    meet("거기 사니까 가까워", "서울에 살아요", "살");
    meet("직접 만드니까요", "빵을 만들어요", "만들");
    meet("줄이 기니까", "줄이 길어", "길");
    // An open stem's own -니까 keeps its stem (가니까 is 가다's; 나니까 no 날다).
    lacks("다 가니까", "갈");
  });

  it("takes the honorific -시- off a one-syllable stem before -고 and the future -(으)ㄹ (가시고, 타실 거예요 / 타요)", () => {
    meet("먼저 가시고 연락 주세요", "먼저 가요", "가");
    meet("버스 타실 거예요?", "버스 타요", "타");
    meet("어디 사실 거예요?", "어디 살아요?", "살");
    meet("케이크 만드실 거예요?", "케이크 만들어요", "만들");
    // A stem in 시 keeps it (마실 거예요 is 마시다's), and so does a noun in 시 (도시고).
    meet("커피 마실 거예요", "커피 마셔요", "마시");
    lacks("사실 거예요", "사시");
    lacks("여기는 도시고 저기는 시골이야", "도");
  });

  it("reads 드 before the honorific as 드시다 or 들다, never a stem 드 of its own (드세요 / 드시고, 드세요 / 들어요)", () => {
    meet("점심 드셨어요?", "점심 드시고 오세요", "드시");
    meet("마음에 드세요?", "마음에 들어요", "들");
    lacks("마음에 드세요?", "드");
    lacks("돈이 많이 드는데", "드");
    // Both readings, so neither 먹 (마음에 드세요 is no eating) nor 들 for 드시고 (session 62).
    lacks("마음에 드세요?", "먹");
    lacks("점심 드시고 오세요", "들");
  });

  it("reads the noun 사서 as 사다's -아서 too, bare or before 는/도 (빵 사서 / 빵 사요), not before a noun's particle", () => {
    meet("빵 사서 먹었어", "빵 사요", "사");
    meet("그걸 사서는 안 돼", "그거 샀어", "사");
    meet("비싸게 사서도 후회 안 해", "비싸게 샀어", "사");
    expect(tokenize("도서관 사서 선생님")).toContain("사서");
    lacks("사서가 책을 정리해요", "사");
    lacks("사서를 만났어", "사");
  });

  it("takes -지 off a one-syllable stem in ㄱ, ㅂ or ㅁ (먹지 / 먹어, 춥지 / 추워), not off the listed nouns (잡지, 금지, 낙지)", () => {
    meet("많이 먹지 마", "많이 먹어", "먹");
    meet("오늘 춥지 않아?", "오늘 추워", "춥");
    meet("여기 좁지?", "여기 좁아", "좁");
    expect(tokenize("잡지 읽어")).toContain("잡지");
    expect(tokenize("주차 금지 구역")).toContain("금지");
    expect(tokenize("낙지 볶음")).toContain("낙지");
    lacks("잡지 읽어", "잡");
  });

  it("keeps the native nouns in ㄱ + 지 whole (쪽지, 딱지, 꼭지, 색지, 속지), bare or before a particle", () => {
    for (const noun of ["쪽지", "딱지", "꼭지", "색지", "속지"]) {
      expect(tokenize(`${noun} 받았어`)).toContain(noun);
      expect(tokenize(`${noun}를 봤어`)).toContain(noun);
      lacks(`${noun}를 봤어`, noun.charAt(0));
    }
  });

  it("reads an adnominal -(으)ㄴ fused into an irregular or listed stem as the verb (추운 / 추워, 들은 / 듣고, 다른 / 달라, 바쁜 / 바빠, 만난 / 만나요)", () => {
    meet("추운 날", "오늘 추워", "춥");
    meet("어제 구운 빵", "빵 굽고 있어", "굽");
    meet("엄마가 배운 요리", "요리 배워요", "배우");
    meet("라디오에서 들은 노래", "노래 듣고 있어", "듣");
    meet("어제 걸은 길", "많이 걷고 싶어", "걷");
    meet("다른 사람", "생각이 달라", "다르");
    meet("바쁜 하루", "요즘 바빠", "바쁘");
    meet("편지 쓴 사람", "편지 써요", "쓰");
    meet("어제 만난 친구", "친구 만나요", "만나");
    meet("같이 마신 커피", "커피 마셔요", "마시");
    meet("친구가 빌려준 책", "책 빌려줬어", "빌려주");
    // Nouns of the same shape keep theirs alone: 어른, 서른, 오픈, 기운, 타운, 다운.
    lacks("어른 두 명", "어르");
    lacks("오픈 시간", "오프");
    lacks("기운 내", "깁");
    lacks("다운 받았어", "답");
    // 큰 stays whole: as 크 it joined questions to every turn that says 커요 (recall lost items).
    lacks("더 큰 집", "크");
    // A ㅅ irregular's -은 spells given names (지은, 나은): left whole.
    lacks("지은이랑 지은 씨", "짓");
  });

  it("takes -고/-지/-면/-네 off a listed one-syllable open stem (타고 / 타요, 쓰면 / 써요, 쉬지 / 쉬었어), not off the nouns they spell (사고, 타지, 자네)", () => {
    meet("버스 타고 왔어", "버스 타요", "타");
    meet("이 펜 쓰면 돼", "이 펜 써요", "쓰");
    meet("좀 쉬지 그래", "어제 푹 쉬었어", "쉬");
    meet("불 끄고 자", "불 좀 끄세요", "끄");
    meet("일찍 자면 좋아", "일찍 잤어", "자");
    meet("다들 여기서 사네", "여기서 샀어", "사");
    expect(tokenize("교통 사고 났어")).toContain("사고");
    lacks("타지 생활 힘들어", "타");
    lacks("자네 왔는가", "자");
    // Not the motion verbs (가고, 오면: korean-heldout11 lost items when they read so) nor a stop stem.
    lacks("집에 가고 싶어", "가");
  });

  it("reads a listed ㅎ irregular's forms as its stem (빨개요 / 빨갛고, 하얀 / 하얗다, 노란 / 노랗네)", () => {
    meet("얼굴이 빨개요", "얼굴이 빨갛고", "빨갛");
    meet("빨간 차", "차가 빨갛네", "빨갛");
    meet("하얀 눈", "눈이 하얗다", "하얗");
    meet("하늘이 파래서", "하늘이 파랗다", "파랗");
    meet("노란 우산", "우산이 노랗네", "노랗");
    meet("잎이 노랬어", "잎이 노랗다", "노랗");
    meet("조그만 가방", "가방이 조그맣다", "조그맣");
    // 노래 is a song: its bare form and particles keep the noun alone.
    lacks("노래 불렀어", "노랗");
    lacks("노래를 들었어", "노랗");
  });

  it("reads ㄲ+ㅓ before -서 as a ㅡ stem's -어서 (꺼서 / 끄고), while a bare 꺼 stays chat's 거", () => {
    meet("불 꺼서 어두워", "불 끄고 자", "끄");
    lacks("이거 내 꺼야", "끄");
  });

  it("reads a listed open stem's dictionary form -다 as the verb (타다 / 타요, 쓰다 / 써요), as -고 is", () => {
    meet("자전거 타다", "자전거 타요", "타");
    meet("일기 쓰다", "일기 써요", "쓰");
    expect(tokenize("바다 보러 가자")).toContain("바다");
  });

  it("takes -네 off the open syllable a listed ㄹ stem leaves (노네 / 놀아, 파네 / 팔아요, 기네 / 길어)", () => {
    meet("애들 잘 노네", "애들이 놀아", "놀");
    meet("여기서 파네", "여기서 팔아요", "팔");
    meet("줄이 기네", "줄이 길어", "길");
  });

  it("reads 봐 after a syllable as 보다's -아 (돌봐요 / 돌보고), as 와 is 오다's", () => {
    meet("애 좀 돌봐 줘", "애를 돌보고 있어", "돌보");
    meet("주말에 애 돌봐요", "주말에 돌봤어", "돌보");
  });
});

describe("Korean left classes (session 64)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("gives a Sino-Korean kin word the relation of its native word (조모 / 할머니, 부모님 / 엄마, 아빠), both where it names two", () => {
    meet("지우 조모는 어디 계세요?", "할머니는 요양원에 계셔", "kin:grandmother");
    meet("외조모께서 편찮으셔", "외할머니가 아프셔", "kin:grandmother");
    meet("조부께서 농사를 지으셨어요", "할아버지가 농사지으셨어", "kin:grandfather");
    meet("부모님은 어디 사세요?", "엄마는 전주에 살아", "kin:mother");
    meet("부모는 어느 도시에 거주해요?", "아빠는 대구에 계셔", "kin:father");
    meet("배우자 직업은?", "남편은 간호사예요", "kin:husband");
    meet("배우자 직업은?", "아내는 교사예요", "kin:wife");
    meet("하준 씨 부인은 무슨 일 하셔?", "와이프는 초등학교 선생님이에요", "kin:wife");
    meet("손주가 내년에 태어나요", "손자가 태어났어", "kin:grandchild");
    meet("손녀는 몇 살이에요?", "손주가 일곱 살이야", "kin:grandchild");
    // A longer word that starts with one is no kin word (부모임 is no 부모, 부인하다 is to deny).
    lacks("그 사실을 부인했어", "kin:wife");
    // English words stay unmapped (session 39): `parents` gives no kin term.
    expect(tokenize("my parents and my grandmother").some((t) => t.startsWith("kin:"))).toBe(false);
  });
});

describe("Korean -(으)ㄹ까, -나 봐, -(으)ㄴ가 봐 and -어진 (session 64)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("reads the question -(으)ㄹ까(요) and a glued -(으)ㄹ까봐 on the fused ㄹ as -(으)ㄹ게 is (만날까 / 만나요, 도울까 / 도와줘)", () => {
    meet("내일 만날까?", "내일 만나요", "만나");
    meet("이거 바꿀까요?", "어제 바꿨어요", "바꾸");
    meet("내가 도울까?", "나 좀 도와줘", "돕");
    meet("뭐 들을까?", "음악 듣고 있어", "듣");
    meet("늦을까봐 택시 탔어", "오늘 늦었어", "늦");
    meet("잊어버릴까봐요", "다 잊어버렸어요", "잊어버리");
    // A ㄹ stem keeps its ㄹ reading too (살까: 사다 or 살다), as 살게 does.
    meet("어디 살까?", "서울에 살아", "살");
    // 말다's and 뭐's ㄹ is their own: `갈까 말까` gives no `마`, `뭘까` no `뭘`.
    lacks("갈까 말까 고민 중", "마");
    lacks("이게 뭘까", "뭘");
    // English reads its own forms: `Shall we meet?` meets `we met`.
    meet("Shall we meet tomorrow?", "We met yesterday", "meet");
  });

  it("reads the guess -나 봐 / -(으)ㄴ가 봐, glued or apart, as the verb (먹었나 봐 / 먹었어, 바쁜가봐 / 바빠, 사나 봐 / 살아)", () => {
    meet("벌써 먹었나 봐", "밥 먹었어", "먹");
    meet("다들 먹나봐", "다들 먹어", "먹");
    meet("요즘 많이 바쁜가봐", "요즘 바빠", "바쁘");
    meet("머리가 아픈가 봐요", "머리 아파", "아프");
    meet("날씨가 좋은가봐", "날씨 좋아", "좋");
    meet("거기 사나 봐", "거기 살아", "살");
    meet("케이크 만드나봐", "케이크 만들어", "만들");
    meet("유전인가봐", "유전이래", "유전");
    // `그런가봐` is 그렇다's, a function word; a noun before 나 or 가 keeps itself (영화나 봐, 친구가 봐).
    expect(tokenize("그런가봐")).toEqual([]);
    meet("영화나 봐", "영화 봤어", "영화");
    lacks("친구가 봐", "친구가봐");
    // The auxiliary after a guess gives no term of its own (its 봐 was read with the guess).
    lacks("벌써 먹었나 봐", "봐");
    // English: `must be busy` meets `busy`.
    meet("He must be busy", "I am busy", "busy");
  });

  it("reads an adnominal -진 of 지다 after -아/-어 and of listed stems (빠진 / 빠졌어, 떨어진 / 떨어졌어), not of nouns (사진)", () => {
    meet("물에 빠진 휴대폰", "휴대폰이 물에 빠졌어", "빠지");
    meet("바닥에 떨어진 열쇠", "열쇠가 떨어졌어", "떨어지");
    meet("친해진 계기", "그때 친해졌어", "친해지");
    lacks("가족사진 찍었어", "가족사지");
    lacks("사진 보내줘", "사지");
    // English: `fallen` meets `fell`'s stem.
    meet("the fallen keys", "the keys fell", "fall");
  });
});

describe("Korean left classes (session 65)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("reads a vowel stem's plain present -ㄴ다 and the reported -ㄴ대 as the verb (간다 / 가요, 그만둔대 / 그만뒀어), not nouns in ㄴ다 or ㄴ대", () => {
    meet("나 내일 부산 간다", "내일 부산에 가요", "가");
    meet("친구가 책 보낸다고 했어", "책 보냈어", "보내");
    meet("걔 다음 달에 회사 그만둔대", "회사 그만뒀어", "그만두");
    meet("요즘 기타 배운다", "기타 배워요", "배우");
    meet("여기 오신대요", "여기 왔어", "오");
    // A ㄹ stem's dropped ㄹ comes back (`논다` is 놀다's), as `노는` gives 놀.
    meet("애들 밖에서 논다", "밖에서 놀았어", "놀");
    // Nouns in ㄴ다 and before the Sino-Korean 대 keep themselves.
    meet("판다가 귀여워", "판다 보러 갔어", "판다");
    lacks("해운대 바다 갔어", "해우");
    lacks("부산대 다녀", "부사");
    lacks("시간대가 안 맞아", "시가");
    // English: `goes` meets `go`.
    meet("He goes to Busan tomorrow", "I go to Busan", "go");
  });

  it("reads the propositive -자, -자고, -자마자 as the verb (가자 / 갔어, 먹자고 / 먹었어, 놀자 / 놀았어), not the nouns in 자", () => {
    meet("내일 같이 부산 가자", "부산에 갔어", "가");
    meet("저녁에 고기 먹자고 했어", "고기 먹었어", "먹");
    meet("주말에 놀자", "주말에 놀았어", "놀");
    // A light verb's -하자 is left as it was, whole with its bigrams: its noun is one of them.
    meet("이번엔 일찍 예약하자", "일찍 예약했어요", "예약");
    expect(tokenize("차액만 정산하자")).toContain("정산하자");
    meet("집에 오자마자 잤어", "집에 왔어", "오");
    // Nouns in 자 keep themselves, and give no verb's stem.
    lacks("혼자 갔어", "혼");
    lacks("사자 봤어", "사");
    lacks("숫자 세어 봐", "숫");
    meet("개발자로 일해", "개발자야", "개발자");
    // English: `Let's eat` meets `we ate`.
    meet("Let's eat out", "We ate out", "eat");
  });

  it("reads -아야/-어야 fused into a one-syllable verb as the verb (가야 해 / 가요, 써야 돼 / 썼어), not the copula or vocative 야 (차야, 지우야)", () => {
    meet("내일 병원 가야 해", "병원 가요", "가");
    meet("보고서 써야 돼", "보고서 썼어", "쓰");
    meet("일찍 자야 해", "일찍 잤어", "자");
    meet("엄마가 와야 돼", "엄마가 왔어", "오");
    // A noun before the copula or a name before the vocative is kept whole, read as no verb.
    expect(tokenize("이건 내 차야")).toContain("차야");
    meet("지우야 밥 먹자", "지우가 밥 먹었어", "지우");
    // English: `have to go` meets `went`.
    meet("I have to go to the clinic", "I went to the clinic", "go");
  });

  it("keeps the adnominal a -ㄴ다/-ㄴ대 form spells, which a question asks with (보낸 앱 / 보낸다, 오신 날 / 오신대)", () => {
    meet("지훈이 정산금 보낸 앱은?", "토스로 보낸다", "보낸");
    meet("고모가 오신 날은?", "27일에 오신대", "오신");
    // English: `sent` meets `send`.
    meet("the app he sent it with", "I send it by Toss", "send");
  });

  it("gives no adnominal term a question would not read (한다 -> none; 사용한다 -> 사용, not 사용한)", () => {
    // The light verb's adnominal reads as its noun in a question (`사용한 앱` -> `사용`): `사용한` would
    // match nothing and only lengthen the turn; the stop verb's (`한`) carries no topic.
    expect(tokenize("사용한 앱")).toEqual(["사용", "앱"]);
    expect(tokenize("토스 사용한다")).toEqual(["토스", "사용"]);
    expect(tokenize("매일 운동한다고 했어")).toEqual(["매일", "운동"]);
    expect(tokenize("그렇게 한다")).not.toContain("한");
    // A verb's own adnominal stays (`보낸`), as above.
    expect(tokenize("토스로 보낸다")).toContain("보낸");
    // English: `uses` reads as `use`.
    expect(tokenize("she uses Toss")).toContain("use");
  });

  it("gives a relative time word the term of the word chat writes for it, together or apart (다음 주 / 다음주 / 담주, 지난해 / 작년)", () => {
    meet("다음 주에 이사해", "다음주 이사 날짜가 언제야?", "다음주");
    meet("담주에 보자", "다음주에 만나", "다음주");
    meet("다음 달부터 출근해", "다음달 출근 맞지?", "다음달");
    meet("지난해 여름에 갔어", "작년 여름에 어디 갔어?", "작년");
    meet("이듬해에 결혼했어", "내년에 결혼해", "내년");
    meet("저번 주에 봤어", "지난주에 뭐 봤어?", "지난주");
    meet("그제 도착했어", "그저께 도착했지?", "그저께");
    // The variant is read as that word only, so a message grows no longer for it.
    expect(tokenize("담주에")).toEqual(["다음주"]);
    lacks("다음 달부터 A반으로 올라가", "다음");
    // A unit that starts a longer word is no time (`다음 주제`, `지난 달리기`).
    lacks("다음 주제는 뭐야", "다음주");
    lacks("지난 달리기 대회", "지난달");
    // English: `next week` meets `next week`.
    meet("I move next week", "When do you move next week?", "week");
  });

  it("reads 놀라다 as a stem in 라, not a 르 irregular (놀라실까봐 / 놀랐어: 놀라, no 노르)", () => {
    meet("엄마가 놀라실까봐 말 안 했어", "엄마가 깜짝 놀랐어", "놀라");
    lacks("놀라요", "노르");
    // A 르 irregular still reads so (몰라 / 모르고).
    meet("나도 몰라", "모르고 있었어", "모르");
    // English: `surprised` meets `surprise`.
    meet("she would be surprised", "a surprise", "surpriz");
  });

  it("takes 쯤 and 씩 off a one-syllable noun or counter (봄쯤 / 봄에, 3시쯤 / 3시에, 두 잔씩 / 두 잔)", () => {
    meet("봄쯤 이사해", "봄에 이사했어", "봄");
    meet("3시쯤 만나", "3시에 만났어", "시");
    meet("하루에 두 잔씩 마셔", "커피 두 잔 마셨어", "잔");
    // English: `about 3` meets `at 3`.
    meet("about 3 pm", "at 3 pm", "3");
  });
});

describe("Korean left classes (session 66)", () => {
  const meet = (a: string, b: string, term: string) => {
    expect(tokenize(a), a).toContain(term);
    expect(tokenize(b), b).toContain(term);
  };
  const lacks = (text: string, term: string) => expect(tokenize(text), text).not.toContain(term);

  it("reads the reported -ㄴ대 after a listed verb stem as the verb (만난대 / 만났어, 모른대 / 몰라요), not nouns before 대", () => {
    meet("지우가 내일 민수 만난대", "어제 민수 만났어", "만나");
    meet("걔 폰 바꾼대요", "폰 바꿨어", "바꾸");
    meet("엄마는 그 얘기 모른대", "저는 몰라요", "모르");
    meet("동생이 요즘 피아노 배운대", "피아노 배워요", "배우");
    meet("아빠가 커피 마신대", "커피 마셨어", "마시");
    meet("삼촌이 의자 만든대", "의자 만들었어", "만들");
    // The adnominal a question asks with stays a term (`만난 사람은?`).
    meet("지우가 내일 민수 만난대", "지우가 만난 사람은?", "만난");
    // Nouns before the Sino-Korean 대 keep themselves.
    lacks("해운대 가자", "해우");
    lacks("순대 먹었어", "수");
    lacks("천문대 갔어", "천무");
    // English: `meets` meets `met`'s question word `meet`.
    meet("She says she meets Minsu tomorrow", "Who will she meet?", "meet");
  });

  it("reads glued -아/어 봐 whose -아/-어 fused into the main verb as the main verb (가봤어 / 가요, 바꿔볼게 / 바꿨어), not nouns in 보", () => {
    meet("거기 한번 가봤어", "주말에 거기 가요", "가");
    meet("폰 바꿔볼게", "폰 바꿨어", "바꾸");
    meet("조금만 더 기다려봐", "한 시간 기다렸어", "기다리");
    meet("그 펜 써봤어?", "펜 써요", "쓰");
    meet("우리 집에 와봐", "집에 왔어", "오");
    // Nouns in 보 keep themselves and read as no verb.
    lacks("정보 좀 줘", "정");
    lacks("홍보 담당이야", "홍");
    lacks("바보 같아", "바");
    // English: `tried calling` meets `call`.
    meet("I tried calling her", "Did you call her?", "call");
  });

  it("reads -(으)ㄹ 수 있다/없다 glued as written apart (갈수있어 / 갈 수 있어, 먹을수없어 / 먹을 수 없어)", () => {
    meet("주말에 부산 갈수있어?", "주말에 부산 갈 수 있어?", "갈");
    meet("매운 거 먹을수없어", "매운 거 먹을 수 없어", "먹");
    expect(tokenize("내일 올수있어요")).toEqual(tokenize("내일 올 수 있어요"));
    expect(tokenize("그 책 볼수없어")).toEqual(tokenize("그 책 볼 수 없어"));
    // No junk of the glued word (`먹을수없`, `수있`).
    lacks("매운 거 먹을수없어", "먹을수없");
    lacks("주말에 부산 갈수있어?", "수있");
    // `수` after no adnominal in ㄹ is the noun (`수도` the capital).
    meet("한국 수도는 서울", "수도가 어디야", "수도");
    // English: `can't eat` meets `eat`.
    meet("I can't eat spicy food", "I eat spicy food", "eat");
  });

  it("reads the honorific 편찮다 as 아프다 in any form (편찮으셔서 / 아파서), as 드시다 is 먹다", () => {
    meet("할머니가 요즘 편찮으셔서 걱정이야", "요즘 아파서 걱정이야", "아프");
    meet("아버지가 많이 편찮으세요", "많이 아파요", "아프");
    meet("편찮으신 데는 없으세요?", "아픈 데 없어?", "아프");
    // The honorific and the plain word still give their own terms.
    meet("편찮으세요", "편찮으셔", "편찮");
    // English: `ill` is not mapped to `sick` (English words are not mapped).
    lacks("My grandmother is ill", "sick");
  });

  it("reads the negation 안 glued to its verb as the verb too (안먹어요 / 안 먹어요, 안잔다 / 자요), as 못먹겠어 is read, not words in 안", () => {
    meet("나 요즘 고기 안먹어요", "나 요즘 고기 안 먹어요", "먹");
    meet("애가 밤에 안잔다", "애가 밤에 자요", "자");
    meet("우리 고양이 안키워요", "고양이 키워요", "키우");
    meet("주말엔 못간대", "주말에 가요", "가");
    // Words in 안 keep themselves: greetings, 하다 nouns, 안다 (hug), the inside.
    meet("안녕하세요", "안녕", "안녕");
    meet("길 안내해 줘", "안내 데스크", "안내");
    meet("안전합니다", "안전 수칙", "안전");
    meet("안쪽 자리", "안쪽 주머니", "안쪽");
    // English: `doesn't eat` meets `eat`.
    meet("He doesn't eat meat", "He eats meat", "eat");
  });
});
