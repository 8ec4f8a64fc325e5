/**
 * Text analysis shared by every threadwise part that ranks or weighs words (fact recall, message
 * recall, the offline extractive summarizer), for English and Korean alike. One copy: the stop
 * words, the Korean particle and ending list and the stemmer live here only.
 *
 * - Latin words are lowercased, contractions and possessives dropped (`Busan's` -> `busan`), and
 *   stemmed lightly (`lives`, `lived`, `living` -> `liv`), so question and statement forms meet.
 * - Hangul writes a noun and its particle as one word (`부산으로`, `고양이를`), a verb and its
 *   endings too (`이사했어요`, `운동하나요`). Each Hangul word is reduced to its stem by
 *   {@link koreanStem} (particles, endings, the tense and honorific fused into syllables, light
 *   verbs), and the stem is kept whole and, when it has three or more syllables, as syllable
 *   bigrams too, so a compound (`개발자로` -> `개발자`, `개발`, `발자`) matches its parts: the usual
 *   dictionary-free way to match Korean words. Bigrams are made of stems only, never of endings
 *   (`하나요` gives nothing, not the numeral `하나`; `들었어` gives `들`, not `었어`).
 * - A month is one term however it is written (`June`, `in May`, `5월`, `오월` -> `month:5`; see
 *   `date-terms.ts`), and a date in digits (`2026.05.02`) gives the terms of `2026년 5월 2일`, so
 *   questions about a time meet the messages said then.
 * - Forms that write one word apart are read as one (session 51): the formal `-ㅂ니다` fused into a
 *   vowel stem (`삽니다` -> `사`), contracted verbs (`옮겨요` -> `옮기`, `몰라` -> `모르`), numerals
 *   in Hangul also as digits (`오천오백` -> `5500`, `두 마리` -> `2`, `스물아홉` -> `29`; `2,500` is
 *   `2500`), `8/1부로` as the date, a bound noun written onto its word (`먹는듯` as `먹는 듯`),
 *   a loanword's old and new spellings (`쥬스`/`주스`).
 * - Session 52: two-syllable nouns whose last syllable is also a particle or ending are kept whole
 *   (`동네에` -> `동네`, `휴가`, `필요`), the promise `-ㄹ게`/`-을게` is read as its stem
 *   (`빌려줄게요` -> `빌려주`), and a few nouns that name one thing share a term
 *   (`주민센터`/`동사무소` -> `concept:community-centre`), as kinship words do (`kin:father`).
 * - Session 55: a number written apart at 만 is one number (`만 이천 원` -> `12000`, not `2000`;
 *   `1만 2천원` too), a unit before the counter 원 is its number (`천 원`, `이천원`), a loanword's
 *   borrowed or sound-spelled variant is read as its standard form (`알러지` as `알레르기`, `메세지`
 *   as `메시지`), the possessive `의` comes off a one-syllable noun (`차의` -> `차`; the nouns in
 *   `-의` such as `회의` are kept), the intent and purpose endings come off (`뽑으려던`, `먹으려는`,
 *   `먹으러` -> `뽑`, `먹`), and English `-ied` is read as `-ies` (`tried` -> `try`).
 * - Session 60: a sum of money and a question about one share the term `concept:money`
 *   (`money-terms.ts`: `$380`, `5 grand`, `45만 원` and `cost`, `pay`, `얼마`, `가격`).
 * - Session 61: irregular verbs give their stem ({@link irregularStem}: `추워` -> `춥`, `지어` -> `짓`,
 *   `들어` -> `들` and `듣`, `써` -> `쓰`), stems in 시 keep it (`마셔요` -> `마시`), `-ㄴ데` fused into a
 *   vowel stem comes off (`바쁜데` -> `바쁘`); checked by `bench/korean-paradigm.ts`.
 * - Text is read in one form however a client encoded it (`analysisText`: NFKC, invisible
 *   characters dropped): decomposed Hangul, full-width digits and zero-width spaces give the terms
 *   of the plain text.
 * - Function words of both languages (`the`, `what`, `뭐`, `어디`) are dropped: a query made only
 *   of them matches nothing, which is how recall places nothing when nothing is relevant.
 */
import { setBounded } from "./bounded-map.js";
import { englishMonth, monthTerm, NUMERIC_DATE } from "./date-terms.js";
import { MONEY_TERM, moneyWord, saysMoney } from "./money-terms.js";
import { analysisText } from "./unicode.js";

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
    "그리고 그래서 하지만 그런데 근데 네 예 아니 요즘 정말 진짜 너무 좀 잘 또 및 등 그냥 혹시 우리 것 거 수 때 더 안 못 " +
    "뭐야 뭘 뭔 누가 어디서 얼마나 아 오 와 응 음 참 하하 어느 건 걸 " +
    // The honorifics after a name written apart (`민수 씨`, `지수 님`; session 56).
    "씨 님"
  ).split(" "),
);

/** `true` when `word` (lowercased) is a stop word of either language. */
export function isStopword(word: string): boolean {
  return ENGLISH_STOPWORDS.has(word) || KOREAN_STOPWORDS.has(word);
}

/**
 * Korean particles (조사), compound ones included, longest first. A noun carries them glued
 * (`서울에서는`, `고양이를`); {@link koreanStem} removes them.
 */
export const KOREAN_PARTICLES: readonly string[] = byLength(
  (
    "에서는 에서도 에서만 에서의 에게서 에게는 에게도 한테서 한테는 으로는 으로도 으로만 으로서 으로써 이라고 이라서 " +
    "이라도 이라는 까지는 까지도 까지만 부터는 부터도 이랑은 에게선 한테선 에서 에게 한테 께서 으로 부터 까지 처럼 보다 밖에 조차 마저 " +
    // The contracted forms chat writes (`에서는` -> `에선`, `에게는` -> `에겐`, `한테는` -> `한텐`, `으로는` -> `으론`).
    "에선 에겐 한텐 으론 " +
    // `까지` with the polite `요` (`3시까지요`), else read as the ending `-지요` (`시까`).
    "까지요 " +
    "이나 이랑 라고 라는 라도 에는 에도 에만 로는 로도 로만 로서 와는 과는 와도 과도 하고 이며 이요 마다 만큼 짜리 " +
    "은 는 이 가 을 를 에 엔 의 도 만 로 와 과 랑 께 나 요 쯤 씩 들"
  ).split(" "),
);

/**
 * Korean verb and adjective endings (어미) as they end a word: final and connective endings, the
 * copula's forms, and the light verb 하다 fused with them (`합니다`, `해요`), longest first. What
 * precedes them (tense `-었-`, honorific `-시-`, the light verb) is removed by {@link koreanStem}
 * syllable by syllable, so the list needs no tensed forms.
 */
export const KOREAN_ENDINGS: readonly string[] = byLength(
  (
    "더라고요 더라구요 습니다 습니까 합니다 합니까 입니다 입니까 는데요 은데요 던데요 거든요 더라고 잖아요 려고요 으려고 " +
    "으려면 으니까 니까요 인가요 인데요 이에요 이예요 다고요 는다고 어요 아요 해요 세요 셔요 예요 에요 지요 네요 나요 " +
    "까요 군요 고요 구요 대요 래요 는데 은데 인데 던데 지만 거든 더라 구나 니까 어서 아서 해서 려고 려면 으면 면서 " +
    "다가 도록 는지 은지 인지 을까 인가 기로 냐고 다고 다면 잖아 이야 이다 이라 이고 이면 이지만 이니까 이어서 여서 " +
    "라서 으며 이어야 여야 " +
    // The intent `-(으)려던/-(으)려는/-(으)려다(가)` and the purpose `-으러` (session 55: `뽑으려던` was `뽑으리`).
    "으려던 으려는 으려다가 으려다 려던 려는 려다가 려다 으러 " +
    // The guess `-나 봐`/`-(으)ㄴ가 봐` glued as chat writes it (session 64: `먹나봐` was `먹나`, `좋은가봐` `좋은`);
    // after an open adjective stem the `ㄴ` fuses ({@link fusedNDeStem}: `바쁜가봐`).
    "나봐요 나봐 인가봐요 인가봐 은가봐요 은가봐 는가봐요 는가봐 " +
    "요 죠 어 아 해 지 네 나 니 다 대 래 야 게 기 고 며 서 면 음 던 한 할 된 될 냐 든 군 까 라"
  ).split(" "),
);

