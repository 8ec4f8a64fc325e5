import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * The workplace said by the copula or by where one is with a role, jobs by their short words, the
 * forces, a desk worked at, and a quitting said only by when (bench/README.md, "session 60
 * (facts60)"). The sentences are written for these tests: none is taken from a labelled bench set.
 */
describe("a workplace by the copula", () => {
  it.each([
    ["My company is Stripe", "user:work=Stripe"],
    ["my employer's Kaiser Permanente btw", "user:work=Kaiser Permanente"],
    ["my job is at Target, mostly nights", "user:work=Target"],
    ["my husband's company is Etsy", "user's husband:work=Etsy"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["my company is hiring", "my dream company is Google", "Is my company Stripe?", "if my company is Meta I'd quit"])(
    "guard: %s",
    (text) => expectNo(text, "user:work"),
  );
});

describe("a workplace by where one is, with a role, a team or a span", () => {
  it.each([
    ["I'm at Google as a PM", "user:work=Google"],
    ["I'm at Stripe now, on the payments team", "user:work=Stripe"],
    ["im at Deloitte these days", "user:work=Deloitte"],
    ["I'm at Kaiser full-time since June", "user:work=Kaiser"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["I'm at Starbucks now", "I'm at Costco right now", "I'm at the gym now lol"])("guard: %s", (text) =>
    expectNo(text, "user:work"),
  );
});

describe("jobs by their short words, the forces, a desk worked at", () => {
  it.each([
    ["I'm a biomed tech at the children's hospital", "user:work=biomed tech"],
    ["my cousin Ana is a CPA", "user's cousin:work=CPA"],
    ["my grandad's a retired machinist", "user's grandad:work=machinist (ended)"],
    ["my brother's stationed in Germany, he's in the army", "user's brother:work=army"],
    ["I used to work the front desk at a hotel in Reno", "user:work=hotel (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("quitting said only by when is no event", () => {
  it("the job before it ended; no event", () => {
    expectFact("I used to work at the Target warehouse but I quit in May", "user:work=Target warehouse (ended)");
    expectNo("I used to work at the Target warehouse but I quit in May", "user:event");
    expectNo("i quit in april", "user:event");
    expectNo("I used to vape but I quit two years ago", "user:statement");
    expectNo("I left last summer", "user:statement");
  });

  it("guard: what was quit or left, named", () => {
    expectFact("I left London on Friday", "user:event=left London");
    expectFact("I quit smoking in May", "user:health=smoking (ended)");
  });
});

describe("goods sold on a marketplace are one's trade", () => {
  it.each([
    ["I sell candles on Etsy, mostly soy ones", "user:work=candles"],
    ["we sell vintage clothes on Depop", "user:work=vintage clothes"],
    ["I sell my paintings on Etsy", "user:work=paintings"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["I sold my bike on eBay", "I sell stuff on eBay sometimes", "if I sold prints on Etsy I'd make rent"])("guard: %s", (text) =>
    expectNo(text, "user:work"),
  );
});

describe("an activity kept up by how often is a hobby", () => {
  it.each([
    ["I run every morning before work", "user:hobby=run"],
    ["i knit every night in front of the telly", "user:hobby=knit"],
    ["I swim twice a week at the leisure centre", "user:hobby=swim"],
    ["my sister paints every weekend", "user's sister:hobby=paint"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each(["I work every day", "if I ran every morning I'd be fitter", "do you run every morning?"])("guard: %s", (text) =>
    expectNo(text, "user:hobby"),
  );
});
