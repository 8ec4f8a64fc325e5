import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes of session 48 (rules-korean.ts): a name given with the job, a habit said after
 * its activity as the topic, relatives one has without a particle, several facts in one sentence.
 * The sentences are written for these tests: none is taken from a labelled bench set.
 */
const pairs = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);

const expectPairs = (text: string, ...expected: string[]) => {
  const got = pairs(text);
  for (const pair of expected) expect(got, `${text} -> ${got.join(", ")}`).toContain(pair);
};

describe("a short name and the job in one sentence (`민지 간호사야`)", () => {
  it.each([
    ["서연 간호사야", "서연", "간호사"],
    ["지훈 개발자예요", "지훈", "개발자"],
    ["저 하은 바리스타입니다", "하은", "바리스타"],
    ["김도현 회계사입니다.", "김도현", "회계사"],
    ["디자이너 윤아예요", "윤아", "디자이너"],
  ])("%s: the name and the work", (text, name, work) => expectPairs(text, `user:name=${name}`, `user:work=${work}`));

  it.each([
    ["영어 선생님이에요", "선생님"],
    ["소아 간호사예요", "간호사"],
    ["수석 디자이너야", "디자이너"],
    ["초등학교 교사입니다", "교사"],
    ["정말 개발자예요", "개발자"],
  ])("%s: a word qualifying the job is no name", (text, work) => {
    expect(pairs(text).filter((p) => p.startsWith("user:name"))).toEqual([]);
    expectPairs(text, `user:work=${work}`);
  });

  it("a relative's name and job stay the relative's", () => {
    const got = pairs("동생 지민 간호사야");
    expect(got.filter((p) => p.startsWith("user:"))).toEqual([]);
    expect(got).toContain("user's 동생:work=간호사");
  });
});

describe("a habit said after its activity as the topic (`테니스는 주말마다 쳐`)", () => {
  it.each([
    ["배드민턴은 주말마다 쳐", "배드민턴"],
    ["필라테스는 매일 아침 해요", "필라테스"],
    ["수영은 일주일에 세 번 다녀요", "수영"],
    ["자전거는 퇴근하고 매일 타요", "자전거"],
    ["골프는 토요일마다 칩니다", "골프"],
  ])("%s", (text, hobby) => expectPairs(text, `user:hobby=${hobby}`));

  it.each([["청소는 주말마다 해요"], ["테니스는 주말마다 안 쳐"], ["요가는 매일 아침 하려고 했어"], ["민수는 주말마다 골프 쳐"]])(
    "%s: no hobby of the speaker",
    (text) => {
      expect(pairs(text).filter((p) => p.startsWith("user:hobby"))).toEqual([]);
    },
  );

  it("a time of day is never the activity", () => {
    expect(pairs("매일 저녁 해요").filter((p) => p.includes("저녁"))).toEqual([]);
  });

  it("a relative's habit is the relative's", () => {
    expectPairs("엄마는 요가를 매일 아침 하셔", "user's 엄마:hobby=요가");
  });
});

describe("relatives one has, said without a particle (`저 언니 있어요`)", () => {
  it.each([
    ["저 오빠 있어요", ["오빠"]],
    ["나 여동생 있어", ["여동생"]],
    ["저는 누나랑 남동생 있습니다", ["누나", "남동생"]],
    ["아들 둘 키우고 있어요", ["아들"]],
    ["아들 하나 딸 하나 키우는 엄마예요", ["아들", "딸"]],
  ])("%s", (text, kin) => {
    const got = pairs(text).filter((p) => p.startsWith("user:family="));
    for (const k of kin)
      expect(
        got.some((p) => p.startsWith(`user:family=${k}`)),
        `${text} -> ${got.join(", ")}`,
      ).toBe(true);
  });

  it.each([["엄마 집에 있어요"], ["언니 있어요?"], ["오빠 없어요"], ["친구 있어요"]])("%s: no relative had", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:family"))).toEqual([]);
  });
});