function byLength(words: string[]): string[] {
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** Particles and endings together, longest first (the list {@link stripKoreanSuffix} reads). */
export const KOREAN_SUFFIXES: readonly string[] = byLength([...KOREAN_PARTICLES, ...KOREAN_ENDINGS]);

const PARTICLE_SET = new Set(KOREAN_PARTICLES);

/**
 * Stems that carry no topic (light and auxiliary verbs, bound nouns, determiners), dropped after
 * {@link koreanStem}: `하나요` -> `하`, `있어요` -> `있`, `가세요` -> `가`.
 */
const KOREAN_STOP_STEMS = new Set(
  // `계시다` is the honorific `있다` (`계세요`, `계시고`, `계신`; session 60), a function word as it is.
  "하 되 있 없 않 같 싶 주 보 오 가 이 그 저 것 거 수 때 만 한 두 세 새 말 그렇 이렇 저렇 어떻 계 계시 계신".split(" "),
);

/**
 * The motion verbs 가다 and 오다 (`가요`, `갔어요`, `오세요`, `와요`): kept as a term when an ending
 * came off (session 56), so `제가 어디로 가요?` meets `금요일에 부산으로 가요` as `Where am I going?`
 * meets `I go to Busan` (the question word is a function word; the verb is all the question has).
 * A bare `가`/`오` (a particle, the interjection) stays a function word.
 */
const MOTION_STEMS = new Set(["가", "오"]);

// Endings that hold the light verb 하다 already (`일해요` -> `일`): no second `하` is taken off.
const LIGHT_VERB_ENDINGS = new Set(["해", "해요", "해서", "합니다", "합니까", "한", "할"]);

const HANGUL = /^[\uac00-\ud7a3]+$/;
// A date in digits (`2026.03.02`, `2026. 3. 2.`: date-terms' NUMERIC_DATE) is one word; else letters and digits.
// Only a date in digits holds one of these (a word is made of letters and digits otherwise).
const DATE_SEPARATOR = /[\s./]/;
// A number with thousands separators (`5,500`) is one word too.
const GROUPED_NUMBER = /^\d{1,3}(?:,\d{3})+$/;
// A month and day with a slash right before Korean (`8/1부로`, `12/24에`): the Korean way to write a
// date without its year. Only before Hangul, so a fraction or an English `8/1` reads as before.
const MONTH_DAY = /^(0?[1-9]|1[0-2])\/(0?[1-9]|[12]\d|3[01])$/;
const WORD = new RegExp(
  `${NUMERIC_DATE.source}|(?<![\\d./])(?:0?[1-9]|1[0-2])\\/(?:0?[1-9]|[12]\\d|3[01])(?=[\\uac00-\\ud7a3])|\\d{1,3}(?:,\\d{3})+(?!\\d)|[\\p{L}\\p{N}]+(?:['’][\\p{L}]+)*`,
  "gu",
);

/** Months written with Sino-Korean numerals (`삼월`, and the spellings `유월`, `시월`), as `3월` is. */
const KOREAN_MONTHS: ReadonlyMap<string, number> = new Map(
  "일월 이월 삼월 사월 오월 유월 칠월 팔월 구월 시월 십일월 십이월".split(" ").map((word, i) => [word, i + 1]),
);

// Hangul syllable arithmetic: code = 0xAC00 + (initial * 21 + medial) * 28 + final.
const SYLLABLE_BASE = 0xac00;
const FINAL_SS = 20; // ㅆ as a final consonant: the past tense fused into a syllable (했, 봤, 셨)
const INITIAL_NG = 11; // ㅇ
const INITIAL_H = 18; // ㅎ
const MEDIAL = { a: 0, ae: 1, eo: 4, e: 5, yeo: 6, wa: 9, wae: 10, oe: 11, u: 13, wo: 14, eu: 18, i: 20 } as const;

function jamo(syllable: string): { initial: number; medial: number; final: number } {
  const code = syllable.charCodeAt(0) - SYLLABLE_BASE;
  return { initial: Math.floor(code / 588), medial: Math.floor((code % 588) / 28), final: code % 28 };
}

function syllable(initial: number, medial: number, final = 0): string {
  return String.fromCharCode(SYLLABLE_BASE + (initial * 21 + medial) * 28 + final);
}

/**
 * The syllable left when the past tense (final ㅆ) is taken off `s`: `""` for the bare tense
 * markers 았/었/였 and the conjecture 겠, the verb's own syllable for fused forms (했 -> 하,
 * 봤 -> 보, 줬 -> 주, 됐 -> 되, 셨 -> 시, 걸렸 -> 걸리), `undefined` when `s` is not one (있 is a stem).
 */
function withoutPast(s: string): string | undefined {
  const { initial, medial, final } = jamo(s);
  if (final !== FINAL_SS) return undefined;
  if (initial === INITIAL_NG && (medial === MEDIAL.a || medial === MEDIAL.eo || medial === MEDIAL.yeo)) return "";
  if (initial === INITIAL_NG && medial === MEDIAL.i) return undefined; // 있
  if (s === "겠") return "";
  const contracted: Record<number, number> = { [MEDIAL.wa]: 8, [MEDIAL.wo]: MEDIAL.u, [MEDIAL.wae]: MEDIAL.oe, [MEDIAL.yeo]: MEDIAL.i };
  if (initial === INITIAL_H && medial === MEDIAL.ae) return syllable(initial, MEDIAL.a); // 했 -> 하
  return syllable(initial, contracted[medial] ?? medial);
}

// Polite endings that never end a noun: they may leave a one-syllable verb stem (`살죠` -> `살`).
const VERBAL_ENDINGS = new Set(["요", "죠"]);
// The plain (반말) forms of the polite `-아요/-어요/-래요/-까요`: after a one-syllable stem with a
// final consonant they end a verb, so `살아` and `갈래` meet `살아요` and `갈래요` (`살`, `갈`).
const INFORMAL_ENDINGS = new Set(["아", "어", "래", "까"]);
// The vowels a one-syllable open stem ends in once `-아/-어` fused into it (가, 개, 써, 켜, 와, 돼, 줘).
const FUSED_A_EO_VOWELS: ReadonlySet<number> = new Set([MEDIAL.a, MEDIAL.ae, MEDIAL.eo, MEDIAL.yeo, MEDIAL.wa, MEDIAL.wae, MEDIAL.wo]);
// The connectives `-고/-며` after a one-syllable stem with a final consonant end a verb (`살고`,
// `먹으며`, as `살아`).
const CONNECTIVE_ENDINGS = new Set(["고", "며"]);
/**
 * Common two-syllable nouns and adverbs whose second syllable is also a one-syllable particle or
 * ending that {@link oneSyllableStem} lets off a one-syllable stem: kept whole, so `동네에` is
 * `동네`, not `동` (session 52), `휴가를` is `휴가`, `필요해요` is `필요`, and `주요`/`수요` are not
 * dropped as the stop stem `주`/`수`. The `-어` nouns (`영어`, `단어`; else read as `살아`, `먹어`)
 * and the `-고` nouns (`광고`, `신고`; else read as `살고`) are the first such lists (sessions 40s).
 * Left out: nouns as often a one-syllable noun with its particle (`주가`: `이번 주가`), and the
 * `-이` nouns (`길이`, `먹이`), which are as often `길` + `이`.
 */
const NOUNS_LIKE_SUFFIXED = new Set(
  (
    "영어 국어 불어 독어 일어 단어 언어 용어 연어 상어 문어 붕어 잉어 인어 숭어 방어 " +
    "광고 창고 신고 원고 공고 금고 잔고 경고 등고 천고 탁고 합고 중고 " +
    "동네 원래 바로 따로 서로 도로 피로 과로 미로 키로 프로 회로 휴가 요가 추가 여가 대가 처가 " +
    "결과 학과 성과 경과 중요 필요 주요 수요 고요 " +
    // Nouns whose second syllable starts a longer ending or particle (`바다가` is no `바` + `-다가`,
    // `나라는` no `나` + `라는`, `사과는` no `사` + `과는`; session 61).
    "바다 나라 사과 " +
    // Nouns in `-의` (the possessive particle after a one-syllable noun: `차의`, `집의`; session 55).
    "회의 주의 동의 논의 합의 정의 강의 예의 문의 협의 모의 건의 편의 결의 제의 토의 의의 호의 성의 유의 " +
    "창의 고의 상의 하의 내의 심의 항의 신의 질의 발의 이의 선의 악의 경의 " +
    // Nouns in `-려`, which the intent ending `-려는` would cut (`고려는` is `고려` + `는`).
    "고려 배려 우려 염려 장려 격려 독려 " +
    // Nouns of a ㄹ final and `면` (`-면` after a ㄹ stem ends a verb: `살면`; session 62).
    "쫄면 밀면 일면 " +
    // Nouns of a ㄹ final and `지` (`-(으)ㄹ지` or `-지` after a ㄹ stem ends a verb: `살지`; session 62).
    "일지 별지 실지 굴지 엘지 " +
    // Longer nouns whose last syllables read as an ending (`어머니` is no `어머` + `-니`, `사서` no
    // `사` + `-아서`, `기와` no `기` + `와`; session 62). Kinship nouns still give their `kin:` term.
    "어머니 할머니 아버지 할아버지 기와 사서 " +
    // Nouns a listed open verb stem's `-고`/`-지`/`-면`/`-네` spells ({@link OPEN_VERB_STEMS}; session 63).
    "사고 사지 사면 타지 자네 서고 서지 서면 차고 차지 " +
    // Loanwords in a syllable in ㄴ and `다`, which the plain present `-ㄴ다` spells (session 65: `판다` is no `판` + `-다`).
    "판다 베란다 아젠다 어젠다"
  ).split(" "),
);

/**
 * Strips one trailing particle or ending (longest match first); a one-syllable suffix only when
 * two syllables remain (so `바다` keeps its `다`, `하나` its `나`), or one syllable that ends in the
 * past tense (`봤어` -> `봤`), or for the polite endings `요` and `죠` (`살죠` -> `살`).
 */
export function stripKoreanSuffix(word: string): string {
  return stripOnce(word)?.stem ?? word;
}

function hasFinalConsonant(s: string): boolean {
  return jamo(s).final !== 0;
}

/**
 * Whether a one-syllable suffix may leave a one-syllable stem: the polite `요`/`죠`; any ending
 * after a past-tense syllable (`봤어`); `에`, `는` and `의` after anything (`집에`, `있는`, `차의`); the plain
 * endings `아/어/래/까` after a final consonant (`살아`, `먹어`, `갈래`, as `살아요`); `을/은/이/과`
 * after a final consonant and `를/가/와/로` after none, as the particles alternate (`밥을`, `차를`,
 * but not `사과`); `다/네/던` after a final consonant, where only a verb takes them (`있다`).
 */
function oneSyllableStem(suffix: string, stem: string): boolean {
  if (NOUNS_LIKE_SUFFIXED.has(stem + suffix)) return false;
  if (VERBAL_ENDINGS.has(suffix) || withoutPast(stem) !== undefined || suffix === "에" || suffix === "엔" || suffix === "는") return true;
  // The possessive `의` after any one-syllable noun (`차의`, `집의`); the nouns in `-의` are listed.
  if (suffix === "의") return true;
  // `쯤` (about) and `씩` (each) after any one-syllable noun or counter (`시쯤`, `개씩`; session 65: `3시쯤` gave `시쯤`): no noun ends in them.
  if (suffix === "쯤" || suffix === "씩") return true;
  // The honorific written apart after a name takes any particle (`소연 님께`, `지훈 씨도`).
  if ((stem === "님" || stem === "씨") && PARTICLE_SET.has(suffix)) return true;
  // `-고`, `-지`, `-면`, `-네`, `-다` after a listed open stem (session 63: `타고`, `쓰면`, `쉬지`, `사네`); the
  // nouns they spell are listed too (`사고`, `타지`, `자네`: {@link NOUNS_LIKE_SUFFIXED}).
  // The dictionary form's `-다` too (`타다`, `쓰다`): no two-syllable noun is a listed stem and `다`.
  if (OPEN_VERB_STEMS.has(stem) && (suffix === "고" || suffix === "지" || suffix === "면" || suffix === "네" || suffix === "다"))
    return true;
  // `-네` drops a ㄹ stem's ㄹ (`노네`, `파네`, `기네`; session 63): after the open syllable a listed ㄹ
  // stem leaves, read as that stem by {@link droppedL}, as `사는`, `사네` are.
  if (suffix === "네" && !hasFinalConsonant(stem) && L_STEMS.has(withFinal(stem, FINAL_L))) return true;
  // `-아야/-어야` fused into a listed one-syllable open verb (session 65: `가야`, `써야`, `와야`, `쳐야`); after
  // any other syllable `야` is the copula or the vocative (`차야`, `개야`, `지우야`), left whole.
  if (suffix === "야") return FUSED_A_EO_BEFORE_YA.has(stem);
  if (INFORMAL_ENDINGS.has(suffix) || CONNECTIVE_ENDINGS.has(suffix)) return hasFinalConsonant(stem);
  // The connective `-아서/-어서` fused into an open stem whose vowel it contracts with (session 60:
  // `가서`, `와서`, `타서`, `써서`, `봐서` end a verb, as `가요`); nouns in `-서` have another vowel
  // before it (`부서`, `비서`, `도서`).
  if (suffix === "서") return !hasFinalConsonant(stem) && FUSED_A_EO_VOWELS.has(jamo(stem).medial);
  // The pronouns take 내가/제가 as subject: `나가`, `저가` are words of their own (나가다, 저가).
  if (suffix === "가" && (stem === "나" || stem === "저")) return false;
  // `-지` and `-면` after a one-syllable stem (session 62): `-면` follows a ㄹ stem bare (`살면`; a
  // consonant stem takes `-으면`), `-지` any consonant stem; a noun ends so only with a Sino-Korean
  // syllable (`잡지`, `편지`, `공지`, `화면`), whose final is ㄱ ㄴ ㄹ ㅁ ㅂ ㅇ. So `-지` comes off after the
  // finals no Sino-Korean syllable has (`받지`, `씻지`, `찾지`, `좋지`, `같지`, `읽지`), `-면` after ㄹ
  // (the nouns listed: `쫄면`); ㄹ + `지` is read as `-(으)ㄹ지` too ({@link promiseStem}: `살지`, `갈지`).
  // After ㄱ ㅂ ㅁ `-지` comes off too (session 63: `먹지`, `춥지`, `좁지`), but not off the nouns listed
  // ({@link NOUNS_IN_JI}: `잡지`, `입지`, `금지`, `낙지`). After an open syllable (`가면`, `타고`:
  // `라면`, `사고`) the word stays whole.
  if (suffix === "지")
    return NATIVE_FINALS.has(jamo(stem).final) || (VERB_FINALS_BEFORE_JI.has(jamo(stem).final) && !NOUNS_IN_JI.has(stem + suffix));
  if (suffix === "면") return jamo(stem).final === FINAL_L;
  if ("을은이과다네던".includes(suffix)) return hasFinalConsonant(stem);
  if ("를가와로".includes(suffix)) return !hasFinalConsonant(stem);
  return false;
}

/**
 * One-syllable verbs with `-아/-어` fused in, as they stand before `-야` (must): the open verbs whose vowel
 * takes the ending whole (`가야`, `타야`, `자야`, `사야`, `서야`, `빼야`) and the contracted `써` (쓰다), `와` (오다), `쳐`
 * (치다), `꿔` (꾸다), `켜`. Not `차` (`차야` is as often `it's a car`), `개`, `내` (`내야`: mine), `돼`, `봐`, `줘` (stop stems).
 */
const FUSED_A_EO_BEFORE_YA: ReadonlySet<string> = new Set("가 타 자 사 서 싸 짜 빼 깨 써 와 쳐 꿔 켜".split(" "));

/**
 * Common verbs and adjectives of one open syllable (타다, 쓰다, 끄다, 크다, 뜨다, 쉬다, 뛰다, 켜다,
 * 빼다, 깨다, 치다, 자다, 사다, 서다, 차다, 싸다, 짜다, 펴다, 꾸다), whose `-고`, `-지`, `-면`, `-네`
 * and dictionary `-다` forms are read as the verb (session 63). A closed list, as dictionary analysers decide it (Nori's
 * mecab-ko-dic, open-korean-text's verb stems); the nouns those forms spell are listed in
 * {@link NOUNS_LIKE_SUFFIXED} (`사고`, `사지`, `사면`, `타지`, `자네`, `서고`, `서지`, `서면`, `차고`,
 * `차지`). Left out: the motion verbs 가다, 오다 (korean-heldout11 lost items when `가고`, `오면` read
 * as the verb; session 58), the stop stems (`보고`, `주고`), and stems whose forms are mostly nouns
 * (`피고`, `비고`, `재고`, `기지`).
 */
const OPEN_VERB_STEMS: ReadonlySet<string> = new Set("타 쓰 끄 크 뜨 쉬 뛰 켜 빼 깨 치 자 사 서 차 싸 짜 펴 꾸".split(" "));

/** The finals ㄱ ㅂ ㅁ, by their index in a syllable: a native stem's (`먹`, `춥`, `감`) as often as a Sino-Korean noun's before `-지`. */
const VERB_FINALS_BEFORE_JI: ReadonlySet<number> = new Set([1, 16, 17]);
/**
 * Two-syllable nouns of a syllable in ㄱ, ㅂ or ㅁ and `지` (most Sino-Korean: `잡지`, `금지`, `복지`;
 * `낙지`, `엄지` native), kept whole where `-지` would come off a verb's stem (`먹지`; session 63). A
 * closed list, as dictionary analysers (Nori's mecab-ko-dic, open-korean-text's noun list) hold
 * them; an unlisted one reads as its first syllable, as a verb would.
 */
const NOUNS_IN_JI: ReadonlySet<string> = new Set(
  (
    "잡지 입지 금지 백지 복지 숙지 적지 감지 음지 심지 답지 압지 묵지 국지 점지 임지 합지 습지 각지 극지 녹지 벽지 택지 " +
    "억지 육지 약지 검지 엄지 급지 협지 착지 낙지 직지 목지 북지 갑지 법지 삼지 집지 탐지 엽지 격지 역지 칙지 혁지 곡지 " +
    // Native nouns in ㄱ + 지 (a note, a sticker or ticket, a tap, coloured paper, an inner leaf).
    "쪽지 딱지 꼭지 색지 속지"
  ).split(" "),
);

/**
 * Final consonants no Sino-Korean syllable ends in (ㄷ ㅅ ㅆ ㅈ ㅊ ㅋ ㅌ ㅍ ㅎ and the double finals
 * ㄲ ㄳ ㄵ ㄶ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ ㅄ), by their index in a syllable: a one-syllable word with one is a
 * native verb's or adjective's stem (`받`, `씻`, `찾`, `좋`, `읽`, `앉`), never a Sino-Korean noun's.
 */
const NATIVE_FINALS: ReadonlySet<number> = new Set([2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 18, 19, 20, 22, 23, 24, 25, 26, 27]);

/**
 * Common verbs whose stem ends in `나`, which the question ending `-나요` (and `-나`) would cut
 * (`만나요` read as `만` + `나요`, then dropped as the stop stem `만`; session 56): their stem is
 * kept, so every form meets `만났어요` (`만나`).
 */
const VERBS_IN_NA = new Set("만나 떠나 끝나 지나 태어나 일어나 나타나 빛나 화나 신나 짜증나 헤어나 벗어나 돋아나 자라나".split(" "));

/**
 * Verbs whose two-syllable stem ends in `시` (`마시다`, `모시다`; session 61), whose `시` the
 * honorific `-시-` would take: `마셔요`, `마셨어요`, `마십니다` are `마시` + `-어요`/`-었-`/`-ㅂ니다`,
 * not `마` + `-셔요`, so their stem is kept, as `마시고` keeps it. Their honorific forms
 * (`마시세요`, `마시셨어요`) take the `-시-` off as any verb's.
 */
const VERBS_IN_SI = new Set(["마시", "모시"]);
/**
 * Verbs of two syllables in `지` whose adnominal `-ㄴ` is read as the verb (session 64: `빠진` -> `빠지`, as
 * `빠졌어`); `-진` after another syllable is as often a noun (`사진`, `지진`, `부진`) and stays whole.
 */
const VERBS_IN_JI = new Set(["빠지", "터지", "꺼지", "퍼지"]);

// Suffixes by their last syllable, longest first: a word is compared with the few that can end it.
const SUFFIXES_BY_LAST = new Map<string, string[]>();
for (const suffix of KOREAN_SUFFIXES) {
  const last = suffix.slice(-1);
  const list = SUFFIXES_BY_LAST.get(last) ?? [];
  list.push(suffix);
  SUFFIXES_BY_LAST.set(last, list);
}
const ENDING_SET = new Set(KOREAN_ENDINGS);
const SUFFIX_SET = new Set(KOREAN_SUFFIXES);

/**
 * Whether a two-syllable `stem` before `-기` ends as a verb's stem, so the `기` is the nominalizer
 * (`만들기`, `그리기`, `맞추기`, `부르기`, `보내기`, `만나기`, `일하기`) and not the noun's own
 * (`비행기`, `급성기`, `충전기`, `도자기`, `이야기`, `재채기`): its last syllable is the light verb
 * `하`/`되`, ends in ㄹ (`만들`), is open with a vowel verb stems end in and contract
 * ({@link CONTRACTED_VOWELS}'s plain vowels ㅣ and ㅜ: `그리`, `맞추`) or with ㅡ (`부르`, `글쓰`), or
 * is a listed verb ({@link VERBS_IN_NA}, an auxiliary or motion verb: `보내`, `나가`). Dictionary-free,
 * so a noun in `-수기`/`-설기` reads as a verb (`성수기` -> `성수`, every form alike).
 */
function verbBeforeNominalizer(stem: string): boolean {
  const last = stem.slice(-1);
  if (!HANGUL.test(last)) return false;
  const { medial, final } = jamo(last);
  if (final === FINAL_L || /[하되]$/u.test(stem)) return true;
  if (final === 0 && (PLAIN_STEM_VOWELS.has(medial) || medial === MEDIAL.eu)) return true;
  return VERBS_IN_NA.has(stem) || AUXILIARY_VERBS.has(last) || MOTION_STEMS.has(last);
}

/** Whether cutting `word` after `stemLength` characters cuts inside a listed noun it starts with ({@link NOUNS_LIKE_SUFFIXED}). */
function cutsListedNoun(word: string, stemLength: number): boolean {
  for (let end = stemLength + 1; end <= Math.min(word.length, 4); end += 1) if (NOUNS_LIKE_SUFFIXED.has(word.slice(0, end))) return true;
  return false;
}

function stripOnce(word: string): { stem: string; suffix: string; particle: boolean } | undefined {
  for (const suffix of SUFFIXES_BY_LAST.get(word.slice(-1)) ?? []) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    if (stem.length === 0) continue;
    if (suffix.length === 1 && stem.length === 1 && !oneSyllableStem(suffix, stem)) continue;
    // A longer suffix does not cut into a listed noun either (`결과는` is `결과` + `는`, not `결` + `과는`;
    // `어머니가` is `어머니` + `가`, not `어머` + `니`).
    if (cutsListedNoun(word, stem.length)) continue;
    // The copula's `라`-forms (`라서`, `라고`) follow a vowel only (`서울이라서`, `판교라서`): after a
    // final `ㄹ` the `라` is a `르` irregular's (`골라서`, `몰라서`, `빨라서`; session 60), read by
    // {@link verbBaseOf} once the shorter ending (`서`) is off, as `골라요` is.
    if (suffix.startsWith("라") && HANGUL.test(stem.slice(-1)) && jamo(stem.slice(-1)).final === FINAL_L) continue;
    // A verb whose stem ends in 나 keeps it (`만나요` is `만나` + `요`, not `만` + `나요`), as `만났어요` does.
    if (suffix.startsWith("나") && VERBS_IN_NA.has(`${stem}나`)) continue;
    // A verb whose stem ends in 시 keeps it (`마셔요` is `마셔` + `요`, read as `마시`).
    if (suffix.startsWith("셔") && VERBS_IN_SI.has(`${stem}시`)) continue;
    // The nominalizer `-기` (and `-기로`) ends a verb (`기다리기`, `만들기`, `다니기로`); after two
    // syllables that do not end as a verb's stem it is the noun's own `기` (`비행기`, `급성기`,
    // `이야기`; session 57 kept every such word whole, session 58 the nouns only): kept whole.
    if (suffix.startsWith("기") && stem.length === 2 && !verbBeforeNominalizer(stem)) continue;
    return { stem, suffix, particle: PARTICLE_SET.has(suffix) && !ENDING_SET.has(suffix) };
  }
  return undefined;
}

/**
 * The stem of one Hangul word, without its particles and endings; `""` when nothing is left
 * that carries a topic. Dictionary-free, in this order:
 * 1. a formal ending whose ㅂ is fused into a vowel stem ({@link formalStem}: `삽니다` -> `사`), else
 *    up to two particles or endings (longest match first, see {@link stripKoreanSuffix}):
 *    `고양이를` -> `고양이` -> `고양`, as the bare `고양이` gives `고양`, so every form of a noun
 *    meets;
 * 2. after an ending: the past tense and conjecture fused into the last syllables
 *    (`이사했` -> `이사하`, `살았었` -> `살`, `점이었` -> `점`), then the honorific `시`
 *    (`분석하시` -> `분석하`) and the light verbs `하`/`되` (`이사하` -> `이사`, `운동하나요` -> `운동`);
 * 3. the honorific suffixes `님` and `씨` after a name or title (`팀장님이` -> `팀장`, `민수씨가` ->
 *    `민수`; {@link withoutHonorificSuffix}).
 * Stems that carry no topic (`하`, `있`, `되`, `같`, ...) give `""`.
 *
 * @example
 * koreanStem("이사했어요"); // "이사"
 * koreanStem("하나요"); // "" (a question ending, not the numeral 하나)
 * koreanStem("서울에서는"); // "서울"
 */
export function koreanStem(word: string): string {
  return stemOf(word).stem;
}

/**
 * {@link koreanStem} with how the word was read: `verbal` when a verb or adjective ending came
 * off, `bare` when nothing did (a noun, or a 반말 form whose ending is fused: `옮겨`, `몰라`).
 */
