import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * A Korean job move (`이직`, `옮기다`): the workplace moved to is the work now, the one left (`X에
 * 있다가`, `X에서 Y로 이직했어요`, `X는 그만뒀어`) is work that ended, as an English `left X for Y`
 * reads; a move to come is a plan (bench/README.md, "session 64 (facts64)"). Sentences written for
 * these tests, none from a bench set.
 */
describe("a Korean job move", () => {
  it.each([
    ["지난달부터 한국은행 대구지점으로 옮겨서 일해요.", ["user:work=한국은행 대구지점"]],
    ["이번 달부터 LG전자로 옮겼어요", ["user:work=LG전자"]],
    ["올해 초에 MBC 보도국으로 옮겼어", ["user:work=MBC 보도국"]],
    ["원래 우체국에 있다가 올해 농협으로 옮겼어요.", ["user:work=우체국 (ended)", "user:work=농협"]],
    ["누나가 원래 삼성병원에 있다가 3월에 아산병원으로 옮겼어요.", ["user's 누나:work=삼성병원 (ended)", "user's 누나:work=아산병원"]],
    ["저 작년에 카카오에서 네이버로 이직했어요", ["user:work=카카오 (ended)", "user:work=네이버"]],
    ["형은 한화에서 포스코로 이직했어", ["user's 형:work=한화 (ended)", "user's 형:work=포스코"]],
    ["물류센터는 5월에 그만뒀어. 지금은 출판사 다녀", ["user:work=물류센터 (ended)", "user:work=출판사"]],
    ["회사 옮긴 지 두 달 됐어요. 지금은 평택 물류센터로 출근해요.", ["user:work=물류센터"]],
    ["요즘은 시청으로 출근합니다", ["user:work=시청"]],
    ["이번 주부터 KBS 보도국으로 옮겨서 취재해요", ["user:work=KBS 보도국"]],
    ["저 요즘 우체국 다녀요", ["user:work=우체국"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  it("the workplace left is stated before the one moved to (the store keeps the newer)", () => {
    const got = pairs("원래 우체국에 있다가 올해 농협으로 옮겼어요.").filter((p) => p.startsWith("user:work"));
    expect(got).toEqual(["user:work=우체국 (ended)", "user:work=농협"]);
  });

  it.each([
    ["다음 달에 수원으로 이직해서 방 알아보고 있어요", "user:plan"],
    ["내년에 판교로 이직할 거예요", "user:plan"],
  ])("a move to come is a plan, not the work: %s", (text, prefix) => {
    expectNo(text, "user:work");
    expect(pairs(text).some((p) => p.startsWith(prefix))).toBe(true);
  });

  // A town, a home or a thing moved is no workplace; someone else's move is not the speaker's.
  it.each([
    "작년에 서울로 옮겼어요",
    "짐은 창고로 옮겼어",
    "화분을 베란다로 옮겼어요",
    "민수는 카카오에서 네이버로 이직했대요",
    "다음 주부터 청주 공장으로 출근해요",
    "집에서 재택으로 출근해요",
    "요즘 병원 다녀요",
    "동생은 작년에 퇴사했어",
  ])("guard: %s", (text) => expectNo(text, "user:work"));
});
