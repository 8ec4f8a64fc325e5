import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Classes of wrong and missed facts on the labelled sets (bench/README.md, "session 59 (facts39)").
 * The sentences are written for these tests: none is taken from a labelled bench set.
 */
describe("a number of years said of a pet or a small child is not the speaker's age", () => {
  it.each([
    "울 강아지 보더콜리고 세 살이야",
    "저희 고양이는 페르시안이고 열두 살이에요",
    "강아지 키우는데 세 살이에요",
    "울 강아지 말티즈인데 두 살이에요",
    "애기 이제 두 살이에요",
    "둘째가 이제 네 살이라 손이 많이 가요",
    "고양이 키우는데 벌써 열다섯 살입니다",
  ])("%s", (text) => expectNo(text, "user:age"));

  it("the pet is still read, and the speaker's own age said beside a pet stays", () => {
    expectFact("울 강아지 보더콜리고 세 살이야", "user:pet=보더콜리");
    expectFact("저 서른둘이고 강아지 키워요", "user:age=서른둘");
    expectFact("나 서른인데 고양이 키워", "user:age=서른");
    expectFact("저는 서른 살이고 고양이는 두 살이에요", "user:age=서른");
    expectFact("고양이 키우는데 저는 서른 살이에요", "user:age=서른");
    expectFact("올해 스물다섯이야", "user:age=스물다섯");
  });
});

describe("an interrogative word makes a question only in a use that asks", () => {
  it.each([
    ["수원 산 지 얼마 안 됐어요", "user:residence=수원"],
    ["얼마 전에 판교로 이사했어", "user:residence=판교"],
    ["몇 년 전에 부산으로 이사했어요", "user:residence=부산"],
    ["몇 달째 필라테스 다니고 있어요", "user:hobby=필라테스"],
    ["어느덧 마흔이 됐네요", "user:age=마흔"],
    ["언젠가 한 번 다녀왔는데 저 고양이 키우거든요", "user:pet=고양이"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a sentence that asks still gives nothing", () => {
    expectNo("어디 살아요", "user:");
    expectNo("몇 살이에요", "user:");
    expectNo("얼마 전에 이사했어요?", "user:");
    expectNo("요즘 뭐 배워", "user:");
    expectNo("부산에 언제 이사 가세요", "user:");
    expectNo("몇 년 전에 이사했어요?", "user:");
  });
});

describe("the workplace named by the copula or by where it is", () => {
  it.each([
    ["직장은 카카오예요", "user:work=카카오"],
    ["회사는 판교 넥슨이고 야근이 많아요", "user:work=넥슨"],
    ["직장 LG전자임", "user:work=LG전자"],
    ["제 회사는 한빛소프트입니다", "user:work=한빛소프트"],
    ["회사가 판교에 있어요", "user:work=판교"],
    ["우리 회사는 강남에 있어", "user:work=강남"],
    ["남편 회사는 삼성이에요", "user's 남편:work=삼성"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a state, a distance, a question or someone else's company is no workplace of the speaker's", () => {
    expectNo("회사는 지옥이야", "user:work");
    expectNo("회사는 집 근처에 있어요", "user:work");
    expectNo("회사가 집에 있어요", "user:work");
    expectNo("회사는 재택이라 편해요", "user:work");
    expectNo("직장은 어디예요?", "user:work");
    expectNo("회사는 카카오예요?", "user:work");
    expectNo("친구 회사는 토스래", "user:work");
    expectNo("회사가 React라서요", "user:work");
    expectNo("회사는 Java예요", "user:work");
  });
});

describe("a strong dislike in slang (극혐, 질색)", () => {
  it.each([
    ["나 민트초코 극혐", "user:dislikes=민트초코"],
    ["오이 극혐임", "user:dislikes=오이"],
    ["저는 오이가 극혐이에요", "user:dislikes=오이"],
    ["고수 질색이에요", "user:dislikes=고수"],
    ["비 오는 날은 딱 질색이야", "user:dislikes=비 오는 날"],
    ["엄마는 오이 질색하세요", "user's 엄마:dislikes=오이"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a question, someone else's dislike or the word alone is none of the speaker's", () => {
    expectNo("오이 극혐이야?", "user:dislikes");
    expectNo("민지는 오이 극혐이래", "user:dislikes");
    expectNo("진짜 극혐이다", "user:dislikes");
    expectNo("저희는 극혐", "user:dislikes");
  });
});

describe("a favourite by 최애 before its kind", () => {
  it.each([
    ["제 최애 가수는 아이유예요", "user:favorite=가수: 아이유"],
    ["최애 가수 아이유임", "user:favorite=가수: 아이유"],
    ["내 최애 음식은 떡볶이야", "user:favorite=음식: 떡볶이"],
    ["내 최애는 뉴진스야", "user:favorite=뉴진스"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a question or someone else's favourite is none of the speaker's", () => {
    expectNo("최애 가수 누구야?", "user:favorite");
    expectNo("네 최애는 누구야", "user:favorite");
    expectNo("민지 최애 가수는 아이유래", "user:favorite");
  });
});

describe("an illness named before a surgery or a stay in hospital", () => {
  it.each([
    ["디스크 때문에 수술했어요", "user:health=디스크"],
    ["허리 디스크로 수술 받았어", "user:health=허리 디스크"],
    ["우리 시어머니 허리 디스크로 다음주에 수술하셔", "user's 시어머니:health=허리 디스크"],
    ["갑상선암 때문에 수술했어", "user:health=갑상선암"],
    ["작년에 십자인대 수술해서 런지는 조심해야 돼요", "user:health=십자인대"],
    ["무릎 연골이 안 좋아서 오래 못 걸어요", "user:health=무릎 연골"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a cause that is no illness, a question or someone else's surgery is none of the speaker's", () => {
    expectNo("과로로 쓰러졌어", "user:health");
    expectNo("교통사고 때문에 입원했어", "user:health");
    expectNo("디스크 때문에 수술해야 하나요?", "user:health");
    expectNo("민지가 디스크 때문에 수술했대", "user:health");
    expectNo("우리 시어머니 허리 디스크로 다음주에 수술하셔", "user's 시어머니:plan");
  });
});

describe("a vehicle or a device sold is a belonging no longer had", () => {
  it.each([
    ["차는 이번에 팔았어요 기름값이 너무 나와서", "user:belonging=차 (ended)"],
    ["예전에 오토바이 있었는데 팔았어", "user:belonging=오토바이 (ended)"],
    ["예전에 차 있었는데 작년에 팔았어요", "user:belonging=차 (ended)"],
    ["아이패드 중고로 처분했어요", "user:belonging=아이패드 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("what a shop sells, a sale asked about or weighed, and someone else's sale are none of the speaker's", () => {
    expectNo("수제 캔들 팔아요", "user:belonging");
    expectNo("차는 팔았어요?", "user:belonging");
    expectNo("차를 팔까 고민이에요", "user:belonging");
    expectNo("남편이 차를 팔았어", "user:belonging");
    expectFact("강아지 있었는데 지금은 고양이 키워요", "user:pet=고양이");
  });
});

describe("expecting a child", () => {
  it.each([
    ["둘째 가졌어요 이제 12주예요", "user:event=둘째 임신"],
    ["아기 가졌어", "user:event=임신"],
    ["저 임신 12주예요", "user:event=임신"],
    ["언니가 둘째 가졌대", "user's 언니:event=둘째 임신"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a child weighed or asked about is none", () => {
    expectNo("둘째 가질까 고민이에요", "user:event");
    expectNo("둘째 가졌어요?", "user:event");
    expectNo("언니가 둘째 가졌대", "user:event");
  });
});