function stemOf(word: string): {
  stem: string;
  verbal: boolean;
  bare: boolean;
  withL?: string;
  irregular?: string;
  /** `드세요`: 드시다's or 들다's, so no honorific verb's plain term. */
  honorificOrL?: boolean;
  /** `보낸다`: the adnominal `보낸` its present spells, as a question asks (`보낸 앱은?`; {@link presentNStem}). */
  adnominal?: string;
} {
  let stem = word;
  let verbal = false;
  let lightVerb = false;
  let honorific = false;
  let outer: string | undefined;
  const formal: { stem: string; withL?: string; adnominal?: string } | undefined =
    formalStem(word) ?? promiseStem(word) ?? fusedNDeStem(word) ?? presentNStem(word) ?? propositiveStem(word);
  if (formal !== undefined) {
    stem = formal.stem;
    verbal = true;
  } else {
    for (let pass = 0; pass < 2; pass += 1) {
      const next = stripOnce(stem);
      if (!next) break;
      // After a verb ending, `와` is the `-아` fused into an `오` or ㅂ stem (`나와요`, `도와서`;
      // session 61), not the particle (no ending follows a noun's `와`).
      if (verbal && next.suffix === "와") break;
      // `-지` takes no ending after it but `-요`/`-만` (in the list whole): a `지` before one is the
      // stem's (`멋지다`, `멋지네요` are 멋지다's, not `멋` + `-지`; session 62). Only where one syllable
      // would be left, as session 61 read the longer ones (`떨어지고` -> `떨어`).
      if (verbal && next.suffix === "지" && stem.length === 2) break;
      stem = next.stem;
      outer ??= next.suffix;
      if (!next.particle) verbal = true;
      if (LIGHT_VERB_ENDINGS.has(next.suffix)) lightVerb = true;
      // The honorific `-시-` before the adnominal `-는` (`만드시는`, `좋아하시는`, `기다리시는`;
      // session 61): a verb, not a noun and the topic `는`. Only after two syllables, where no common
      // noun ends in 시 (`도시는`, `택시는`, `다시는` keep theirs). The `-시-` follows an open syllable
      // (a ㄹ stem drops its ㄹ: `만드시는`; a consonant stem takes `으`: `앉으시는`), so `서울시는`,
      // `콜택시는` are nouns, and so are the open-syllable nouns in `도시` and `열두시` (`대도시는`).
      if (next.suffix === "는" && stem.length >= 3 && stem.endsWith("시") && honorificSiAfter(stem.slice(0, -1))) verbal = true;
      // Before `-는데` (which no noun takes: a noun takes `인데`) the `시` after an open syllable is the
      // honorific's after one syllable too (`가시는데`, `타시는데` -> `가`, `타`; session 62), unless
      // the stem ends in 시 itself (`마시는데`). So before the connective `-고` (session 63: `가시고`,
      // `사시고`), which a noun takes only as the copula's `-(이)고` (`도시고`, kept by {@link honorificSiAfter}).
      if (
        (next.suffix.startsWith("는데") || next.suffix === "고" || next.suffix === "고요") &&
        stem.length === 2 &&
        stem.endsWith("시") &&
        honorificSiAfter(stem.slice(0, -1)) &&
        !VERBS_IN_SI.has(stem) &&
        (next.suffix.startsWith("는데") || !HONORIFIC_VERBS.has(stem))
      )
        honorific = true;
    }
  }
  const unstripped = stem === word;
  // A stem ending in the past tense is a verb's, whatever came off after it (`만났을` -> `만났`).
  if (stem !== word && withoutPast(stem.slice(-1)) !== undefined) verbal = true;
  if (verbal) {
    for (let bare = withoutPast(stem.slice(-1)); bare !== undefined; bare = stem === "" ? undefined : withoutPast(stem.slice(-1))) {
      if (stem.slice(-1) === "셨" && !VERBS_IN_SI.has(`${stem.slice(0, -1)}시`)) honorific = true;
      stem = stem.slice(0, -1) + bare;
      // The copula before the tense (`점이었` -> `점이` -> `점`).
      if (bare === "" && stem.length > 1 && stem.endsWith("이")) stem = stem.slice(0, -1);
    }
    if (stem.length > 1 && stem.endsWith("시") && (honorific || stem.length > 2 || stem.startsWith("하"))) stem = stem.slice(0, -1);
    // The linking vowel `으` a consonant stem takes before the honorific `-(으)시-` (session 60:
    // `찾으세요`, `입으셨어요`, `앉으시는데` -> `찾`, `입`, `앉`, as `찾아요`); no stem ends in `으`
    // after a final consonant, so it is never the stem's own.
    stem = withoutLinkingVowel(stem);
    if (!lightVerb && stem.length > 1 && (stem.endsWith("하") || stem.endsWith("되"))) stem = stem.slice(0, -1);
  }
  // 오다 contracted with `-아` (`와요`, `와서`): the stem 오, as `왔어요` gives.
  if (verbal && stem === "와") stem = "오";
  stem = withoutHonorificSuffix(stem);
  const irregular =
    (verbal || unstripped ? irregularStem(word, stem, verbal) : bareWaOfB(word)) ??
    seoOfListedNoun(stem, outer) ??
    hieutStem(word, stem) ??
    (unstripped ? adnominalStem(word) : outer === "은" ? adnominalOfD(stem) : undefined);
  const motion = verbal && MOTION_STEMS.has(stem);
  // A ㄷ irregular's ㄹ form is a verb's, not the function word it spells (`걸었어`, `걸고` are 걸다's or
  // 걷다's, never `걸` = 것을; session 62), as `들었어` gives `들` and `듣`; not before the polite
  // `-요`/`-죠` alone, which also follow 것을 (`그럴 걸요`), nor before `으`, which no ㄹ stem takes
  // (`걸으려면` is 걷다's only).
  const dReading =
    verbal &&
    HANGUL.test(stem) &&
    jamo(stem.slice(-1)).final === FINAL_L &&
    D_IRREGULAR.has(withFinal(stem, FINAL_D)) &&
    !VERBAL_ENDINGS.has(outer ?? "") &&
    !/^[으을은]/u.test(word.slice(stem.length));
  const kept = stem === "" || (!motion && (KOREAN_STOP_STEMS.has(stem) || (KOREAN_STOPWORDS.has(stem) && !dReading))) ? "" : stem;
  // A promise's `ㄹ` may be the stem's own (`살게`: 살다 or 사다): that reading too, unless it is a light verb's (`할게`);
  // so may a ㄹ stem's, dropped before ㄴ, ㅂ, ㅅ (`사세요`: 사다 or 살다; session 62).
  const withL = formal?.withL ?? droppedL(word, stem) ?? (unstripped ? adnominalOfL(word) : undefined);
  // `드` is no stem of its own (session 63): `드세요`, `드셨어요` are 드시다's (eat) or 들다's, which
  // drops its ㄹ (`마음에 드세요`), so they give 드시다's own term `드시` (as `드시고` does) and `들`;
  // `드는`, `드니까` are 들다's only. 드시다's plain `먹` is left out of both ({@link HONORIFIC_VERBS}).
  if (kept === "드" && withL === "들") {
    const deulOnly = !/^드[세셔셨시십신실]/u.test(word);
    return { stem: deulOnly ? "" : "드시", verbal, bare: unstripped, withL, honorificOrL: true };
  }
  const read = irregular === undefined || irregular === kept || KOREAN_STOP_STEMS.has(irregular) ? {} : { irregular };
  const adnominal = formal?.adnominal === undefined || formal.adnominal === kept ? {} : { adnominal: formal.adnominal };
  if (
    withL !== undefined &&
    !lightVerb &&
    !/[하되]$/.test(formal?.stem ?? "") &&
    !KOREAN_STOP_STEMS.has(withL) &&
    !KOREAN_STOPWORDS.has(withL)
  ) {
    return { stem: kept, verbal, bare: unstripped, withL, ...read, ...adnominal };
  }
  return { stem: kept, verbal, bare: unstripped, ...read, ...adnominal };
}

/**
 * The verb a listed noun in `서` also spells as an open stem's fused `-아서` (session 63: `사서` is the
 * librarian and 사다's `-아서`, `빵 사서 먹었어`; {@link NOUNS_LIKE_SUFFIXED} keeps the noun), or
 * `undefined`: bare or before the particles a connective takes (`사서는`, `사서도`), not before a
 * noun's (`사서가`, `사서를`), so both readings are kept where both can be.
 */
function seoOfListedNoun(stem: string, outer: string | undefined): string | undefined {
  if (stem.length !== 2 || !stem.endsWith("서") || !NOUNS_LIKE_SUFFIXED.has(stem)) return undefined;
  if (outer !== undefined && outer !== "는" && outer !== "도" && outer !== "요") return undefined;
  const first = stem.charAt(0);
  return !hasFinalConsonant(first) && FUSED_A_EO_VOWELS.has(jamo(first).medial) ? first : undefined;
}

/**
 * Frequent verbs and adjectives whose stem ends in ㄹ (ㄹ 탈락 용언: 살다, 알다, 놀다, 팔다, 길다, 울다,
 * 열다, 멀다, 들다, 풀다, 밀다, 떨다, and in two syllables 만들다, 힘들다, 흔들다, 떠들다). A closed
 * list: the ㄹ stems whose ㄹ-less syllable is a frequent other verb's stem or a stop stem are left
 * out (`주세요` is no 줄다, `가세요` no 갈다, `나세요` no 날다, `끄세요` no 끌다, `거세요` no 걸다).
 */
const L_STEMS: ReadonlySet<string> = new Set("살 알 놀 팔 길 울 열 멀 들 풀 밀 떨 만들 힘들 흔들 떠들".split(" "));
/** The adjectives of {@link L_STEMS} that take no `-는` (chat's `힘드는` is left to read as 힘들다). */
const L_ADJECTIVES: ReadonlySet<string> = new Set(["길", "멀"]);

/**
 * The ㄹ stem a form hides when it dropped its ㄹ (session 62), or `undefined`: a ㄹ stem loses it
 * before ㄴ, ㅂ and ㅅ (`사는`, `삽니다`, `사세요`, `사셨어요`, `만드는데`, `아시는`, `힘든데`), so
 * `stem` read as a vowel stem (`사`, `만드`) is also the listed ㄹ stem ({@link L_STEMS}) when what
 * follows it in `word` starts with `-는`, `-네`, `-(으)니까`, the honorific `-시-` (`세`, `셔`, `셨`, `시`, `십`,
 * `신`, `실`), or is the ㅂ of `-ㅂ니다` or the ㄴ of `-ㄴ데` fused into its last syllable. The adnominal
 * `-ㄴ` fused into a bare word (`만든`, `힘든`) counts after two syllables, and for the adjectives
 * `긴`, `먼`; a one-syllable verb's (`산`, `논`, `판`, `운`, `연`) is as often a noun.
 */
function droppedL(word: string, read: string): string | undefined {
  // The `-시-` a two-syllable reading kept (`사시고`, `기신데` read `사시`, `기시`) is the honorific's,
  // unless the reading is an honorific verb's own stem (`드시고` is 드시다's, eat).
  if (HONORIFIC_VERBS.has(read)) return undefined;
  // An ending follows the honorific `-시-` (`-시-` + `-어` is `셔`): a word that stops at the `시` or goes
  // on with `아`/`어` is a noun in `시` (`아시아` is no 알다, `미시` no 밀다).
  const si = read.length > 1 && read.endsWith("시");
  if (si && word.startsWith(read) && /^(?:[아어]|$)/u.test(word.slice(read.length))) return undefined;
  const stem = si ? read.slice(0, -1) : read;
  if (stem === "" || !HANGUL.test(stem) || hasFinalConsonant(stem.slice(-1))) return undefined;
  const withL = withFinal(stem, FINAL_L);
  if (!L_STEMS.has(withL)) return undefined;
  if (word.startsWith(stem)) {
    const rest = word.slice(stem.length);
    // An adjective takes no `-는` (`긴`, `먼`): `기는`, `기는데` are 기다's (crawl).
    if ((rest.startsWith("는") || rest.startsWith("나")) && L_ADJECTIVES.has(withL)) return undefined;
    // `-(으)니까`/`-(으)니` too: its ㄴ drops the ㄹ as `-는` does (`사니까`, `만드니까`; session 63); so does the
    // question and guess `-나` (`만드나요`, `사나 봐`; session 64).
    return /^(?:는|네|니|나|세|셔|셨|시|십|신|실)/u.test(rest) ? withL : undefined;
  }
  const fused = word.charAt(stem.length - 1);
  if (!word.startsWith(stem.slice(0, -1)) || !HANGUL.test(fused)) return undefined;
  const { final } = jamo(fused);
  return (final === FINAL_B || final === FINAL_N) && withFinal(stem, final) === word.slice(0, stem.length) ? withL : undefined;
}

/** A bare word that is a listed ㄹ stem's adnominal `-ㄴ` (`만든`, `힘든`, `긴`, `먼`; {@link droppedL}), as that stem. */
function adnominalOfL(word: string): string | undefined {
  const last = word.slice(-1);
  if (!HANGUL.test(last) || jamo(last).final !== FINAL_N) return undefined;
  const withL = withFinal(word, FINAL_L);
  return L_STEMS.has(withL) && (word.length > 1 || withL === "길" || withL === "멀") ? withL : undefined;
}

/**
 * Words in `-운`, `-른`, `-쁜`/`-픈`, `-진` after a syllable that are no adnominal of an ㅂ, 르, ㅡ stem or
 * 지다, nor end in one (`기운` is no 깁다, `장인어른` no 어르다, `나른하다`'s root no 나르다; `오른` is the
 * determiner of `오른손` as often as 오르다's; `가족사진` no 사지다).
 */
const NOUNS_LIKE_ADNOMINAL: readonly string[] =
  "기운 가운 다운 타운 사운 라운 카운 마운 바운 파운 서운 어른 서른 나른 오른 오픈 사진 취재진".split(" ");
/**
 * One-syllable adnominals of a ㅡ or open stem no noun spells (`쓴`, `뜬`, `탄`), as their stems. `큰` is
 * left whole: read as `크` it joined questions (`더 큰 집`, `큰 차종`) to every turn that says `커요`,
 * and korean-heldout15 and korean-heldout16 each lost an item (session 63).
 */
const ONE_SYLLABLE_ADNOMINALS: ReadonlyMap<string, string> = new Map([
  ["쓴", "쓰"],
  ["뜬", "뜨"],
  ["탄", "타"],
]);
const INITIAL_R = 5; // ㄹ

/**
 * The stem of a bare word that is a verb's or adjective's adnominal `-(으)ㄴ` fused into its last
 * syllable (session 63), or `undefined`: the shapes only a stem class leaves, where a noun in ㄴ is rare
 * ({@link NOUNS_LIKE_ADNOMINAL} listed): an ㅂ irregular's `-운` (`추운`, `구운`, `어려운` -> `춥`,
 * `굽`, `어렵`; a regular `-우` stem's own: `배운` -> `배우`), a 르 stem's `-른` (`다른`, `모른` -> `다르`, `모르`), a ㅡ stem's `-쁜`/`-픈`
 * (`바쁜`, `아픈`), a listed verb in 나 or 시 (`만난`, `마신`), an auxiliary `주다`/`보다`/`두다` after
 * `-아/-어` (`빌려준` -> `빌려주`, `찾아본` -> `찾아보`), and three one-syllable adnominals
 * ({@link ONE_SYLLABLE_ADNOMINALS}). Any open stem's `-ㄴ` (`보낸`, `기다린`) is as often a noun in ㄴ
 * (`사진`, `시간`, `당신`), a one-syllable one (`간`, `산`, `논`) a noun itself, and a ㅅ irregular's
 * `-은` the given names `지은`, `나은`: left whole.
 */
function adnominalStem(word: string): string | undefined {
  const one = ONE_SYLLABLE_ADNOMINALS.get(word);
  if (one !== undefined) return one;
  if (word.length < 2 || !HANGUL.test(word) || NOUNS_LIKE_ADNOMINAL.some((noun) => word.endsWith(noun))) return undefined;
  const last = jamo(word.slice(-1));
  if (last.final !== FINAL_N) return undefined;
  const before = word.slice(0, -1);
  const open = !hasFinalConsonant(before.slice(-1));
  if (last.initial === INITIAL_NG && last.medial === MEDIAL.u && open)
    return REGULAR_U_STEMS.has(`${before}우`) ? `${before}우` : withFinal(before, FINAL_B);
  if (last.medial === MEDIAL.eu && (last.initial === INITIAL_R || last.initial === INITIAL.pp || last.initial === INITIAL.p))
    return before + syllable(last.initial, MEDIAL.eu);
  const vowelStem = before + syllable(last.initial, last.medial);
  if (VERBS_IN_NA.has(vowelStem) || VERBS_IN_SI.has(vowelStem) || VERBS_IN_JI.has(vowelStem)) return vowelStem;
  const link = jamo(before.slice(-1));
  // `보다` only after a plain `아`/`어`/`여`/`와`/`워`/`해` (`찾아본`, `해본`): `-본` after another syllable ends nouns (`녹화본`, `복사본`).
  // `지다` after `-아/-어` (session 64: `떨어진`, `헤어진`, `친해진` -> `떨어지`, `헤어지`, `친해지`, as `떨어졌어`).
  const auxiliary = /[주두지]$/u.test(vowelStem) || (vowelStem.endsWith("보") && /[아어여와워해]$/u.test(before));
  if (word.length >= 3 && auxiliary && link.final === 0 && FUSED_A_EO_VOWELS.has(link.medial)) return vowelStem;
  return undefined;
}

/** A ㄷ irregular's adnominal `-은` (`들은`, `걸은`, `물은` -> `듣`, `걷`, `묻`), which reads as a noun and the particle `은`; both kept. */
function adnominalOfD(stem: string): string | undefined {
  if (stem.length !== 1 || !HANGUL.test(stem) || jamo(stem).final !== FINAL_L) return undefined;
  const withD = withFinal(stem, FINAL_D);
  return D_IRREGULAR.has(withD) ? withD : undefined;
}

/** Whether the `시` after `before` can be the honorific `-(으)시-`: after an open syllable, not a noun's (`대도시`, `열두시`). */
function honorificSiAfter(before: string): boolean {
  const last = before.slice(-1);
  return HANGUL.test(last) && jamo(last).final === 0 && !/(?:도|열두)$/u.test(before);
}

/** Nouns in `-씨` that are no name with the honorific (`아저씨`, `아가씨`, `마음씨`). */
const NOUNS_IN_SSI = new Set(["아저씨", "아가씨", "마음씨", "아주머니씨"]);

/**
 * `stem` without the honorific suffix after a name or title (session 56): `님` (`팀장님` ->
 * `팀장`, `지수님` -> `지수`) and `씨` (`민수씨` -> `민수`), so `민수씨가` meets `민수가`; only after
 * two or more syllables, so `날씨`, `솜씨`, `손님` keep theirs, and the nouns in `-씨`
 * ({@link NOUNS_IN_SSI}) are kept whole.
 */
function withoutHonorificSuffix(stem: string): string {
  if (stem.length > 2 && stem.endsWith("님")) return stem.slice(0, -1);
  if (stem.length > 2 && stem.endsWith("씨") && !NOUNS_IN_SSI.has(stem)) return stem.slice(0, -1);
  return stem;
}

/**
 * `stem` without a final linking `으` after a syllable with a final consonant (`찾으` -> `찾`,
 * `받으` -> `받`). A `ㄹ` before it is a `ㄷ` irregular's (session 60): a stem in `ㄹ` takes no `으`
 * (`살다` -> `사세요`, `살게`), while `걷다`, `듣다`, `묻다` turn their `ㄷ` into `ㄹ` before a vowel
 * (`걸으세요`, `들으셨어요`, `들을게`), so the `ㄷ` is put back (`걸으` -> `걷`, as `걷고`).
 */
