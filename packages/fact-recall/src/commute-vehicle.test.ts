import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A vehicle one gets about on is one's own, as the labelled sets read it: `전동킥보드로 출퇴근해요`,
 * `통학은 자전거로 해요`, `오토바이 타고 출근해요`, `이제 스쿠터 타고 다녀`; English `I bike to work`
 * (was the hobby `bike`), `I cycle 12 km to work each day`, `I ride my moped to college`. Not a bus
 * or the underground, not a negation (bench/README.md, "session 65 (facts65)"). Sentences written
 * for these tests, none from a bench set.
 */
describe("a vehicle one commutes on", () => {
  it.each([
    ["요즘 전동킥보드로 출퇴근해요", "user:belonging=전동킥보드"],
    ["통학은 자전거로 해요", "user:belonging=자전거"],
    ["오토바이 타고 출근해요", "user:belonging=오토바이"],
    ["차 팔고 이제 스쿠터 타고 다녀", "user:belonging=스쿠터"],
    ["I bike to work most days", "user:belonging=bike"],
    ["I cycle 12 km to work each day", "user:belonging=bike"],
    ["I ride my moped to college", "user:belonging=moped"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each(["버스 타고 다녀요", "지하철로 출근해요", "자전거 안 타고 다녀요", "I take the bus to work"])("no belonging: %s", (text) =>
    expectNo(text, "user:belonging"),
  );

  it.each(["I bike to work most days", "I cycle 12 km to work each day"])("no hobby: %s", (text) => expectNo(text, "user:hobby"));
});
