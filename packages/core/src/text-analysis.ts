/**
 * Text analysis shared by every threadwise part that ranks or weighs words (fact recall, message
 * recall, the offline extractive summarizer), for English and Korean alike. One copy: the stop
 * words, the Korean particle and ending list and the stemmer live here only.
 *
 * - Latin words are lowercased, contractions and possessives dropped (`Busan's` -> `busan`), and
 *   stemmed lightly (`lives`, `lived`, `living` -> `liv`), so question and statement forms meet.
 * - Hangul writes a noun and its particle as one word (`부산으로`, `고양이를`). Each Hangul word
 *   loses one trailing particle or verb ending (longest match first), and the remaining stem is
 *   kept whole and, when it has three or more syllables, as syllable bigrams too, so a compound
 *   (`개발자로` -> `개발자`, `개발`, `발자`) matches its parts: the usual dictionary-free way to
 *   match Korean words across endings.
 * - Function words of both languages (`the`, `what`, `뭐`, `어디`) are dropped: a query made only
 *   of them matches nothing, which is how recall places nothing when nothing is relevant.
 */

/** English function words: dropped by {@link tokenize}. Lowercase. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if then so of to in on at by for with from as into about over after before " +
    "i me my mine myself you your yours we us our they them their he him his she her it its this that these those " +
    "is am are was were be been being do does did doing have has had having will would shall should can could may might must " +
    "what which who whom whose when where why how not no yes just very really too also than there here " +
    "all any some such only own same other again further once up down out off more most much many each " +
    "oh hey hi hello thanks thank yeah ok okay wow lol so now still ever user assistant"
  ).split(" "),
);

/** Korean function words (question words, pronouns with particles, fillers): dropped by {@link tokenize}. */
export const KOREAN_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "뭐 무엇 무슨 어디 언제 누구 왜 어떻게 어떤 얼마 몇 저 제 나 내 저는 나는 제가 내가 전 난 그 이 " +
    "그리고 그래서 하지만 그런데 근데 네 예 아니 요즘 정말 진짜 너무 좀 잘 또 및 등 그냥 혹시 우리 것 거 수 때 더 안 못"
  ).split(" "),
);

/** `true` when `word` (lowercased) is a stop word of either language. */
export function isStopword(word: string): boolean {
  return ENGLISH_STOPWORDS.has(word) || KOREAN_STOPWORDS.has(word);
}

// Longest first: a trailing particle or ending is removed once from each Hangul word.
/** Korean particles and verb endings, longest first: {@link stripKoreanSuffix} removes one. */
export const KOREAN_SUFFIXES: readonly string[] = [
  "하고있어요",
  "고있어요",
  "고있습니다",
  "했었어요",
  "했습니다",
  "합니다",
  "했어요",
  "했는데",
  "이었어요",
  "였어요",
  "이에요",
  "입니다",
  "에서는",
  "에서도",
  "에게서",
  "으로는",
  "으로도",
  "이라고",
  "이라서",
  "인데요",
  "거든요",
  "해요",
  "했다",
  "한다",
  "하는",
  "하고",
  "해서",
  "어요",
  "아요",
  "예요",
  "이야",
  "에서",
  "에게",
  "한테",
  "으로",
  "부터",
  "까지",
  "처럼",
  "보다",
  "이랑",
  "라고",
  "인데",
  "니다",
  "죠",
  "요",
  "다",
  "은",
  "는",
  "이",
  "가",
  "을",
  "를",
  "에",
  "의",
  "도",
  "만",
  "로",
  "와",
  "과",
  "랑",
  "야",
  "고",
];

const HANGUL = /^[\uac00-\ud7a3]+$/;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

// Polite endings that never end a noun: they may leave a one-syllable verb stem (`살죠` -> `살`).
const VERBAL_ENDINGS = new Set(["요", "죠"]);

/**
 * Strips one trailing particle or ending; a one-syllable suffix only when two syllables remain
 * (so `바다` keeps its `다`), except the polite endings `요` and `죠`.
 */
export function stripKoreanSuffix(word: string): string {
  for (const suffix of KOREAN_SUFFIXES) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    if (stem.length >= (suffix.length === 1 && !VERBAL_ENDINGS.has(suffix) ? 2 : 1)) return stem;
  }
  return word;
}

/** Light English stemming: plural, `-ing`, `-ed`, and a final `e`, so `move`, `moved`, `moving` meet. */
export function stemEnglish(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && (w.endsWith("sses") || w.endsWith("shes") || w.endsWith("ches") || w.endsWith("xes"))) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  // Doubled final consonant left by -ing/-ed (`running` -> `runn` -> `run`).
  if (w.length > 3 && /([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * Splits text into terms (see the module comment): lowercase, NFC, stop words dropped, English
 * stemmed, Korean particles stripped and long Korean stems also as syllable bigrams. Pure and
 * deterministic; the same function serves documents and queries.
 *
 * @example
 * tokenize("부산으로 이사했어요"); // ["부산", "이사"]
 * tokenize("Where do I live? Busan's nice"); // ["liv", "busan", "nic"]
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.normalize("NFC").toLowerCase().matchAll(WORD)) {
    const raw = match[0].replace(/['’](s|m|re|ve|ll|d|t)$/u, "");
    if (raw === "") continue;
    if (HANGUL.test(raw)) {
      if (KOREAN_STOPWORDS.has(raw) || (raw.length <= 2 && KOREAN_SUFFIXES.includes(raw))) continue;
      const stem = stripKoreanSuffix(raw);
      if (KOREAN_STOPWORDS.has(stem)) continue;
      out.push(stem);
      if (stem.length >= 3) for (let i = 0; i + 2 <= stem.length; i += 1) out.push(stem.slice(i, i + 2));
      continue;
    }
    // Mixed scripts (`Busan에`): split into Hangul and non-Hangul runs and handle each.
    if (/[\uac00-\ud7a3]/.test(raw)) {
      for (const part of raw.match(/[\uac00-\ud7a3]+|[^\uac00-\ud7a3]+/g) ?? []) out.push(...tokenize(part));
      continue;
    }
    if (ENGLISH_STOPWORDS.has(raw)) continue;
    const stem = stemEnglish(raw);
    if (stem.length === 0 || ENGLISH_STOPWORDS.has(stem)) continue;
    out.push(stem);
  }
  return out;
}
