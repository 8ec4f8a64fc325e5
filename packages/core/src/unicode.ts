/**
 * Unicode forms of text: UTF-16 well-formedness, characters as a user counts them
 * ({@link countCharacters}, {@link truncateCharacters}: the one unit of every character limit), and
 * the one normalized form text analysis reads ({@link analysisText}).
 *
 * UTF-16 well-formedness: JavaScript strings are UTF-16 code units, and a cut by `length` or
 * `slice` can split a surrogate pair (an emoji, a CJK extension character), leaving a lone
 * surrogate. `JSON.stringify` writes it as a bare `\ud83d` escape, which strict parsers refuse:
 * Anthropic answers 400 `The request body is not valid JSON: no low surrogate in string`
 * (https://github.com/anthropics/claude-code/issues/56064), Vertex/Gemini `The input data is not
 * valid json` (https://github.com/vertesia/llumiverse/pull/462), and PostgreSQL stores U+FFFD.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Index of the first lone UTF-16 surrogate of `text`, or -1 when `text` is well-formed. */
export function loneSurrogateAt(text: string): number {
  return LONE_SURROGATE.exec(text)?.index ?? -1;
}

/**
 * The first `length` UTF-16 code units of `text`, one fewer when the cut would split a surrogate
 * pair: a head of a well-formed text is well-formed. `length` is clamped to [0, text.length].
 * @example
 * codePointHead("ab😀", 3); // "ab"
 */
export function codePointHead(text: string, length: number): string {
  let end = Math.max(0, Math.min(text.length, Math.floor(length)));
  const last = text.charCodeAt(end - 1);
  if (end > 0 && end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * User-perceived characters (extended grapheme clusters, Unicode UAX #29) as ICU finds them: what
 * a person counts. A Korean syllable is one whether it arrives composed or decomposed (NFD, as
 * macOS and iOS send it: three code points), and so are an emoji with a skin tone, a flag and a
 * family joined by zero-width joiners (up to 7 code points, 11 UTF-16 units).
 */
const GRAPHEMES = new Intl.Segmenter("und", { granularity: "grapheme" });
/** Any UTF-16 unit outside ASCII (surrogates included). */
const NON_ASCII = /[\u0080-\uFFFF]/;
/** Text in which every UTF-16 unit is one character: ASCII without a CR LF pair (one cluster). */
const oneUnitEach = (text: string): boolean => !NON_ASCII.test(text) && !text.includes("\r\n");

/** Marker ending a text {@link truncateCharacters} shortened. One character. */
export const TRUNCATION_MARKER = "…";

/**
 * Length of `text` in characters as a user counts them: grapheme clusters, so `안녕` is 2 (composed
 * or decomposed), `👋🏽` is 1 and `👨‍👩‍👧` is 1, where `length` says 4, 4 and 8 and code points 2, 2 and 5.
 * The unit of every `maxCharacters`-style limit of threadwise (workMemory's envelope, user memory's
 * stored messages and digests, historySeed's parts).
 * @example
 * countCharacters("부산 👨‍👩‍👧"); // 4
 */
export function countCharacters(text: string): number {
  if (oneUnitEach(text)) return text.length;
  let count = 0;
  for (const _ of GRAPHEMES.segment(text)) count += 1;
  return count;
}

/**
 * `text` cut to at most `max` characters ({@link countCharacters}: whole grapheme clusters, so no
 * emoji sequence or decomposed syllable is split), trailing white space of the kept part dropped
 * and {@link TRUNCATION_MARKER} appended, which counts toward `max`. A text within `max` is
 * returned as it is; `max <= 0` gives `""`.
 * @example
 * truncateCharacters("가나다라마바사", 4); // "가나다…"
 */
export function truncateCharacters(text: string, max: number): string {
  if (countCharacters(text) <= max) return text;
  if (max <= 0) return "";
  const keep = max - 1;
  if (oneUnitEach(text)) return `${text.slice(0, keep).trimEnd()}${TRUNCATION_MARKER}`;
  let end = 0;
  let kept = 0;
  for (const { index, segment } of GRAPHEMES.segment(text)) {
    if (kept === keep) break;
    end = index + segment.length;
    kept += 1;
  }
  return `${text.slice(0, end).trimEnd()}${TRUNCATION_MARKER}`;
}

/**
 * Characters that carry no letter and do not separate words: zero-width space, non-joiner and
 * joiner, word joiner, byte-order mark, soft hyphen. Pasted web text holds them inside words
 * (`회의\u200B실`), where they would split one word into two.
 */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;

/**
 * Hangul jamo NFKC left outside a syllable (a lone `ㅋ` of `ㅋㅋ` from compatibility or half-width
 * jamo, the initial of a cut syllable): written back as the compatibility jamo a keyboard types,
 * so `ㅋㅋ` reads the same whichever jamo block it came in and a quoted text keeps its look.
 */
const LEFTOVER_JAMO = /[\u1100-\u1112\u1161-\u1175\u11A8-\u11C2]/;
const LEFTOVER_JAMO_ALL = new RegExp(LEFTOVER_JAMO.source, "g");
const INITIAL_JAMO = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
const FINAL_JAMO = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";

function compatibilityJamo(jamo: string): string {
  const code = jamo.charCodeAt(0);
  if (code <= 0x1112) return INITIAL_JAMO[code - 0x1100] as string;
  if (code <= 0x1175) return String.fromCharCode(0x314f + code - 0x1161); // vowels: same order in both blocks
  return FINAL_JAMO[code - 0x11a8] as string;
}

/**
 * The form of `text` every analysis reads (the tokenizer, the fact rules and fact keys, the
 * extractive summarizer): one text however a client encoded it. NFKC, so decomposed Hangul (NFD,
 * as macOS and iOS clients often send it), half-width Hangul, and full-width digits and latin
 * (`ＡＢＣ１２３`, from an IME) read as the composed, plain text; jamo outside a syllable as the
 * compatibility jamo (`ㅋㅋ`) whichever block they came in; and without the invisible characters
 * of {@link INVISIBLE}. Pure; idempotent. Stored messages and
 * requests are never rewritten with it (the offline extractive summarizer quotes this form: a
 * summary is a new text).
 *
 * @example
 * analysisText("\u1107\u116E\u1109\u1161\u11AB"); // "부산" (NFD in, composed out)
 * analysisText("３월 회의\u200B실"); // "3월 회의실"
 */
export function analysisText(text: string): string {
  // ASCII is its own NFKC and holds no invisible character: most English text leaves here, uncopied.
  if (!NON_ASCII.test(text)) return text;
  const folded = text.replace(INVISIBLE, "").normalize("NFKC");
  return LEFTOVER_JAMO.test(folded) ? folded.replace(LEFTOVER_JAMO_ALL, compatibilityJamo) : folded;
}
