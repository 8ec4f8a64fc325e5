/**
 * One term for a sum of money however it is said (session 60), as `date-terms.ts` gives a month
 * one term and `나이` meets a number counted in `살`: a question about what something cost asks
 * with a money word (`cost`, `pay`, `price`, `얼마`, `비용`, `가격`) and the message that answers it
 * states an amount (`$380`, `£18k`, `5 grand`, `45만 원`, `팔십만원에`), which share no other word.
 * Both give {@link MONEY_TERM}. The words are English and Korean words whose sense is money in
 * general, never a fixture's word; `얼마 전` (`a while ago`) and `얼마나` (`how much/long`) are
 * not asking a price.
 *
 * Session 61: the Korean words are read with text-analysis's one particle list, stemmer and numeral
 * reader (`isWonCounter`, `koreanAmountValue`, `wonAmountValue`, `koreanStem`), no copy here: a sum
 * glued to its digits (`45만원`, `3만5천원`, `1.5억원`, `3,000원`) is money as it is apart; a bare
 * `만원` beside a bus or a train is full (滿員), no money; `pay`/`spend`'s object is read past its
 * determiners (`spent the weekend` is time, `pay 50 a month` a rate).
 */
import { setBounded } from "./bounded-map.js";
// A cycle: `tokenize` reads money here, and money reads Korean words with the one particle list,
// stemmer and numeral reader (session 61). Only functions are imported and called after both
// modules are loaded, never at import, so the order they load in changes nothing.
import { isWonCounter, KOREAN_PARTICLES, koreanAmountValue, koreanStem, wonAmountValue } from "./text-analysis.js";

/** The term of a sum of money, an amount or a word that asks or speaks of one. */
export const MONEY_TERM = "concept:money";

/** English words whose sense is money, as written (lowercase). `buck`, `pound` (a deer, a weight) are left out. */
const ENGLISH_MONEY_WORD =
  /^(?:costs?|costing|prices?|priced|pricing|budgets?|fees?|money|dollars?|bucks|expensive|cheap(?:er|est)?|afford|affordable|salary|salaries|wages?)$/u;
/** `pay` and `spend`, money unless their object says otherwise ({@link NOT_PAID_OBJECT}, {@link NOT_SPENT_OBJECT}). */
const PAY_OR_SPEND = /^(?:pay|pays|paid|paying|spend|spends|spent|spending)$/u;
/** What one pays that is no money: `pay attention`, `pay tribute`, `paid a visit`. */
const NOT_PAID_OBJECT = /^(?:attention|respects?|tribute|homage|heed|visits?|compliments?)$/u;
/** What one spends that is no money: `spend time`, `spent the night`, `spending two weeks`. */
const NOT_SPENT_OBJECT =
  /^(?:time|hours?|days?|nights?|weeks?|weekends?|months?|years?|mornings?|afternoons?|evenings?|summers?|winters?|holidays?|vacations?|life|lives)$/u;
/** A number, in digits or in words, that may stand before its noun (`two hours`) or be the amount itself (`50 a month`). */
const NUMBER_WORD = /^(?:\d[\d,.]*k?|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple)$/u;
/** What makes the number before it an amount per a time (`50 a month`, `20 per hour`). */
const RATE = /^(?:a|an|per|each|every)$/u;
/**
 * Words that open a noun phrase before its noun (determiners, possessives, quantifiers, numbers
 * and `of` between them: `the`, `my`, `the whole`, `most of the`, `two`, `a few`), read past to
 * the object of `pay`/`spend` (session 61: `spent the weekend`, `spend a whole night`).
 */
const BEFORE_THE_NOUN =
  /^(?:a|an|the|my|your|his|her|our|their|its|this|that|these|those|all|whole|entire|every|each|some|most|much|many|several|few|couple|of|last|next|one|two|three|four|five|six|seven|eight|nine|ten|half|an?other|extra|\d+)$/u;
