/**
 * The terms a query also meets beyond its own, over an index's vocabulary (sessions 59-61): the
 * terms of the other script that share a cross-script key with a query term ({@link crossScriptKeys}:
 * `넷플릭스` for `netflix`, `brompton` for `브롬톤`), and the terms one typo away from a long Latin
 * query term that no document holds and that is no common English word ({@link nearSpelling}:
 * `tournament` for `torunament`, but `though` not for `through`). One
 * copy for every index that ranks by core's `tokenize` terms (recall's message index, fact
 * recall's index), so a question meets a message and a fact alike. The index adds them to the
 * query at {@link CROSS_SCRIPT_WEIGHT} and {@link NEAR_SPELLING_WEIGHT} of its own terms' weight.
 */
import { crossScriptKeys, type TermScript } from "./cross-script.js";
import { isCommonEnglishTerm, nearSpelling } from "./near-spelling.js";

/**
 * Weight of a term of the other script that shares a cross-script key with a query term, against 1
 * for the query's own terms. The keys are coarse (a consonant skeleton), so such a term counts
 * less than the word itself (session 59, bench/README.md).
 */
export const CROSS_SCRIPT_WEIGHT = 0.3;

/**
 * Weight of an indexed term one typo away from a query term that no document holds (session 60:
 * `torunament` for `tournament`), against 1 for the query's own terms; only for query terms of at
 * least {@link NEAR_SPELLING_MIN_LETTERS} Latin letters, where one edit rarely makes another word.
 */
export const NEAR_SPELLING_WEIGHT = 0.5;
/** Shortest query term (letters, as `tokenize` writes it) that meets its near spellings. */
export const NEAR_SPELLING_MIN_LETTERS = 7;

/** The terms a query meets beyond its own ({@link QueryWidening.widen}); none of them a query term. */
export interface WidenedTerms {
  /** Terms of the other script sharing a cross-script key with a query term. */
  readonly crossed: ReadonlySet<string>;
  /** Terms one typo away from a long Latin query term no document holds. */
  readonly near: ReadonlySet<string>;
}

/**
 * An index's vocabulary, keyed for {@link QueryWidening.widen}. Each distinct term is keyed once,
 * and lazily: a new term waits until a query needs its script (a Hangul term's key romanizes it:
 * done only once a query holds a Latin term). Pure bookkeeping: the widened terms are a function
 * of the vocabulary noted and the query, whatever order terms were noted or forgotten in.
 */
export class QueryWidening {
  /** Cross-script key -> the noted terms that have it. */
  readonly #byKey = new Map<string, Set<string>>();
  /** Every term noted and not forgotten (the near spellings' candidates). */
  readonly #vocabulary = new Set<string>();
  /** Terms noted but not keyed yet, by script (a forgotten one is skipped when keyed). */
  #pending: Record<TermScript, string[]> = { latin: [], hangul: [] };

  /** Terms noted (distinct). */
  get size(): number {
    return this.#vocabulary.size;
  }

  /** Whether `term` was noted and not forgotten. */
  has(term: string): boolean {
    return this.#vocabulary.has(term);
  }

  /** Notes the terms of a document (repeats and terms already noted cost a set lookup). */
  note(terms: Iterable<string>): void {
    for (const term of terms) {
      if (this.#vocabulary.has(term)) continue;
      this.#vocabulary.add(term);
      const first = term.charCodeAt(0);
      if (first >= 0x61 && first <= 0x7a) this.#pending.latin.push(term);
      else if (first >= 0xac00 && first <= 0xd7a3) this.#pending.hangul.push(term);
    }
  }

  /** Forgets a term no document holds any more. */
  forget(term: string): void {
    if (!this.#vocabulary.delete(term)) return;
    for (const key of crossScriptKeys(term)?.keys ?? []) {
      const terms = this.#byKey.get(key);
      terms?.delete(term);
      if (terms?.size === 0) this.#byKey.delete(key);
    }
  }

  /** Forgets every term. */
  clear(): void {
    this.#byKey.clear();
    this.#vocabulary.clear();
    this.#pending = { latin: [], hangul: [] };
  }

  /**
   * The noted terms a query of `terms` (core `tokenize` terms) also meets: of the other script
   * sharing a cross-script key with one of them, and one typo from one of at least
   * {@link NEAR_SPELLING_MIN_LETTERS} Latin letters that `holds` says no document has (default:
   * not noted; an index whose vocabulary may keep a discarded document's terms asks itself) and
   * that is no common English word (`isCommonEnglishTerm`, session 61).
   * None of them is a query term; each set in code-unit order. Two terms of one script never meet
   * by a key.
   */
  widen(terms: readonly string[], holds: (term: string) => boolean = (term) => this.#vocabulary.has(term)): WidenedTerms {
    const crossed = new Set<string>();
    const near = new Set<string>();
    if (this.#vocabulary.size === 0) return { crossed, near };
    const own = new Set(terms);
    for (const term of own) {
      const keyed = crossScriptKeys(term);
      if (keyed !== undefined) {
        this.#keyPending(keyed.script === "latin" ? "hangul" : "latin");
        for (const key of keyed.keys) {
          for (const other of this.#byKey.get(key) ?? []) {
            if (!own.has(other) && crossScriptKeys(other)?.script !== keyed.script) crossed.add(other);
          }
        }
      }
      // A common English word is what the user meant (`through` is no typo of `though`); checked
      // last, so the word list loads only for a long Latin term no document holds.
      if (term.length < NEAR_SPELLING_MIN_LETTERS || !/^[a-z]+$/.test(term) || holds(term) || isCommonEnglishTerm(term)) continue;
      for (const other of this.#vocabulary) if (!own.has(other) && nearSpelling(term, other)) near.add(other);
    }
    // In code-unit order, not the order terms were noted in: the query's term order is a sum's
    // order in the ranking, so an index kept in step and one built afresh rank bit for bit alike.
    return { crossed: new Set([...crossed].sort()), near: new Set([...near].sort()) };
  }

  /** Keys the pending terms of `script` still noted. */
  #keyPending(script: TermScript): void {
    const pending = this.#pending[script];
    if (pending.length === 0) return;
    for (const term of pending) {
      if (!this.#vocabulary.has(term)) continue;
      for (const key of crossScriptKeys(term)?.keys ?? []) {
        const terms = this.#byKey.get(key);
        if (terms === undefined) this.#byKey.set(key, new Set([term]));
        else terms.add(term);
      }
    }
    this.#pending[script] = [];
  }
}