describe("several facts in one sentence, clauses joined by -고 / -는데 / -서", () => {
  it.each([
    ["저는 대전에 살고 약사예요", ["user:residence=대전", "user:work=약사"]],
    ["나 인천 살고 고양이 키워", ["user:residence=인천", "user:pet=고양이"]],
    ["판교에서 일하고 주말마다 테니스 쳐요", ["user:work=판교", "user:hobby=테니스"]],
    ["저는 개발자고 수원에 살아요", ["user:work=개발자", "user:residence=수원"]],
    ["저는 하윤이고 간호사예요", ["user:name=하윤", "user:work=간호사"]],
    ["언니는 부산에 살고 교사예요", ["user's 언니:residence=부산", "user's 언니:work=교사"]],
  ])("%s", (text, expected) => expectPairs(text, ...expected));

  it("the progressive (-고 있다) and a way to get there (타고 가다) stay one clause", () => {
    expectPairs("요즘 기타를 배우고 있어요", "user:hobby=기타");
    expect(pairs("버스 타고 회사 가요")).toEqual([]);
  });

  it.each([["민지는 서울에 사는데 간호사예요"], ["민지는 광주에 살고 요리사야"], ["걔는 판교에서 일하고 테니스 쳐"]])(
    "%s: someone else's clauses never become the speaker's",
    (text) => {
      expect(pairs(text).filter((p) => p.startsWith("user:"))).toEqual([]);
    },
  );

  it("a relative named as subject keeps the clauses after it", () => {
    const got = pairs("동생이 대학생인데 수원에 살아요");
    expect(got.filter((p) => p.startsWith("user:"))).toEqual([]);
    expect(got).toContain("user's 동생:residence=수원");
  });

  it("a quoted clause is not cut (`-고 했어요` reports what was said)", () => {
    expect(pairs("민지가 부산에 산다고 했어요").filter((p) => p.startsWith("user:"))).toEqual([]);
  });
});

describe("a club of an activity one goes out to (`사진 동호회에 나가요`)", () => {
  it.each([
    ["요즘 등산 동호회에 나가요", "등산"],
    ["배드민턴 클럽 다녀", "배드민턴"],
    ["저는 밴드 동아리 활동해요", "밴드"],
    ["러닝 크루에 나가고 있어요", "러닝"],
  ])("%s", (text, hobby) => expectPairs(text, `user:hobby=${hobby}`));

  it.each([["회사 동호회에 나가요"], ["골프 클럽 샀어"], ["민수는 볼링 동호회 나가"]])("%s: no hobby of the speaker", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:hobby"))).toEqual([]);
  });
});

describe("entering a school (`중학교에 들어갔어요`)", () => {
  it.each([
    ["아들이 올해 초등학교에 들어갔어요", "user's 아들:school=초등학교"],
    ["조카가 이번에 고등학교 들어갔대요", "user's 조카:school=고등학교"],
    ["딸이 작년에 유치원에 들어갔어요", "user's 딸:school=유치원"],
  ])("%s", (text, pair) => expectPairs(text, pair));

  it.each([["회사에 들어갔어요"], ["학교에 들어갔다 나왔어"]])("%s: no school", (text) => {
    expect(pairs(text).filter((p) => p.includes(":school"))).toEqual([]);
  });
});

describe("born and raised (`부산에서 나고 자랐어요`)", () => {
  it.each([
    ["대구에서 나고 자랐어요", "대구"],
    ["전 광주에서 나고 자란 사람이에요", "광주"],
    ["저는 제주에서 태어나서 자랐어요", "제주"],
  ])("%s", (text, town) => expectPairs(text, `user:hometown=${town}`));

  it("someone else's hometown is not the speaker's", () => {
    expect(pairs("걔는 대전에서 나고 자랐어").filter((p) => p.startsWith("user:"))).toEqual([]);
  });
});

describe("work at a place said with 일을 하다 (`시청에서 행정 일을 해요`)", () => {
  it.each([
    ["시청에서 행정 일을 해요", "시청"],
    ["물류센터에서 일을 하고 있어요", "물류센터"],
    ["저는 대학병원에서 원무 일을 합니다", "대학병원"],
  ])("%s", (text, place) => expectPairs(text, `user:work=${place}`));

  it.each([["집에서 일을 해요"], ["카페에서 잠깐 일 좀 해요"], ["오늘은 도서관에서 일을 했어요"]])("%s: no workplace", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:work"))).toEqual([]);
  });
});

describe("a quotation's -고 is no clause of its own", () => {
  it.each([["너 내일 발표 대신 해 준다고 했지?"], ["너 내일 결혼식 사회 봐 준다고 했잖아"], ["형이 같이 가자고 했어요"]])("%s", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:"))).toEqual([]);
  });
});