/** Most words read after `pay`/`spend` for their object. */
const OBJECT_LOOKAHEAD = 4;
/** Words that count an amount written before them in digits (`5 grand`, `30 dollars`). */
const AMOUNT_UNIT = /^(?:dollars?|bucks|grand|usd|eur|euros?|won)$/u;
/** A currency sign right before digits (`$380`, `£21,430`, `€5`, `₩3000`). */
const CURRENCY_SIGN = /[$£€¥₩]/u;
/** Korean nouns of money (`돈`, `비용`, `요금`, `월세`), compounds in `-값`/`-비` (`집값`, `병원비`): the noun without its particle or ending. */
const KOREAN_MONEY_NOUN = /^(?:돈|비용|가격|요금|금액|월세|전세|등록금|용돈|[\uac00-\ud7a3]*값|[\uac00-\ud7a3]{2,}비)$/u;
/**
 * Compounds in `-값` where 값 is a value, not a price (`기본값`, `결괏값`, `최댓값`, `평균값`: a
 * default, a result, a maximum, a mean), and in `-비` where 비 is rain (`장맛비`, `가랑비`), a ratio
 * (`종횡비`, `압축비`) or a monument (`기념비`), or `무방비` (defenceless): no money.
 */
const NOT_MONEY_COMPOUND = new RegExp(
  `^(?:(?:기본|초기|초깃|결과|결괏|최대|최댓|최소|최솟|평균|기대|기댓|절대|절댓|함수|함숫|근사|근삿|대표|대푯|중앙|중간|설정|입력|출력|반환|리턴|측정|관측|예측|계산|속성|변수|상수|키|해시|주소|좌표|수치|임계|극|참|거짓|데이터|픽셀|색상|옵션|인자|인수|필드|기준|목표|환경|상태)값` +
    `|(?:장맛|장마|가랑|이슬|보슬|부슬|소낙|장대|여우|겨울|가을|여름|종횡|압축|혼합|배합|변속|구성|기념|무방)비)$`,
  "u",
);
/**
 * What is full (滿員, written `만원` as ten thousand won is): a vehicle or a hall's seats (`만원
 * 버스`, `지하철이 만원이었어`, `만원 사례`). Read beside a bare `만원` only.
 */
const FULL_PLACE = /^(?:버스|지하철|전철|열차|기차|객석|관중석|관중|경기장|공연장|엘리베이터|사례)$/u;
/** `얼마 전`, `얼마 안 됐어`, `얼마 동안`: time, not a price. */
const NOT_A_PRICE_AFTER = /^(?:전|후|동안|안|만에|못|되|지나|걸)/u;

/** What a word alone says of money, before its neighbours are read; see {@link saysMoney}. */
export type MoneyWord = "money" | "payOrSpend" | "digits" | "won" | "manWon" | "howMuch" | "none";

/** Most words whose {@link MoneyWord} reading is kept; past it the oldest go first. */
const MONEY_MEMO_ENTRIES = 50_000;
// By the word as written: its reading is a pure function of it.
const moneyMemo = new Map<string, MoneyWord>();

/** The reading of `word` (as written) alone: memoized, since `tokenize` asks it of every word. */
export function moneyWord(word: string): MoneyWord {
  let kind = moneyMemo.get(word);
  if (kind === undefined) {
    kind = readMoneyWord(word.toLowerCase());
    if (word.length <= 40) setBounded(moneyMemo, word, kind, MONEY_MEMO_ENTRIES);
  }
  return kind;
}

function readMoneyWord(lower: string): MoneyWord {
  // A sum counted in 원 written as one word (`45만원`, `3000원이요`, `팔십만원에`); a bare `만원` may
  // also be 滿員, full ({@link FULL_PLACE}).
  if (wonAmountValue(lower) !== undefined) return lower.startsWith("만원") ? "manWon" : "money";
  if (/^\d/u.test(lower)) return "digits";
  if (PAY_OR_SPEND.test(lower)) return "payOrSpend";
  if (ENGLISH_MONEY_WORD.test(lower) || isKoreanMoneyNoun(lower)) return "money";
  if (lower.startsWith("얼마")) return lower.startsWith("얼마나") ? "none" : "howMuch";
  if (isWonCounter(lower)) return "won";
  return "none";
}