function withoutLinkingVowel(stem: string): string {
  if (stem.length < 2 || !stem.endsWith("으")) return stem;
  return withoutLinkedL(stem.slice(0, -1)) ?? stem;
}

const FINAL_D = 7; // ㄷ

/** `before` (what came before a linking `으`/`을`) as the stem it is, `undefined` when it ends in no final consonant. */
function withoutLinkedL(before: string): string | undefined {
  const last = before.slice(-1);
  if (!HANGUL.test(last) || !hasFinalConsonant(last)) return undefined;
  const { initial, medial, final } = jamo(last);
  return final === FINAL_L ? before.slice(0, -1) + syllable(initial, medial, FINAL_D) : before;
}

// The promise ending `-ㄹ게`/`-을게` (and `-ㄹ게요`), as chat also spells it (`-ㄹ께`, `할께요`), and
// the future `-(으)ㄹ 거예요` written as one word (`갈거예요`, `먹을거야`, `할겁니다`; session 60): the
// bound noun 것 after the same fused `ㄹ`, read the same way.
/** The bound noun 것 as the future `-(으)ㄹ 거예요` writes it, glued to the verb or apart (`거예요`, `거야`, `겁니다`). */
const FUTURE_BOUND_NOUNS: ReadonlySet<string> = new Set("거예요 거에요 거야 겁니다 겁니까 거죠 거지 거고 건데 거라 거다".split(" "));
// The question `-(으)ㄹ까(요)` (`갈까?`, `먹을까요?`) and the worry `-(으)ㄹ까 봐` glued as chat writes it
// (`늦을까봐`, `갈까봐요`) end on the same fused `ㄹ` (session 64): `갈까` was `갈`, `만날까` `만날`.
const PROMISE_ENDINGS = byLength(["게요", "께요", "게", "께", "까요", "까", "까봐요", "까봐", ...FUTURE_BOUND_NOUNS]);

/**
 * The stem of a promise (`-ㄹ게`: `빌려줄게요` -> `빌려주`, `연락할게` -> `연락하`, `갈께` -> `가`;
 * `-을게` after a consonant stem: `먹을게` -> `먹`), or `undefined`. The `ㄹ` is fused into the
 * stem's last syllable, as the formal ending's `ㅂ` is ({@link formalStem}); a stem in `ㄹ` keeps it
 * (`만들게`, `살게`), so `withL` is the stem read with it too. Only after a final `ㄹ` or `을`, so
 * nouns in `게` (`가게`, `무게`, `집게`) are left to the ending list.
 */
function promiseStem(word: string): { stem: string; withL?: string } | undefined {
  // `-(으)ㄹ지` (whether) after one syllable (session 62): `살지` is 사다's `-ㄹ지` or 살다's `-지`, both
  // read, as `살게` is; `갈지`, `할지` as `갈게`, `할게`. Longer words keep their `-지` to the ending
  // list (`만들지` -> `만들`), and the nouns in ㄹ + `지` are listed (`일지`).
  if (word.length === 2 && word.endsWith("지") && !NOUNS_LIKE_SUFFIXED.has(word)) return fusedL(word.slice(0, 1));
  for (const ending of PROMISE_ENDINGS) {
    if (!word.endsWith(ending) || word.length < ending.length + 1) continue;
    const before = word.slice(0, -ending.length);
    const last = before.slice(-1);
    if (!HANGUL.test(last)) return undefined;
    const linked = last === "을" ? withoutLinkedL(before.slice(0, -1)) : undefined;
    if (linked !== undefined) return { stem: linked };
    const fused = fusedL(before);
    // `-실` after one open syllable is the honorific `-(으)시-` with the future's `ㄹ` (session 63:
    // `가실 거예요`, `사실 거예요`, `만드실게요`): no stem ends in `실` there but a stem in 시's
    // (`마실 거예요`); the `시` comes off, so `사실` is read as `사` and, by {@link droppedL}, `살`.
    if (fused !== undefined && /^[^시]시$/u.test(fused.stem.slice(-2)) && honorificSiAfter(fused.stem.slice(0, -1))) {
      if (!VERBS_IN_SI.has(fused.stem) && !HONORIFIC_VERBS.has(fused.stem)) return { stem: fused.stem.slice(0, -1) };
    }
    // A stop stem's `ㄹ` is its own (`갈까 말까`: 말다), no open stem's: nothing to read.
    if (fused !== undefined && KOREAN_STOP_STEMS.has(fused.withL)) return { stem: "" };
    return fused;
  }
  return undefined;
}

/** `before`, whose last syllable holds a fused `ㄹ`, as the vowel stem (`살` -> `사`) and with the ㄹ kept as a ㄹ stem's (`살`); `undefined` without one. */
function fusedL(before: string): { stem: string; withL: string } | undefined {
  const last = before.slice(-1);
  if (!HANGUL.test(last)) return undefined;
  const { initial, medial, final } = jamo(last);
  if (final !== FINAL_L) return undefined;
  return { stem: before.slice(0, -1) + syllable(initial, medial), withL: before };
}

/**
 * The stem of an adjective or the copula before the connective `-(으)ㄴ데(요)` whose `ㄴ` fused into
 * a vowel stem's last syllable (session 61: `바쁜데` -> `바쁘`, `큰데요` -> `크`, `추운데` -> `추우`,
 * read on as `춥`; the copula `친군데` -> `친구`, `어딘데` -> `어디`), or `undefined`. A consonant stem
 * takes `-은데` and a verb `-는데`, both in the ending list (as are `인데` and `-던데`); the nouns
 * `군데` and `가운데` are kept (`그런데`, `근데` are function words).
 */
function fusedNDeStem(word: string): { stem: string } | undefined {
  const guess = /가봐요?$/u.exec(word);
  // The guess `-(으)ㄴ가 봐` glued (session 64: `바쁜가봐`, `아픈가봐요` -> `바쁘`, `아프`): after two syllables
  // at least, so `안가봐` (안 가 봐) is not read as one.
  if (guess !== null && guess.index >= 2 && !/[는은인]$/u.test(word.slice(0, guess.index))) {
    const base = word.slice(0, guess.index);
    const { initial, medial, final } = jamo(base.slice(-1));
    if (final !== FINAL_N) return undefined;
    const stem = base.slice(0, -1) + syllable(initial, medial);
    // `그런가봐` is 그렇다's (a ㅎ stem, a function word), not a `그러` of its own.
    return { stem: /^(?:그러|이러|저러|어떠)$/u.test(stem) ? withFinal(stem, FINAL_H) : stem };
  }
  const before = word.endsWith("데요") ? word.slice(0, -2) : word.endsWith("데") ? word.slice(0, -1) : undefined;
  // `-는데`, `-은데`, `인데`, `-던데` are the ending list's (`먹는데`, `좋은데`, `학생인데`).
  if (before === undefined || before === "" || !HANGUL.test(before) || /[는은인던]$/u.test(before)) return undefined;
  // Nouns in `-ㄴ데`: the counter `군데` (`두 군데`), `가운데`; `텐데` is `터` + `인데`.
  if (/(?:^|[한두세네몇])군$|가운$|텐$/u.test(before)) return undefined;
  const { initial, medial, final } = jamo(before.slice(-1));
  if (final !== FINAL_N) return undefined;
  return { stem: before.slice(0, -1) + syllable(initial, medial) };
}

// The plain present `-ㄴ다` and what is built on it (`-ㄴ다고`, `-ㄴ다는`, `-ㄴ다면`, `-ㄴ다며`, the reported `-ㄴ대(요)`), longest first.
const PRESENT_N_ENDINGS = ["다고요", "다고", "다는", "다면", "다며", "대요", "다", "대"];
/** Nouns in a syllable in ㄴ and `다`/`대` (`판다`, `베란다`, `시간대`), not a vowel stem's present `-ㄴ다`/`-ㄴ대`. */
const NOUNS_LIKE_PRESENT_N: readonly string[] = "판다 베란다 아젠다 어젠다 혼다 우간다 르완다 시간대 반대".split(" ");

/**
 * Whether `open` (two or more syllables) is a verb stem no noun before the Sino-Korean `대` spells (session 66): a
 * listed verb in 나 or 시 ({@link VERBS_IN_NA}: `만나`; {@link VERBS_IN_SI}: `마시`, `모시`), a regular `-우` stem
 * ({@link REGULAR_U_STEMS}: `배우`, `키우`), a stem in `르` (`모르`, `고르`, `부르`) or in `꾸` (`바꾸`, `가꾸`), a listed ㄹ
 * stem's `ㄹ`-less form ({@link L_STEMS}: `만드` of `만든대`), or 돌보다's `돌보`. The nouns the `대` rule keeps
 * (`해운대`, `천문대`, `현대`, `순대`) end in none of these.
 */
function reportedVerbStem(open: string): boolean {
  if (open.length < 2) return false;
  return (
    VERBS_IN_NA.has(open) ||
    VERBS_IN_SI.has(open) ||
    REGULAR_U_STEMS.has(open) ||
    /[르꾸]$/u.test(open) ||
    open === "돌보" ||
    (!hasFinalConsonant(open.slice(-1)) && L_STEMS.has(withFinal(open, FINAL_L)))
  );
}

/**
 * Whether a stem of two or more syllables read off the reported `-ㄴ대` ends as a verb's (`나온대`, `보낸대`,
 * `옮긴대`, `오신대`), not as a noun before the Sino-Korean `대` (`해운대`, `부산대`, `천문대`, `현대`, `십자인대`):
 * a motion verb or `주`/`보`/`지` after `-아/-어` (`나오`, `들어가`, `빌려주`), `내`/`두` (`보내`, `그만두`), the honorific `시`
 * after an open syllable, or a ㅣ stem in ㄹ ㄱ ㅋ ㅊ ㅎ (`걸리`, `옮기`, `시키`, `가르치`).
 */
function reportedAfter(open: string): boolean {
  const last = open.slice(-1);
  const before = open.slice(-2, -1);
  const { initial, medial } = jamo(last);
  // Listed verb stems that read as nothing else (session 66: `만난대`, `마신대`, `배운대`, `모른대`, `만든대`, `바꾼대`).
  if (reportedVerbStem(open)) return true;
  const afterAEo = HANGUL.test(before) && !hasFinalConsonant(before) && FUSED_A_EO_VOWELS.has(jamo(before).medial);
  if (/[가오주보지]/u.test(last)) return afterAEo;
  if (last === "내" || last === "두") return true;
  if (last === "시") return honorificSiAfter(before) && !VERBS_IN_SI.has(open);
  return medial === MEDIAL.i && [INITIAL_R, 0, 15, 14, INITIAL_H].includes(initial);
}

/**
 * The stem of a vowel stem's plain present `-ㄴ다` whose `ㄴ` fused into its last syllable (session 65:
 * `보낸다` -> `보내`, `어울린다` -> `어울리`, `간다고` -> `가`, `온대` -> `오`, `산다` -> `사` and, by
 * {@link droppedL}, `살`), or `undefined`. A consonant stem takes `-는다` (`먹는다`), read by the ending list.
 * After one syllable only for the stems {@link OPEN_VERB_STEMS}, {@link MOTION_STEMS} and the listed ㄹ stems
 * ({@link L_STEMS}: `논다` -> `놀`): `신다`, `안다` (hug) keep their own ㄴ, and no noun is read so. Not
 * after `-는`/`-은` (the consonant stem's `-는다`) nor a stem in `안` (`껴안다`), nor the nouns
 * {@link NOUNS_LIKE_PRESENT_N}. The word up to its `ㄴ` is kept too (`adnominal`): it is the adnominal a
 * question asks with (`지훈이 보낸 앱은?`, `고모가 오신 날은?`), which stays whole ({@link adnominalStem});
 * without it korean-heldout10 lost two items whose answer said `보낸다`, `오신대`.
 */
function presentNStem(word: string): { stem: string; adnominal: string } | undefined {
  const ending = PRESENT_N_ENDINGS.find((e) => word.endsWith(e) && word.length > e.length);
  if (ending === undefined || NOUNS_LIKE_PRESENT_N.some((noun) => word.startsWith(noun) || word.endsWith(noun))) return undefined;
  const before = word.slice(0, -ending.length);
  const last = before.slice(-1);
  if (!HANGUL.test(before) || jamo(last).final !== FINAL_N || /[는은안]/u.test(last)) return undefined;
  const { initial, medial } = jamo(last);
  const open = before.slice(0, -1) + syllable(initial, medial);
  // The honorific `-시-` after one open syllable (`가신다` -> `가`), as {@link promiseStem} reads `가실게`; longer stems lose it in {@link stemOf}.
  if (
    open.length === 2 &&
    open.endsWith("시") &&
    honorificSiAfter(open.slice(0, -1)) &&
    !VERBS_IN_SI.has(open) &&
    !HONORIFIC_VERBS.has(open)
  )
    return { stem: open.slice(0, -1), adnominal: before };
  if (before.length > 1) return !ending.startsWith("대") || reportedAfter(open) ? { stem: open, adnominal: before } : undefined;
  if (ending.startsWith("대")) return MOTION_STEMS.has(open) || OPEN_VERB_STEMS.has(open) ? { stem: open, adnominal: before } : undefined;
  if (MOTION_STEMS.has(open) || OPEN_VERB_STEMS.has(open) || KOREAN_STOP_STEMS.has(open)) return { stem: open, adnominal: before };
  const withL = withFinal(open, FINAL_L);
  return L_STEMS.has(withL) && !L_ADJECTIVES.has(withL) ? { stem: withL, adnominal: before } : undefined;
}

// The propositive `-자` (`가자`, `먹자`) and what is built on it: the reported `-자고(요)`, `-자마자` (as soon as), longest first.
const PROPOSITIVE_ENDINGS = ["자마자", "자고요", "자고", "자"];
/** One-syllable stems in ㄱ, ㅂ, ㅁ whose `-자` no noun spells (`먹자`, `찍자`; not `입자`, `감자`, `박자`). */
const VERBS_BEFORE_JA: ReadonlySet<string> = new Set("먹 잡 찍 돕 굽 눕 줍 뽑 씹 밟 긁".split(" "));
/** Nouns a listed stem's `-자` spells (`사자` lion, `타자` batter, `치자`, `숫자`), left whole. */
const NOUNS_IN_JA: ReadonlySet<string> = new Set("사자 타자 치자 차자 숫자".split(" "));

/**
 * The stem of a propositive `-자` (let's), bare or in `-자고(요)`, `-자마자` (session 65: `가자` -> `가`, `먹자고` ->
 * `먹`, `놀자` -> `놀`, `해보자` -> `해보`, `연결하자` -> `연결하`), or `undefined`. Nouns end in `자` far more often
 * (`혼자`, `개발자`, `관리자`, `감자`, `남자`, `배우자`), so only stems no such noun has: after one syllable a motion
 * or listed open verb ({@link OPEN_VERB_STEMS}), a final only native stems take ({@link NATIVE_FINALS}: `받자`,
 * `찾자`, `웃자`), the nouns those spell listed ({@link NOUNS_IN_JA}: `사자`, `타자`, `숫자`), a listed stem in ㄱ ㅂ ㅁ ({@link VERBS_BEFORE_JA}) or ㄹ
 * ({@link L_STEMS}: `놀자`, not the noun `팔자`); after two or more, an auxiliary after `-아/-어` (`해보자`,
 * `도와주자`), a listed verb in 나 or 시, or a stem in `내`, `르`, `치`, `키`, a regular `-우` stem (not `배우`) or a ㄹ
 * stem (`보내자`, `고르자`, `가르치자`, `시키자`, `싸우자`, `만들자`). Not the light verb's `-하자` (`정산하자`: its noun
 * is already a bigram of the word; read as `정산` it shortened a korean-trip-chat turn, which took rank 3 from an answer).
 */
function propositiveStem(word: string): { stem: string } | undefined {
  const ending = PROPOSITIVE_ENDINGS.find((e) => word.endsWith(e) && word.length > e.length);
  if (ending === undefined) return undefined;
  const before = word.slice(0, -ending.length);
  if (!HANGUL.test(before)) return undefined;
  const last = before.slice(-1);
  const { final } = jamo(last);
  if (before.length === 1) {
    if (NOUNS_IN_JA.has(`${last}자`)) return undefined;
    const open = final === 0 && (MOTION_STEMS.has(last) || OPEN_VERB_STEMS.has(last));
    const l = final === FINAL_L && L_STEMS.has(last) && !L_ADJECTIVES.has(last) && last !== "팔";
    return open || l || NATIVE_FINALS.has(final) || VERBS_BEFORE_JA.has(last) ? { stem: last } : undefined;
  }
  const link = before.slice(-2, -1);
  const afterAEo = !hasFinalConsonant(link) && FUSED_A_EO_VOWELS.has(jamo(link).medial);
  const verb =
    (AUXILIARY_VERBS.has(last) && afterAEo) ||
    VERBS_IN_NA.has(before) ||
    VERBS_IN_SI.has(before) ||
    /[내르치키]$/u.test(before) ||
    (REGULAR_U_STEMS.has(before) && before !== "배우") ||
    L_STEMS.has(before) ||
    (final !== 0 && NATIVE_FINALS.has(final));
  return verb ? { stem: before } : undefined;
}

const FINAL_B = 17; // ㅂ as a final consonant: the formal ending fused into a vowel stem (갑니다, 씁니까)
const FINAL_L = 8; // ㄹ
// The formal (합쇼체) endings that follow that ㅂ: `-ㅂ니다`, `-ㅂ니까`, `-ㅂ시다`, `-ㅂ시오`.
const FORMAL_ENDINGS = ["니까요", "니다", "니까", "시다", "시오"];
// Syllables of `-습니다`, `합니다` and `입니다`, which the ending list reads whole.
const FORMAL_READ_WHOLE = new Set(["습", "합", "입"]);

