import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * English classes the brief of session 58 (facts38) lists among the misses (bench/README.md,
 * "session 58 (facts38)"): a language being learned is a study, not a pastime (`I'm learning
 * Japanese` gave hobby `Japanese`); a job the rules did not know (`I'm a dental hygienist` gave
 * nothing); a past job by its length or what came after (`I was a teaching assistant for 6 years`);
 * and tutoring as one's work (`I tutor maths`). The sentences are written for these tests: none is
 * taken from a labelled bench set.
 */
describe("a language being learned is a study", () => {
  it.each([
    ["I'm learning Japanese", "user:study=Japanese"],
    ["I've been learning Spanish on Duolingo for a year", "user:study=Spanish"],
    ["I started learning British Sign Language at night classes", "user:study=British Sign Language"],
    ["My daughter is learning French at school", "user's daughter:study=French"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("an instrument or a sport stays a pastime; a question or a wish is none", () => {
    expectFact("I'm learning the guitar", "user:hobby=guitar");
    expectNo("I'm learning Japanese", "user:hobby");
    expectNo("Are you learning Japanese?", "user:study");
    expectNo("I'd love to learn Japanese one day", "user:study");
  });
});

describe("a job the rules did not know", () => {
  it.each([
    ["I'm a dental hygienist", "user:work=dental hygienist"],
    ["I'm a physiotherapist at the Royal Infirmary", "user:work=physiotherapist"],
    ["im a receptionist at a vet's", "user:work=receptionist"],
    ["My sister is a midwife", "user's sister:work=midwife"],
    ["I'm a florist", "user:work=florist"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("what is no job is none", () => {
    expectNo("I'm a bit tired today", "user:work");
    expectNo("Is she a midwife?", "user:work");
    expectNo("My friend is a midwife", "user:work");
  });
});

describe("a past job by its length or what came after, and tutoring", () => {
  it.each([
    ["I was a teaching assistant for 6 years before I opened the shop", "user:work=teaching assistant (ended)"],
    ["I was a nurse for twenty years", "user:work=nurse (ended)"],
    ["My dad was a plumber for 30 years", "user's dad:work=plumber (ended)"],
    ["my aunt's a retired midwife", "user's aunt:work=midwife (ended)"],
    ["I'm a former firefighter", "user:work=firefighter (ended)"],
    ["I tutor maths on weekends", "user:work=tutor"],
    ["I tutor GCSE students in chemistry", "user:work=tutor"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a state for a while, a question, someone else are none", () => {
    expectNo("I was a bit lost for 6 years", "user:work");
    expectNo("I was a nurse today", "user:work=nurse (ended)");
    expectNo("Do you tutor maths?", "user:work");
    expectNo("My friend tutors maths", "user:work");
  });
});

describe("a vehicle sold as `the` one (session 59, facts39)", () => {
  it("is a belonging no longer had; other things sold stay none", () => {
    expectFact("I sold the van in March, the shop delivers by bike now", "user:belonging=van (ended)");
    expectFact("we sold the old car last year", "user:belonging=old car (ended)");
    expectFact("I sold my car last year", "user:belonging=car (ended)");
    expectNo("we sold the tickets", "user:belonging");
    expectNo("Did you sell the van?", "user:belonging");
  });
});
