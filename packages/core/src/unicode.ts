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
 * `text` with each lone UTF-16 surrogate replaced by U+FFFD (`String.prototype.toWellFormed`,
 * Node 20): what threadwise stores of text a model wrote (a summary, a work-memory note, a fact),
 * since a model's answer cut mid-character (a `max_tokens` cut, a stream ended inside an emoji)
 * can hold a lone surrogate, and a request that carries it again is refused by Anthropic and
 * Gemini (see above). `text` itself when it is well-formed.
 * @example
 * wellFormed("Mina likes \uD83C"); // "Mina likes \uFFFD"
 */
export function wellFormed(text: string): string {
  // ES2024, typed from lib.es2024.string; the repository's lib is ES2022.
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * The first `length` UTF-16 code units of `text`, fewer when the cut would split a character.
 * @deprecated Cuts whole characters now (grapheme clusters, see {@link headWithinUnits}, which it
 *   is): a code-point cut split a decomposed Korean syllable or an emoji sequence.
 * @example
 * codePointHead("ab😀", 3); // "ab"
 */
export function codePointHead(text: string, length: number): string {
  return headWithinUnits(text, length);
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

const EXTENDED_PICTOGRAPHIC = /^\p{Extended_Pictographic}/u;
const isHangulLeading = (c: number) => (c >= 0x1100 && c <= 0x115f) || (c >= 0xac00 && c <= 0xd7a3);
const isHangulEnd = (c: number) => (c >= 0x1160 && c <= 0x11ff) || (c >= 0xac00 && c <= 0xd7a3);
const isAsciiOrCjkStart = (c: number) => c <= 0x7f || isHangulLeading(c) || (c >= 0x3130 && c <= 0x318f) || (c >= 0x4e00 && c <= 0x9fff);

/**
 * Whether a grapheme cluster always ends before `text[i]`, whatever comes before `i - 1` (UAX #29):
 * ASCII other than CR, then ASCII, Hangul or a CJK ideograph (no ASCII character is Prepend, and
 * none of those extends a cluster); a Hangul vowel, final or syllable, then a leading consonant or
 * a syllable (GB6-GB8 join only L to what follows); the end of an astral character of the emoji
 * planes, then an emoji (GB11 joins emoji only through a zero-width joiner).
 */
function clusterEndsBefore(text: string, i: number): boolean {
  const p = text.charCodeAt(i - 1);
  const c = text.charCodeAt(i);
  if (p <= 0x7f && p !== 0x0d) return isAsciiOrCjkStart(c);
  if (isHangulEnd(p)) return isHangulLeading(c);
  if (p >= 0xdc00 && p <= 0xdfff && c >= 0xd800 && c <= 0xdbff && (text.codePointAt(i - 2) ?? 0) >= 0x1f000) {
    return EXTENDED_PICTOGRAPHIC.test(text.slice(i, i + 2)) && !/^[\u{1F1E6}-\u{1F1FF}]/u.test(text.slice(i, i + 2));
  }
  return false;
}
/** Length of the pieces the grapheme segmenter is handed, in UTF-16 units (at least). */
const SEGMENT_PIECE_UNITS = 512;

/**
 * The grapheme clusters of `text` in order, as `{ index, segment }`: ICU's segmentation, run over
 * pieces of about {@link SEGMENT_PIECE_UNITS} units cut where a cluster always ends
 * ({@link clusterEndsBefore}), so the clusters are those of the whole text. V8's `Intl.Segmenter` takes time quadratic
 * in the length of the string it iterates (24,000 units of Korean: 0.23 s; 60,000 of English with
 * emoji: 1.3 s, Node 20), so a long text is never handed to it whole when it has such places
 * (a long run of flags or of combining marks has none, and is).
 */
function* clusters(text: string): Generator<{ index: number; segment: string }> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SEGMENT_PIECE_UNITS);
    while (end < text.length && !clusterEndsBefore(text, end)) end += 1;
    for (const { index, segment } of GRAPHEMES.segment(text.slice(start, end))) yield { index: start + index, segment };
    start = end;
  }
}

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
  for (const _ of clusters(text)) count += 1;
  return count;
}

