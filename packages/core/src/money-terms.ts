/**
 * One term for a sum of money however it is said (session 60), as `date-terms.ts` gives a month
 * one term and `나이` meets a number counted in `살`: a question about what something cost asks
 * with a money word (`cost`, `pay`, `price`, `얼마`, `비용`, `가격`) and the message that answers it
 * states an amount (`$380`, `£18k`, `5 grand`, `45만 원`, `팔십만원에`), which share no other word.
 * Both give {@link MONEY_TERM}. The words are English and Korean words whose sense is money in
 * general, never a fixture's word; `얼마 전` (`a while ago`) and `얼마나` (`how much/long`) are
 * not asking a price.
 */
import { setBounded } from "./bounded-map.js";

/** The term of a sum of money, an amount or a word that asks or speaks of one. */
export const MONEY_TERM = "concept:money";

/** English words whose sense is money, as written (lowercase). `buck`, `pound` (a deer, a weight) are left out. */
const ENGLISH_MONEY_WORD =
  /^(?:costs?|costing|prices?|priced|pricing|budgets?|fees?|money|dollars?|bucks|expensive|cheap(?:er|est)?|afford|affordable|salary|salaries|wages?)$/u;
/** `pay` and `spend`, money unless their object says otherwise ({@link NOT_PAID_OBJECT}). */
const PAY_OR_SPEND = /^(?:pay|pays|paid|paying|spend|spends|spent|spending)$/u;
/** What one pays or spends that is no money: `pay attention`, `pay tribute`, `spend time`, `spent the night`. */
const NOT_PAID_OBJECT =
  /^(?:attention|respects?|tribute|homage|heed|time|hours?|days?|nights?|weeks?|weekends?|months?|years?|mornings?|afternoons?|evenings?|summers?|winters?)$/u;
/** Words that count an amount written before them in digits (`5 grand`, `30 dollars`). */
const AMOUNT_UNIT = /^(?:dollars?|bucks|grand|usd|eur|euros?|won)$/u;
/** A currency sign right before digits (`$380`, `£21,430`, `€5`, `₩3000`). */
const CURRENCY_SIGN = /[$£€¥₩]/u;
/** A particle or short ending after a Korean money noun (`돈이`, `가격은`, `비용이에요`), so `돈까스` is no money. */
const NOUN_TAIL = "(?:이|가|은|는|을|를|도|만|에|의|으로|로|이랑|이야|이에요|예요|이었|였|까지|부터|이라|라|이요|요)?";
/** Korean nouns of money: alone or with a particle (`돈`, `비용`, `요금`, `월세`), compounds in `-값`/`-비` (`집값`, `병원비`). */
const KOREAN_MONEY_NOUN = new RegExp(
  `^(?:돈|비용|가격|요금|금액|월세|전세|등록금|용돈|[\\uac00-\\ud7a3]*값|[\\uac00-\\ud7a3]{2,}비)${NOUN_TAIL}$`,
  "u",
);
/**
 * Compounds in `-값` where 값 is a value, not a price (`기본값`, `결괏값`, `최댓값`, `평균값`: a
 * default, a result, a maximum, a mean), and in `-비` where 비 is rain (`장맛비`, `가랑비`), a ratio
 * (`종횡비`, `압축비`) or a monument (`기념비`), or `무방비` (defenceless): no money. Matched on
 * the word before its particle ({@link NOUN_TAIL}).
 */