describe("driving a vehicle for a living (`택시 운전해요`)", () => {
  it.each([
    ["저 택시 운전해요", "user:work=택시"],
    ["아빠는 버스 운전하셔", "user's 아빠:work=버스"],
    ["남편이 트럭 운전을 합니다", "user's 남편:work=트럭"],
  ])("%s", (text, pair) => expectPairs(text, pair));

  it("driving once it ended", () => expectPairs("예전에 버스 운전을 했는데 지금은 쉬어요", "user:work=버스 (ended)"));

  it.each([["차 운전해요"], ["운전 해요"], ["어제 택시 탔어"]])("%s: no work", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:work"))).toEqual([]);
  });
});

describe("living with a pet (`고양이 두 마리랑 같이 살아요`)", () => {
  it.each([
    ["강아지 한 마리랑 같이 살아요", "강아지"],
    ["저는 햄스터랑 같이 살고 있어요", "햄스터"],
    ["고양이하고 살아", "고양이"],
  ])("%s", (text, pet) => expectPairs(text, `user:pet=${pet}`));

  it.each([["친구랑 같이 살아요"], ["고양이랑 놀아요"], ["강아지랑 살아"]])("%s: no home named by the companion", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:residence"))).toEqual([]);
  });
});

describe("grandchildren by their order, schools by their short name", () => {
  it("큰손자 and 작은손녀 are relatives", () => {
    expectPairs("큰손자는 올해 여덟 살이에요", "user's 큰손자:age=여덟");
    expectPairs("작은손녀는 유치원 다녀요", "user's 작은손녀:school=유치원");
  });

  it.each([
    ["나 인천공고 다녀", "인천공고"],
    ["저는 성신여고 졸업했어요", "성신여고"],
  ])("%s", (text, school) => expectPairs(text, `user:school=${school}`));
});

describe("nothing of the speaker's: a count bought, people after 하고, someone else's event", () => {
  it.each([
    ["이사 오면서 하나 장만했어요", "user:belonging"],
    ["매주 토요일마다 동료들하고 낚시를 가지요", "user:hobby=동료들"],
    ["주말마다 옆집 언니가 파티를 한다는데 가볼까 해요", "user:hobby"],
  ])("%s", (text, prefix) => {
    expect(pairs(text).filter((p) => p.startsWith(prefix))).toEqual([]);
  });
});

describe("a relative had, said with -는데, is the topic of what follows (`딸이 하나 있는데 도쿄에서 일해요`)", () => {
  it.each([
    ["아들이 하나 있는데 대구에서 교사로 일해요", "user's 아들:work=교사"],
    ["저 언니 있는데 부산에 살아요", "user's 언니:residence=부산"],
    ["슬하에 아들 하나 있는데 부산에서 약사로 일합니다", "user's 아들:work=약사"],
  ])("%s", (text, pair) => {
    expectPairs(text, pair);
    expect(pairs(text).filter((p) => p.startsWith("user:work") || p.startsWith("user:residence"))).toEqual([]);
  });

  it("a city abroad is where they live, not a workplace", () => {
    const got = pairs("아들이 하나 있는데 뉴욕에서 요리사로 일해요");
    expect(got).toContain("user's 아들:work=요리사");
    expect(got).toContain("user's 아들:residence=뉴욕");
    expect(got).not.toContain("user's 아들:work=뉴욕");
  });

  it("the speaker named after it keeps their own fact", () => {
    expectPairs("딸이 하나 있는데 저는 서울에 살아요", "user:residence=서울");
  });
});

describe("a clause of reason cut at -으니 reads on its own", () => {
  it.each([
    ["서울 마포구에 살고 있으니 가까운 데로 추천해 주시면 좋겠어요", "user:residence=마포구"],
    ["저는 대전에 살고 있으니 그쪽 병원이면 좋겠어요", "user:residence=대전"],
    ["동네 테니스 클럽 가입했어요", "user:hobby=테니스"],
  ])("%s", (text, pair) => expectPairs(text, pair));

  it("a question still asks", () => {
    expect(pairs("부산에 사니?")).toEqual([]);
  });
});

describe("a reason with -니까 and someone else before stays one clause", () => {
  it("남편이 운전하니까 …: no plan of the speaker's", () => {
    expect(pairs("남편이 운전하니까 남편 이름으로 할 거예요").filter((p) => p.startsWith("user:plan"))).toEqual([]);
  });
});