/**
 * Whether a Hangul word is a money noun ({@link KOREAN_MONEY_NOUN}, not {@link NOT_MONEY_COMPOUND})
 * with its particles and endings off, as text-analysis reads them: the word itself, its stem
 * (`비용이었어`, `월세라서` -> `월세`) or the word without one particle (`돈도`, `값만`: a
 * one-syllable noun the stemmer keeps whole).
 */
function isKoreanMoneyNoun(word: string): boolean {
  const code = word.charCodeAt(0);
  if (code < 0xac00 || code > 0xd7a3) return false;
  const nouns = [word, koreanStem(word)];
  for (const particle of KOREAN_PARTICLES)
    if (word.length > particle.length && word.endsWith(particle)) nouns.push(word.slice(0, -particle.length));
  return nouns.some((noun) => KOREAN_MONEY_NOUN.test(noun) && !NOT_MONEY_COMPOUND.test(noun));
}

/**
 * Whether one word of a text speaks of a sum of money: an amount (digits after a currency sign or
 * before `dollars`/`bucks`/`grand`, a number counted in `원` glued or apart: `45만원`, `3만5천원`,
 * `45만 원`, `1.5억 원`, `3,000원`) or a money word ({@link ENGLISH_MONEY_WORD}, {@link KOREAN_MONEY_NOUN} but not
 * {@link NOT_MONEY_COMPOUND}, `pay` and `spend` but not when their object is time or attention,
 * read past its determiners: `pay attention`, `spend time`, `spent the weekend`, `spend a whole night`;
 * the question `얼마` but not `얼마나` nor `얼마 전`; `만원` but not beside a vehicle or a hall it
 * says is full, `만원 버스`). A number alone is no money, whatever its size (`45만`, `1.5억`, as `3만
 * 명`): only its counter or sign says so. The neighbours are read only for a word that needs them
 * (through the callbacks).
 *
 * @param word - The word as written (any case).
 * @param kind - {@link moneyWord} of `word` (`tokenize` reads it first and skips the rest for `"none"`).
 * @param before - The character right before the word in the text (`""` at its start).
 * @param previous - The word before when only spaces or nothing part them, else `undefined`.
 * @param after - The `n`-th word after (1 the next) when only spaces part each from the one
 *   before, else `undefined`.
 */
export function saysMoney(
  word: string,
  kind: MoneyWord,
  before: () => string,
  previous: () => string | undefined,
  after: (n: number) => string | undefined,
): boolean {
  switch (kind) {
    case "money":
      return true;
    case "payOrSpend": {
      // The object's noun, past its determiners: time spent (`spent the weekend`) or attention paid
      // is no money; a number before a rate is the amount (`pay 50 a month`), and `pay a month`
      // is a rate, no object.
      const notMoney = word.toLowerCase().startsWith("pa") ? NOT_PAID_OBJECT : NOT_SPENT_OBJECT;
      for (let n = 1; n <= OBJECT_LOOKAHEAD; n += 1) {
        const object = after(n)?.toLowerCase();
        if (object === undefined) return true;
        if (NUMBER_WORD.test(object) && RATE.test(after(n + 1)?.toLowerCase() ?? "")) return true;
        if (!BEFORE_THE_NOUN.test(object)) return !notMoney.test(object);
      }
      return true;
    }
    case "digits": {
      if (CURRENCY_SIGN.test(before())) return true;
      const next = after(1)?.toLowerCase();
      return next !== undefined && /^\d[\d,.]*k?$/iu.test(word) && AMOUNT_UNIT.test(next);
    }
    case "won": {
      const number = previous();
      return number !== undefined && koreanAmountValue(number.replaceAll(",", "")) !== undefined;
    }
    case "manWon": {
      const beside = [previous(), after(1)];
      return !beside.some((other) => other !== undefined && FULL_PLACE.test(koreanStem(other) || other));
    }
    case "howMuch": {
      const next = after(1);
      return next === undefined || !NOT_A_PRICE_AFTER.test(next);
    }
    default:
      return false;
  }
}
