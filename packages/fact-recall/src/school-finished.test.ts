import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/** The texts of the school facts `extractFactsHeuristic` finds in `statement`, joined by newlines. */
const schoolTexts = (statement: string): string =>
  extractFactsHeuristic(statement)
    .filter((fact) => fact.attribute === "school")
    .map((fact) => fact.text)
    .join("\n");

/**
 * A school the speaker finished is written as finished: `서울대 나왔어요` and `I graduated from
 * Seoul National University` were written `사용자는 서울대에 다닌다` / `User goes to …` ("attends"),
 * which the model then read as the user being a student. The value (the school) is unchanged.
 * Sentences written for this test.
 */
describe("a school finished is not a school gone to", () => {
  it.each([
    ["서울대 나왔어요.", "사용자는 서울대를 졸업했다 (학교)"],
    ["저는 연세대를 졸업했어요.", "사용자는 연세대를 졸업했다 (학교)"],
    ["작년에 한국외대 졸업했어요.", "사용자는 한국외대를 졸업했다 (학교)"],
    ["I graduated from Seoul National University.", "User graduated from Seoul National University (school)"],
    ["I graduated from Ohio State University in 2019.", "User graduated from Ohio State University"],
  ])("%s -> %s", (statement, expected) => {
    const texts = schoolTexts(statement);
    expect(texts, texts).toContain(expected);
  });

  // Still going there: the present stays.
  it.each([
    ["고려대 다녀요.", "사용자는 고려대에 다닌다 (학교)"],
    ["딸이 올해 중학교에 들어갔어요.", "에 다닌다"],
    ["I go to Boston University.", "User goes to Boston University (school)"],
  ])("guard: %s -> %s", (statement, expected) => {
    const texts = schoolTexts(statement);
    expect(texts, texts).toContain(expected);
  });
});
