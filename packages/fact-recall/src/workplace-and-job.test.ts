import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { emptyFactSlot, planFactWrite } from "./fact-store.js";
import { expectFact, pairs } from "./test-support.js";

/**
 * A workplace and the job done there said together (`요양병원에서 간호조무사로 일해요`): one `work`
 * fact holding both. `work` holds one value per subject, so the two facts the rule gave before
 * were stored as a job that replaced its own workplace (`간호조무사`, before: `요양병원`), and the
 * labelled sets count one `work` fact per job (bench/README.md, "session 64 (facts64)"). English
 * says the job alone already (`I'm a nurse at Mercy General`: one fact). Sentences written for
 * these tests, none from a bench set.
 */
describe("a workplace and the job done there", () => {
  it.each([
    ["저는 대구에 있는 요양병원에서 간호조무사로 일해요.", "user:work=요양병원 간호조무사"],
    ["나 강남 치과에서 위생사로 일해", "user:work=치과 위생사"],
    ["아내는 초등학교에서 영양사로 일합니다.", "user's 아내:work=초등학교 영양사"],
    ["저 과학관에서 해설사로 일하고 있어요.", "user:work=과학관 해설사"],
    ["언니는 대학병원에서 응급실 간호사로 일해.", "user's 언니:work=대학병원 응급실 간호사"],
  ])("%s", (text, fact) => {
    expectFact(text, fact);
    expect(pairs(text).filter((p) => p.split("=")[0]?.endsWith(":work"))).toHaveLength(1);
  });

  it.each([
    "저는 대구에 있는 요양병원에서 간호조무사로 일해요.",
    "형은 물류회사에서 회계사로 일합니다.",
    "I'm a nurse at Mercy General",
    "my brother is a welder at the shipyard",
  ])("stored, the fact replaces nothing of its own message: %s", (text) => {
    const update = planFactWrite(emptyFactSlot(), extractFactsHeuristic(text), {
      sourceMessageId: "m1",
      turn: 1,
      origin: "heuristic",
      maxFacts: 50,
    });
    const work = (update.upsert ?? []).filter((f) => f.attribute === "work");
    expect(work).toHaveLength(1);
    expect(work[0]?.previousValue).toBeUndefined();
  });

  // A time between the workplace and the job is no part of the job; a town is the home, not the workplace.
  it("a town stays the home, the job the work", () => {
    expect(pairs("대전에서 공무원으로 일합니다")).toEqual(["user:work=공무원", "user:residence=대전"]);
  });
});