/**
 * The stem of a formal (합쇼체) verb whose ending fused its ㅂ into the stem's last syllable
 * (`삽니다` -> `사`, `나옵니다` -> `나오`, `드립니다` -> `드리`, `갑시다` -> `가`), the honorific
 * `-시-` fused the same way taken off too (`기다리십시오` -> `기다리`, `받으십시오` -> `받`,
 * `가십니까` -> `가`), or `undefined`. Only a vowel stem takes this form (a consonant stem takes
 * `-습니다`, read by the ending list), so the ㅂ is never the stem's own; a stem in ㄹ loses its ㄹ
 * before it (`살다` -> `삽니다`) and is read as the vowel stem (`사`).
 */
function formalStem(word: string): { stem: string } | undefined {
  for (const ending of FORMAL_ENDINGS) {
    if (!word.endsWith(ending) || word.length < ending.length + 1) continue;
    const fused = word.slice(-ending.length - 1, -ending.length);
    const { initial, medial, final } = jamo(fused);
    if (final !== FINAL_B || FORMAL_READ_WHOLE.has(fused)) return undefined;
    let stem = word.slice(0, -ending.length - 1);
    if (fused !== "십" || VERBS_IN_SI.has(`${stem}시`)) stem += syllable(initial, medial);
    // The linking `으` after a consonant stem (`받으십시오`, `받읍시다`).
    stem = withoutLinkingVowel(stem);
    return stem === "" ? undefined : { stem };
  }
  return undefined;
}

// Vowels a verb stem's last vowel contracts with the ending `-어` into (옮기+어 -> 옮겨, 배우+어 -> 배워).
const CONTRACTED_VOWELS: ReadonlyMap<number, number> = new Map([
  [MEDIAL.yeo, MEDIAL.i],
  [MEDIAL.wo, MEDIAL.u],
]);
// The plain vowels those contract from (ㅣ, ㅜ): an open stem syllable with one is a verb's (`그리`, `맞추`).
const PLAIN_STEM_VOWELS: ReadonlySet<number> = new Set(CONTRACTED_VOWELS.values());

/**
 * The verb stem a 반말 or 해요체 form hides by contraction, when `stem` ends in one: the vowels
 * `ㅣ+ㅓ` and `ㅜ+ㅓ` (`옮겨` -> `옮기`, `다녀` -> `다니`, `나눠` -> `나누`, `배워` -> `배우`) and the
 * `르` irregular (`몰라` -> `모르`, `불러` -> `부르`), so `짐 옮겨` meets `짐 옮기고`. `undefined`
 * when `stem` ends in no such form.
 */
function verbBaseOf(stem: string): string | undefined {
  const last = stem.slice(-1);
  // A listed noun is no contracted form (`기와` is no `기오`; session 62).
  if (!HANGUL.test(last) || NOUNS_LIKE_SUFFIXED.has(stem)) return undefined;
  const { initial, medial, final } = jamo(last);
  if (final !== 0) return undefined;
  // `놀라다` is a regular stem in 라 (`놀라요`, `놀라실까봐` are no `노르다`'s; session 65).
  if (last === "라" && stem.endsWith("놀라")) return undefined;
  if (last === "라" || last === "러") {
    const before = stem.slice(-2, -1);
    if (before === "" || jamo(before).final !== FINAL_L) return undefined;
    const b = jamo(before);
    return `${stem.slice(0, -2)}${syllable(b.initial, b.medial)}르`;
  }
  // `오` + `-아` is `와` (`나와`, `돌아와`; session 61); after a ㅗ it is an ㅂ irregular's (`도와`: 돕다).
  if (last === "와" && stem.length > 1 && jamo(stem.slice(-2, -1)).medial !== MEDIAL_O) return `${stem.slice(0, -1)}오`;
  // `보` + `-아` is `봐` (`돌봐`, `지켜봐`; session 63), which ends no noun, as `돌봤어` gives `돌보`.
  if (last === "봐" && stem.length > 1) return `${stem.slice(0, -1)}보`;
  const plain = CONTRACTED_VOWELS.get(medial);
  if (plain === undefined || (stem.length === 1 && initial === INITIAL_NG)) return undefined;
  return stem.slice(0, -1) + syllable(initial, plain);
}

const FINAL_N = 4; // ㄴ
const FINAL_S = 19; // ㅅ
const FINAL_H = 27; // ㅎ
const MEDIAL_O = 8; // ㅗ
// Initials (ㄸ ㅃ ㅆ ㅋ ㅍ; ㄲ after a fused past) whose syllable with ㅓ/ㅏ is, in a verb, a ㅡ stem's -어/-아 form (써, 바빠, 아파, 껐어).
const INITIAL = { kk: 1, tt: 4, pp: 8, ss: 10, k: 15, p: 17 } as const;

/**
 * The ㅅ irregular verbs (ㅅ 불규칙 용언), by stem: a closed class of six (`긋다`, `낫다`, `붓다`,
 * `잇다`, `젓다`, `짓다`); every other stem in ㅅ keeps it (`씻어`, `웃어`, `벗어`).
 */
const S_IRREGULAR: ReadonlySet<string> = new Set("긋 낫 붓 잇 젓 짓".split(" "));
/**
 * The ㄷ irregular verbs (ㄷ 불규칙 용언), by stem: a closed class (`걷다` walk, `듣다`, `묻다` ask,
 * `싣다`, `깨닫다`, `일컫다`; the rare `긷다`, `붇다` left out: their `길어`, `불어` are 길다's, 불다's);
 * `닫다`, `받다`, `믿다`, `걷다` roll up keep their ㄷ.
 */
const D_IRREGULAR: ReadonlySet<string> = new Set("걷 듣 묻 싣 깨닫 일컫".split(" "));
/**
 * Regular verbs whose stem ends in `우` after an open syllable (`배우다`, `싸우다`, `지우다`): their
 * `-어` form `배워` is the ㅂ irregular's shape (`추워`), which they are not (`지워` is not `집`).
 * A closed list (the causatives in `-우-` and a few more); an unlisted one only gains a term no
 * other word gives.
 */
const REGULAR_U_STEMS: ReadonlySet<string> = new Set(
  "배우 싸우 키우 비우 채우 세우 새우 지새우 피우 지우 깨우 외우 태우 데우 끼우 띄우 메우 씌우 치우 재우 가리우 돋우 여우 아우".split(" "),
);
/** Loanword nouns in `워`, not a verb's `-어` form (`샤워` is no `샵`). */
const NOUNS_IN_WO: ReadonlySet<string> = new Set(["샤워", "타워", "파워"]);
/** Loanword nouns in `파`/`퍼` after a syllable, not a ㅡ stem's `-아/-어` form (`소파` is no `소프`; session 62). */
const NOUNS_IN_PA: ReadonlySet<string> = new Set(["소파"]);
/** The ㅂ irregulars whose stem vowel is ㅗ (`돕다`, `곱다`): their `-아` form is `도와`, `고와`. */
const B_IRREGULAR_IN_O: ReadonlySet<string> = new Set(["돕", "곱"]);

/**
 * The ㅂ stem of a bare `-아` form in `와` (`도와`: 돕다; session 62), which the particle `와` would
 * otherwise leave as the noun `도`, or `undefined`: two syllables only, for {@link B_IRREGULAR_IN_O}.
 */
function bareWaOfB(word: string): string | undefined {
  if (word.length !== 2 || !word.endsWith("와")) return undefined;
  const stem = withFinal(word.slice(0, 1), FINAL_B);
  return B_IRREGULAR_IN_O.has(stem) ? stem : undefined;
}

/** `syllable` with its final consonant replaced by `final`. */
function withFinal(text: string, final: number): string {
  const { initial, medial } = jamo(text.slice(-1));
  return text.slice(0, -1) + syllable(initial, medial, final);
}

/**
 * The stem an irregular verb's form hides (session 61), or `undefined`: `before` is what precedes
 * the vowel-initial syllable `next` of the ending (`지` + `어요`, `추` + `워`, `들` + `었어요`).
 * - ㅅ irregular: the ㅅ falls before a vowel (`지어`, `지으세요`, `나아요`, `지은`) and comes back
 *   for the listed stems only ({@link S_IRREGULAR}).
 * - ㄷ irregular: the ㄷ turns ㄹ before a vowel (`들어`, `걸었어`, `물어`), put back for the listed
 *   stems ({@link D_IRREGULAR}); the ㄹ reading stays (`들어` is also 들다). Before `으` any ㄹ is a
 *   ㄷ's (a ㄹ stem takes no `으`: `들으면`, `걸으면`), as {@link withoutLinkingVowel} reads it.
 * - ㅂ irregular: the ㅂ turns `우` (`추우면`, `추워`, `추웠어`; `도와`, `도왔어` after ㅗ), an open
 *   class (`-롭다`, `-답다`, `-스럽다` adjectives), so the ㅂ is put back unless the stem is a
 *   regular `-우` verb ({@link REGULAR_U_STEMS}) or the word a loanword noun ({@link NOUNS_IN_WO}).
 */
function irregularBefore(before: string, next: string, verbal: boolean): string | undefined {
  const last = before.slice(-1);
  if (!HANGUL.test(last) || !HANGUL.test(next)) return undefined;
  const v = jamo(next);
  if (v.initial !== INITIAL_NG) return undefined;
  const x = jamo(last);
  const eu = v.medial === MEDIAL.eu && v.final === 0;
  const aEo = (v.medial === MEDIAL.eo || v.medial === MEDIAL.a) && (v.final === 0 || v.final === FINAL_SS);
  if (x.final === FINAL_L) {
    const withD = withFinal(before, FINAL_D);
    return verbal && (eu || (aEo && D_IRREGULAR.has(withD))) ? withD : undefined;
  }
  if (x.final !== 0) return undefined;
  const withS = withFinal(before, FINAL_S);
  if ((eu || aEo) && S_IRREGULAR.has(withS)) return withS;
  const withB = withFinal(before, FINAL_B);
  const u = (v.medial === MEDIAL.u && v.final === 0 && verbal) || (v.medial === MEDIAL.wo && (v.final === 0 || v.final === FINAL_SS));
  if (u && !REGULAR_U_STEMS.has(`${before}우`) && !NOUNS_IN_WO.has(before + next)) return withB;
  // `돕다`, `곱다` (ㅗ) take `와`: `도와`, `도왔어` (read `도오` once the tense is off).
  const wa = v.medial === MEDIAL.wa || (v.medial === MEDIAL_O && v.final === 0 && verbal);
  if (wa && x.medial === MEDIAL_O) return withB;
  return undefined;
}

/**
 * The ㅡ stem a `-어/-아` form elided its `ㅡ` from (session 61: `써` -> `쓰`, `바빠` -> `바쁘`,
 * `아파` -> `아프`, `예뻐` -> `예쁘`), or `undefined`. The `-어/-아` vowel follows the syllable before
 * (`ㅏ`/`ㅗ` take `ㅏ`: `바빠`, `고파`; else `ㅓ`: `예뻐`, `슬퍼`, and `ㅓ` after a one-syllable stem:
 * `써`, `커`, `떠`). Only after initials where a vowel stem's own syllable is rare: `ㅆ`, `ㅋ`, `ㄸ`
 * alone (`써`, `커`, `떠`) and, after another syllable, `ㅃ` and `ㅍ` (`바빠`, `예뻐`, `아파`); not
 * `ㄲ` (`내 꺼` is chat for `내 거`), `ㅆ`/`ㄸ` after a syllable (`벌써`, `어떠세요` of 어떻다), nor
 * `ㄱ`, `ㄹ`, `ㅇ`, whose `가`, `라`, `아` end most nouns.
 */
function elidedEu(stem: string, past = false): string | undefined {
  const last = stem.slice(-1);
  if (!HANGUL.test(last)) return undefined;
  const { initial, medial, final } = jamo(last);
  if (final !== 0 || (medial !== MEDIAL.eo && medial !== MEDIAL.a)) return undefined;
  // The past tense fused into the syllable (`껐어`, `슬펐어`; session 62) makes it a verb's: no noun,
  // loanword or chat's `꺼` (것) takes `-었-`, so `ㄲ` and `ㅍ` with `ㅓ` read then too.
  if (stem.length === 1) {
    const oneSyllable = initial === INITIAL.ss || initial === INITIAL.k || initial === INITIAL.tt || (past && initial === INITIAL.kk);
    return oneSyllable && medial === MEDIAL.eo ? syllable(initial, MEDIAL.eu) : undefined;
  }
  // `ㅍ` only with `ㅏ` (`아파`, `고파`): its `퍼` ends loanwords (`슈퍼`, `점퍼`) more often than `슬퍼`.
  if (initial !== INITIAL.pp && (initial !== INITIAL.p || (medial !== MEDIAL.a && !past))) return undefined;
  const before = stem.slice(-2, -1);
  if (!HANGUL.test(before)) return undefined;
  const bright = jamo(before).medial === MEDIAL.a || jamo(before).medial === MEDIAL_O;
  return (bright ? medial === MEDIAL.a : medial === MEDIAL.eo) ? stem.slice(0, -1) + syllable(initial, MEDIAL.eu) : undefined;
}

/**
 * The ㅎ irregular adjectives (ㅎ 불규칙 용언) by stem, colours and shapes (빨갛다, 파랗다, 노랗다,
 * 하얗다, 까맣다, 누렇다, 동그랗다, 커다랗다, 조그맣다, ...): a closed class but for 이렇다/그렇다/저렇다/
 * 어떻다, which are function words ({@link KOREAN_STOP_STEMS}).
 */
const HIEUT_IRREGULAR: readonly string[] =
  "빨갛 파랗 노랗 하얗 까맣 누렇 허옇 퍼렇 동그랗 둥그렇 커다랗 조그맣 기다랗 말갛 뽀얗 새빨갛 새파랗 새하얗 새까맣 시뻘겋 시퍼렇 시커멓".split(
    " ",
  );
/** The `-아/-어` forms of {@link HIEUT_IRREGULAR} that are nouns too (`노래` a song, `파래` a seaweed): see {@link hieutStem}. */
const NOUNS_LIKE_HIEUT: ReadonlySet<string> = new Set(["노래", "파래"]);
/** The MEDIALs a ㅎ stem's vowel turns into with `-아/-어` (`빨개`, `하얘`, `누레`, `허예`). */
const HIEUT_FUSED_VOWEL: ReadonlyMap<number, number> = new Map([
  [MEDIAL.a, MEDIAL.ae],
  [2, 3], // ㅑ -> ㅒ
  [MEDIAL.eo, MEDIAL.e],
  [MEDIAL.yeo, 7], // ㅕ -> ㅖ
]);
/**
 * Each form a ㅎ irregular's stem takes in {@link stemOf} once its ending is off, with the stem: the ㅎ
 * dropped before `-(으)`, `-ㄴ`, `-ㄹ`, `-시-` (`빨가`: `빨가면`, `빨간데`, `빨가세요`), the adnominal
 * `-ㄴ` (`빨간`, `조그만`), and the `-아/-어` fused into the vowel (`빨개`: `빨개요`, `빨갰어`).
 */
const HIEUT_FORMS: ReadonlyMap<string, string> = new Map(
  HIEUT_IRREGULAR.flatMap((stem) => {
    const { initial, medial } = jamo(stem.slice(-1));
    const head = stem.slice(0, -1);
    const fused = HIEUT_FUSED_VOWEL.get(medial);
    return [
      [head + syllable(initial, medial), stem],
      [head + syllable(initial, medial, FINAL_N), stem],
      ...(fused === undefined ? [] : [[head + syllable(initial, fused), stem] as const]),
    ] as const;
  }),
);

/**
 * The ㅎ irregular's stem a form hides (session 63: `빨개요` -> `빨갛`, `하얀` -> `하얗`, `노란데` ->
 * `노랗`; {@link HIEUT_FORMS}), or `undefined`; a form that is a noun too ({@link NOUNS_LIKE_HIEUT})
 * only with the past fused in or `-서` after it (`노랬어`, `파래서`), which no noun takes.
 */
function hieutStem(word: string, stem: string): string | undefined {
  // The whole word first: a particle may end an adnominal (`조그만` is no `조그` + `만`).
  const found = HIEUT_FORMS.get(word) ?? HIEUT_FORMS.get(stem);
  if (found === undefined || !NOUNS_LIKE_HIEUT.has(stem)) return found;
  return word.startsWith(withFinal(stem, FINAL_SS)) || word.startsWith(`${stem}서`) ? found : undefined;
}

/**
 * The stem of an irregular verb's form (ㅅ, ㄷ, ㅂ irregulars and ㅡ elision; session 61), read from
 * `word` and the `stem` {@link stemOf} left: the vowel-initial syllable is the ending's first
 * (`지` + `어요`, `들` + `었어`) or the stem's last (`지으`, `추워`, `도와`), or the stem's last
 * syllable elided a `ㅡ` (`써`, `바빠`). `undefined` when none applies.
 */
function irregularStem(word: string, stem: string, verbal: boolean): string | undefined {
  if (stem === "" || !HANGUL.test(stem)) return undefined;
  // `들어가다`, `들어오다` (to enter) are 들다's, never 듣다's.
  if (/들어[가갔갈오와왔올]/u.test(word)) return undefined;
  if (verbal && stem.length < word.length && word.startsWith(stem)) {
    const after = irregularBefore(stem, word.charAt(stem.length), true);
    if (after !== undefined) return after;
  }
  if (stem.length >= 2) {
    const inStem = irregularBefore(stem.slice(0, -1), stem.slice(-1), verbal);
    if (inStem !== undefined) return inStem;
  }
  // Whether `word` holds the stem's last syllable with the past tense's ㅆ fused into it (`껐` for `꺼`),
  // or the connective `-서` after it (`꺼서`; session 63), which chat's `꺼` (것) never takes: a verb's either way.
  const past =
    (word.startsWith(stem.slice(0, -1)) && word.charAt(stem.length - 1) === withFinal(stem.slice(-1), FINAL_SS)) ||
    (verbal && stem.length === 1 && word.startsWith(`${stem}서`));
  return kinshipTerm(stem) === undefined && !NOUNS_IN_PA.has(stem) ? elidedEu(stem, past) : undefined;
}

