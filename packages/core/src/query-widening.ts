/**
 * The terms a query also meets beyond its own, over an index's vocabulary (sessions 59-61): the
 * terms of the other script that share a cross-script key with a query term ({@link crossScriptKeys}:
 * `넷플릭스` for `netflix`, `brompton` for `브롬톤`), and the terms one typo away from a long Latin
 * query term that no document holds and that is no common English word ({@link nearSpelling}:
 * `tournament` for `torunament`, but `though` not for `through`), and, when asked, the English
 * words of the same meaning or a kind of it of a Latin query term no document holds
 * ({@link lexiconMembers}: `cockatiel` for `bird`, `tea` for `beverage`). One
 * copy for every index that ranks by core's `tokenize` terms (recall's message index, fact
 * recall's index), so a question meets a message and a fact alike. The index adds them to the
 * query at {@link CROSS_SCRIPT_WEIGHT}, {@link NEAR_SPELLING_WEIGHT} and {@link RELATED_WORD_WEIGHT}
 * of its own terms' weight.
 */
import { crossScriptKeys, type TermScript } from "./cross-script.js";
import { lexiconMembers, lexiconSenses } from "./english-lexicon.js";
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

/**
 * Weight of an indexed English term that means the same as a query term or is a kind of it
 * ({@link lexiconMembers}, a WordNet extract: `cockatiel` for a query's `bird`, `scared` for
 * `frighten`; session 61), against 1 for the query's own terms, so a message with the word itself
 * ranks first. Only for a query term no document holds: a word the thread never said was likely
 * said another way, while a word it did say already finds its messages (widening `dog` to every
 * breed of a dog owner's thread ranked them above the answer; bench/README.md, session 61).
 */
export const RELATED_WORD_WEIGHT = 0.3;

/** What {@link QueryWidening.widen} computes besides the cross-script terms and near spellings. */
export interface WidenOptions {
  /**
   * Also the related words ({@link WidenedTerms.related}); default `false` (an empty set, the
   * lexicon never read). Recall's message index asks for them; fact recall does not (session 61).
   */
  readonly related?: boolean;
}

/** The terms a query meets beyond its own ({@link QueryWidening.widen}); none of them a query term. */
export interface WidenedTerms {
  /** Terms of the other script sharing a cross-script key with a query term. */
  readonly crossed: ReadonlySet<string>;
  /** Terms one typo away from a long Latin query term no document holds. */
  readonly near: ReadonlySet<string>;
  /**
   * Latin terms of the same meaning as a Latin query term no document holds, or a kind of it
   * ({@link lexiconMembers}), none of them in `crossed` or `near`; empty unless
   * {@link WidenOptions.related} was asked.
   */
  readonly related: ReadonlySet<string>;
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
  /** Term -> documents holding it, for the documents given to {@link addDocument}. */
  readonly #documents = new Map<string, number>();
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

  /**
   * Adds one document's terms, counting the documents that hold each (repeats within the document
   * count once): a term is noted when its first document arrives.
   */
  addDocument(terms: Iterable<string>): void {
    for (const term of new Set(terms)) {
      const held = (this.#documents.get(term) ?? 0) + 1;
      this.#documents.set(term, held);
      if (held === 1) this.note([term]);
    }
  }

  /**
   * Removes one document added by {@link addDocument}: a term no other document holds is forgotten,
   * so the vocabulary is exactly the terms of the documents still held (what a fresh index of them
   * notes).
   */
  removeDocument(terms: Iterable<string>): void {
    for (const term of new Set(terms)) {
      const held = (this.#documents.get(term) ?? 0) - 1;
      if (held > 0) this.#documents.set(term, held);
      else {
        this.#documents.delete(term);
        this.forget(term);
      }
    }
  }

  /** Forgets every term. */
  clear(): void {
    this.#byKey.clear();
    this.#vocabulary.clear();
    this.#documents.clear();
    this.#pending = { latin: [], hangul: [] };
  }

  /**
   * The noted terms a query of `terms` (core `tokenize` terms) also meets: of the other script
   * sharing a cross-script key with one of them, and one typo from one of at least
   * {@link NEAR_SPELLING_MIN_LETTERS} Latin letters that `holds` says no document has (default:
   * not noted; an index whose vocabulary may keep a discarded document's terms asks itself) and
   * that is no common English word (`isCommonEnglishTerm`, session 61), and, with
   * `options.related`, the noted words among the {@link lexiconMembers} of the senses of a query
   * term that `holds` says no document has (looked up in the lexicon's inversion, so the
   * vocabulary itself is never keyed for them; `holds` is asked of the query terms the lexicon knows).
   * None of them is a query term; each set in code-unit order. Two terms of one script never meet
   * by a key.
   */
  widen(
    terms: readonly string[],
    holds: (term: string) => boolean = (term) => this.#vocabulary.has(term),
    options: WidenOptions = {},
  ): WidenedTerms {
    const crossed = new Set<string>();
    const near = new Set<string>();
    const related = new Set<string>();
    if (this.#vocabulary.size === 0) return { crossed, near, related };
    const own = new Set(terms);
    // One answer per term and call: near spellings and related words may both ask.
    const held = new Map<string, boolean>();
    const heldOnce = (term: string): boolean => {
      let answer = held.get(term);
      if (answer === undefined) {
        answer = holds(term);
        held.set(term, answer);
      }
      return answer;
    };
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
      if (options.related === true) this.#addRelated(term, own, heldOnce, related);
      if (term.length < NEAR_SPELLING_MIN_LETTERS || !/^[a-z]+$/.test(term) || heldOnce(term) || isCommonEnglishTerm(term)) continue;
      for (const other of this.#vocabulary) if (!own.has(other) && nearSpelling(term, other)) near.add(other);
    }
    for (const term of related) if (crossed.has(term) || near.has(term)) related.delete(term);
    // In code-unit order, not the order terms were noted in: the query's term order is a sum's
    // order in the ranking, so an index kept in step and one built afresh rank bit for bit alike.
    return { crossed: new Set([...crossed].sort()), near: new Set([...near].sort()), related: new Set([...related].sort()) };
  }

  /**
   * Adds to `related` the noted words, no query term, that `term`'s senses meet, when the lexicon
   * knows `term` and `holds(term)` is false (asked before the words are looked up: most query words
   * the lexicon knows are held, and an index whose vocabulary is exact answers by a set lookup).
   */
  #addRelated(term: string, own: ReadonlySet<string>, holds: (term: string) => boolean, related: Set<string>): void {
    const senses = lexiconSenses(term);
    if (senses.length === 0 || holds(term)) return;
    for (const sense of senses)
      for (const other of lexiconMembers(sense)) if (this.#vocabulary.has(other) && !own.has(other)) related.add(other);
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
