import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * English extraction classes that shrank off the tuning data (facts35, session 55; issue theme 4):
 * a vocative before the subject, chat spellings (`im`, `w/`), ended facts (`used to`, `quit`, `no
 * more ... for me`, `don't drink ... anymore`, a past job with its length), a negated status, a
 * date or price beside a fact, a relative's two facts joined by `and`. The sentences are written for
 * these tests: none is taken from a bench set.
 */

describe("a vocative before the speaker's clause is not part of it", () => {
  it.each([
    ["Dana, I live in Boise now", "user:residence=Boise"],
    ["Hey Tomas, I have three kids", "user:family=three kids"],
    ["Mr. Lee, I'm studying chemistry", "user:study=chemistry"],
    ["Dr. Alvarez, I'm allergic to penicillin", "user:health=allergic to penicillin"],
    ["Hi Jun, I work at a bakery", "user:work=bakery"],
    ["grandma, I moved to Leeds", "user:residence=Leeds"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("chat spellings: im, ive, w/", () => {
  it.each([
    ["im allergic to peanuts lol", "user:health=allergic to peanuts"],
    ["ive got two daughters", "user:family=two daughters"],
    ["im a paramedic in Tulsa", "user:work=paramedic"],
    ["I live in Ogden w/ my cousin", "user:residence=Ogden"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("ended facts", () => {
  it.each([
    ["used to live in Fresno with my aunt", "user:residence=Fresno (ended)"],
    ["I used to work at Target before college", "user:work=Target (ended)"],
    ["I used to wait tables at Applebee's", "user:work=Applebee's (ended)"],
    ["I worked at Costco for five years before grad school", "user:work=Costco (ended)"],
    ["I taught middle school math for twenty years and retired in 2018", "user:work=middle school math (ended)"],
    ["I quit the chess club junior year", "user:hobby=chess club (ended)"],
    ["I gave up tennis after my surgery", "user:hobby=tennis (ended)"],
    ["My back is bad, so no more skiing for me", "user:hobby=skiing (ended)"],
    ["I don't drink soda anymore", "user:health=soda (ended)"],
    ["i dont smoke anymore", "user:health=smoking (ended)"],
    ["I quit smoking two years ago", "user:health=smoking (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I worked at the warehouse today", "user:work"],
    ["I taught my son to swim for two hours", "user:work"],
    ["My friend quit the band", "user:hobby"],
    ["no more questions for me", "user:hobby"],
    ["I quit the game and went to bed", "user:hobby=game (ended)"],
  ])("no ended fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("a negated status", () => {
  it.each([
    ["I'm not married", "user:marital=not married"],
    ["im not married yet lol", "user:marital=not married"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it("a question states none", () => expectNo("Are you not married?", "user:marital"));
});

describe("a date or price beside a fact", () => {
  it.each([
    ["my birthday is on 7/14", "user:birthday=7/14"],
    ["My birthday's October 2nd", "user:birthday=October 2nd"],
    ["I drive a 2015 Civic I got for $9,000", "user:belonging=Civic"],
    ["I'm sixty-four and live in Reno", "user:age=sixty-four"],
    ["I'm renewing my passport in March", "user:plan=renewing my passport"],
    ["I own a small bakery in Tacoma", "user:work=small bakery"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["I'm one of the organizers", "user:age"],
    ["my birthday was great", "user:birthday"],
    ["I've been working since 6am", "user:hobby=working"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("a relative's facts joined by and, with a contracted is", () => {
  it.each([
    ["My dad's diabetic and lives in Omaha", "user's dad:health=diabetic"],
    ["My dad's diabetic and lives in Omaha", "user's dad:residence=Omaha"],
    ["my sister is a nurse up in Spokane", "user's sister:residence=Spokane"],
    ["My uncle is an engineer for Boeing, based in Seattle", "user's uncle:residence=Seattle"],
    ["I live in Provo and work at a clinic", "user:work=clinic"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["My mom's house is in Fresno", "user's mom:residence"],
    ["my sister is a nurse in a hospital", "user's sister:residence"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("pets by breed, volunteering", () => {
  it.each([
    ["We have a border collie named Pip", "user:pet=border collie named Pip"],
    ["I have a beagle", "user:pet=beagle"],
    ["I volunteer at the animal shelter on Sundays", "user:hobby=volunteering at the animal shelter"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("a relative named before, then he or she", () => {
  it.each([
    ["My wife teaches piano, she's a music teacher", "user's wife:work=music teacher"],
    ["My grandpa lives with us, he's eighty-eight", "user's grandpa:age=eighty-eight"],
    ["Got engaged last spring, my fiance's a chef", "user's fiance:work=chef"],
    ["My aunt's 58 and lives in Dayton", "user's aunt:age=58"],
    ["My aunt's 58 and lives in Dayton", "user's aunt:residence=Dayton"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["My wife teaches piano, he's a music teacher", "user's wife:work"],
    ["I met Tom, he's a chef", "user's"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("more ended and school forms", () => {
  it.each([
    ["I used to smoke but I quit last year", "user:health=smoking (ended)"],
    ["My mom retired from the school district in 2020", "user's mom:work=school district (ended)"],
    ["my daughter's in 3rd grade", "user's daughter:school=3rd grade"],
    ["I went to Ohio State for undergrad", "user:school=Ohio State"],
    ["we have 3 kids", "user:family=3 kids"],
    ["I'm training for a half marathon", "user:plan=a half marathon"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([["I went to Ohio State for the game", "user:school"]])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});