/**
 * Irregular English verb forms (past, past participle, `goes`) and plurals, by their base form, so
 * `went` meets `go` and `bought` meets `buy` as `moved` meets `move`. Forms that are as often
 * another word are left out (`rose`, `lay`, `bore`, `wound`, `ground`, `tore`, `stuck`, `bit`, `lit`).
 */
const ENGLISH_IRREGULAR: ReadonlyMap<string, string> = new Map(
  (
    "went:go gone:go goes:go made:make bought:buy took:take taken:take got:get gotten:get ran:run met:meet began:begin begun:begin " +
    "found:find gave:give given:give felt:feel left:leave kept:keep told:tell thought:think brought:bring built:build " +
    "taught:teach caught:catch wrote:write written:write drew:draw drawn:draw sang:sing sung:sing won:win lost:lose " +
    "spent:spend sold:sell fell:fall fallen:fall flew:fly flown:fly grew:grow grown:grow knew:know known:know " +
    "became:become came:come ate:eat eaten:eat drove:drive driven:drive rode:ride ridden:ride swam:swim swum:swim " +
    "heard:hear held:hold led:lead paid:pay said:say sent:send sat:sit stood:stand understood:understand wore:wear " +
    "worn:wear broke:break broken:break chose:choose chosen:choose forgot:forget forgotten:forget fought:fight " +
    "slept:sleep woke:wake woken:wake spoke:speak spoken:speak meant:mean saw:see seen:see threw:throw thrown:throw " +
    "hid:hide hidden:hide shot:shoot hung:hang dug:dig fed:feed done:do died:die dies:die lied:lie tied:tie " +
    "children:child men:man women:woman feet:foot teeth:tooth mice:mouse"
  )
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);

/**
 * A British spelling written the American way (session 57), so `square metres` meets `square
 * meters` and `colour` meets `color`: `-our-` after two or more letters as `-or-` (`colour`,
 * `favourite`, `neighbour`; `hour`, `four`, `your` have fewer), a consonant and `-re` ending the word
 * as `-er` (`metre`, `centre`, `litres`; `more`, `fire`, `figure` have a vowel before it), and
 * `-ise`/`-isation`/`-yse` after three or more letters as `-ize`/`-ization`/`-yze` (`organised`,
 * `analyse`). Both spellings give one term; a word that merely looks British (`acre`, `genre`)
 * still gives the same term on both sides.
 */
function americanSpelling(word: string): string {
  return word
    .replace(/(?<=[a-z]{2})our/gu, "or")
    .replace(/(?<=[a-z]{2}[^aeiou])re(s?)$/u, "er$1")
    .replace(/(?<=[a-z]{3})is(e|es|ed|ing|ation|ations)$/u, "iz$1")
    .replace(/(?<=[a-z]{3})ys(e|es|ed|ing)$/u, "yz$1");
}

/**
 * Light English stemming: irregular forms read as their base ({@link ENGLISH_IRREGULAR}: `went`
 * -> `go`), then plural, `-ied` (as `-ies`: `tried` -> `try`), `-ing`, `-ed`, and a final `e`, so
 * `move`, `moved`, `moving` meet, and `make`, `made`, `making` too.
 */
