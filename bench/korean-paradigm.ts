/**
 * Korean verb paradigm: does every form of a verb or adjective give the term its other forms give?
 *
 * Reads a paradigm file (default `bench/fixtures/korean-paradigm.json`): verbs and adjectives by
 * their dictionary form (`춥다`), the term each form should give (`춥`; a 하다 verb's noun:
 * `공부`), the stem class (`ㅂ irregular`, `ㄹ stem`, ...) and the forms in 반말, 해요체, 합니다체
 * and with the honorific `-시-`, written from grammar; and frequent nouns whose last syllables look
 * like a verb's, each with particles, that should give the noun itself. Each form is run through
 * `tokenize` (`@threadwise/core`, the terms recall indexes); a form reduces when its terms hold the
 * verb's term, a noun form is kept when its terms hold the noun.
 *
 * Prints, by stem class and by register: forms, reduced, missed; then the missed forms with their
 * terms, and the nouns not kept. `--json`: the same figures as one JSON document.
 *
 * Run: pnpm tsx bench/korean-paradigm.ts [--data <file>] [--json]
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tokenize } from "@threadwise/core";
import { z } from "zod/v4";
import { benchArgs, printJson } from "./support/cli.js";
import { readDataFile } from "./support/data-file.js";

const FORM = z.object({ register: z.string().min(1), label: z.string().min(1), text: z.string().min(1) });
const PARADIGM = z.object({
  about: z.string().optional(),
  verbs: z.array(
    z.object({
      plain: z.string().min(1),
      term: z.string().min(1),
      class: z.string().min(1),
      pos: z.enum(["verb", "adjective"]),
      forms: z.array(FORM).min(1),
    }),
  ),
  nouns: z.array(z.object({ noun: z.string().min(1), forms: z.array(z.string().min(1)).min(1) })).default([]),
});
/** A paradigm file as {@link paradigmFigures} reads it. */
export type Paradigm = z.infer<typeof PARADIGM>;

/** Forms counted and how many gave the expected term. */
export interface Count {
  forms: number;
  reduced: number;
  missed: number;
}

/** What {@link paradigmFigures} measures. */
export interface ParadigmFigures {
  /** All verb forms. */
  total: Count;
  /** By stem class, in the file's order. */
  byClass: Record<string, Count>;
  /** By register (`반말`, `해요체`, `합니다체`, `-시-`, `plain`), in the file's order. */
  byRegister: Record<string, Count>;
  /** Every form whose terms miss its verb's term, with the terms it gave. */
  misses: Array<{ plain: string; class: string; register: string; label: string; text: string; want: string; terms: string[] }>;
  /**
   * Noun forms: counted; those whose terms miss the noun (`changed`); those that keep it but give
   * another term too (`otherTerms`: not the noun's syllable bigrams, nor a `kin:`/`concept:` term),
   * a verb reading a rule gave a noun.
   */
  nouns: {
    forms: number;
    kept: number;
    changed: Array<{ noun: string; text: string; terms: string[] }>;
    otherTerms: Array<{ noun: string; text: string; terms: string[] }>;
  };
}

const tally = (): Count => ({ forms: 0, reduced: 0, missed: 0 });

/**
 * Runs every form of `paradigm` through `tokenize` and counts the forms that give their verb's
 * term, by stem class and by register, and the noun forms that give their noun.
 *
 * @param paradigm - a paradigm file's content (see the file header for its shape)
 * @returns the counts and the misses; pure, the same for the same file and tokenizer
 */
export function paradigmFigures(paradigm: Paradigm): ParadigmFigures {
  const total = tally();
  const byClass: Record<string, Count> = {};
  const byRegister: Record<string, Count> = {};
  const misses: ParadigmFigures["misses"] = [];
  for (const verb of paradigm.verbs) {
    for (const form of verb.forms) {
      const terms = tokenize(form.text);
      const hit = terms.includes(verb.term);
      byClass[verb.class] ??= tally();
      byRegister[form.register] ??= tally();
      for (const count of [total, byClass[verb.class] as Count, byRegister[form.register] as Count]) {
        count.forms += 1;
        if (hit) count.reduced += 1;
        else count.missed += 1;
      }
      if (!hit)
        misses.push({
          plain: verb.plain,
          class: verb.class,
          register: form.register,
          label: form.label,
          text: form.text,
          want: verb.term,
          terms,
        });
    }
  }
  const nouns: ParadigmFigures["nouns"] = { forms: 0, kept: 0, changed: [], otherTerms: [] };
  for (const { noun, forms } of paradigm.nouns) {
    const own = new Set([noun, ...Array.from({ length: Math.max(0, noun.length - 1) }, (_, i) => noun.slice(i, i + 2))]);
    for (const text of forms) {
      const terms = tokenize(text);
      nouns.forms += 1;
      if (!terms.includes(noun)) nouns.changed.push({ noun, text, terms });
      else {
        nouns.kept += 1;
        if (terms.some((term) => !own.has(term) && !/^(?:kin|concept):/.test(term))) nouns.otherTerms.push({ noun, text, terms });
      }
    }
  }
  return { total, byClass, byRegister, misses, nouns };
}

function table(title: string, rows: Record<string, Count>): string {
  const width = Math.max(title.length, ...Object.keys(rows).map((key) => key.length));
  const lines = [`${title.padEnd(width)}  forms  reduced  missed`];
  for (const [key, count] of Object.entries(rows))
    lines.push(
      `${key.padEnd(width)}  ${String(count.forms).padStart(5)}  ${String(count.reduced).padStart(7)}  ${String(count.missed).padStart(6)}`,
    );
  return lines.join("\n");
}

async function main(): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const cli = benchArgs(resolve(here, "fixtures/korean-paradigm.json"));
  const paradigm = readDataFile(PARADIGM, cli.data, "Korean paradigm file");
  const figures = paradigmFigures(paradigm);
  if (cli.json) {
    printJson({ bench: "korean-paradigm", data: cli.data, ...figures });
    return;
  }
  console.log(table("class", { ...figures.byClass, all: figures.total }));
  console.log(`\n${table("register", figures.byRegister)}`);
  console.log(`\nmissed (${figures.misses.length}):`);
  for (const miss of figures.misses)
    console.log(`  ${miss.plain}\t${miss.register} ${miss.label}\t${miss.text} -> [${miss.terms.join(", ")}] (want ${miss.want})`);
  console.log(`\nnouns kept: ${figures.nouns.kept} of ${figures.nouns.forms}`);
  for (const changed of figures.nouns.changed) console.log(`  ${changed.text} -> [${changed.terms.join(", ")}] (want ${changed.noun})`);
  console.log(`nouns kept with another term too: ${figures.nouns.otherTerms.length}`);
  for (const other of figures.nouns.otherTerms) console.log(`  ${other.text} -> [${other.terms.join(", ")}]`);
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await main();
