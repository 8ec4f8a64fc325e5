/**
 * Text as clients send it: one text in the encodings that reach an agent besides plain NFC, so a
 * test can check that whatever reads text (recall, fact rules, summaries) behaves the same for
 * each. Korean text is where they differ most: macOS and iOS clients often send Hangul decomposed,
 * Japanese and Chinese IMEs type full-width digits and latin, pasted web text carries invisible
 * characters inside words.
 */

/** One way a client encodes a text. */
export interface ClientTextForm {
  /** `nfd`, `full-width` or `invisible`. */
  readonly name: string;
  /** The text as such a client sends it. */
  readonly encode: (text: string) => string;
}

const INVISIBLE_CHARACTERS = ["\u200B", "\u00AD", "\u2060", "\u200D", "\u200C"];

/**
 * The encodings of {@link ClientTextForm}: `nfd` (Unicode NFD: Hangul syllables as conjoining
 * jamo), `full-width` (ASCII digits and letters as U+FF10-FF5A, as an IME's full-width mode types
 * them) and `invisible` (a byte-order mark first, and inside every word of two letters or more one
 * of zero-width space, soft hyphen, word joiner, zero-width joiner, zero-width non-joiner).
 *
 * @example
 * for (const form of CLIENT_TEXT_FORMS) expect(tokenize(form.encode(text))).toEqual(tokenize(text));
 */
export const CLIENT_TEXT_FORMS: readonly ClientTextForm[] = [
  { name: "nfd", encode: (text) => text.normalize("NFD") },
  {
    name: "full-width",
    encode: (text) => text.replace(/[0-9A-Za-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
  },
  {
    name: "invisible",
    encode: (text) => {
      let n = 0;
      const inside = text.replace(/(\p{L})(?=\p{L})/gu, (letter, _group, offset: number) => {
        // One invisible character per word, after its first letter.
        const first = offset === 0 || !/\p{L}/u.test(text[offset - 1] as string);
        return first ? `${letter}${INVISIBLE_CHARACTERS[n++ % INVISIBLE_CHARACTERS.length]}` : letter;
      });
      return `\uFEFF${inside}`;
    },
  },
];

const GRAPHEMES = new Intl.Segmenter("und", { granularity: "grapheme" });

/**
 * Whether `head` is a head of `text` made of whole characters (it ends where a grapheme cluster of
 * `text` ends): no emoji sequence, flag or decomposed Korean syllable is cut in two. For tests of
 * every cut of user-visible text (core `characterHead`, `headWithinUnits`, `truncateCharacters`).
 * @example
 * isCharacterHead("부".normalize("NFD").slice(0, 1), "부산".normalize("NFD")); // false
 */
export function isCharacterHead(head: string, text: string): boolean {
  if (!text.startsWith(head)) return false;
  if (head.length === 0 || head.length === text.length) return true;
  // ICU over a window around the cut (V8's segmenter is quadratic in the string's length): from
  // 1,024 units back, and further back over a run of regional indicators (flags pair by parity).
  let from = Math.max(0, head.length - 1024);
  while (from > 1 && /[\u{1F1E6}-\u{1F1FF}]/u.test(text.slice(from - 2, from))) from -= 2;
  for (const { index } of GRAPHEMES.segment(text.slice(from, head.length + 64))) if (from + index === head.length) return true;
  return false;
}