export function stemEnglish(word: string): string {
  let w = ENGLISH_IRREGULAR.get(word) ?? americanSpelling(word);
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && (w.endsWith("sses") || w.endsWith("shes") || w.endsWith("ches") || w.endsWith("xes"))) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  // `-ied` as `-ies` (`tried`, `tries` -> `try`; session 55: `tried` was `tri`, `studied` `studi`).
  if (w.length > 4 && w.endsWith("ied")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  // Doubled final consonant left by -ing/-ed (`running` -> `runn` -> `run`).
  if (w.length > 3 && /([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * Splits text into terms (see the module comment): {@link analysisText}, lowercase, stop words dropped, English
 * stemmed, Korean particles stripped and long Korean stems also as syllable bigrams. Pure and
 * deterministic; the same function serves documents and queries.
 *
 * @example
 * tokenize("부산으로 이사했어요"); // ["부산", "이사"]
 * tokenize("Where do I live? Busan's nice"); // ["liv", "busan", "nic"]
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const analysed = analysisText(text);
  const matches = Array.from(analysed.matchAll(WORD));
  const words = matches.map((match) => match[0]);
  words.forEach((word, i) => {
    // A month name is one term however it is written (`May`, `5월`, a timestamp's month): see date-terms.
    const month = /^[a-z]+$/i.test(word) ? englishMonth(word, words[i - 1], words[i + 1]) : undefined;
    const day = i > 0 && out.length > 0 && (out[out.length - 1] as string).startsWith("month:") ? koreanDay(word) : undefined;
    // `다음 주`, `지난 해` written apart: the first word is read as the word chat writes together (`다음주`, `작년`).
    const spacedTime =
      isHangulStart(word) && spacesBetween(analysed, matches[i], matches[i + 1])
        ? relativeTimeApart(word, words[i + 1] as string)
        : undefined;
    if (spacedTime !== undefined) out.push(spacedTime);
    else if (month !== undefined) out.push(monthTerm(month));
    else if (day !== undefined) out.push(String(day));
    else if (word.length > 5 && DATE_SEPARATOR.test(word)) {
      // A date in digits (no other word holds a dot, a slash or a space) gives the terms of
      // `2026년 3월 2일`: the year, the month, the day.
      const [, year, monthNumber, day] = NUMERIC_DATE.exec(word) as RegExpExecArray;
      out.push(year as string, monthTerm(Number(monthNumber)), String(Number(day)));
    } else if (isDigit(word) && MONTH_DAY.test(word)) {
      const [, monthNumber, day] = MONTH_DAY.exec(word) as RegExpExecArray;
      out.push(monthTerm(Number(monthNumber)), String(Number(day)));
    } else if (isDigit(word) && GROUPED_NUMBER.test(word)) out.push(word.replaceAll(",", ""));
    else {
      // A number written apart at 만 (`만 이천 원`, `3만 5천원`): the part below 만 adds to the one
      // before it, and is not read alone (`이천` of `만 이천` is not 2000).
      const below =
        i > 0 && spacesBetween(analysed, matches[i - 1], matches[i]) ? belowTenThousand(words[i - 1] as string, word) : undefined;
      // The future's bound noun after its verb (`거야` of `먹을 거야`) was read with the verb: no term
      // of its own (`거지` there is no beggar, `거야` no topic).
      const boundNoun = i > 0 && futureAdnominal(words[i - 1] as string, analysed, matches[i - 1], matches[i]) !== words[i - 1];
      if (below === undefined) {
        if (!boundNoun) for (const term of wordTerms(futureAdnominal(word, analysed, matches[i], matches[i + 1]))) out.push(term);
      } else {
        for (const term of wordTerms(word)) if (term !== String(below.part)) out.push(term);
        out.push(String(below.total));
      }
      // A unit alone before the counter 원 (`천 원`, `만 원`) is its number, as `천원` is.
      if (
        UNIT_WORDS[word] !== undefined &&
        i + 1 < words.length &&
        spacesBetween(analysed, matches[i], matches[i + 1]) &&
        isWonCounter(words[i + 1] as string)
      ) {
        out.push(String(UNIT_WORDS[word]));
      }
      // A native numeral before its counter (`두 마리`, `네 살`, `한잔`) is its number, as `2마리` is.
      const counted = isHangulStart(word) ? countedNumber(word, words[i + 1], matches[i], matches[i + 1], analysed) : undefined;
      if (counted !== undefined) out.push(String(counted));
    }
    // The counter counts the number only after nothing but spaces: `네, 살게요` is a yes and a verb.
    const next = words[i + 1];
    const apart = next !== undefined && /^\s+$/u.test(analysed.slice((matches[i]?.index ?? 0) + word.length, matches[i + 1]?.index));
    if (saysAnAge(word, apart ? next : undefined)) out.push(AGE_TERM);
    // A sum of money meets a question about one (`$380` / `what did it cost`, `45만 원` / `얼마`).
    const kind = moneyWord(word);
    const says =
      kind !== "none" &&
      saysMoney(
        word,
        kind,
        () => analysed[(matches[i]?.index ?? 0) - 1] ?? "",
        // The word before glued too: `3,000원` is two words (`3,000`, `원`).
        () =>
          i > 0 && /^\s*$/u.test(analysed.slice((matches[i - 1]?.index ?? 0) + (words[i - 1] as string).length, matches[i]?.index))
            ? words[i - 1]
            : undefined,
        (n) =>
          words.slice(i, i + n + 1).length === n + 1 &&
          matches.slice(i, i + n).every((m, k) => spacesBetween(analysed, m, matches[i + k + 1]))
            ? words[i + n]
            : undefined,
      );
    if (says) out.push(MONEY_TERM);
  });
  return out;
}

/**
 * The word to read for `word`: `word` itself, or, when it ends in the adnominal `ㄹ` and the next
 * word (only spaces between) is the future's bound noun ({@link FUTURE_BOUND_NOUNS}: `갈 거예요`,
 * `먹을 거야`, `할 겁니다`), `word` with the promise ending, read as `갈게` is (session 60): the same
 * fused `ㄹ` on the same stem, so `갈 거예요` meets `가요` and `쓸 거예요` meets `써요`.
 */
function futureAdnominal(word: string, text: string, at: RegExpMatchArray | undefined, next: RegExpMatchArray | undefined): string {
  const guess = guessBeforeBoda(word, text, at, next);
  if (guess !== undefined) return guess;
  const last = word.slice(-1);
  if (!HANGUL.test(last) || jamo(last).final !== FINAL_L || next === undefined || !FUTURE_BOUND_NOUNS.has(next[0])) return word;
  return spacesBetween(text, at, next) ? `${word}게` : word;
}

/** 보다's forms as the auxiliary of a guess or a worry takes them (`먹나 봐`, `갈까 봐요`, `아픈가 봤어`). */
const AUXILIARY_BODA: ReadonlySet<string> = new Set("봐 봐요 봐서 봤어 봤어요 봤다 보다 봅니다".split(" "));

/**
 * `word` glued to the auxiliary 보다 after it (session 64), when the next word (only spaces between) is one of
 * {@link AUXILIARY_BODA} and `word` ends as the guess `-나`, `-(으)ㄴ가` or the worry `-(으)ㄹ까` does: `먹나 봐`
 * is read as `먹나봐` (`먹`), `아픈가 봐` as `아픈가봐` (`아프`), as chat glues them; else `undefined`. One
 * syllable alone is no such word (`가 봐` is 가다 and the auxiliary).
 */
function guessBeforeBoda(
  word: string,
  text: string,
  at: RegExpMatchArray | undefined,
  next: RegExpMatchArray | undefined,
): string | undefined {
  if (word.length < 2 || next === undefined || !AUXILIARY_BODA.has(next[0]) || !spacesBetween(text, at, next)) return undefined;
  const before = word.slice(-2, -1);
  const guess =
    word.endsWith("나") || word.endsWith("까") || (word.endsWith("가") && HANGUL.test(before) && jamo(before).final === FINAL_N);
  return guess ? `${word}봐` : undefined;
}

/** Whether only spaces part two words of `text`. */
function spacesBetween(text: string, before: RegExpMatchArray | undefined, after: RegExpMatchArray | undefined): boolean {
  if (before?.index === undefined || after?.index === undefined) return false;
  return /^\s+$/u.test(text.slice(before.index + before[0].length, after.index));
}

/** Units of a number, as a word of their own or after digits (`천`, `2천`, `3만`). */
const UNIT_WORDS: Readonly<Record<string, number>> = { 만: 10_000, 천: 1000, 백: 100 };

/**
 * `원` alone or with a particle or ending (`원`, `원이에요`, `원짜리`, `원씩`), the copula's tense
 * too (`원이었어`, `원이었는데`; session 61), or `어치`, with chat's jamo after it or not
 * (`원이요ㅎㅎ`): the counter of money. The one reading of
 * it: money (`money-terms.ts`) reads it too.
 */
export function isWonCounter(word: string): boolean {
  if (!word.startsWith("원")) return false;
  // Chat's laughter or tears written onto the word (`원이요ㅎㅎ`, `원ㅠㅠ`): letters of no syllable.
  const tail = word.slice(1).replace(/[\u3131-\u318e]+$/u, "");
  return tail === "" || tail === "어치" || SUFFIX_SET.has(tail) || stemOf(`원${tail}`).stem === "원";
}

/** The units of a Korean number above 9,999, largest first: each closes a section below it. */
const LARGE_UNITS: ReadonlyArray<readonly [string, number]> = [
  ["억", 100_000_000],
  ["만", 10_000],
];

/**
 * The value of a number written in digits, Sino-Korean numerals or both, with the units `만` and
 * `억` (session 61: `45만`, `3만5천`, `5억`, `팔십만`, `만`, `3000`, `2천`, `백만`), or
 * `undefined`; digits in a section before `만`/`억` at most 4. A number without a digit and
 * without a unit is no amount (`일` of `일원` is no number). Digits with a comma or a point are
 * other words of the text (`3,000`, `1.5`): the caller reads the commas off.
 */
export function koreanAmountValue(head: string): number | undefined {
  if (head === "" || !/[\d십백천만억]/u.test(head)) return undefined;
  let total = 0;
  let rest = head;
  for (const [unit, scale] of LARGE_UNITS) {
    const at = rest.indexOf(unit);
    if (at < 0) continue;
    const part = at === 0 ? 1 : sectionValue(rest.slice(0, at), 4);
    if (part === undefined || part === 0) return undefined;
    total += part * scale;
    rest = rest.slice(at + 1);
  }
  if (rest === "") return total;
  const low = sectionValue(rest, total > 0 ? 4 : 12);
  return low === undefined ? undefined : total + low;
}

/** A section of a number below `만` (`45`, `5천`, `2천5백`, `이천`, `오백`), digits at most `maxDigits`. */
function sectionValue(section: string, maxDigits: number): number | undefined {
  if (/^\d+$/u.test(section)) return section.length <= maxDigits ? Number(section) : undefined;
  if (!/\d/u.test(section)) return HANGUL.test(section) ? sinoKoreanValue(section) : undefined;
  const units = /^(?:(\d)?천)?(?:(\d)?백)?(?:(\d)?십)?(\d{0,3})$/u.exec(section);
  if (units === null) return undefined;
  const [, thousands, hundreds, tens, ones] = units;
  const digit = (written: string | undefined, unit: string): number =>
    written !== undefined ? Number(written) : section.includes(unit) ? 1 : 0;
  return digit(thousands, "천") * 1000 + digit(hundreds, "백") * 100 + digit(tens, "십") * 10 + Number(ones || 0);
}

/**
 * The value of a sum counted in `원` written as one word: a number ({@link koreanAmountValue}),
 * then the counter ({@link isWonCounter}: `45만원`, `3000원이요`, `3만5천원`, `팔십만원에`,
 * `만원씩`, `5억원이었어`), or `undefined` (`일원이`, `원룸`, `공원`).
 */
export function wonAmountValue(word: string): number | undefined {
  const at = word.indexOf("원");
  if (at < 1 || !isWonCounter(word.slice(at))) return undefined;
  return koreanAmountValue(word.slice(0, at));
}

/**
 * The value of a word that writes a number with a unit, in Sino-Korean numerals or in digits and a
 * unit (`이천`, `만`, `3만`, `오백`, `2천원이에요`), the counter `원` and a particle or ending
 * allowed after it, or `undefined`. The whole word when it is a number (`이십이` is 22), else the
 * shortest number that leaves such a tail (`이만이야` is 20000 and `이야`).
 */
function unitNumberValue(word: string): number | undefined {
  for (const end of [word.length, ...Array.from({ length: word.length - 1 }, (_, k) => k + 1)]) {
    const tail = word.slice(end);
    const rest = tail.startsWith("원") ? tail.slice(1) : tail;
    if (rest !== "" && !SUFFIX_SET.has(rest)) continue;
    const head = word.slice(0, end);
    const digits = /^(\d{1,4})([만천백])$/u.exec(head);
    if (digits) return Number(digits[1]) * (UNIT_WORDS[digits[2] as string] as number);
    if (!HANGUL.test(head) || !/[십백천만]/u.test(head)) continue;
    const value = sinoKoreanValue(head);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * A number written apart at 만 (`만 이천`, `이만 삼천 원`, `1만 2천원`): `previous` a whole number
 * of 만 (ending in `만`, nothing after it), `word` a number below 10,000 with a unit. The part
 * below (`word`'s own value) and the total, or `undefined`.
 */
function belowTenThousand(previous: string, word: string): { part: number; total: number } | undefined {
  if (!previous.endsWith("만")) return undefined;
  const high = unitNumberValue(previous);
  if (high === undefined || high % 10_000 !== 0) return undefined;
  const part = unitNumberValue(word);
  return part !== undefined && part > 0 && part < 10_000 ? { part, total: high + part } : undefined;
}

/** Whether `word` starts with an ASCII digit. */
function isDigit(word: string): boolean {
  const code = word.charCodeAt(0);
  return code >= 48 && code <= 57;
}

/** Whether `word` starts with a Hangul syllable. */
function isHangulStart(word: string): boolean {
  const code = word.charCodeAt(0);
  return code >= 0xac00 && code <= 0xd7a3;
}

/** The native numerals that stand before a counter (`한 잔`, `스무 살`), by value. */
const NATIVE_BEFORE_COUNTER: ReadonlyMap<string, number> = new Map([
  ["한", 1],
  ["두", 2],
  ["세", 3],
  ["석", 3],
  ["네", 4],
  ["넉", 4],
  ["열", 10],
  ["스무", 20],
]);
/** Counters (단위 명사) a native numeral is read before. */
const COUNTERS = byLength(
  "살 마리 명 개 시 시간 번 달 잔 권 장 대 병 벌 켤레 그릇 가지 군데 사람 줄 채 송이 알 통 주 바퀴 판 끼 곡 정거장 정류장 층".split(" "),
);

/**
 * The value of a native numeral before a counter: written apart (`두 마리`: `word`, then `next`
 * after nothing but spaces) or together (`두마리`, `네살`), or `undefined`.
 */
function countedNumber(
  word: string,
  next: string | undefined,
  match: RegExpExecArray | RegExpMatchArray | undefined,
  nextMatch: RegExpExecArray | RegExpMatchArray | undefined,
  text: string,
): number | undefined {
  if (!HANGUL.test(word)) return undefined;
  // The longer numerals (`다섯`, `스물아홉`) give their number anywhere ({@link koreanNumber}).
  const apart = NATIVE_BEFORE_COUNTER.get(word);
  if (apart !== undefined) {
    if (next === undefined || match?.index === undefined || nextMatch?.index === undefined) return undefined;
    const between = text.slice(match.index + word.length, nextMatch.index);
    return /^\s+$/u.test(between) && isCounterWord(next, true) ? apart : undefined;
  }
  for (const [numeral, value] of NATIVE_BEFORE_COUNTER) {
    if (word.length > numeral.length && word.startsWith(numeral) && isCounterWord(word.slice(numeral.length))) return value;
  }
  return undefined;
}

/**
 * Whether `word` is a counter, alone or with a particle (`마리`, `번째`, `달에`), not a longer word
 * that starts like one (`시고요` of `두시고요`, `주머니`).
 */
function isCounterWord(word: string, apart = false): boolean {
  // Written apart the counter may also end a clause (`네 살이고`); written together only a particle follows.
  const follows = apart ? SUFFIX_SET : PARTICLE_SET;
  return COUNTERS.some((counter) => {
    if (!word.startsWith(counter)) return false;
    const rest = word.startsWith("째", counter.length) ? word.slice(counter.length + 1) : word.slice(counter.length);
    return rest === "" || follows.has(rest);
  });
}

const NATIVE_TENS: ReadonlyMap<string, number> = new Map(
  "열:10 스물:20 스무:20 서른:30 마흔:40 쉰:50 예순:60 일흔:70 여든:80 아흔:90".split(" ").map((pair) => {
    const [word, value] = pair.split(":") as [string, string];
    return [word, Number(value)];
  }),
);
const NATIVE_ONES: ReadonlyMap<string, number> = new Map(
  "하나:1 한:1 둘:2 두:2 셋:3 세:3 넷:4 네:4 다섯:5 여섯:6 일곱:7 여덟:8 아홉:9".split(" ").map((pair) => {
    const [word, value] = pair.split(":") as [string, string];
    return [word, Number(value)];
  }),
);

/**
 * The value of a native Korean numeral word that is no other word (`다섯`, `스물아홉`, `서른넷`,
 * `열두`), or `undefined`; the one-syllable forms (`한`, `두`, `열`) and `하나` only before a
 * counter ({@link countedNumber}), where they cannot be another word.
 */
function nativeNumber(word: string): number | undefined {
  for (const [tensWord, tens] of NATIVE_TENS) {
    if (!word.startsWith(tensWord)) continue;
    const rest = word.slice(tensWord.length);
    if (rest === "") return tensWord.length > 1 && tensWord !== "스무" ? tens : undefined;
    const ones = NATIVE_ONES.get(rest);
    return ones === undefined ? undefined : tens + ones;
  }
  const ones = NATIVE_ONES.get(word);
  return ones !== undefined && (word.length > 1 || "둘셋넷".includes(word)) && word !== "하나" ? ones : undefined;
}

const SINO_KOREAN_UNITS: Readonly<Record<string, number>> = { 십: 10, 백: 100, 천: 1000 };

/**
 * The value of a Sino-Korean numeral (`이` 2, `십` 10, `이십오` 25, `오천오백` 5500, `이백삼십만`
 * 2,300,000), or `undefined`: digits `일`-`구` each followed by a unit or ending the word, units
 * `십` < `백` < `천` in falling order, `만` at most once. The one reader of these numerals: a recall
 * term ({@link koreanNumber}) and a day ({@link koreanDay}) each put their own rule on top.
 */
function sinoKoreanValue(word: string): number | undefined {
  if (word === "") return undefined;
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  let lastUnit = Number.POSITIVE_INFINITY;
  for (const ch of word) {
    const d = SINO_KOREAN_DIGITS.indexOf(ch);
    if (d >= 0) {
      if (digit !== undefined) return undefined;
      digit = d + 1;
      continue;
    }
    const unit = SINO_KOREAN_UNITS[ch];
    if (unit !== undefined) {
      if (unit >= lastUnit) return undefined;
      section += (digit ?? 1) * unit;
      lastUnit = unit;
      digit = undefined;
      continue;
    }
    if (ch !== "만" || total > 0) return undefined;
    total = (section + (digit ?? 0) || 1) * 10_000;
    section = 0;
    digit = undefined;
    lastUnit = Number.POSITIVE_INFINITY;
  }
  return total + section + (digit ?? 0);
}

/**
 * The digits a Korean numeral word is also read as: a Sino-Korean numeral of at least two syllables
 * with a unit ({@link sinoKoreanValue}; a round number of 만 also as that count, as `230만` gives
 * `230`) or a native one ({@link nativeNumber}), so `오천오백 원` meets `5,500원` and `스물아홉`
 * meets `29살`. A word ending in `일` is left out (`이십일` is also `20일`, a day; `백일` a hundred
 * days).
 */
function koreanNumber(stem: string): string[] | undefined {
  const sino = stem.length < 2 || stem.endsWith("일") || !/[십백천만]/.test(stem) ? undefined : sinoKoreanValue(stem);
  if (sino !== undefined) return sino >= 10_000 && sino % 10_000 === 0 ? [String(sino), String(sino / 10_000)] : [String(sino)];
  const native = nativeNumber(stem);
  return native === undefined ? undefined : [String(native)];
}

/**
 * Whether `word` is a Sino-Korean numeral with `십`, `백` or `천` in it, two or more syllables, not
 * in `일` (`이십이`, `십이`; `이십일` is also the 20th, `천일` a thousand days: {@link numeralReadings}),
 * and no `일` before a unit (`일십` is not written).
 */
function isSinoNumeral(word: string): boolean {
  return (
    word.length >= 2 && !word.endsWith("일") && /[십백천]/u.test(word) && !/^일[십백천]/u.test(word) && sinoKoreanValue(word) !== undefined
  );
}

/**
 * The numbers a Hangul word that starts with a Sino-Korean numeral ({@link isSinoNumeral}) may
 * write, each reading with a particle, an ending or a counter after it (session 56): `이십이` is 22
 * (the whole word); `이십이에요` is 22 (`에요`) or 20 (`이에요`). A numeral in `일` is read as
 * days, as `20일` is (`이십일` the 20th, `천일` a thousand days, `삼십일일에` the 31st), and as its
 * own value only before a counter (`이십일명` is 21). Longest numeral first; a word that is a
 * numeral whole has that reading only.
 */
function numeralReadings(word: string): string[] {
  const out: string[] = [];
  for (let end = word.length; end >= 2; end -= 1) {
    const head = word.slice(0, end);
    const tail = word.slice(end);
    if (tail !== "" && !SUFFIX_SET.has(tail) && !isCounterWord(tail)) continue;
    if (isSinoNumeral(head)) out.push(String(sinoKoreanValue(head)));
    const dayOf = head.slice(0, -1);
    if (head.endsWith("일") && /[십백천]/u.test(dayOf) && !/^일[십백천]/u.test(dayOf)) {
      const counted = tail !== "" && !SUFFIX_SET.has(tail) ? sinoKoreanValue(head) : undefined;
      if (counted !== undefined) out.push(String(counted));
      const days = sinoKoreanValue(dayOf);
      if (days !== undefined) out.push(String(days));
    }
    if (tail === "" && out.length > 0) break;
  }
  return [...new Set(out)];
}

/**
 * The digits of a number in Sino-Korean numerals with a unit and the counter `원` written onto it
 * (`이천원`, `오천원`, `천원`: 1000), as `이천 원` apart gives; `undefined` for any other word (`일원`
 * is a member, no unit).
 */
function wonNumber(stem: string): string[] | undefined {
  if (stem.length < 2 || !stem.endsWith("원")) return undefined;
  const head = stem.slice(0, -1);
  const value = /[십백천만]/u.test(head) ? sinoKoreanValue(head) : undefined;
  return value === undefined ? undefined : [String(value)];
}

/**
 * A loanword's common spellings as one (`대쉬보드` -> `대시보드`, `쥬스` -> `주스`, `쵸콜릿` ->
 * `초콜릿`, `쉐프` -> `셰프`): the spellings the loanword rules replaced, which clients still write.
 * `쉬` is kept at a word's start and in the native `아쉬`, `숨쉬`, `손쉬`.
 */
function loanwordSpelling(stem: string): string {
  if (!/[쉬쉐쥬쵸챠츄]/.test(stem)) return stem;
  return stem
    .replace(/(?<=[^아숨손])쉬/g, "시")
    .replace(/쉐/g, "셰")
    .replace(/쥬/g, "주")
    .replace(/쵸/g, "초")
    .replace(/챠/g, "차")
    .replace(/츄/g, "추");
}

const SINO_KOREAN_DIGITS = "일이삼사오육칠팔구";

/**
 * Loanwords written in another form than the standard one, by that form (session 55): borrowed
 * from another language (`알러지`, from English, for the German `알레르기`) or spelled by the sound
 * (`메세지`, `케잌`, `까페`), which {@link loanwordSpelling}'s letter rules do not reach. Read in a
 * word before its stem is taken ({@link loanwordVariant}), so every particle form of either meets
 * (`알러지가` as `알레르기가`: `알러지` alone was read as the verb `아르다`). Only forms that are
 * no other word.
 */
const LOANWORD_VARIANTS: ReadonlyMap<string, string> = new Map(
  (
    "알러지:알레르기 앨러지:알레르기 메세지:메시지 케잌:케이크 컨셉:콘셉트 악세사리:액세서리 악세서리:액세서리 " +
    "까페:카페 쇼파:소파 렌트카:렌터카 비지니스:비즈니스 화이팅:파이팅 바베큐:바비큐 워크샵:워크숍 커피샵:커피숍 " +
    "리더쉽:리더십 멤버쉽:멤버십 인턴쉽:인턴십 프로포즈:프러포즈 팜플렛:팸플릿 디지탈:디지털 초콜렛:초콜릿 " +
    "에어콘:에어컨 레포트:리포트 타겟:타깃 썬크림:선크림 써비스:서비스 라떼:라테 " +
    "런닝머신:러닝머신 헬쓰:헬스 캐릭타:캐릭터 네비게이션:내비게이션 네비:내비 부페:뷔페"
  )
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);
const LOANWORD_VARIANT = new RegExp([...LOANWORD_VARIANTS.keys()].sort((a, b) => b.length - a.length).join("|"), "gu");

/** `word` with each loanword variant in it ({@link LOANWORD_VARIANTS}) written in its standard form. */
function loanwordVariant(word: string): string {
  return word.replace(LOANWORD_VARIANT, (variant) => LOANWORD_VARIANTS.get(variant) ?? variant);
}

/**
 * The day a Hangul word after a month names in Sino-Korean numerals (`삼월 이일` as `3월 2일`,
 * `이십일부터` as `20일부터`: the last `일` is the unit), or `undefined`: 1 to 31
 * ({@link sinoKoreanValue}), and no `일` before `십` (`일십` is not written; `십` alone is ten). Read
 * only after a month, where `이일` or `오일` cannot be another word.
 */
function koreanDay(word: string): number | undefined {
  if (!HANGUL.test(word)) return undefined;
  const stem = stripKoreanSuffix(word);
  if (!stem.endsWith("일") || stem.startsWith("일십")) return undefined;
  const day = sinoKoreanValue(stem.slice(0, -1));
  return day !== undefined && day <= 31 ? day : undefined;
}

/**
 * A word of two or more syllables, then bound nouns that only follow another word (`때`, `듯`,
 * `것`, `뿐`; `듯이` too), then a particle, an ending (`것뿐이야`) or nothing. Nouns that end in `때` (`그때`, `한때`) split
 * into a function word and lose nothing.
 */
const GLUED_BOUND_NOUN = /^([\uac00-\ud7a3]{2,}?)((?:때|듯이|듯|것|뿐)+)([\uac00-\ud7a3]*)$/;

/**
 * The possibility `-(으)ㄹ 수 있다/없다` written as one word (session 66: `갈수있어`, `먹을수없대`, `볼수도있고`): the
 * adnominal before `수` (in ㄹ), read alone as `갈 수 있어` written apart reads it (`수` and 있다/없다 are function
 * words). Reading that adnominal as the verb (`갈 수` as `갈게`: `가`), apart and glued, lost a recall-korean hit@5
 * (`부산에서 후쿠오카는 배로도 갈 수 있지?` met `어디로 이사 가나요?`): not done.
 */
const GLUED_POSSIBILITY = /^([\uac00-\ud7a3]+)수(?:도|는|가|밖에)?[있없][\uac00-\ud7a3]*$/;

/** Auxiliary verbs after `-아/-어` (`찾아 놓다`, `알아보다`, `써 두다`, `만들어 주다`), as {@link koreanStem} leaves them. */
const AUXILIARY_VERBS = new Set(["보", "노", "놓", "두", "주", "내", "버리", "드리"]);

/**
 * The main verb of a compound with an auxiliary verb written as one word (`찾아놨어` -> `찾`,
 * `알아보` -> `알`), or `undefined`: the term the same words written apart give (`찾아 놨어`), so
 * the spacing does not decide whether they meet.
 */
function mainVerbOf(stem: string): string[] {
  if (stem.length < 3) return [];
  const auxiliary = AUXILIARY_VERBS.has(stem.slice(-2)) ? stem.slice(-2) : stem.slice(-1);
  if (!AUXILIARY_VERBS.has(auxiliary)) return [];
  const before = stem.slice(0, -auxiliary.length);
  if (!/[아어해와워]$/.test(before) || before.length < 2) return [];
  // An irregular main verb gives its stem too, read from its polite form (`물어` as `물어요`: 묻,
  // `도와` as `도와요`: 돕; session 61); a `와`/`워` form is read so whole (`와` is no particle here).
  const read = stemOf(`${before}요`);
  const main = /[와워]$/.test(before) ? read.stem : koreanStem(before);
  return [main, read.irregular ?? ""].filter((verb) => verb !== "" && verb !== before);
}

/**
 * The main verb's terms of a stem in the auxiliary 보다 whose `-아/-어` fused into the main verb's last syllable
 * (session 66: `가봐`, `가봤어` -> `가`; `기다려봐` -> `기다리`; `바꿔볼게` -> `바꾸`; `써봐` -> `쓰`), which
 * {@link mainVerbOf} does not read (no `아`/`어` is left before `보`): the terms of the main verb's own `-아/-어` form
 * with `요` (`가요`, `기다려요`), as `가 봐` written apart gives `가`. After one syllable only a listed open verb
 * ({@link FUSED_A_EO_BEFORE_YA}: `가`, `타`, `써`, `와`; not the nouns `정보`, `바보`, `홍보`).
 */
function fusedMainBeforeBoda(stem: string): readonly string[] {
  if (stem.length < 2 || !stem.endsWith("보")) return [];
  const before = stem.slice(0, -1);
  const last = before.slice(-1);
  if (/[아어해와워돼]$/u.test(before) && before.length >= 2) return [];
  const { medial, final } = jamo(last);
  if (final !== 0 || !FUSED_A_EO_VOWELS.has(medial)) return [];
  if (before.length === 1 && !FUSED_A_EO_BEFORE_YA.has(before)) return [];
  return wordTerms(`${before}요`);
}

/**
 * The verb form after the negation `안`/`못` written onto it (session 66: `안먹어요`, `안잔다`, `못간대`, `안키워요`), whose
 * terms the word gives beside its own, so it meets `안 먹어요` written apart (the negation a function word), or
 * `undefined`. Read instead of the word's own terms, the word's shorter turn (`못먹겠어서` without `못먹`) took a
 * korean-heldout2 hit@3 from the answer; `못` keeps its older reading ({@link termsOfWord}). Only when the rest
 * reads as a verb with its ending (`안가요`, not the bare `안가`) whose stem no word in 안 or 못 spells: a listed verb
 * ({@link NEGATABLE_STEM}), or 하다/되다 (`안해`, `안돼`: `안 돼` gives `돼`); not `안녕하세요`, `안전해`, `안내해`
 * (a 하다 noun), `안아서` (안다, hug), `못생겼어`.
 */
function negatedVerb(word: string): string | undefined {
  if (word.length < 2 || (!word.startsWith("안") && !word.startsWith("못"))) return undefined;
  const rest = word.slice(1);
  if (KOREAN_STOPWORDS.has(rest) || PARTICLE_SET.has(rest) || SUFFIX_SET.has(rest)) return undefined;
  const read = stemOf(rest);
  if (!read.verbal || read.stem === "") return undefined;
  const stem = verbBaseOf(read.stem) ?? read.stem;
  return negatableStem(stem) || negatableStem(read.withL ?? "") || negatableStem(read.irregular ?? "") ? rest : undefined;
}

/** A verb stem {@link negatedVerb} reads after `안`/`못`: 하다, 되다, a motion or listed open verb, a listed ㄹ, 나, 시 or `-우` stem, or one syllable in a native final. */
function negatableStem(stem: string): boolean {
  if (stem === "") return false;
  if (stem === "하" || stem === "되" || MOTION_STEMS.has(stem) || OPEN_VERB_STEMS.has(stem) || VERBS_BEFORE_JA.has(stem)) return true;
  if (L_STEMS.has(stem) || VERBS_IN_NA.has(stem) || VERBS_IN_SI.has(stem) || REGULAR_U_STEMS.has(stem)) return true;
  return stem.length === 1 && NATIVE_FINALS.has(jamo(stem).final);
}

/** Most words whose terms {@link wordTerms} keeps; past it the oldest go first ({@link setBounded}). */
const WORD_TERMS_MEMO_ENTRIES = 50_000;
const wordTermsMemo = new Map<string, readonly string[]>();

/**
 * The terms of one word as {@link tokenize} writes it (a month aside, which depends on the words
 * around it): a pure function of the word, memoized by the word's text. A thread's vocabulary is
 * small next to its words, so indexing a thread a process has not seen (recall's message index,
 * fact-recall's index; issue 21) stems each distinct word once. Keyed by content only: the same
 * word always gives the same terms, so the memo can never change a result.
 */
function wordTerms(word: string): readonly string[] {
  let terms = wordTermsMemo.get(word);
  if (terms === undefined) {
    const out: string[] = [];
    termsOfWord(word.toLowerCase(), out);
    terms = out;
    // Long words are rare and each one is a distinct key: not kept.
    if (word.length <= 40) setBounded(wordTermsMemo, word, terms, WORD_TERMS_MEMO_ENTRIES);
  }
  return terms;
}

function termsOfWord(word: string, out: string[]): void {
  const written = word.replace(/['’](s|m|re|ve|ll|d|t)$/u, "");
  if (written === "") return;
  const raw = HANGUL.test(written) ? loanwordVariant(written) : written;
  if (HANGUL.test(raw)) {
    if (KOREAN_STOPWORDS.has(raw) || (raw.length <= 2 && SUFFIX_SET.has(raw))) return;
    // A relative time word is read as the word chat writes for it (`담주에` as `다음주`, `지난해` as `작년`).
    const time = relativeTimeWord(raw);
    if (time !== undefined) {
      out.push(time);
      return;
    }
    // A bound noun written onto the word before it (`먹는듯`, `발표때`, `어릴때는`): the terms of
    // that word, as `먹는 듯` written apart gives (the bound noun is a function word).
    const glued = GLUED_BOUND_NOUN.exec(raw);
    if (glued && (glued[3] === undefined || glued[3] === "" || SUFFIX_SET.has(glued[3]))) {
      termsOfWord(glued[1] as string, out);
      return;
    }
    // `-(으)ㄹ 수 있다/없다` glued (`갈수있어`): the word before `수` alone, as written apart.
    const possible = GLUED_POSSIBILITY.exec(raw);
    if (possible && jamo((possible[1] as string).slice(-1)).final === FINAL_L) {
      termsOfWord(possible[1] as string, out);
      return;
    }
    // A Sino-Korean numeral with a unit is read whole (`이십이` is 22, not `이십` and the particle 이).
    const read = isSinoNumeral(raw) ? { stem: raw, verbal: false, bare: true } : stemOf(raw);
    // A contracted 반말/해요체 form is read as its verb stem (`옮겨요` -> `옮기`, as `옮기고`); written
    // bare (`짐 옮겨`, a noun such as `고려` looks the same) it gives both; a noun's particle form
    // (`고려를`) neither.
    const base = read.verbal || read.bare ? verbBaseOf(read.stem) : undefined;
    const verbStem = base !== undefined && !KOREAN_STOP_STEMS.has(base) && !KOREAN_STOPWORDS.has(base) ? base : undefined;
    const stem = loanwordSpelling(read.verbal && verbStem !== undefined ? verbStem : read.stem);
    if (stem === "") {
      // `갈게`: the stem `가` carries no topic, the `ㄹ` reading (`갈`, as `갈래`) is kept; so is an
      // irregular verb's (`나아요`: `낫`, `걸었어`: `걷`).
      if (read.withL !== undefined) out.push(read.withL);
      if (read.irregular !== undefined) out.push(read.irregular);
      // No adnominal: a stop stem's (`한다` -> `한`) carries no more topic than the stem.
      return;
    }
    const month = KOREAN_MONTHS.get(stem);
    if (month !== undefined) {
      out.push(monthTerm(month));
      return;
    }
    out.push(stem);
    if (stem.length >= 3) for (let i = 0; i + 2 <= stem.length; i += 1) out.push(stem.slice(i, i + 2));
    if (read.bare && verbStem !== undefined) out.push(verbStem);
    if (read.withL !== undefined && read.withL !== stem) out.push(read.withL);
    if (read.irregular !== undefined && read.irregular !== stem) out.push(read.irregular);
    // The adnominal only as a question's word reads (`보낸 앱은?` keeps `보낸`); a light verb's (`사용한다`
    // -> `사용한`) reads as its noun (`사용한 앱` -> `사용`), so that term would match no question.
    if (read.adnominal !== undefined && read.adnominal !== stem && stemOf(read.adnominal).stem === read.adnominal) out.push(read.adnominal);
    const number = koreanNumber(stem) ?? wonNumber(stem);
    if (number !== undefined) for (const n of number) out.push(n);
    for (const n of numeralReadings(raw)) if (!number?.includes(n)) out.push(n);
    const mains = new Set([...mainVerbOf(stem), ...(verbStem !== undefined && verbStem !== stem ? mainVerbOf(verbStem) : [])]);
    for (const main of mains) if (main !== stem) out.push(main);
    for (const stemBeforeBoda of verbStem !== undefined && verbStem !== stem ? [stem, verbStem] : [stem])
      for (const term of fusedMainBeforeBoda(stemBeforeBoda)) if (!out.includes(term)) out.push(term);
    // A psych verb meets its adjective (`싫어하는` / `싫어`: 싫); not 좋아하다, whose 좋 is `good`.
    const psych = /^([\uac00-\ud7a3])[아어]하$/.exec(stem);
    if (psych && psych[1] !== "좋" && hasFinalConsonant(psych[1] as string)) out.push(psych[1] as string);
    // `못먹겠어` written together meets `못 먹는` (못 is a function word).
    if (raw.length > 2 && raw.startsWith("못")) {
      const verb = koreanStem(raw.slice(1));
      if (verb !== "" && verb !== stem) out.push(verb);
    }
    // So does `안먹어요` meet `안 먹어요`: the verb's terms beside the word's own ({@link negatedVerb}).
    const negated = raw.startsWith("안") ? negatedVerb(raw) : undefined;
    if (negated !== undefined) for (const term of wordTerms(negated)) if (!out.includes(term)) out.push(term);
    for (const kin of kinshipTerm(raw) ?? []) out.push(kin);
    const concept = KOREAN_CONCEPTS.get(stem);
    if (concept !== undefined) out.push(concept);
    const honorific = HONORIFIC_NOUNS.get(stem) ?? (read.verbal && !read.honorificOrL ? HONORIFIC_VERBS.get(stem) : undefined);
    if (honorific !== undefined) out.push(honorific);
    for (const [root, plain] of HONORIFIC_ROOTS) if (raw.startsWith(root) && !out.includes(plain)) out.push(plain);
    return;
  }
  // Mixed scripts (`Busan에`, `5월에`, `2023년`): a number with a date unit is a month or a
  // year (the unit dropped); otherwise Hangul and non-Hangul runs are handled apart.
  if (/[\uac00-\ud7a3]/.test(raw)) {
    const dated = /^(\d{1,4})(월|년|일)(.*)$/u.exec(raw);
    if (dated) {
      const n = Number(dated[1]);
      if (dated[2] === "월" && n >= 1 && n <= 12) out.push(monthTerm(n));
      else out.push(dated[1] as string);
      if (dated[3]) termsOfWord(dated[3], out);
      return;
    }
    // A number with a Korean unit (`230만`, `5천`) is also its value, as `이백삼십만` is.
    const scaled = /^(\d{1,4})(만|천|백)(.*)$/u.exec(raw);
    if (scaled) {
      out.push(scaled[1] as string, String(Number(scaled[1]) * { 만: 10_000, 천: 1000, 백: 100 }[scaled[2] as "만" | "천" | "백"]));
      if (scaled[3]) termsOfWord(scaled[3], out);
      return;
    }
    for (const part of raw.match(/[\uac00-\ud7a3]+|[^\uac00-\ud7a3]+/g) ?? []) termsOfWord(part, out);
    return;
  }
  if (ENGLISH_STOPWORDS.has(raw)) return;
  const stem = stemEnglish(raw);
  if (stem.length === 0 || ENGLISH_STOPWORDS.has(stem)) return;
  out.push(stem);
}

/**
 * Korean kinship words by the relation they name, across register (`아버지`, `아빠`, `아버님` ->
 * `kin:father`; `언니`/`누나` -> `kin:older-sister`): a question asks about `아버지` of a message
 * that says `아빠`. The word keeps its own terms as well. English words are not mapped: with
 * `dad`/`father` as one term, LoCoMo's facts hit@5 fell 34.8 -> 34.6 (session 39).
 *
 * Sino-Korean kin words name the same relation as the native word a chat uses (session 64):
 * `조모`/`외조모` is `할머니`, `조부` is `할아버지`; a word for both parents or both spouses gives both
 * terms (`부모`, `부모님`, `양친` -> `kin:father` and `kin:mother`; `배우자` -> `kin:husband` and
 * `kin:wife`), so a question's `부모님` meets a message's `엄마`; `부인` is `아내`, `손주`/`손자`/`손녀` one
 * relation. A relation written `a+b` gives both. Both kinds of loss measured (session 64) are a turn that
 * names the relative and does not answer taking a rank: `부모님 선물로 목마사지기 샀어` over `아빠는 ... 안
 * 쓰심` (korean-heldout6, hit@3). `여자친구`/`여친` as one relation lost a hit@3 so on korean-heldout2 and
 * gained none: left out.
 */
const KINSHIP_WORDS: ReadonlyMap<string, readonly string[]> = new Map(
  (
    "father:아버지 아빠 아버님 아부지 부친|mother:어머니 엄마 어머님 어무이 모친|" +
    "father+mother:부모 부모님 양친|husband+wife:배우자|" +
    "husband:남편 신랑 남편분|wife:아내 와이프 집사람 마누라 안사람 부인|" +
    "grandchild:손주 손자 손녀|" +
    "grandmother:할머니 할머님 할매 외할머니 친할머니 조모 외조모 친조모|" +
    "grandfather:할아버지 할아버님 할배 외할아버지 친할아버지 조부 외조부 친조부|" +
    "older-sister:언니 누나 누님|older-brother:형 오빠 형님 오라버니|younger-sibling:동생 여동생 남동생|" +
    "son:아들 아드님|daughter:딸 따님 딸내미|child:아이 애기 아기 자녀 애들 아이들"
  )
    .split("|")
    .flatMap((group) => {
      const [relations, words] = group.split(":") as [string, string];
      const terms = relations.split("+").map((relation) => `kin:${relation}`);
      return words.split(" ").map((word) => [word, terms] as [string, readonly string[]]);
    }),
);
/**
 * A few Korean nouns by the one thing they name, as {@link KINSHIP_WORDS} does for kin (session 52):
 * `주민센터` is what `동사무소` was renamed to (2007); `구입`/`구매` and `급여`/`월급`/`봉급` are one
 * word in two registers; `나이`/`연세` meet a number counted in `살` (session 53, {@link saysAnAge}),
 * never `살` alone (also `살다`). Only unambiguous nouns: not `이유`/`까닭`
 * with `때문에` (tried: a question's `까닭` then met every message's `때문에` and lost a
 * `korean-heldout6` item whose reason was said with `-라서`). Read from the word's stem, so every
 * particle form meets. English words are not mapped (see {@link KINSHIP_WORDS}).
 */
const KOREAN_CONCEPTS: ReadonlyMap<string, string> = new Map(
  "community-centre:주민센터 동사무소 행정복지센터|purchase:구입 구매|pay:급여 월급 봉급|age:나이 연세".split("|").flatMap((group) => {
    const [concept, words] = group.split(":") as [string, string];
    return words.split(" ").map((word) => [word, `concept:${concept}`] as [string, string]);
  }),
);

/**
 * Honorific words (높임말) and the plain word each replaces (session 60), so a 존댓말 question meets
 * a 반말 statement and back: the nouns `성함` (이름), `생신` (생일), `댁` (집), any form, and the
 * verbs `드시다`/`잡수시다` (먹다) and `주무시다` (자다), by stem as {@link stemOf} reads them
 * (`주무세요` -> `주무`), only when a verb ending came off. The honorific word gives the plain word's
 * term besides its own, so a text without one is read as before (a shared `concept:` term, as
 * `나이`/`연세` have, would add a term to every `집` and `먹`). `계시다` is `있다`, a function word:
 * see {@link KOREAN_STOP_STEMS}. Left out as ambiguous: `드` (`드세요`, `드셨어요` lose the `-시-`;
 * `드` is as often 들다: `마음에 드세요`, `돈이 드는데`), `진지` (also `진지하다`, serious),
 * `돌아가시다` (also going back), `말씀` (its plain `말` is a function word: `말다`, `월말`). `댁` as
 * `you` (`댁은 누구세요`) is rare and reads as home.
 */
const HONORIFIC_NOUNS: ReadonlyMap<string, string> = new Map([
  ["성함", "이름"],
  ["생신", "생일"],
  ["댁", "집"],
]);
/** The honorific verbs of {@link HONORIFIC_NOUNS} by stem, with the plain verb's stem. */
const HONORIFIC_VERBS: ReadonlyMap<string, string> = new Map([
  ["드시", "먹"],
  ["잡수", "먹"],
  ["잡숫", "먹"],
  ["주무", "자"],
]);
/**
 * Honorific roots no other word starts with, by the plain verb's stem (session 66): `편찮다` (be ill, of one
 * honoured) is `아프다`, in any form however {@link stemOf} reads it (`편찮으셔서`, `편찮으신`, `편찮으세요`), so
 * `할머니가 편찮으셔서` meets `아파서`.
 */
const HONORIFIC_ROOTS: ReadonlyMap<string, string> = new Map([["편찮", "아프"]]);

/**
 * Relative time words by the term of the word chat writes most for them (session 65): `담주`, `담달` (chat's
 * `다음주`, `다음달`), `저번주`, `저번달` (`지난주`, `지난달`), `지난해` (`작년`), `다음해`, `이듬해` (`내년`), `금년`
 * (`올해`), `그제` (`그저께`, whose `께` reads as a particle), so a question's `작년` meets a message's `지난해`. The
 * word is read as that term only (as {@link LOANWORD_VARIANTS} reads a spelling): the term is the frequent word's
 * own stem, so a text without a variant is read as before. Written apart (`다음 주`, `지난 해`, `이번 달`) the first
 * word is read as the same term ({@link relativeTimeApart}). Added beside the word's own terms instead, the term
 * made `다음 달부터` longer and korean-heldout11 lost a block hit.
 */
const RELATIVE_TIME_WORDS: ReadonlyMap<string, string> = new Map(
  "담주:다음주 담달:다음달 저번주:지난주 저번달:지난달 지난해:작년 다음해:내년 이듬해:내년 금년:올해 그제:그저께 그저께:그저께 이번해:올해"
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);
/** The first word of a relative time written apart, by the unit after it (`다음` + `주` is `다음주`). */
const RELATIVE_TIME_APART: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map<string, Readonly<Record<string, string>>>([
  ["다음", { 주: "다음주", 달: "다음달", 해: "내년" }],
  ["담", { 주: "다음주", 달: "다음달" }],
  ["지난", { 주: "지난주", 달: "지난달", 해: "작년" }],
  ["저번", { 주: "지난주", 달: "지난달" }],
  ["이번", { 주: "이번주", 달: "이번달", 해: "올해" }],
]);

/** The term of a relative time word ({@link RELATIVE_TIME_WORDS}), alone or with a particle (`담주에`), or `undefined`. */
function relativeTimeWord(word: string): string | undefined {
  for (const [variant, term] of RELATIVE_TIME_WORDS) {
    if (word.startsWith(variant) && (word.length === variant.length || PARTICLE_SET.has(word.slice(variant.length)))) return term;
  }
  return undefined;
}

/** The term of a relative time written apart (`다음 주에`, `지난 해`; {@link RELATIVE_TIME_APART}): `word`, then its unit `next` alone or with a particle. */
function relativeTimeApart(word: string, next: string): string | undefined {
  const units = RELATIVE_TIME_APART.get(word);
  if (units === undefined) return undefined;
  const unit = next.charAt(0);
  const rest = next.slice(1);
  return rest === "" || PARTICLE_SET.has(rest) ? units[unit] : undefined;
}

/** The one term of an age: the word `나이` ({@link KOREAN_CONCEPTS}) and a number counted in 살. */
const AGE_TERM = "concept:age";
/** A number as an age counts it: digits, a numeral, or the question's `몇`. */
function ageNumber(word: string): boolean {
  return /^\d{1,3}$/.test(word) || word === "몇" || NATIVE_BEFORE_COUNTER.has(word) || koreanNumber(word) !== undefined;
}
/**
 * `true` when `word` (with the word after it, `undefined` when more than spaces part them) counts years of age: a number and the counter `살`
 * apart or together (`세 살`, `스물다섯 살이에요`, `3살`, `몇 살이야`), or digits and `세` (`7세`). `살`
 * with no number before it is the verb 살다 (`서울에 살아`) and says nothing of an age.
 */
function saysAnAge(word: string, next: string | undefined): boolean {
  if (!HANGUL.test(word) && !/^\d/.test(word)) return false;
  if (next?.startsWith("살") && isAgeCounter(next) && ageNumber(word)) return true;
  const at = word.indexOf("살");
  if (at > 0 && at <= 5 && ageNumber(word.slice(0, at)) && isAgeCounter(word.slice(at))) return true;
  const sino = /^\d{1,3}세(.*)$/u.exec(word);
  return sino !== null && (sino[1] === "" || PARTICLE_SET.has(sino[1] as string));
}

/** `살` as the counter of years (`살이에요`, `살 때`), not the verb 살다 (`살아요`, `살게요`, `살고`). */
function isAgeCounter(word: string): boolean {
  return isCounterWord(word, true) && !/^살(?:아|았|고|게|면|지|던|며|자|려)/u.test(word);
}

const KINSHIP_BY_LENGTH = [...KINSHIP_WORDS.keys()].sort((a, b) => b.length - a.length);

/** The relations a Hangul word names (a kinship word, alone or with its particles), if any. */
function kinshipTerm(word: string): readonly string[] | undefined {
  for (const kin of KINSHIP_BY_LENGTH) {
    if (!word.startsWith(kin)) continue;
    const rest = word.slice(kin.length);
    // Only the word itself with its particles (`아빠는`, `형이랑`), not a longer word (`형광`, `딸기`).
    return rest === "" || /^(?:은|는|이|가|을|를|도|만|랑|이랑|하고|한테|께서|께|에게|의|와|과|까지|처럼)+$/.test(rest)
      ? KINSHIP_WORDS.get(kin)
      : undefined;
  }
  return undefined;
}
