/**
 * A labelled-statements file (bench/fact-extraction.ts's `--data`) with a field left empty is
 * refused with a typed error naming the field (bench/support/labelled-facts.ts): an empty value
 * matched no prediction and was counted as a miss, silently (session 65, facts65). The committed
 * files still load; the blind ones are not opened.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isBlindFixture } from "../bench/support/blind.js";
import { readLabelledFacts } from "../bench/support/labelled-facts.js";
import { refusal } from "./support/bench-refusal.js";

const root = resolve(import.meta.dirname, "..");
const temp = mkdtempSync(join(tmpdir(), "tw-labelled-fields-"));
const fixtures = resolve(root, "bench/fixtures");
// Sets written blind this session and the sessions before: not opened here.
const BLIND_NOW = /^(?:korean-facts-heldout2[5-8]|english-facts-heldout1[2-5])\./;

function fileWith(name: string, value: unknown): string {
  const path = join(temp, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

const fact = { subject: "user", attribute: "residence", value: "Leeds" };
const file = (facts: unknown[], text = "I live in Leeds") => ({
  items: [
    { text: "나 강아지 키워", facts: [] },
    { text, facts },
  ],
});

describe("a labelled fact file with an empty field", () => {
  it.each([
    ["value", { ...fact, value: "" }],
    ["value", { ...fact, value: "  " }],
    ["value", { ...fact, value: "-" }],
    ["attribute", { ...fact, attribute: "" }],
    ["subject", { ...fact, subject: "" }],
  ])("refuses an empty %s, naming it", (field, bad) => {
    const error = refusal(() => readLabelledFacts(fileWith(`${field}.labelled.json`, file([fact, bad]))));
    expect(error.code).toBe("BENCH_DATA_SHAPE");
    expect(error.field).toBe(`items[1].facts[1].${field}`);
    expect(error.message).toContain(`not a labelled fact file: items[1].facts[1].${field}: empty ${field}`);
  });

  it("refuses an empty statement", () => {
    const error = refusal(() => readLabelledFacts(fileWith("text.labelled.json", file([fact], " "))));
    expect(error.field).toBe("items[1].text");
  });

  it("reads a file whose fields are filled, in English and Korean", () => {
    const items = readLabelledFacts(
      fileWith("good.labelled.json", {
        items: [{ text: "부산 살아요", facts: [{ subject: "user", attribute: "residence", value: "부산" }] }],
      }),
    );
    expect(items[0]?.facts[0]?.value).toBe("부산");
    expect(readLabelledFacts(fileWith("en.labelled.json", file([fact])))[1]?.facts).toEqual([fact]);
  });

  it("reads every committed labelled file that is not blind", () => {
    const names = readdirSync(fixtures).filter((f) => f.endsWith(".labelled.json") && !isBlindFixture(f) && !BLIND_NOW.test(f));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(readLabelledFacts(join(fixtures, name)).length, name).toBeGreaterThan(0);
  });
});
