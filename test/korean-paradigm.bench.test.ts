/**
 * bench/korean-paradigm.ts counts, for a paradigm file, the verb forms whose terms hold their
 * verb's term and the noun forms whose terms hold their noun, by stem class and register; run on
 * a tiny file through its command line, and a file of the wrong shape refused naming its field.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type Paradigm, paradigmFigures } from "../bench/korean-paradigm.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "threadwise-korean-paradigm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 먹어요/먹었습니다 give 먹; `사과` is another word written as a form of 먹다 (a miss the figures
// must count); 집에 keeps 집, 하나요 gives nothing (an ending, not the numeral).
const TINY: Paradigm = {
  verbs: [
    {
      plain: "먹다",
      term: "먹",
      class: "consonant",
      pos: "verb",
      forms: [
        { register: "해요체", label: "present", text: "먹어요" },
        { register: "합니다체", label: "past", text: "먹었습니다" },
        { register: "반말", label: "another word", text: "사과" },
      ],
    },
    { plain: "공부하다", term: "공부", class: "하다", pos: "verb", forms: [{ register: "해요체", label: "present", text: "공부해요" }] },
  ],
  nouns: [
    { noun: "집", forms: ["집에", "집"] },
    { noun: "하나", forms: ["하나요"] },
  ],
};

describe("paradigmFigures", () => {
  it("counts reduced and missed forms by class and register, lists each miss with its terms, and the nouns not kept", () => {
    const figures = paradigmFigures(TINY);
    expect(figures.total).toEqual({ forms: 4, reduced: 3, missed: 1 });
    expect(figures.byClass).toEqual({ consonant: { forms: 3, reduced: 2, missed: 1 }, 하다: { forms: 1, reduced: 1, missed: 0 } });
    expect(figures.byRegister.해요체).toEqual({ forms: 2, reduced: 2, missed: 0 });
    expect(figures.misses.map((miss) => [miss.plain, miss.text, miss.want])).toEqual([["먹다", "사과", "먹"]]);
    expect(figures.nouns).toEqual({ forms: 3, kept: 2, changed: [{ noun: "하나", text: "하나요", terms: [] }], otherTerms: [] });
  });
});

describe("pnpm tsx bench/korean-paradigm.ts", () => {
  const tsx = resolve(root, "node_modules/.bin/tsx");

  it("--data <tiny file> --json prints the figures of that file", async () => {
    const file = join(dir, "tiny.json");
    writeFileSync(file, JSON.stringify(TINY));
    const { stdout } = await run(tsx, ["bench/korean-paradigm.ts", "--data", file, "--json"], { cwd: root });
    const printed = JSON.parse(stdout);
    expect(printed.bench).toBe("korean-paradigm");
    expect(printed.total).toEqual({ forms: 4, reduced: 3, missed: 1 });
    expect(printed.nouns.kept).toBe(2);
  });

  it("refuses a file of another shape with exit code 2 and the field", async () => {
    const file = join(dir, "wrong.json");
    writeFileSync(file, JSON.stringify({ verbs: [{ plain: "먹다", term: "먹", class: "consonant", pos: "noun", forms: [] }] }));
    const failed = await run(tsx, ["bench/korean-paradigm.ts", "--data", file, "--json"], { cwd: root }).catch((error) => error);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("verbs[0].pos");
  });
});