const NOT_MONEY_COMPOUND = new RegExp(
  `^(?:(?:기본|초기|초깃|결과|결괏|최대|최댓|최소|최솟|평균|기대|기댓|절대|절댓|함수|함숫|근사|근삿|대표|대푯|중앙|중간|설정|입력|출력|반환|리턴|측정|관측|예측|계산|속성|변수|상수|키|해시|주소|좌표|수치|임계|극|참|거짓|데이터|픽셀|색상|옵션|인자|인수|필드|기준|목표|환경|상태)값` +
    `|(?:장맛|장마|가랑|이슬|보슬|부슬|소낙|장대|여우|겨울|가을|여름|종횡|압축|혼합|배합|변속|구성|기념|무방)비)${NOUN_TAIL}$`,
  "u",
);
/** An amount counted in 원, glued (`만원`, `3000원`, `2천원이에요`, `팔십만원에`): digits or a Sino-Korean number with a unit. */
const WON_AMOUNT = /^(?=[^원]*[\d십백천만])[\d,일이삼사오육칠팔구십백천만]+원(?:$|[이은을에도만씩]|이에요|이야|이요|짜리|어치)/u;
/** The counter 원 written apart (`45만 원`, `사만 이천 원이요`) after a number. */
const WON_APART = /^원(?:$|[이은을에도만씩]|이에요|이야|이요|짜리|어치)/u;
const NUMBER_BEFORE_WON = /(?:\d|[십백천만])$/u;
/** `얼마 전`, `얼마 안 됐어`, `얼마 동안`: time, not a price. */
const NOT_A_PRICE_AFTER = /^(?:전|후|동안|안|만에|못|되|지나|걸)/u;

/** What a word alone says of money, before its neighbours are read; see {@link saysMoney}. */
export type MoneyWord = "money" | "payOrSpend" | "digits" | "won" | "howMuch" | "none";

/** Most words whose {@link MoneyWord} reading is kept; past it the oldest go first. */
const MONEY_MEMO_ENTRIES = 50_000;
const moneyMemo = new Map<string, MoneyWord>();

/** The reading of `word` (as written) alone: memoized, since `tokenize` asks it of every word. */
export function moneyWord(word: string): MoneyWord {
  let kind = moneyMemo.get(word);
  if (kind === undefined) {
    const lower = word.toLowerCase();
    if (/^\d/u.test(lower)) kind = "digits";
    else if (PAY_OR_SPEND.test(lower)) kind = "payOrSpend";
    else if (ENGLISH_MONEY_WORD.test(lower) || WON_AMOUNT.test(lower) || (KOREAN_MONEY_NOUN.test(lower) && !NOT_MONEY_COMPOUND.test(lower)))
      kind = "money";
    else if (lower.startsWith("얼마")) kind = lower.startsWith("얼마나") ? "none" : "howMuch";
    else if (WON_APART.test(lower)) kind = "won";
    else kind = "none";
    if (word.length <= 40) setBounded(moneyMemo, word, kind, MONEY_MEMO_ENTRIES);
  }
  return kind;
}

/**
 * Whether one word of a text speaks of a sum of money: an amount (digits after a currency sign or
 * before `dollars`/`bucks`/`grand`, a number counted in `원` glued or apart) or a money word
 * ({@link ENGLISH_MONEY_WORD}, {@link KOREAN_MONEY_NOUN} but not {@link NOT_MONEY_COMPOUND}, `pay`
 * and `spend` but not `pay attention` nor `spend time`, the question `얼마` but not `얼마나` nor
 * `얼마 전`). The neighbours are read only for a word that needs them (through the callbacks).
 *
 * @param word - The word as written (any case).
 * @param kind - {@link moneyWord} of `word` (`tokenize` reads it first and skips the rest for `"none"`).
 * @param before - The character right before the word in the text (`""` at its start).
 * @param previous - The word before when only spaces part them, else `undefined`.
 * @param next - The word after when only spaces part them, else `undefined`.
 */
export function saysMoney(
  word: string,
  kind: MoneyWord,
  before: () => string,
  previous: () => string | undefined,
  next: () => string | undefined,
): boolean {
  switch (kind) {
    case "money":
      return true;
    case "payOrSpend": {
      const object = next()?.toLowerCase();
      return object === undefined || !NOT_PAID_OBJECT.test(object);
    }
    case "digits": {
      if (CURRENCY_SIGN.test(before())) return true;
      const after = next()?.toLowerCase();
      return after !== undefined && /^\d[\d,.]*k?$/iu.test(word) && AMOUNT_UNIT.test(after);
    }
    case "won": {
      const number = previous();
      return number !== undefined && NUMBER_BEFORE_WON.test(number);
    }
    case "howMuch": {
      const after = next();
      return after === undefined || !NOT_A_PRICE_AFTER.test(after);
    }
    default:
      return false;
  }
}