/**
 * The first `max` characters of `text` ({@link countCharacters}: whole grapheme clusters, so no
 * emoji sequence or decomposed syllable is split), with no marker; `text` itself when it has at
 * most `max`. `max <= 0` gives `""`.
 * @example
 * characterHead("부산 👨‍👩‍👧 가요", 4); // "부산 👨‍👩‍👧"
 */
export function characterHead(text: string, max: number): string {
  if (max <= 0) return "";
  if (oneUnitEach(text)) return text.slice(0, max);
  let end = 0;
  let kept = 0;
  for (const { index, segment } of clusters(text)) {
    if (kept >= max) break;
    end = index + segment.length;
    kept += 1;
  }
  return text.slice(0, end);
}

/**
 * The longest head of `text` made of whole characters (grapheme clusters: a decomposed Korean
 * syllable, an emoji with its modifiers and joiners) that is at most `length` UTF-16 code units
 * long: for budgets measured in string length (a head sized from characters per token). A head of
 * a well-formed text is well-formed. `length` is clamped to [0, text.length].
 * @example
 * headWithinUnits("ab👋🏽", 5); // "ab" (the emoji with its skin tone is 4 units)
 */
export function headWithinUnits(text: string, length: number): string {
  const limit = Math.max(0, Math.min(text.length, Math.floor(length)));
  if (limit === text.length) return text;
  if (oneUnitEach(text)) return text.slice(0, limit);
  let end = 0;
  for (const { index, segment } of clusters(text)) {
    if (index + segment.length > limit) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
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
  return `${characterHead(text, max - 1).trimEnd()}${TRUNCATION_MARKER}`;
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

const SENTENCES = new Intl.Segmenter("und", { granularity: "sentence" });

/** Characters handed to the sentence segmenter at once by {@link sentenceSegments}. */
export const SENTENCE_WINDOW = 4096;

/**
 * The sentences of a text: exactly the `segment`s of `Intl.Segmenter("und", { granularity:
 * "sentence" })` over the whole text (untrimmed, in order, joined they give the text back), in time
 * linear in its length. V8 copies the whole input on every step of a segment iterator (node 20:
 * a 40,000-character Korean message took 0.3 s, 80,000 took 0.6 s, 320,000 took 9 s), so a long
 * text is segmented in windows of {@link SENTENCE_WINDOW} characters, each starting at a boundary
 * already proven. A boundary found in a window is kept only when another boundary follows it
 * inside the window: the segment between them holds its own terminator (`.`, `?`, a line break),
 * which ends any look-ahead (UAX #29 SB8) of the boundary before it, so the rest of the text could
 * not have moved it. A window with fewer than three segments is doubled.
 *
 * @example
 * sentenceSegments("Hi. 안녕하세요. Bye"); // ["Hi. ", "안녕하세요. ", "Bye"]
 */
export function sentenceSegments(text: string): string[] {
  if (text.length <= SENTENCE_WINDOW) return Array.from(SENTENCES.segment(text), (s) => s.segment);
  const out: string[] = [];
  let start = 0;
  let size = SENTENCE_WINDOW;
  while (start < text.length) {
    const end = start + size;
    if (end >= text.length) {
      for (const s of SENTENCES.segment(text.slice(start))) out.push(s.segment);
      break;
    }
    const parts = Array.from(SENTENCES.segment(text.slice(start, end)), (s) => s.segment);
    if (parts.length < 3) {
      size *= 2;
      continue;
    }
    // The last part is cut by the window's end, and the boundary before it is not proven: both go
    // to the next window.
    for (let i = 0; i < parts.length - 2; i += 1) {
      out.push(parts[i] as string);
      start += (parts[i] as string).length;
    }
    size = SENTENCE_WINDOW;
  }
  return out;
}
