import { isStopword } from "@threadwise/core";
import { type CandidateFact, ENDABLE_ATTRIBUTES } from "./fact-store.js";

/**
 * Korean extraction rules (spec R15), written for Korean grammar rather than translated: the
 * subject is often dropped (a sentence without one is the speaker's), topic and subject particles
 * (`은/는/이/가`) mark who a sentence is about, case particles (`을/를/에/에서/으로`) mark the value,
 * and both polite (`-아요/-어요/-습니다`) and plain (`-다/-아/-어`) endings are accepted.
 * A sentence led by `저는/제가/나는/내가/전/난` is the speaker's; one led by a relative (`제 동생은`,
 * `남편이`) is stored as a fact about that person; one led by anyone else (`그는`, `친구가`) is not
 * stored. Questions (`?`, `뭐/어디/언제`, `-나요/-까요`) and hypotheticals (`만약`, `-다면/-으면`,
 * `-고 싶다`) yield nothing.
 */

const COPULA = "(?:이에요|예요|에요|입니다|이야|야|이고|이다|이지만|다|이거든요|거든요|요)";
/**
 * The people of the speaker's life who are no kin (friends, neighbours, colleagues, seniors): a
 * relative of theirs (`친구 남편이`, `부장님 딸이`, `동기 형이`, `우리 팀장님 아들`) is someone else's
 * relative, not the speaker's, and what is said of them is no fact of the speaker's or a relation's.
 */
const SOCIAL =
  "친구|남자친구|여자친구|남친|여친|베프|룸메이트|이웃|동료|회사\\s*동료|직장\\s*동료|팀장님|팀장|부장님|과장님|상사|사장님|선배|후배|동기|선생님|교수님";
/**
 * People the user names by relation: family, friends and colleagues. What the user says about them
 * is stored as a fact about that person (`user's 동생`), never about the user (as in English).
 */
const REL =
  // Children by their order (`큰애`, `작은딸`, `막내`) before the bare relations they end in.
  "큰아들|작은아들|막내아들|큰딸|작은딸|막내딸|큰아이|작은아이|큰애|작은애|막내|큰손자|작은손자|큰손녀|작은손녀|" +
  "남편|아내|와이프|아들|딸|언니|누나|오빠|형|여동생|남동생|동생|엄마|아빠|어머니|아버지|부모님|" +
  // Parents and grandparents named with the honorific 님 (session 66: `어머님은 청주 사세요`), relations as their plain
  // words are (not the third person `X님은` of {@link OTHERS}: see {@link FAMILY_HONORED}).
  "어머님|아버님|할머님|할아버님|외할머니|외할아버지|친할머니|친할아버지|할머니|할아버지|아이들|아이|애들|" +
  "시어머니|시아버지|장모님|장인어른|조카|삼촌|이모|고모|외삼촌|사촌|손주|손자|손녀|며느리|사위|" +
  // In-laws by marriage of a sibling or of the speaker, and a spouse as couples name them.
  "형부|매형|제부|매제|새언니|올케|형수님|형수|제수씨|처형|처제|처남|시누이|시누|시동생|도련님|아주버님|동서|" +
  "신랑|마누라|남편분|집사람|안사람|예비신랑|예비신부|약혼자|약혼녀|" +
  // A former spouse, written as one word (`전 남편` may be `저는 남편`).
  "전처|전남편|전부인|전와이프|" +
  SOCIAL;
/**
 * Pets by kind, and the breeds people name them by (`말티즈 한 마리 키워요`, `보리라는 코숏이고`):
 * a breed is as much a pet as `강아지` is. Longer names first; no breed that is also a common word.
 */
const PET =
  "강아지|고양이|반려견|반려묘|햄스터|앵무새|토끼|물고기|거북이|" +
  "말티즈|토이푸들|푸들|포메라니안|포메|시츄|시추|비숑|치와와|웰시코기|진돗개|골든리트리버|래브라도리트리버|래브라도|리트리버|시바견|허스키|슈나우저|요크셔테리어|닥스훈트|비글|" +
  "보더콜리|프렌치불독|불독|사모예드|스피츠|말라뮤트|셰퍼드|페키니즈|미니핀|베들링턴|" +
  "코리안숏헤어|코숏|러시안블루|페르시안|먼치킨|스코티시폴드|랙돌|브리티시숏헤어|노르웨이숲|샴고양이|벵갈|아비시니안|고슴도치|기니피그|개";
/** How long one has been working, between a job and 일하다 (`개발자로 3년째 일하는 중`). */
const WORK_YEARS = "(?:\\S+\\s*(?:년|개월)\\s*째\\s+)";
const JOB =
  "개발자|간호사|교사|선생님|의사|디자이너|엔지니어|회사원|공무원|대학원생|대학생|학생|변호사|회계사|요리사|기자|작가|프로그래머|연구원|약사|경찰관|경찰|군인|주부|프리랜서|사장|대표|직장인|은행원|바리스타|트레이너|상담사|치료사|사회복지사|건축가|화가|음악가|배우|가수|번역가|통역사|마케터|기획자|교수|강사|운전기사|농부|셰프|" +
  // Licensed trades and services named by their suffix (`미용사`, `세무사`, `소방관`).
  "제빵사|미용사|조리사|영양사|세무사|법무사|노무사|변리사|중개사|정비사|조종사|기관사|항해사|방사선사|임상병리사|위생사|조무사|소방관|승무원|파티시에|플로리스트|바텐더|목사|유튜버|아나운서|목수|큐레이터|해설사";

/**
 * A third person by pronoun (`걔`, `쟤`, `얘`, `그녀`, `그분`) or by a demonstrative and a person
 * (`그 친구`, `이 사람`, `저 분`), in the plural too (`걔네`, `걔들`). `저` is also the speaker
 * (`저 친구 많아요`, `저 애 낳았어요`, `저 여자예요`): only `사람`, `분`, `녀석`, `놈`, `양반` follow it.
 */
const THIRD_PERSON =
  "(?:걔|쟤|얘|걔네|쟤네|얘네|그녀|그분|이분|저분|그놈|(?:그|이)\\s*(?:사람|친구|애|아이|여자|남자|분|녀석|놈|양반|언니|오빠|형|누나|선배|후배|동생)|저\\s*(?:사람|분|녀석|놈|양반))(?:들)?";
/** Whose: `제`, `내`, `저희`, `우리` and its chat contraction `울` (`울 엄마`). */
const MY = "(?:제|내|저희|우리|울)";
/** A subject's or topic's particle, or none (casual speech drops it: `걔 내년에 입대함`). */
const SUBJECT_PARTICLE = "(?:은|는|이|가|도|께서는|께서)?";
/** One word that is a third person ({@link THIRD_PERSON} as one word, `그는`, `그녀가`), its particle or none. */
const THIRD_PERSON_WORD = new RegExp(`^(?:(?:걔|쟤|얘|걔네|쟤네|얘네|그녀|그분|이분|저분|그놈)(?:들)?${SUBJECT_PARTICLE}|그(?:는|가|도))$`);
/** A person named after a demonstrative (`그 친구`, `저 사람은`): the second word of {@link THIRD_PERSON}. */
const DEMONSTRATED_PERSON =
  /^(?:사람|친구|애|아이|여자|남자|분|녀석|놈|양반|언니|오빠|형|누나|선배|후배|동생)(?:들)?(?:은|는|이|가|도|께서는|께서)?$/;
/**
 * A sentence whose subject is someone else: a third person ({@link THIRD_PERSON}) with its
 * particle or none, `그는/그가`, a name with `씨` or a title with `님` as the topic, a relative of a
 * friend or a colleague (`친구 남편이`) or a friend or a colleague of a relative (`남편 친구가`).
 */
/** Relatives named with `님` (`장모님은 …`): family, not the third person {@link OTHERS} reads `X님은` as. */
const FAMILY_HONORED = "(?:부모님|시부모님|장모님|형수님|도련님|아주버님|어머님|아버님|할머님|할아버님)";
const OTHERS = new RegExp(
  `^(?:${THIRD_PERSON}${SUBJECT_PARTICLE}(?=\\s|$)|그(?:는|가|도)\\s|[가-힣]+씨(?:는|가)|[가-힣]+(?:님|씨)\\s*(?:댁|네)\\s+|(?!${FAMILY_HONORED}(?:은|이)\\s)[가-힣]+님(?:은|이)|(?:${MY}\\s*)?(?:${SOCIAL})\\s*(?:${REL})(?:네)?${SUBJECT_PARTICLE}(?=\\s|$)|(?:${MY}\\s*)?(?:${REL})\\s*(?:${SOCIAL})${SUBJECT_PARTICLE}(?=\\s|$))\\s*`,
);
/**
 * A third person introduced by name and title (`최민재 대리라고, 강사 출신인데…`, `박 과장님이라고
 * 하는 분`): what follows in the sentence is about them, never the speaker (issue 25).
 */
const INTRODUCED =
  /[가-힣]+\s*(?:씨|님|과장|대리|부장|차장|팀장|실장|사장|주임|이사|선배|후배|교수|선생|작가|기자|원장)(?:님)?(?:이)?라고\s*(?:,|하는|하시는|하던)/;
// `네` is the yes-word only when no counter follows it: `네 살이에요`, `네 마리` count four.
const LEAD =
  /^(?:(?:아|음|네(?!\s*(?:살|마리|명|개|시간|달|번)(?:이|인|입|예|에|은|는|을|를|도|만|짜리|째|때|쯤|$|[\s.,!?~…]))|응|웅|엉|ㅇㅇ|참|그리고|근데|그런데|사실|요즘|지금은|이제|저기|그래서|아\s*참|맞다|그리고요)[,\s]+)*/;
/** The speaker as subject, with its particle or, in casual speech, without (`나 서울 살아`, `저 개발자예요`). */
const FIRST_PERSON = /^(?:저는|전|나는|난|제가|내가|저도|나도|저|나)\s+/;
const RELATIVE = new RegExp(
  `^(?:${MY}\\s*)?(?:(?:친정|시댁|처가|외가|친가)\\s*)?(${REL})(?:은|는|이|가|도|께서|께서는)\\s+|^${MY}\\s+(${REL})\\s+|^(${REL})\\s+(?!(?:저|나|전|난|제가|내가|저는|나는|저도|나도)(?:\\s|$))`,
);
/**
 * A relation with no particle and no `제/내/우리` (`엄마 대전 사셔`): casual speech drops the
 * subject's particle, but also the object's (`엄마 보러 가`); before `나/저` it is a vocative.
 */
const BARE_RELATIVE = new RegExp(`^(?:${REL})\\s+`);
const REL_WORD = new RegExp(`^(?:${REL})$`);
/** Words that mark the speaker as subject, without or with their particle. */
const FIRST_PERSON_WORD = /^(?:저는|전|나는|난|제가|내가|저도|나도|저희는|저희가|우리는|우리가|저희도|우리도)$/;
/** Topic-marked words that set a time or place, not who the clause is about (`요즘은`, `주말에는`). */
const SETTING =
  /^(?:요즘|요새|지금|오늘|어제|내일|이번|올해|작년|내년|예전|원래|처음|최근|평소|가끔|주말|평일|아침|점심|저녁|밤|이제|그때|당시|결국|사실|이번\s*주|다음|지난|아직)(?:은|는|에는|엔|도)?$|(?:에는|에선|에서는|에서도|로는|으로는|때는|엔)$/;
/**
 * Nouns that end in `도` and are not a word with the particle `도` ("also"): provinces (`경기도`,
 * `충청북도`), islands (`제주도`, `울릉도`), martial arts (`태권도`) and common nouns (`포도`, `지도`).
 * So `제주도 여행 계획 중이야` plans a trip to 제주도; `민지도 여행 계획 중이래` is still 민지's.
 */
const DO_NOUN =
  /^(?:(?:경기|강원|충청|충청남|충청북|전라|전라남|전라북|경상|경상남|경상북|제주|황해|평안|함경)도|(?:제주|울릉|독|거제|강화|진|완|안면|백령|여의|영종|우|가파|마라|외|추자|흑산|홍|청산|보길|소매물|대부|욕지|남이)도|(?:태권|합기|검|유)도|(?:포|인|지|수|속|온|태|각|습|고|위|경|적|철|복|궤)도)$/;
/**
 * Nouns that end in `가` and are not a word with the subject particle: an activity (`요가`), a
 * person by trade (`작가`, `전문가`, `사진가`), time off (`휴가`). So `요가 강사예요` is the
 * speaker's job; `수아가 간호사예요` is 수아's.
 */
const GA_NOUN =
  /^(?:요가|휴가|물가|평가|참가|추가|작가|화가|[가-힣]{1,3}(?:전문|사업|예술|음악|소설|만화|건축|연주|기업|정치|사진|작곡|평론|성악|무용|수필|동화|미술|번역|전략|조각|여행)가)$/;
/**
 * An attribute as the topic (`직업은 초등학교 교사예요`, `전공은 컴공이야`): whose it is the
 * sentence does not say there, so it is the speaker's unless someone else is named.
 */
const ATTRIBUTE_TOPIC = /^(?:직업|이름|나이|취미|고향|전공|생일|혈액형|특기|꿈)(?:은|는|이|가)$/;
/** A topic naming where one is from ({@link ATTRIBUTE_TOPIC}, or the family home: `본가는`, `친정이`). */
const HOME_TOPIC = /^(?:직업|고향|전공|본가|친정)(?:은|는|이|가)$/;
// `-나요` asks only fused to its verb (`가나요`): after a space, `나요` is the verb 나다 (`두드러기가 나요`).
// `-으니` ending a clause is its reason (`살고 있으니 …`), not a question.
const QUESTION_FORM = /\?|(?:(?<=[가-힣])나요|까요|(?<!으)니|냐|는지|을까|할까|인가요|가요\?)[.!…~]*$/;
/** Interrogative words: a sentence with one asks, unless the word is in a use that asks nothing ({@link NOT_ASKING}). */
const INTERROGATIVE = /뭐|무엇|어디|언제|누구|왜|어떻게|몇|무슨|어느|얼마/;
/**
 * Interrogative words that ask nothing: a short or uncounted while (`산 지 얼마 안 됐어요`, `몇 년
 * 전에`, `몇 달째`), the indefinites (`뭔가`, `언젠가`, `어디든`, `누구라도`), `왜냐하면`, `어느 날`,
 * and the exclamations (`얼마나 좋은지 몰라요`, `떨어졌지 뭐예요`).
 */
const NOT_ASKING = new RegExp(
  [
    "얼마\\s*(?:안|못|전|후|뒤|동안|만에|지나|지났|남았|남은|되지|간)",
    "몇\\s*(?:년|달|개월|주|주일|일|번|시간|해|십\\s*년)\\s*(?:전|째|동안|만에|후|뒤|간|씩|이나)",
    "몇몇",
    "(?:뭐|무엇|어디|어디서|어디에|언제|누구|어떻게)(?:든지|든|이든지|이든|라도|이라도)",
    "뭔가|무언가|언젠가|누군가|어딘가|어쨌든|왜냐하면|왜냐면|왜냐",
    "어느\\s*(?:날|덧|새|정도|순간|때)",
    "얼마나(?:\\s+\\S+){0,2}\\s+\\S+지\\s*(?:몰라|모르)",
    "지\\s*뭐(?:예요|에요|야|람)",
  ].join("|"),
  "g",
);
/** Endings that only state (`-습니다`, `-네요`, `-거든요`, `-더라고요`, `-잖아요`, `-ㄹ게요`): a sentence ending so asks nothing. */
const STATING_END = /(?:습니다|네요|거든요|더라고요|더라구요|잖아요|[가-힣](?<!떻)게요|[었였했]다)[.!…~]*$/;
/** A sentence that asks: a question mark or ending, or an interrogative word in a use that asks. */
const QUESTION = {
  test: (sentence: string): boolean =>
    QUESTION_FORM.test(sentence) || (INTERROGATIVE.test(sentence.replace(NOT_ASKING, " ")) && !STATING_END.test(sentence)),
};
const HYPOTHETICAL = /(?:만약|만일|다면|라면|[가-힣]면\s|텐데|싶어|싶다|싶은|싶습니다|싶네요|바라요|좋겠|할지도|일지도|아마|혹시)/;

interface Speaker {
  id: string;
  label: string;
}

/** `은` after a final consonant, `는` otherwise (Latin labels take `는`). */
function topic(label: string): string {
  const last = label.charCodeAt(label.length - 1);
  const batchim = last >= 0xac00 && last <= 0xd7a3 && (last - 0xac00) % 28 !== 0;
  return `${label}${batchim ? "은" : "는"}`;
}

/** Index of ㄹ among the final consonants of a Hangul syllable (`(code - 0xac00) % 28`). */
const FINAL_RIEUL = 8;

/**
 * Picks the particle form by the final consonant of `word`: `josa("커피", "을", "를")` -> `커피를`.
 * `으로` / `로` is the one pair that takes the vowel form after ㄹ too: `서울로`, not `서울으로`.
 */
function josa(word: string, withBatchim: string, without: string): string {
  const last = word.charCodeAt(word.length - 1);
  const final = last >= 0xac00 && last <= 0xd7a3 ? (last - 0xac00) % 28 : 0;
  const batchim = final !== 0 && !(withBatchim === "으로" && final === FINAL_RIEUL);
  return `${word}${batchim ? withBatchim : without}`;
}

/** The words of `body` before the match `m` (`[""]` when none). */
/** A time or a frequency said before a verb (`주말에`, `요즘`, `주3일`): never the thing done. */
const TIME_OR_FREQUENCY =
  /^(?:요즘|요새|지금|이제|주말|주말에|주말엔|평일|평일엔|평일에|매일|방학|방학에|방학엔|저녁|저녁에|밤|밤에|야간|오늘|어제|이번|작년|올해|[가-힣]*마다|주\s*\d\s*(?:일|회|번))$/;

function wordsBefore(body: string, m: RegExpMatchArray): string[] {
  return body
    .slice(0, m.index ?? 0)
    .trim()
    .split(/\s+/);
}

/** Nouns of time that stand before an event without being part of its name (`다음 주 면접`, `이번 달 이사`). */
const TIME_UNIT_NOUN = /^(?:주|달|해|년|월|일|번|날|때|주말|학기|방학)$/;

/**
 * The value `v` of the match `m` with the bare noun before it when they are one compound (`일본
 * 여행`, `공무원 시험`); not a time (`다음 주 면접` -> `면접`).
 */
function withCompoundNoun(body: string, m: RegExpMatchArray, v: string): string {
  const before = wordsBefore(body, m).at(-1) ?? "";
  return bareNoun(before) && !TIME_UNIT_NOUN.test(before) ? `${before} ${v}` : v;
}

/** `홍대 근처`, `강남역 앞`: a word placing near another keeps that word (`근처` alone names no place). */
function withPlaceWord(body: string, m: RegExpMatchArray): string {
  const v = clean(m[1] as string);
  if (!/^(?:근처|쪽|부근|앞|옆|주변|인근)$/.test(v)) return v;
  const before = wordsBefore(body, m).at(-1) ?? "";
  return before === "" ? v : `${clean(before)} ${v}`;
}

/**
 * A place that names no home: a bound noun after a modifier (`가까운 곳`, `넓은 데`, `조용한 쪽`), a
 * place word with nothing before it (`앞으로 이사했어요`), or a workplace or a school (`학교로
 * 이사했어요`, `학교에서 살아요`): what the residence and move rules took as the town.
 */
function vaguePlace(v: string): boolean {
  return /^(?:곳|데|쪽|편|근처|부근|앞|옆|뒤|주변|인근)$/.test(v) || HOME_WORKPLACE.test(v);
}
const HOME_WORKPLACE = /^(?:[가-힣]*(?:회사|직장|은행|병원|공장|학교|학원)|대학|대학교|대학원|캠퍼스|교실|사무실)$/;

/**
 * The home a move goes to (`성수동으로 이사했어요`): {@link withPlaceWord}'s place, the town before a
 * kind of housing (`정자동 오피스텔로` -> `정자동`; the housing alone stays, `오피스텔로 이사했어요`), and
 * none for a place too general ({@link NOT_A_HOME}) or {@link vaguePlace}.
 */
function movedHome(body: string, m: RegExpMatchArray): string | undefined {
  let v = withPlaceWord(body, m);
  const before = clean(wordsBefore(body, m).at(-1) ?? "");
  if ((HOUSING.test(v) || PARENTS_HOUSE.test(v)) && bareNoun(before) && /^[가-힣]{2,6}$/.test(before) && !vaguePlace(before)) v = before;
  if (vaguePlace(v) || SETTING.test(v) || (NOT_A_HOME.test(v) && !HOUSING.test(v) && !PARENTS_HOUSE.test(v))) return undefined;
  return v;
}

/**
 * The place of a trip named by its purpose (`교토로 카페 투어 다녀왔어요` -> 교토, `부산 출장 갔다
 * 왔어` -> 부산 출장): a word with `으로/로/에` among the two before (not a time: `지난주에`), else the
 * bare noun before as a compound; any other value as it is.
 */
function tripPlace(body: string, m: RegExpMatchArray, v: string): string {
  if (!TRIP_PURPOSE.test(v)) return v;
  const words = wordsBefore(body, m);
  for (const word of words.slice(-2).reverse()) {
    const place = /^([가-힣A-Za-z]+?)(?:으로|로|에)$/.exec(word)?.[1];
    if (place !== undefined && nounLike(place) && !TIME_BEFORE_E.test(place) && !SETTING.test(word)) return place;
  }
  return withCompoundNoun(body, m, v);
}

/** A bound noun, alone or with its particle (`거`, `게`, `걸`, `것을`): a thing only with the modifier before it. */
const BOUND_NOUN = /^(?:거|것|게|걸|건|것들|것이|것을|것은|것도|거를|거는|거도)$/;

/**
 * Verb stems ending in ㄹ lose it before the modifier `-는` (`만들다` -> `만드는`, `놀다` -> `노는`):
 * the stem as it is before `-기`, by its form before `-는`. Only those no other verb has (`사는` is
 * 살다 or 사다: left out).
 */
const RIEUL_DROPPED: Readonly<Record<string, string>> = {
  만드: "만들",
  노: "놀",
  여: "열",
  우: "울",
  부: "불",
  아: "알",
  거: "걸",
  떠드: "떠들",
  흔드: "흔들",
};

/**
 * The activity a verb's modifier `-는` names with a bound noun (`찍는 거`, `마시는 게`), as the
 * verb's noun form `-기` (`찍기`, `마시기`, `만들기`), or the noun of a 하다 verb (`요리하는` ->
 * `요리`); `undefined` for any other word: an adjective's modifier (`맛있는`, `매운`), a past one
 * (`먹은`, `먹던`), a stem that is not one verb's (`사는`).
 */
function activityOf(modifier: string): string | undefined {
  if (!modifier.endsWith("는") || /(?:있|없)는$/.test(modifier)) return undefined;
  const stem = modifier.slice(0, -1);
  if (/^[가-힣]+하$/.test(stem)) return stem.slice(0, -1);
  if (stem === "" || stem === "하" || stem === "사") return undefined;
  return `${RIEUL_DROPPED[stem] ?? stem}기`;
}

/**
 * A bound noun (`거`, `것`: `단 거 좋아해`, `매운 거 못 먹어`) names a thing only with the modifier
 * before it: that word and the noun. A verb's modifier `-는` names an activity: its noun form and
 * the bare object before it (`사진 찍는 게` -> `사진 찍기`, `스키 타는 걸` -> `스키 타기`,
 * `요리하는 거` -> `요리`), so the same activity gets one value whatever bound noun follows. Any
 * other value as it is.
 */
function withModifier(body: string, m: RegExpMatchArray, value: string): string {
  if (!BOUND_NOUN.test(value)) return KIND_NOUN.test(value) ? withKindModifier(wordsBefore(body, m).at(-1) ?? "", value) : value;
  const words = wordsBefore(body, m);
  const before = words.at(-1) ?? "";
  // The modifier ends in -ㄴ/-은/-는/-던 or -ㄹ (`단`, `매운`, `먹는`, `먹을`): its last syllable's final consonant is ㄴ or ㄹ.
  const last = before.charCodeAt(before.length - 1) - 0xac00;
  const modifier = last >= 0 && last <= 11171 && (last % 28 === 4 || last % 28 === 8 || before.endsWith("던"));
  if (!modifier) return value;
  // A verb's modifier keeps its object (`피아노 치는 거`, `스키 타는 걸`: not `치는 거` alone). An
  // adjective's modifier cannot stand between an object and its verb, so a word there that ends
  // like one is a noun (`사진`, `어른`).
  const object = before.endsWith("는") ? (words.at(-2) ?? "") : "";
  // `그거 마시는 거 싫어`: the object is named elsewhere, and the value would say nothing.
  if (/^(?:그거|이거|저거|그것|이것|저것)$/.test(object)) return "";
  const hasObject = object !== "" && (nounLike(object) || REL_WORD.test(object));
  // `요리 하는 거` spaced: the object is the activity.
  if (before === "하는" && hasObject) return object;
  const activity = activityOf(before);
  if (activity === undefined) return hasObject ? `${object} ${before} ${value}` : `${before} ${value}`;
  return hasObject ? `${object} ${activity}` : activity;
}

/**
 * Nouns of a kind that a liking or dislike names with its adjective (`매운 음식`, `추운 날씨`, `단
 * 음식`): without it the value says the opposite of what was meant (`음식을 싫어한다`, "dislikes
 * food"), and two such facts (`매운 음식을 좋아해요`, `단 음식은 안 좋아해요`) share one key, so the
 * second replaced the first.
 */
const KIND_NOUN = /^(?:음식|요리|영화|드라마|음악|노래|날씨|옷|맛|과일|고기|술|계절|스타일|장르|게임|책)$/;

/**
 * `value` with the adjective in modifier form before it (`before`): a Hangul word of at most 4
 * syllables whose last one ends in ㄴ (`매운`, `단`, `짠`, `추운`, `기름진`), not a topic or a
 * time (`저는`, `동생은`, `난`, `요즘엔`).
 */
function withKindModifier(before: string, value: string): string {
  if (!/^[가-힣]{1,5}$/.test(before) || FIRST_PERSON_WORD.test(before)) return value;
  // An adjective of 있다/없다 or one ending in `-은` (`맛있는 음식`, `좋은 음악`): a topic's `은`/`는`
  // would end a noun (`저는`, `동생은`), not these.
  if (/(?:있는|없는)$/.test(before) || ADJECTIVE_EUN.test(before)) return `${before} ${value}`;
  if (/[은는엔]$/.test(before)) return value;
  const last = before.charCodeAt(before.length - 1) - 0xac00;
  if (last % 28 === 4) return `${before} ${value}`;
  // A noun naming the kind (`한국 음식`, `중국 요리`, `국물 요리`, `인디 음악`): the two words.
  return bareNoun(before) && !ADVERB.test(before) && !NOT_A_KIND.test(before) ? `${before} ${value}` : value;
}
/** Adjectives whose modifier ends in `-은` (`좋은`, `작은`), which a topic's particle is not. */
const ADJECTIVE_EUN = /^(?:좋은|작은|높은|낮은|많은|적은|깊은|짧은|넓은|좁은|얇은|맑은|밝은|붉은|검은|젊은|늙은|옅은|짙은|굵은|묽은)$/;
/** Words before a kind noun that name no kind of it: times, demonstratives, quantities. */
const NOT_A_KIND =
  /^(?:요즘|요새|평소|원래|옛날|그|이|저|그런|이런|저런|모든|다른|새|다|또|전부|거의|대부분|아무|어떤|무슨|웬만한|웬만|보통|주로|그냥|진짜|정말|완전|너무|엄청|제일|젤|가장|특히|좀|더)$/;

/** `true` for an adjective in modifier form (`좋은`, `착한`, `예쁜`, `외향적인`), not a noun. */
function modifierForm(word: string): boolean {
  return /(?:한|운|은|던|적인|쁜|픈|른|진|는)$/.test(word);
}

const KOREAN_AGE = "(?:열|스물|스무|서른|마흔|쉰|예순|일흔|여든|아흔)(?:\\s*(?:한|하나|두|둘|세|셋|네|넷|다섯|여섯|일곱|여덟|아홉))?";
/** An age in Sino-Korean numbers from ten, said with 살 or 세 (`이십팔 세`, `삼십오 살`). */
const SINO_AGE = "(?:[이삼사오육칠팔구]?십[일이삼사오육칠팔구]?)";
/** Words that may stand before one's age without owning it: a count's frame (`만`, `한국 나이로`), and time. */
const AGE_FRAME = /^(?:만|한국|우리나라|세는|나이로|어느덧|어느새|드디어|딱|이번에|올해로|내년이면)$/;

/**
 * `true` when the age at `m` is of a thing the bare noun before it names (`우리 강아지 열 살이야`,
 * `이 차 스무 살이에요`), not of the speaker: a noun stands right before it, which neither a time
 * (`올해`), an adverb (`벌써`) nor a frame ({@link AGE_FRAME}) is.
 */
function ageOfOther(body: string, m: RegExpMatchArray): boolean {
  const words = wordsBefore(body, m);
  const before = words.at(-1) ?? "";
  return (before !== "" && nounLike(before) && !AGE_FRAME.test(before)) || words.some((w) => PET_OR_CHILD_WORD.test(w));
}
/**
 * A pet or a small child as a word of its own, bare or with its particle or the copula's connective
 * (`강아지는`, `보더콜리고`, `애기`, `둘째가`): a number of years said in the clause after it, or in
 * a later clause of its sentence (`울 강아지 말티즈인데 두 살이에요`), is theirs, not the speaker's.
 * Not `개` alone, which is also the counter (`두 개`).
 */
const PET_OR_CHILD_WORD = new RegExp(
  `^(?:${PET.replace(/\|개$/, "")}|아기|애기|아가|첫째|둘째|셋째|막내|쌍둥이)(?:은|는|이|가|도|이고|고|인데|이라|라|이랑|랑)?$`,
);
/** A child's age in native numbers below ten, said only with 살 (`일곱 살`, `여덟살`). */
const SMALL_AGE = "(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)";
/** The copula in its connective forms (`마흔셋이고`, `스물일곱인데`, `서른하나라서`). */
const COPULA_LINK = "(?:이고|이라서|이라|라서|라|인데|이지만|이거든|고)";
/** `알레르기` and its spoken spelling `알러지`. */
const ALLERGY = "(?:알레르기|알러지|알르레기)";
/** Nouns ending like an illness (`-증`) that are documents or other things (`자격증`, `인증`). */
const NOT_ILLNESS =
  /(?:인증|자격증|신분증|영수증|보증|면허증|학생증|사원증|증명|등록증|확인증|수료증|합격증|물병|술병|맥주병|소주병|유리병|꽃병|젖병|관심|걱정)$/;
/** Medicines for a passing complaint (`감기약`, `진통제`) or no kind at all (`알약`): no lasting condition. */
const PASSING_MEDICINE =
  /^(?:감기|두통|진통|소화|해열|멀미|변비|설사|상처|알|물|가루|농|마|독|보|한|그|이|저|무슨|어떤|그런|이런|새|무좀|숙취|콧물|기침)약$/;
/** Conditions named without an illness's suffix (`빈혈`, `통풍`, `천식`; `비염` is read by its suffix). */
const CONDITION =
  "당뇨|고혈압|저혈압|고지혈|천식|빈혈|통풍|아토피|편두통|녹내장|백내장|치매|뇌전증|간질|부정맥|협심증|갑상선\\s*저하|갑상선\\s*항진";
/** Provinces by their short names, as written before a town (`전남 여수`, `경북 안동`, `강원 춘천`). */
const PROVINCE_SHORT = "전남|전북|경남|경북|충남|충북|강원|경기|제주";
/** Illnesses that come on at once, named without an illness's suffix (`폐렴`, `뇌경색`, `뇌출혈`, `심근경색`, `중풍`). */
const ACUTE_ILLNESS = "폐렴|결핵|뇌경색|뇌졸중|뇌출혈|뇌혈전|심근경색|심장마비|중풍|패혈증|골절|디스크|허리디스크|목디스크|코로나|독감";
/**
 * A reaction to what one eats or touches, in the present (`먹으면 두드러기가 나요`, `닿으면
 * 가려워`): an allergy, stated as a condition and its result.
 */
const REACTION =
  /(?:먹으면|마시면|먹기만\s*하면|닿으면|만지면)\s+(?:\S+\s+){0,2}?(?:두드러기|알레르기|알러지|발진|가려(?:워|움|운)|가렵|간지러|간지럽|부어|붓(?:고|는|습)|숨이\s*(?:막|차)|재채기)/;
/**
 * Body parts people state a lasting complaint of (`허리가 안 좋아요`, `무릎이 아파`, `어깨 수술
 * 받았어요`); not a passing one (`머리가 아파`, `배가 아파`).
 */
const BODY_PART =
  "허리|무릎|어깨|손목|발목|팔꿈치|골반|척추|디스크|허리디스크|목디스크|전방십자인대|십자인대|인대|반월상연골|연골|아킬레스건|고관절|족저근막|눈|귀|위|간|심장|갑상선|피부|관절|치아";
/**
 * Work one does for a living, said with 하다 (`장사를 하고 있어요`, `자영업 해요`, `알바 뛰어`); farming
 * with its crop (`딸기 농사`, `쌀농사`), not a kitchen garden or a weekend plot (`텃밭 농사`).
 */
const LIVELIHOOD =
  "자영업|장사|사업|개인\\s*사업|(?:(?<![가-힣])(?!요즘|요새|지금|이제|올해|작년|내년|주말|텃밭)[가-힣]{1,4}\\s*)?(?<!텃밭\\s*|주말\\s*)농사|프리랜서|알바|아르바이트|과외|배달\\s*일|택배\\s*일|대리운전";
/**
 * A business one runs, said with 하다 (`카페를 해요`, `엄마 부산에서 식당 하셔`, `치킨집 하고
 * 있어요`): a shop or a restaurant, also by its `-집` (`꽃집`, `낙지집`).
 */
const BUSINESS = "식당|카페|가게|편의점|미용실|네일샵|약국|공방|꽃집|빵집|[가-힣]{1,4}집(?<!우리집|본가집|친정집|시집|옆집|큰집)";
/** A business run in a place says the place is home (`울산에서 장사해요`); an office job does not. */
const LOCAL_WORK = /^(?:자영업|장사|농사|가게|식당|카페|개인\s*사업)$|(?:집|가게|식당|카페|마트|학원|공방|농장|약국|미용실|편의점|농사)$/;
/**
 * Employers people name by a short name alone, with 다니다 (`토스 다녀`, `네이버 다니고 있어요`): a
 * workplace, never a pastime.
 */
const KNOWN_EMPLOYER =
  /^(?:네이버|카카오|쿠팡|토스|당근|당근마켓|배민|우아한형제들|라인|넥슨|넷마블|엔씨|크래프톤|삼성|현대|현대차|기아|엘지|롯데|신세계|한화|포스코|두산|한전|코레일|야놀자|무신사|컬리|직방|비바리퍼블리카)$/;
/**
 * Words that say a message is about a job (`이직했어`, `입사한 지`, `연봉`, `회사 옮겼어요`): a place
 * gone to with 다니다 there is the workplace. Not a time set by work (`퇴근하고`, `회사 끝나고`).
 */
const WORK_TALK = /이직|입사|연봉|출근|팀장|월급|신입\s*사원|직장|회사\s*(?:옮|바꾸|바꿨|바꿔)/;
/**
 * Where one goes for care, not for a pastime: a clinic by its department (`소아과`, `정형외과`,
 * `치과`), any `-병원`, `-의원` or `-클리닉`, a treatment or therapy (`물리치료`, `도수치료`,
 * `재활`), counselling and check-ups.
 */
const CLINIC =
  /(?:^(?:소아|치|내|외|안|피부|정신|신경|이비인후|산부인|비뇨기|비뇨|정형외|성형외|신경외|흉부외|재활의학|가정의학|통증의학|한방|신경정신|소아청소년)과$|병원$|의원$|클리닉$|치료$|재활$|상담$|검진$|보건소$|약국$|요양원$)/;
/** Places too general to be a home (`동네에서`, `집에서`, `온라인으로`). */
/** Office districts named as where one works (`회사가 강남이야`, `직장은 광화문역이라`). */
const OFFICE_DISTRICT = /^(?:강남|광화문|종로|을지로|시청|마곡|구로|가산|상암|성수|역삼|선릉|삼성동|테헤란로|[가-힣]{1,5}역)$/;
/** Makes that name their kind of device (`맥북` is a laptop): a belonging keyed by the device. */
/** Cars sold in Korea by their model (`아반떼`, `쏘렌토`, `EV6`), as people name the car they have or had. */
const CAR_MODEL =
  "아반떼|쏘나타|그랜저|제네시스|캐스퍼|모닝|스파크|쏘렌토|스포티지|카니발|싼타페|투싼|팰리세이드|코나|아이오닉\\s*\\d?|니로|셀토스|티볼리|코란도|말리부|트랙스|포터|봉고|EV\\d|K[3579]|SM[3567]|QM[356]";
const MAKE_DEVICE: Readonly<Record<string, string>> = {
  맥북: "노트북",
  그램: "노트북",
  아이폰: "폰",
  갤럭시: "폰",
  아이패드: "태블릿",
  갤탭: "태블릿",
  에어팟: "이어폰",
  버즈: "이어폰",
  애플워치: "워치",
};
/** Kinds of housing, which name no place of their own (`원룸`, `아파트`). */
/** A parent's house one lives in (`본가`, `친정`): the place named before it is the home. */
const PARENTS_HOUSE = /^(?:본가|친정|시댁|처가)$/;
const HOUSING = /^(?:아파트|빌라|원룸|투룸|오피스텔|주택|단독주택|기숙사|고시원|하숙집|자취방)$/;
/**
 * Where trade is done, not where anyone lives (`중앙시장`, `역 앞`, `지하상가`, `먹자골목`): a shop
 * run there (`중앙시장에서 국밥집 하셔`) says nothing of a home.
 */
const TRADING_PLACE = /(?:시장|상가|상가건물|역|역전|터미널|백화점|쇼핑몰|아울렛|마트|골목|거리|로데오|시장통)$/;
/**
 * A stage of life long past, said as a move's when (`열아홉에`, `스무 살에`, `중학교 때`, `어릴 때`):
 * where one moved then is no home said now (the labelled sets give none; `결혼하면서 … 지금까지 살고
 * 있어요` says the home by its own verb).
 */
const LIFE_STAGE =
  /(?:^|\s)(?:(?:열|스물|스무|서른|마흔|쉰|예순|일흔|여든)[가-힣]{0,2}\s*(?:살\s*)?(?:때|에)|\d{1,2}\s*살\s*(?:때|에)|(?:어릴|어렸을|젊을|젊었을|학생일|애기일)\s*(?:때|적)(?:에)?|(?:초등학교|중학교|고등학교|대학교?|초딩|중딩|고딩|대학생)\s*(?:때|시절)(?:에|에는)?)(?=\s)/;
const NOT_A_HOME =
  /^(?:동네|집|회사|여기|거기|저기|온라인|인터넷|밖|근처|시내|주변|옆|앞|아파트|빌라|원룸|투룸|오피스텔|주택|단독주택|기숙사|고시원|하숙집|자취방|월세|전세|본가|친정|시댁|처가)$/;
/**
 * Towns, not workplaces: the special and metropolitan cities and large cities by name, cities
 * abroad people move to (`도쿄`, `뉴욕`), any name with an administrative suffix (`제주시`,
 * `해운대구`, `성수동`), and the provinces ({@link DO_NOUN}).
 */
const TOWN =
  /^(?:서울|부산|대구|인천|광주|대전|울산|세종|제주|수원|성남|고양|용인|창원|청주|전주|천안|포항|김해|안산|안양|화성|평택|의정부|파주|김포|원주|춘천|강릉|여수|순천|목포|구미|경주|진주|거제|통영|익산|군산|속초|분당|일산|판교|도쿄|오사카|교토|후쿠오카|베이징|상하이|홍콩|타이베이|싱가포르|방콕|하노이|호치민|뉴욕|보스턴|시애틀|시카고|토론토|밴쿠버|런던|파리|베를린|시드니|멜버른)$|^[가-힣]{1,6}(?:특별시|광역시|시|군|구|읍|면|동)$|^(?:경기|강원|충청|충청남|충청북|전라|전라남|전라북|경상|경상남|경상북|제주)도$/;
/**
 * When, where or how a thing was bought or sold, between the thing and the verb (`중고로`, `당근에서`,
 * `작년에`, `싸게`): never the thing itself.
 */
const DEAL_WORD =
  "(?:이번에|결국|드디어|얼마\\s*전에?|작년에?|지난\\s*(?:주|달)에?|최근에?|중고로|새로|새것으로|새걸로|할부로|일시불로|현금으로|온라인으로|인터넷으로|직구로|당근에서?|당근으로|당근마켓에서?|그냥|싸게|급하게)";
const DEAL_ALONE = new RegExp(`^${DEAL_WORD}$`);
/** Devices one owns and names by make or model (`키보드`, `폰`, `노트북`). */
/**
 * What follows a school and its verb in a modifier of a person (`나온 사람이랑`, `다니는 남자`, `졸업한
 * 분`); not the copula after it (`서울대 나온 사람이에요` says the speaker's own school).
 */
const SCHOOL_OF_PERSON =
  /^(?:는|한|인|던)?\s*(?:사람|분|남자|여자|애|놈|녀석|친구|선배|후배|동기|남친|여친|남자친구|여자친구|오빠|언니|형|누나)(?!이에요|예요|이야|야|입니다|임|이고|이라)(?:이랑|랑|하고|과|와|을|를|이|가|은|는|도|한테|에게|들|[\s.,!?~]|$)/;
/** A vehicle of one's own one gets about on (not a bus, the underground, a taxi or a shared bike). */
const VEHICLE = "전기자전거|자전거|로드바이크|미니벨로|스쿠터|전동킥보드|킥보드|오토바이|바이크|자차|전기차";
/** Words of a device's model name after the make (`아이폰16 프로`, `갤럭시 Z플립`, `버즈 프로`). */
const MODEL_WORD = "프로|맥스|울트라|플러스|미니|에어|폴드|플립|라이트|엣지|노트";
const DEVICE =
  "키보드|마우스|폰|핸드폰|휴대폰|스마트폰|노트북|랩탑|컴퓨터|데스크탑|태블릿|패드|모니터|이어폰|헤드폰|헤드셋|카메라|시계|워치|스마트워치|청소기|로봇청소기|냉장고|세탁기|건조기|에어컨|공기청정기|밥솥|전기차|유모차|카시트";
/** A demonstrative closing a list (`새우 게 이런거 못 먹어`): never itself the value. */
const DEMONSTRATIVE = /^(?:이런|그런|저런|요런)\s*(?:거|것|것들|종류|류)?$|^(?:이런거|그런거|저런거|요런거)$/;
/** Words that are a predicate, not a thing (`차는 없어요`: there is none). */
const PREDICATE_WORD = /^(?:없|있|아니|아닌|않)/;
/**
 * Adverbs (of time, frequency, degree, manner) and other words that stand where a case particle
 * dropped in casual speech would leave a noun (`금연클리닉 이미 다니는 중`, `Vue를 더 좋아해`):
 * never a fact's value by themselves. Core's stop words (`좀`, `더`, `잘`, `요즘`) are read too.
 */
const ADVERB =
  /^(?:이미|벌써|아직|아직도|계속|다시|또|덜|자주|가끔|항상|늘|매일|맨날|요새|같이|함께|혼자|열심히|꾸준히|원래|원래는|이제|이젠|주로|보통|거의|많이|조금|특히|일단|먼저|나중에|이따|곧|빨리|천천히|바로|방금|아까|모두|전부|제일|가장|훨씬|꼭|절대|별로|전혀|아마|결국|드디어|지금|오늘|어제|내일|직접|다)$/;

/**
 * Words that stand for what was said before (`그렇게 하려고 합니다`, `거기 다녀`, `그거 샀어`), alone
 * or with the light verb (`이렇게 하기로 했어`): they name nothing, so they are never a fact's value.
 */
const PRO_FORM =
  /^(?:그렇게|이렇게|저렇게|그리|그냥|거기|여기|저기|그곳|이곳|저곳|그거|이거|저거|그것|이것|저것|그걸|이걸|저걸|그런|이런|저런)(?:\s*하)?$/;

/** `true` when `value` is one word that cannot be a value ({@link ADVERB}, core's stop words). */
/** A native numeral an age rule read before `살` (`네`, `세`): a number, though `네` is also the yes-word. */
const NUMERAL_AGE = new RegExp(`^(?:${SMALL_AGE}|${KOREAN_AGE})$`);
function notAValue(value: string): boolean {
  const v = value.trim();
  return ADVERB.test(v) || PRO_FORM.test(v) || (!/\s/.test(v) && isStopword(v.toLowerCase()));
}
/** A verb in a connective form of reason or condition (`비누맛나서`, `먹으면`): a clause, not a noun. */
const CONNECTIVE_VERB = /[가-힣](?:아서|어서|해서|나서|여서|워서|와서|라서|려서|져서|니까|는데|으면|면서)$/;
/**
 * A sentence confirming what the listener said (`어깨 아프다며`, `이사한다면서?`, `-라며`): about
 * the listener or someone else, never a fact the speaker states of themself.
 */
const REPORTED_TO_LISTENER = /(?:다|라|냐)(?:며|면서)[?!.~…]*$/;

/**
 * What is played, by the verb that plays it: 치다 for keys, plucked strings, drums and games
 * hitting a ball (`피아노를 쳐요`, `테니스 쳐`), 켜다 for bowed strings (`바이올린 켜요`), 불다 for
 * wind (`하모니카를 불어요`), 타다 for what is ridden for sport (`자전거를 타요`, `스노보드 타`).
 * Each verb says a hobby only with its class: 치다 and 타다 take any object (`문을 쳐요`, `버스를
 * 타요`), 켜다 and 불다 a light or the wind. 연주하다 needs none: what it takes is an instrument.
 */
const STRUCK =
  "피아노|전자피아노|키보드|건반|기타|통기타|일렉기타|베이스기타|베이스|드럼|우쿨렐레|장구|실로폰|마림바|테니스|골프|스크린골프|파크골프|탁구|배드민턴|볼링|당구|포켓볼|스쿼시|정구";
const BOWED = "바이올린|첼로|비올라|콘트라베이스|더블베이스|해금";
const BLOWN = "플루트|플룻|클라리넷|색소폰|트럼펫|트롬본|호른|오보에|하모니카|오카리나|리코더|단소|대금|피리";
const RIDDEN =
  "자전거|산악자전거|스키|스노보드|보드|서핑|스케이트보드|스케이트|인라인스케이트|인라인|롤러스케이트|롱보드|웨이크보드|수상스키|카약|요트";
/** How many relatives one has (`둘`, `세 명`, `2명`, `하나`): what stands between a relation and 있다. */
const COUNT = "(?:한|두|세|네|다섯|여섯|몇|\\d+)\\s*명|하나|둘|셋|넷|다섯|여섯|일곱|\\d+";
/** Kin one has (`언니`, `남동생`, `아들`): what `<kin> 있어요` says without a particle. */
const KIN = "남동생|여동생|동생|언니|누나|오빠|형|아들|딸|쌍둥이|손자|손녀|손주|조카|남편|아내|와이프|아이들|아이|애들|애";
/** One kin and its count, each (`하나씩`) when several are counted at once (`남동생이랑 여동생 하나씩`). */
const KIN_ONE = `(?:${KIN})(?:\\s*(?:${COUNT})씩?)?`;
/** Kin and their counts, joined by `랑/하고/와/과` or a space, then 있다 or 키우다 ({@link KIN}). */
const KIN_HAD = new RegExp(
  `(?:^|\\s)(${KIN_ONE}(?:(?:\\s*(?:이랑|랑|하고|와|과|,)\\s*|\\s+)${KIN_ONE})*)도?\\s*(?:있어요|있습니다|있어|있다|있고|있는데|있어서|키워요|키웁니다|키우고|키우는)(?=[\\s.!~…,]|$)`,
);
/** One relative of a {@link KIN_HAD} list and its count. */
const KIN_EACH = new RegExp(`(?:^|\\s|랑|하고|와|과|,)(${KIN})(?:\\s*(${COUNT})씩?)?(?=\\s|$|이랑|랑|하고|와|과|,|도)`, "g");
/**
 * A count of relatives said with the copula (`딸이 셋이에요`, `형이 둘인데`, `손주가 넷입니다`, `애가
 * 둘이라`): the relatives one has, as `<relative> 있다` says. The count, then the copula.
 */
const COUNT_WORD = "하나|둘|셋|넷|다섯|여섯|일곱|여덟|아홉|(?:한|두|세|네|다섯|여섯|\\d+)\\s*명";
const COUNT_IS = `(?:${COUNT_WORD})(?:이에요|예요|입니다|이야|야|이고|인데|이라서|이라|이거든|이다|라서|라|고)(?=[\\s.,!~…]|$)`;
/** Titles one is promoted to (`팀장으로 승진했어요`): the work held after. */
const PROMOTED_TO =
  /^(?:팀장|과장|부장|차장|대리|실장|이사|상무|전무|주임|본부장|센터장|파트장|지점장|점장|수석|책임|선임|교감|교장|원장)$/;
/** Nouns of a life event, said with 했다 (`승진했어요`, `합격했다`). */
const EVENT_NOUN = "승진|합격|약혼|출산|입사|전역|제대|취업|개업|창업|임신|프로포즈|프러포즈|등단|퇴원|입원";
/** Children a birth is of (`아기 낳았어`, `둘째 낳아`). */
const CHILD = "아기|애기|아이|애|첫째|둘째|셋째|딸|아들|쌍둥이";

/**
 * No particle after the noun before it: casual speech drops the case particles (`나 새우 못 먹어`,
 * `클라이밍 배우고 있어`, `tennis 쳐` for `새우를`, `클라이밍을`, `tennis를`). Reads a word of
 * Hangul, Latin letters or digits followed by a space.
 */
const BARE = "(?<=[가-힣A-Za-z0-9])(?=\\s)";
/** Hangul syllables with a final consonant (`간`, `했`, `있`, `좋`), as a character class. */
const CLOSED_SYLLABLE = `[${Array.from({ length: 399 }, (_, i) => `\\u${(0xac01 + 28 * i).toString(16)}-\\u${(0xac1b + 28 * i).toString(16)}`).join("")}]`;
/** Hangul syllables without a final consonant (`가`, `오`, `이`), as a character class. */
const OPEN_SYLLABLE = `[${Array.from({ length: 399 }, (_, i) => `\\u${(0xac00 + 28 * i).toString(16)}`).join("")}]`;
/**
 * Verbs and adjectives modifying a noun (`판교에 있는 회사`, `좋은 사람`, `사진 찍는 게`): they end
 * like particles but are not subjects. `는` after a final consonant is always a verb's modifier: the
 * topic particle there is `은`.
 */
// Open stems whose `는` could end a noun's topic (`언니는`, `아내는`, `여자는`) are listed whole
// (`쉬는 날`, `다니는 회사`, `키우는 고양이`).
const ADNOMINAL = new RegExp(
  `(?:[있없하되사가오보먹치알쓰타쉬]는|(?:^|\\s)(?:마시|다니|지내|키우|가르치|고치)는|${CLOSED_SYLLABLE}는|[같많좋작높낮넓깊적]은|던|ㄴ)$`,
);
/**
 * A subject, topic or object particle that agrees with the noun before it: `이/은/을` after a
 * final consonant, `가/는/를` after an open syllable, any after Latin letters or digits. So
 * `오이 싫어` is `오이` without its particle, never `오` with `이`.
 */
const CASE_PARTICLE = `(?:(?<=${CLOSED_SYLLABLE})(?:이|은|을)|(?<=${OPEN_SYLLABLE})(?:가|는|를)|(?<=[A-Za-z0-9])(?:이|가|은|는|을|를))`;
/** {@link CASE_PARTICLE} without the subject particles 이/가: what a transitive verb's object takes. */
const OBJECT_PARTICLE = `(?:(?<=${CLOSED_SYLLABLE})(?:은|을)|(?<=${OPEN_SYLLABLE})(?:는|를)|(?<=[A-Za-z0-9])(?:은|는|을|를)|(?<=[가-힣]{2})도)`;
/** Hangul syllables ending in ㄹ (`할`, `갈`, `볼`): the future modifier `-ㄹ` fused into the verb. */
const RIEUL_SYLLABLE = `[${Array.from({ length: 399 }, (_, i) => `\\u${(0xac08 + 28 * i).toString(16)}`).join("")}]`;
/** Words that set a time to come: a plan says when (`토요일에`, `다음 달`, `올해 안에`, `5월`). */
const FUTURE_TIME =
  /(?:내일|모레|다음\s*(?:주|달|번|해|학기)|담주|담달|이번\s*(?:주|달|주말|방학|휴가|연휴|학기)|올해|내년|주말|[월화수목금토일]요일|\d+\s*월|\d+\s*일|곧|조만간|나중에|언젠가|연휴|방학|휴가|오늘|이따|안에|전에)/;

/**
 * `true` when a clause names a subject other than the speaker with the nominative `이/가/께서`
 * (`옆집 언니가 봐주기로 했어요`: the neighbour will, not the speaker); `제가/내가` are the speaker.
 */
function someoneElseDoes(clause: string): boolean {
  // The last word is the clause's verb (`나가`, `가`), never its subject.
  return clause
    .trim()
    .split(/\s+/)
    .slice(0, -1)
    .some(
      (word) =>
        /^[가-힣]+(?:이|가|께서)$/.test(word) &&
        word.length >= 2 &&
        !/^(?:제가|내가|저희가|우리가)$/.test(word) &&
        !ADNOMINAL.test(word) &&
        !SETTING.test(word) &&
        !/(?:같이|많이|높이|깊이|빨리|일찍이|[가-힣]+게)$/.test(word) &&
        !(word.endsWith("이") && word.length < 3),
    );
}

/**
 * A 하다 noun (`계획`, `준비`) done now: the present progressive (`하고 있어`, `하는 중이야`, `중이에요`)
 * and the present (`해요`, `합니다`, `해`); not the past progressive (`하고 있었어`, `중이었어`), nor
 * `중에` (during it).
 */
const DOING_NOW = `(?:하고\\s*있(?!었)|하는\\s*중(?!이었|이던|에)|중(?!이었|이던|에)|해요|합니다|한다|하는데|하거든|해(?=[\\s.!~…]|$))`;

/**
 * Events one prepares for over weeks or months, so that preparing one is a plan (`이사 준비 중이에요`,
 * `공무원 시험 준비하고 있어`), as the last noun of a compound (`기말시험`, `신혼여행`, `결혼식`).
 * Chores prepared the same day (`저녁`, `밥`, `식사`, `도시락`) end in none of them.
 */
const PREPARED_EVENT =
  /(?:시험|고시|공시|자격증|입시|수능|면접|발표|이사|결혼|결혼식|여행|이직|취업|취직|유학|이민|창업|개업|출산|대회|마라톤|공연|전시|전시회|오디션|편입|임용|졸업|논문)$/;

/** Verbs whose future is a guess about a state, not a plan (`바쁠 거예요`, `괜찮을 거야`). */
const FUTURE_STATE =
  /^(?:그럴|이럴|저럴|괜찮을|좋을|될|있을|없을|아닐|맞을|같을|어떨|힘들|바쁠|늦을|재밌을|재미있을|어려울|쉬울|추울|더울|많을|적을|클|작을|빠를|비쌀|싸|알|모를)$/;

/** Words that say something recurs (`매일`, `매주`, `화요일마다`, `평일 저녁마다`, `일주일에 두 번`). */
const HABIT_TIME =
  "매일|매주|매달|주말마다|주말에|아침마다|저녁마다|밤마다|평일마다|[월화수목금토일]요일마다|퇴근\\s*후에?|퇴근하고|자주|항상|늘|틈틈이|일주일에\\s*(?:\\d+|한|두|세)\\s*번";
/**
 * Words that say an act recurs, before its verb: {@link HABIT_TIME}, adverbs of frequency
 * (`주로`, `보통`, `가끔`), `<time>마다` and a time as the topic (`주말엔`, `쉬는 날에는`).
 */
const HABITUALLY = `(?:${HABIT_TIME}|주로|보통|가끔|종종|[가-힣]+마다|(?:주말|평일|휴일|쉬는\\s*날|방학|휴가)(?:엔|에는))`;
/** A recurring act in a clause (`주로`, `매주`, `토요일마다`): a habit, never a plan. */
const HABIT_WORD = new RegExp(`(?:^|\\s)${HABITUALLY}(?=\\s|$)`);
/** Activities one goes to (`등산 가요`, `낚시를 가`, `캠핑 갑니다`). */
const GONE_ACTIVITY =
  "등산|낚시|캠핑|글램핑|백패킹|산책|수영|클라이밍|볼링|골프|라운딩|스키|서핑|등반|트레킹|드라이브|출사|조깅|러닝|요가|필라테스|헬스|탁구|당구|노래방|사우나|찜질방";
/** Activities kept up with 하다, 다니다 or 가다 ({@link GONE_ACTIVITY} and workouts, games, crafts). */
const HABIT_ACTIVITY = `${GONE_ACTIVITY}|운동|명상|독서|뜨개질|스트레칭|홈트|발레|복싱|주짓수|크로스핏|축구|농구|야구|풋살|배구|마라톤|줌바|댄스|춤|필라테스|PT`;
/**
 * A pastime by the form of its name: a loanword in -ing (`베이킹`, `클라이밍`, `캠핑`, `러닝`), a
 * doing (`뜨개질`, `그림 그리기`), games and building toys (`레고`); what one is into otherwise is a
 * thing one likes (`공룡`).
 */
const ACTIVITY_FORM =
  /(?:[킹밍핑닝딩잉싱팅깅빙링]|질|하기|그리기|만들기|게임|수영|요리|여행|등산|낚시|골프|테니스|요가|그림|노래|악기|레고|퍼즐)$/;
/** The particle of an activity as the topic or object (`테니스는`, `수영을`, `요가도`); without one it may begin a compound (`야구 시즌`). */
const TOPIC_OR_OBJECT = "(?:은|는|을|를|도)\\s+";
/**
 * What one falls into that is no pastime (`물에 빠졌어`, `고민에 빠졌어요`): water and holes,
 * states of mind and love, the fun of something (`텃밭 가꾸는 재미에`).
 */
const NOT_INTO =
  /^(?:물|바다|강|호수|계곡|수영장|웅덩이|구멍|하수구|함정|늪|수렁|나락|사랑|고민|생각|잠|슬럼프|위기|혼란|우울|우울감|불안|공황|충격|절망|패닉|멘붕|곤경|딜레마|유혹|매력|침체|시름|혼수상태|매너리즘|타성|재미)$/;
/** What is frightening or gory to watch (`공포영화`, `잔인한 영화`, `무서운 거`, `피 나는 장면`). */
const GRUESOME = /공포|호러|귀신|좀비|고어|스릴러|슬래셔|잔인|무서|징그|끔찍|피\s|벌레|수술\s*장면/;
/** The purpose of a trip (`출장`, `카페 투어`, `여행`): where it went is the event's place. */
const TRIP_PURPOSE = /(?:투어|출장|여행|휴가|워크숍|워크샵|연수|답사|견학|엠티|MT|캠핑|출사|세미나|학회|전지훈련)$/;
/** A pet by its kind alone, which a breed said after it names more closely. */
const GENERIC_PET = /^(?:강아지|고양이|반려견|반려묘|개)$/;
/** A clause that is a word and the copula alone (`말티즈예요`, `푸들이야`): a breed there names a pet said before. */
const BREED_ALONE = /^([가-힣]+?)(?:이에요|예요|에요|입니다|이야|야|이고|고|이요|요)?[.!~…]*$/;
/** A breed among {@link PET}: what is left once the kinds alone are taken out. */
const BREED = new RegExp(
  `^(?:${PET.split("|")
    .filter((p) => !/^(?:강아지|고양이|반려견|반려묘|햄스터|앵무새|토끼|물고기|거북이|고슴도치|기니피그|개)$/.test(p))
    .join("|")})$`,
);
/** Nouns of time before `에` (`지난주에`, `방학에`): never a trip's place. */
const TIME_BEFORE_E = /(?:주|달|해|년|월|일|날|때|전|후|방학|휴가|주말|연휴|아침|점심|저녁|밤)$/;
/**
 * Words saying when one goes home, before `본가 내려가요` (`다음주`, `설날`, `추석 연휴`, `명절`): never the
 * town of the home ({@link FUTURE_TIME}'s words, holidays, and words ending in a break or `때`/`마다`).
 * Not {@link TIME_BEFORE_E}, which ends towns too (`광주`, `전주`, `청주`).
 */
const HOME_VISIT_TIME = new RegExp(
  `^(?:${FUTURE_TIME.source})$|^(?:설|설날|구정|추석|한가위|명절|어제|지난\\s*주|저번\\s*주|매년|매주|해마다)$|(?:연휴|방학|휴가|명절|때|마다)$`,
);

/** Adverbs of degree before a verb of liking (`완전 좋아해`, `넘 싫어`): never the liked object. */
/** Adverbs of degree and comparison (`더`, `덜`, `훨씬`: `Vue를 더 좋아해` likes Vue more). */
const DEGREE_WORDS =
  "정말|진짜|진심|너무|넘|엄청|완전|되게|디게|무척|아주|제일|젤|가장|좀|많이|겁나|무지|꽤|특히|원래|늘|항상|더|덜|훨씬|더욱|조금";
const DEGREE = `(?:(?:${DEGREE_WORDS})\\s*)*`;

/**
 * A verb of playing ({@link STRUCK}, {@link BOWED}, {@link BLOWN}, {@link RIDDEN}) in the endings
 * that say it is done as a habit or these days: 해요체, 합쇼체, 반말 (`쳐요`, `칩니다`, `친다`,
 * `쳐`), the progressive (`치고 있어`, `치는 중`) and the connectives of a statement (`치는데`,
 * `치거든`); not the past (`쳤어`: once), nor `치고` before another verb (`자전거 타고 출근해요`: a
 * way to get there). The forms are the stem, its 아/어 form, its 합쇼체 and plain stems and its
 * modifier (`치`, `쳐`, `칩`, `친`, `치는`).
 */
function playing([stem, polite, formal, plain, adnominal]: readonly [string, string, string, string, string]): string {
  return `(?:${polite}요|${formal}니다|${plain}다|${polite}(?=[\\s.!~…]|$)|${stem}고\\s*있|${adnominal}\\s*중|${adnominal}데|${stem}거든|${stem}죠|${stem}곤\\s*해)`;
}

/** Where each honorific ending of {@link WALKED} goes: the polite, the plain, the formal, a connective. */
const HONORIFIC_ENDING: Readonly<Record<string, number>> = { 세요: 0, 셔요: 0, 셔: 1, 십니다: 2, 시는데: 3, 시거든: 4 };
/**
 * 걷다, 달리다 and 뛰다 by their honorific stem (`걸으-`, `달리-`, `뛰-`): the forms the walking rule
 * reads for each ending of {@link HONORIFIC_ENDING}.
 */
const WALKED: Readonly<Record<string, readonly [string, string, string, string, string]>> = {
  걸으: ["걸어요", "걸어", "걷습니다", "걷는데", "걷거든"],
  달리: ["달려요", "달려", "달립니다", "달리는데", "달리거든"],
  뛰: ["뛰어요", "뛰어", "뜁니다", "뛰는데", "뛰거든"],
};
/**
 * The past of 걷다 (`걸었`), as its present `걸어요`: 걷다 is irregular, so the rebuild `-고 있어요`
 * would give 걸다's `걸고 있어요` (`예전엔 매일 걸었는데` -> `매일 걸어요`).
 */
const WALKED_PAST = /(^|\s)걸었(?:어요|어|습니다|는데|지만|고|다|었)?(?=[\s.!~…]|$)/g;
/** The 아/어 form of each verb of playing (치다, 켜다, 타다, 불다), by its stem: what `plainForm` turns its honorific into. */
const PLAYED_POLITE: Readonly<Record<string, string>> = { 치: "쳐", 켜: "켜", 타: "타", 부: "불어" };
/**
 * The particle of what is played, if any, and adverbs of degree, frequency or skill before the
 * verb (`테니스를 자주 쳐요`, `골프는 가끔 쳐요`, `스키 잘 타요`).
 */
const PLAYED_OBJECT = `(?:을|를|도|은|는)?\\s*(?:(?:${DEGREE_WORDS}|자주|가끔|종종|매일|매주|주로|보통|잘|열심히|꾸준히|아직도|요즘도|아직)\\s*)*`;

/** Pronouns (`저`, `우리`, `다들`), negations and short adverbs: never a compound's first noun. */
const FUNCTION_WORD =
  /^(?:저|나|제|내|너|니|저희|우리|다들|그|이|안|못|잘|좀|꼭|또|막|딱|참|왜|뭐|걍|그냥|그러다|이러다|어쩌다|그렇게|이렇게)$/;

/**
 * `true` for a word that can be the first noun of a compound (`기타 연주`, `볼링 동호회`): one word
 * with no particle or verb ending, no pronoun, time, adverb or relation, and not ending like an
 * adjective's modifier ({@link modifierForm}).
 */
function bareNoun(word: string): boolean {
  return nounLike(word) && !modifierForm(word);
}

/** A unit of an organisation (`판교지점`, `공장`, `응급실`): named by the organisation before it. */
const ORGANISATION_UNIT = /(?:지점|지사|지부|본사|본점|분점|공장|센터|매장|응급실|병동|연구소|사업소|사업장|영업소|출장소|캠퍼스)$/;

/**
 * A workplace that is a unit of an organisation with the organisation's word before it (`기아
 * 판교지점`, `울산 현대차 공장` -> `현대차 공장`, `서울대병원 응급실`): both words, so the
 * organisation is part of the value; a town before it (`울산 공장`) or a word with a particle
 * (`형은 공장`) is none.
 */
function withOrganisation(unit: string, before: string): string {
  if (!ORGANISATION_UNIT.test(unit)) return unit;
  const prev = /(\S+)\s+$/.exec(before)?.[1];
  return prev !== undefined && nounLike(prev) && !TOWN.test(prev) && !/(?:구|동|읍|면|시|군)$/.test(prev) ? `${prev} ${unit}` : unit;
}

/**
 * A workplace by its form, moved to or left in a job move (`LG전자`, `농협`, `아산병원`, `대구지점`,
 * `시청`, `보도국`, `KBS`): not a town, a home or a thing.
 */
const MOVED_WORKPLACE_FORM =
  /(?:회사|은행|병원|의원|전자|그룹|증권|카드|보험|공사|공단|센터|연구소|연구원|스튜디오|지점|지사|본사|공장|매장|방송국|총국|보도국|우체국|농협|수협|[가-힣]청)$/;
/** A time or a form that sets a job move to come (`다음 달에`, `내년에`, `-ㄹ 거예요`, `예정`); `이번 달부터` may be now. */
const MOVE_TO_COME = /(?:내일|모레|다음\s*(?:주|달|번|해|학기)|담주|담달|내년|곧|조만간|나중에|언젠가|예정|[할갈]\s*거|할\s*계획)/;
function movedWorkplace(v: string): boolean {
  return (
    !/^(?:회사|직장)$/.test(v) &&
    (MOVED_WORKPLACE_FORM.test(v) || KNOWN_EMPLOYER.test(v) || WORKPLACE_NAME.test(v) || /^[A-Z][A-Za-z0-9&]{1,}$/.test(v))
  );
}

/**
 * {@link withOrganisation}, and a workplace with the organisation named before it in capitals or
 * by a name the rules know (`MBC 보도국`, `카카오 판교오피스`).
 */
function withEmployerBefore(v: string, before: string): string {
  const unit = withOrganisation(v, before);
  if (unit !== v) return unit;
  const prev = /(\S+)\s+$/.exec(before)?.[1];
  return prev !== undefined && (/^[A-Z][A-Z0-9&]{1,}$/.test(prev) || KNOWN_EMPLOYER.test(prev)) ? `${prev} ${v}` : v;
}

/** {@link bareNoun} without the test for an adjective's modifier, for a place where none can stand. */
function nounLike(word: string): boolean {
  return (
    /^(?:[가-힣]+|[A-Za-z]{2,})$/.test(word) &&
    (!/(?:은|는|을|를|이|가|에|서|도|고|게|로|랑|와|과|의|만|요|죠)$/.test(word) || DO_NOUN.test(word) || GA_NOUN.test(word)) &&
    // `-다` ends a verb after a final consonant (`했다`, `있다`); after an open syllable, mostly a noun (`캐나다`, `바다`).
    !new RegExp(`${CLOSED_SYLLABLE}다$`).test(word) &&
    !FIRST_PERSON_WORD.test(word) &&
    !FUNCTION_WORD.test(word) &&
    !REL_WORD.test(word) &&
    !SETTING.test(word) &&
    !notAValue(word)
  );
}

/**
 * The endings a verb takes where it states something of its subject, for a 하다 verb's stem
 * (`좋아`, `싫어`): 해요체 (`-해요`, `-해서`), 합쇼체 (`-합니다`), 반말 (`-해`, `-한다`), the
 * connectives (`-하고`, `-하는데`, `-하거든`, `-하지만`), `-하죠`, `-하잖아`, `-하더라` and the
 * written-casual `-함` (`좋아함`). Not the modifier `-하는 <noun>` (`좋아하는 가수는`: the noun
 * is the topic, read by another rule) nor the past (`좋아했`, read as `ended` where it holds no
 * longer).
 */
const hada = (stem: string) => `${stem}(?:해|합니다|한다|하고|하는데|하거든|하지만|하죠|하잖아|하더라|함(?=[\\s.!~…]|$))`;

/**
 * Words that stand before a verb of liking but are never what is liked: degree adverbs, times,
 * pronouns (`지금은 제일 좋아해요`, `그것도 좋아해`).
 */
const NOT_AN_OBJECT = new RegExp(
  `^(?:${DEGREE_WORDS}|지금|이제|요즘|요새|처음|나중|다|모두|그것|그거|이것|이거|저것|그게|그건|둘\\s*다)(?:은|는|도|에는|엔)?$`,
);

/** A sense of a thing (`냄새`, `맛`, `식감`), with a particle: what is disliked about it, not a thing disliked. */
const SENSE = /^(?:냄새|맛|향|식감|소리|모양|생김새|느낌)(?:은|는|도|만|이|가)?$/;

function clean(value: string): string {
  return value.replace(/^[\s"'“”]+|[\s.,!?~"'“”]+$/g, "").trim();
}

/** What a rule builds; `attribute` overrides the rule's own (a rule reading several attributes' forms). */
type Built = Omit<CandidateFact, "subject" | "attribute" | "language"> & { attribute?: string };
const single = (value: string, text: string): Built => ({ value, text, multi: false });
const list = (value: string, text: string, keyValue?: string): Built => ({ value, text, multi: true, ...(keyValue ? { keyValue } : {}) });

/** Common Korean surnames: a name the speaker gives after an affiliation starts with one. */
const SURNAME =
  "김|이|박|최|정|강|조|윤|장|임|한|오|서|신|권|황|안|송|류|유|전|홍|고|문|양|손|배|백|허|남|심|노|하|곽|성|차|주|우|구|민|진|나|지|엄|채|원|천|방|공|현|함|변|염|여|추|도|소|석|선|설|마|길|연|위|표|명|기|반|왕|금|옥|육|인|맹|제|모|탁|국|봉|편|용|예|경";
/**
 * Words a name follows when the speaker gives their place first: a department, team or office
 * (`경영학과`, `마케팅팀`, `인사부`, `영업2팀`), a year or cohort (`3학년`, `20학번`, `12기`), a
 * newcomer's role (`신입사원`, `인턴`).
 */
const AFFILIATION =
  "[가-힣A-Za-z0-9]+(?:학과|학부|과|팀|부|실|반|본부|센터|지점|지사|소속|동아리|연구실|랩)|\\d+\\s*(?:학년|학번|기)|신입사원|신입|인턴|막내";
/** Titles and roles that follow a surname (`김과장`, `박대리`) or stand where a name would (`신입`). */
const TITLE =
  /^(?:과장|대리|부장|차장|팀장|실장|사장|주임|이사|사원|인턴|선배|후배|교수|선생|기자|작가|원장|씨|님|입|장|반장|회장|총무|매니저|대표|상무|전무)(?:님)?$/;
/**
 * Three-syllable roles that start like a surname (`신입생`, `전문가`, `이반` for class 2): a
 * student's standing, a person's function, a Sino number and its counter.
 */
const ROLE =
  /(?:생|가|님|씨)$|^(?:담당자|책임자|관리자|기술자|운영자|설계자|계약직|정규직|파견직|조교님|부회장|부반장|부팀장|부대표)$|^[일이삼사오육칠팔구십]+(?:반|조|층|호|기|팀|과|학년)$/;
/**
 * A department (`경영학과`, `컴퓨터공학과`) said with the year, as what one is, or attended; in a
 * graduate course too (`통계학과 박사 2년차`, `경영학과 석사과정이에요`).
 */
const DEPARTMENT = new RegExp(
  `(?:^|\\s)([가-힣]{1,10}학)과(?=\\s*(?:\\d+\\s*(?:학년|학번|년차)|박사|석사|석박사|대학원|학생|재학|졸업|(?:에\\s*)?다녀|(?:에\\s*)?다니|이에요|예요|입니다|이야|이고|인데|생이)|\\s+(?:신입생|졸업생|(?:${SURNAME})[가-힣]{1,2}(?:이에요|예요|입니다|이야|야))|[.!~…]*$)|(?:^|\\s)([가-힣]{2,10})과\\s*\\d+\\s*학년`,
);

/**
 * A school or its level before a year (`고등학교 2학년`, `초등 5학년`, `대학 1학년`, `고려대 3학년`:
 * the school rule reads a named one): no major.
 */
/**
 * A plural subject that refers back to the relatives just named (`손주가 넷입니다. 다들 서울에
 * 살아요.`, `딸이 둘 있는데 걔네 다 미국 살아`, `모두 결혼했어요`).
 */
const PLURAL_BACK =
  /^(?:다들|모두|모두들|다|전부|걔네(?:들)?(?:은|는|도)?(?:\s+(?:다|모두))?|얘네(?:들)?(?:은|는|도)?(?:\s+(?:다|모두))?|(?:둘|셋|넷)\s*다)\s+/;
/** A school level alone, said after a relative was named (`동생 하나 있음. 고딩임`). */
const SCHOOL_SLANG_ALONE = /^(?:고딩|중딩|대딩|초딩|고[1-3]|중[1-3]|초[1-6])(?:이에요|이야|입니다|임)[.!~…]*$/;
/** School levels in slang or by their year (`고딩`, `중딩`, `대딩`, `초딩`, `고3`, `중1`). */
const SCHOOL_SLANG = "고딩|중딩|대딩|초딩|고[1-3]|중[1-3]|초[1-6]";
const SCHOOL_LEVEL = /^(?:초등|중등|고등|초|중|고|대학|대딩|고딩|중딩|초딩|유치원|국민학교|학부|대학원|석사|박사)$|(?:학교|[가-힣]대)$/;

/** The speaker's study in a department ({@link DEPARTMENT}): `경영학과` -> `경영학`, `컴공과 3학년` -> `컴공`. */
function studyOfDepartment(body: string): string | undefined {
  const m = DEPARTMENT.exec(body);
  return m ? ((m[1] ?? m[2]) as string) : undefined;
}

/**
 * Syllables common in Korean given names (`민지`, `지훈`, `서연`, `하은`): a word before or after a
 * job is a name only when made of these (`영어 선생님`, `치과 간호사` are not).
 */
const GIVEN_SYLLABLE = new Set(
  "민지서연수현준우영진하윤은유아정성재태혜희경주호훈빈원린율나다소예채시도건석철혁환승상동용종기미선숙순자옥명인규범찬결별솔람름리이해한효창균욱열웅식근국만남춘길덕봉분례향란금슬온새봄결록헌완강찬".split(
    "",
  ),
);
/** Words of given-name syllables that qualify a job (`소아 간호사`, `수석 디자이너`) or set a time or degree. */
const NOT_A_GIVEN_NAME =
  /^(?:유아|소아|아동|특수|수석|정규|정식|현재|남자|여자|영재|유명|인기|명예|우리|저희|정말|지금|준비|예비|성인|수련|전임|재직|주임|선임|이미|다시|아직|아마|이제|원래|요즘|현직|한국|미국|중국|일본|영국|동네|시간|기간|정년)$/;

/** `true` for a given name of two syllables, or a surname and two ({@link GIVEN_SYLLABLE}, {@link SURNAME}). */
function givenNameLike(word: string): boolean {
  if (!/^[가-힣]{2,3}$/.test(word) || NOT_A_GIVEN_NAME.test(word) || notAValue(word) || SETTING.test(word)) return false;
  if (REL_WORD.test(word) || new RegExp(`^(?:${JOB}|${PET})$`).test(word) || NOT_A_NAME.test(word)) return false;
  const given = word.length === 3 ? (new RegExp(`^(?:${SURNAME})`).test(word) ? word.slice(1) : "") : word;
  return given !== "" && [...given].every((c) => GIVEN_SYLLABLE.has(c));
}

/** The copula ending a sentence, by the final consonant of the word before it. */
const FINAL_COPULA = `(?:(?<=${CLOSED_SYLLABLE})(?:이에요|이야|입니다|이고요)|(?<=${OPEN_SYLLABLE})(?:예요|야|입니다|고요)|(?<=[A-Za-z])(?:이에요|예요|이야|야|입니다))[.!~…]*$`;

interface Rule {
  attribute: string;
  re: RegExp;
  build: (m: RegExpMatchArray, l: string, body: string) => Built | Built[] | undefined;
  /** Allowed for a relative as subject (not only the speaker). */
  relative?: boolean;
}

const RULES: Rule[] = [
  {
    attribute: "name",
    // Casual speech drops the topic's particle (`이름 정민호임`, `내 이름 김하늘이야`).
    // `제`/`내` as a word of their own: the `내` that ends `아내` is no "my" (`아내 이름은 민지예요` names the wife).
    re: new RegExp(
      `(?:^|(?<![가-힣])(?:제|내)\\s*)이름(?:은|\\s)\\s*([가-힣A-Za-z]+?)(?:(?:이)?라고\\s*(?:합니다|해요|해|불러)|${COPULA})`,
    ),
    build: (m, l) => single(m[1] as string, `${l}의 이름은 ${m[1]}`),
  },
  {
    attribute: "name",
    re: /^([가-힣]{2,4}?)(?:이)?라고\s*(?:합니다|해요|해|불러)/,
    build: (m, l) => single(m[1] as string, `${l}의 이름은 ${m[1]}`),
  },
  {
    // A full name after what the speaker does (`시장에서 떡집을 하는 박영희라고 합니다`, `카페 하는
    // 김민수입니다`): the name, and a business run there is the work.
    attribute: "name",
    re: new RegExp(
      `(?:^|\\s)(\\S+는)\\s+((?:${SURNAME})[가-힣]{2})(?:(?:이)?라고\\s*(?:합니다|해요)|(?<=${CLOSED_SYLLABLE})(?:입니다|이에요)|(?<=${OPEN_SYLLABLE})(?:입니다|예요))[.!~…]*$`,
    ),
    build: (m, l, body) => {
      if (!ADNOMINAL.test(m[1] as string)) return undefined;
      const name = m[2] as string;
      const named = single(name, `${l}의 이름은 ${name}`);
      const modifierEnd = (m.index ?? 0) + m[0].indexOf(m[1] as string) + (m[1] as string).length;
      const business = new RegExp(`(?:^|\\s)(${BUSINESS})(?:을|를)?\\s*(?:운영)?하는$`).exec(body.slice(0, modifierEnd));
      if (business === null) return named;
      const v = business[1] as string;
      return [named, { ...single(v, `${topic(l)} ${josa(v, "을", "를")} 한다 (직장, 직업)`), attribute: "work" }];
    },
  },
  {
    // A short name and the job, the whole sentence (`민지 간호사야`, `지훈 개발자예요`, `김도현
    // 회계사입니다`, `디자이너 윤아예요`): the name and the work; a word qualifying the job is no
    // name (`영어 선생님이에요`, `소아 간호사예요`: {@link givenNameLike}).
    attribute: "name",
    re: new RegExp(`^(?:([가-힣]{2,3})\\s+(\\S*?(?:${JOB}))|(${JOB})\\s+([가-힣]{2,3}?))${FINAL_COPULA}`),
    build: (m, l) => {
      const name = (m[1] ?? m[4]) as string;
      const job = (m[2] ?? m[3]) as string;
      if (!givenNameLike(name)) return undefined;
      return [single(name, `${l}의 이름은 ${name}`), { ...single(job, `${topic(l)} ${job} (직업)`), attribute: "work" }];
    },
  },
  {
    // A name after an affiliation (`경영학과 3학년 이도윤입니다`, `저는 마케팅팀 김하늘이에요`,
    // `영업2팀 정민호라고 합니다`): a surname and one or two syllables; not a role or a title
    // (`마케팅팀 팀장이에요`, `기획팀 김과장입니다`). A department before it is the speaker's study.
    attribute: "name",
    re: new RegExp(
      `(?:^|\\s)(?:${AFFILIATION})\\s+((?:${SURNAME})[가-힣]{2})(?:(?<=${CLOSED_SYLLABLE})(?:이에요|이야|이고요|이라고\\s*(?:합니다|해요|해))|(?<=${OPEN_SYLLABLE})(?:예요|야|고요|라고\\s*(?:합니다|해요|해))|입니다)[.!~…]*$`,
    ),
    build: (m, l, body) => {
      const name = m[1] as string;
      // `소관이야` is a word of two syllables and the copula `이야`, not a name `소관이`.
      const copulaInside = new RegExp(`^.${CLOSED_SYLLABLE}이$`).test(name);
      if (
        copulaInside ||
        TITLE.test(name.slice(1)) ||
        NOT_A_NAME.test(name) ||
        ROLE.test(name) ||
        new RegExp(`^(?:${JOB}|${REL})$`).test(name)
      )
        return undefined;
      const named = single(name, `${l}의 이름은 ${name}`);
      const study = studyOfDepartment(body);
      return study === undefined ? named : [named, { ...single(study, `${topic(l)} ${study} 전공 (학교, 전공)`), attribute: "study" }];
    },
  },
  {
    // A department said with the year or as what one is (`컴퓨터공학과 3학년이에요`, `경영학과
    // 다녀요`): the speaker's study; not a department named for something else (`경영학과 친구가`).
    attribute: "study",
    re: DEPARTMENT,
    build: (m, l, body) => {
      const study = studyOfDepartment(body);
      if (study === undefined) return undefined;
      const major = single(study, `${topic(l)} ${study} 전공 (학교, 전공)`);
      // The school named before the department (`연세대 경영학과 다녀요`) is the school.
      const school = wordsBefore(body, m).at(-1) ?? "";
      return /^[가-힣]{1,6}(?:대|대학교|대학)$/.test(school) && !/^(?:대|대학|대학교|전문대|지방대)$/.test(school)
        ? [major, { ...single(school, `${topic(l)} ${school}에 다닌다 (학교)`), attribute: "school" }]
        : major;
    },
    relative: true,
  },
  {
    // A major named short, by the year (`컴공 2학년이야`, `경영 3학년이에요`, `전자공학 4학년임`):
    // the speaker's study; not a school's level (`고등학교 2학년`, `초등 5학년`) nor a time (`올해`).
    attribute: "study",
    re: new RegExp(`(?:^|\\s)([가-힣A-Za-z]{2,10})\\s*\\d\\s*학년(?:${COPULA_LINK}|${COPULA})(?=[\\s.,!~…]|$)`),
    build: (m, l) => {
      const v = m[1] as string;
      // A school by its short name (`청운중 3학년`, `한빛고 2학년`) is the school rule's.
      return !bareNoun(v) || SCHOOL_LEVEL.test(v) || /[가-힣](?:중|고|초)$/.test(v)
        ? undefined
        : single(v, `${topic(l)} ${v} 전공 (학교, 전공)`);
    },
    relative: true,
  },
  {
    attribute: "age",
    re: new RegExp(
      `(?:나이(?:는|가)\\s*)?(\\d{1,3}|${KOREAN_AGE}|${SINO_AGE}(?=\\s*(?:살|세)))\\s*(?:살|세)?(?:이에요|이야|입니다|이다|예요|에요|이\\s*됐|이\\s*되었|이거든요)(?:어요|어|습니다|다)?[.!~…]*(?=\\s|$)`,
    ),
    // A digit alone is an age only with 나이/살/세; Korean tens (`스물다섯이야`, `서른이야`) are
    // ages. The age may end the sentence or stand before another (`스물아홉이야 이제 곧 서른`).
    build: (m, l, body) =>
      (/나이|살|세/.test(body) || new RegExp(`^${KOREAN_AGE}$`).test(m[1] as string)) && !ageOfOther(body, m)
        ? single(m[1] as string, `${topic(l)} ${m[1]}살 (나이)`)
        : undefined,
    relative: true,
  },
  {
    // The date first (`3월 14일이 제 생일이라 그날은 빼주세요`, `10월 2일이 내 생일이야`): the birthday,
    // in a request too (the clause is cut before the request).
    attribute: "birthday",
    re: /(\d{1,2}\s*월\s*\d{1,2}\s*일)(?:이|은)\s*(?:제|내)\s*생일(?:이라서?|이에요|이야|임|입니다|인데|이고)(?=[\s.,!~…]|$)/,
    build: (m, l) => {
      const v = (m[1] as string).replace(/\s+/g, " ");
      return single(v, `${l}의 생일은 ${v} (생일, 나이)`);
    },
  },
  {
    attribute: "birthday",
    // `내 생일 5월 3일이야` drops the particle; a birthday is a date (`생일 파티야` is none).
    // The date may end its own clause (`생일이 3월 2일이라 친구들이 …`): only the date is read.
    re: new RegExp(`생일(?:은|이)?\\s*(.+?)(?:${COPULA}[.!~…]*$|(?<=일)(?:이라서|이라|이고|인데)(?=\\s))`),
    build: (m, l) => {
      const v = clean(m[1] as string);
      return /\d|월|일|날/.test(v) ? single(v, `${l}의 생일은 ${v} (생일, 나이)`) : undefined;
    },
    relative: true,
  },
  {
    // The workplace or its town by the copula (`회사는 여의도라서 멀어요`, `직장이 판교야`, `직장은
    // 카카오예요`, `회사는 판교 넥슨이고`, `직장 LG전자임`) or where it is (`회사가 판교에 있어요`): an
    // employer by name or by its form (`삼성전자`, a Latin name), the town otherwise; not a state or a
    // distance (`회사가 코앞이라`, `회사는 처음이라`, `회사는 집 근처에 있어요`).
    attribute: "work",
    re: new RegExp(
      `^(?:${MY}\\s*)?(?:회사|직장|사무실|일하는\\s*곳)(?:은|는|이|가|\\s)\\s*(?:([가-힣]+(?<!에))\\s+)?([가-힣A-Za-z0-9&]+?)(?:(?:${COPULA_LINK}|${COPULA}|임)(?=[\\s.,!~…]|$)|에\\s*있(?:어요|어|습니다|고|는데|음|거든요?|다)(?=[\\s.,!~…]|$))`,
    ),
    build: (m, l) => {
      const v = clean(m[2] as string);
      const town = (w: string) => TOWN.test(w) || DO_NOUN.test(w) || OFFICE_DISTRICT.test(w);
      const employer = KNOWN_EMPLOYER.test(v) || WORKPLACE_NAME.test(v);
      if (m[1] !== undefined && !town(clean(m[1])) && !(employer && /^(?:지금|현재|요즘|요새)$/.test(m[1]))) return undefined;
      if (m[0].includes("있") && !town(v)) return undefined;
      return town(v) || employer ? single(v, `${topic(l)} ${v}에서 일한다 (직장, 직업)`) : undefined;
    },
    relative: true,
  },
  {
    attribute: "work",
    re: new RegExp(`(?:^|(?<![가-힣])(?:제|내)\\s*)직업(?:은|이)\\s*(\\S+?)${COPULA}[.!~…]*$`),
    build: (m, l) => single(m[1] as string, `${topic(l)} ${m[1]} (직업)`),
    relative: true,
  },
  {
    attribute: "residence",
    re: new RegExp(`사는\\s*(?:곳|데|동네)(?:은|는|이)\\s*(\\S+?)${COPULA}[.!~…]*$`),
    build: (m, l) => single(clean(m[1] as string), `${topic(l)} ${clean(m[1] as string)}에 산다 (사는 곳)`),
    relative: true,
  },
  {
    // Home named by the copula (`집이 잠실이라 멀어요`, `우리 집은 일산이야`); not a state of the
    // home (`집이 엉망이라`) nor someone else's (`민지 집이`: no `우리/제/내` or nothing before).
    attribute: "residence",
    re: new RegExp(`^(?:${MY}\\s*)?집(?:이|은)\\s*(\\S+?)(?:${COPULA_LINK}|${COPULA})[.!~…]*(?=\\s|$)`),
    build: (m, l) => {
      const v = clean(m[1] as string);
      return NOT_A_HOME.test(v) ||
        !nounLike(v) ||
        /\d|^(?:엉망|엉망진창|난리|개판|난장판|공사|최고|처음|반지하|전부|다|여기|거기|저기|근처|코앞|바로\s*앞)$/.test(v)
        ? undefined
        : single(v, `${topic(l)} ${v}에 산다 (사는 곳)`);
    },
    relative: true,
  },
  {
    attribute: "hobby",
    // Casual speech drops the topic's particle (`취미 클라이밍임`).
    re: new RegExp(`취미(?:는|가|\\s)\\s*(.+?)${COPULA}[.!~…]*$`),
    build: (m, l) => list(clean(m[1] as string), `${l}의 취미는 ${clean(m[1] as string)} (취미)`),
    relative: true,
  },
  {
    attribute: "hometown",
    // `원래`/`본래` before it says where one is from all the more (`원래 대구 사람이에요`).
    re: /^(?:(?:원래|본래|원래는)\s+)?(\S+?)\s*사람(?:이에요|입니다|이야|이다|이거든요)/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      return modifierForm(v) ? undefined : single(v, `${topic(l)} ${v} 사람 (고향, 출신)`);
    },
    relative: true,
  },
  {
    attribute: "age",
    re: /(\d{1,3})\s*살(?:이에요|이야|입니다|이다|이고|이라|인데|예요|에요|이\s*됐|이\s*되었|이거든요|\s*됐|\s*되었)/,
    build: (m, l, body) => (ageOfOther(body, m) ? undefined : single(m[1] as string, `${topic(l)} ${m[1]}살 (나이)`)),
    relative: true,
  },
  {
    // An age before a connective (`나이는 쉰둘이고 …`, `저 스물일곱인데 …`), in native numbers
    // with 살 (`일곱 살이라`, `여덟살이에요`), or reached (`서른 됐어요`, `예순다섯 되셔`).
    attribute: "age",
    re: new RegExp(
      `(?:^|\\s)(?:나이(?:는|가)\\s*)?(?:(${KOREAN_AGE})\\s*(?:살)?(?:${COPULA_LINK}(?=[\\s.,!~…]|$)|\\s*(?:이\\s*)?(?:됐|되었|돼요|된다|되셔|되세요|되셨))|(${SMALL_AGE}|${KOREAN_AGE})\\s*살(?:이에요|이야|입니다|이다|예요|에요|${COPULA_LINK}))`,
    ),
    build: (m, l, body) => {
      const v = (m[1] ?? m[2]) as string;
      return ageOfOther(body, m) ? undefined : single(v, `${topic(l)} ${v}살 (나이)`);
    },
    relative: true,
  },
  {
    attribute: "work",
    re: /(?:회사|직장|일)(?:을|를)?\s*(?:그만뒀|그만두었|관뒀|그만\s*뒀)|퇴사(?:했|를\s*했|해서)/,
    build: (_m, l) => single("퇴사", `${topic(l)} 회사를 그만두었다 (직업 없음, 퇴사)`),
    relative: true,
  },
  {
    attribute: "plan",
    // The present says the move to come (`망원동으로 이사 가`, `성수동으로 이사해요`).
    re: /(\S+?)(?:으로|로)\s*이사(?:를)?\s*(?:갈|올|할|가려고|하려고|갈\s*거|예정|가요|가게|갑니다|해요|합니다|(?:가|해|간다|한다)(?=[\s.!~…]|$))/,
    build: (m, l, body) => {
      const v = movedHome(body, m);
      return v === undefined
        ? undefined
        : list(`${josa(v, "으로", "로")} 이사 예정`, `${topic(l)} ${josa(v, "으로", "로")} 이사할 계획이다 (계획)`);
    },
  },
  {
    attribute: "residence",
    // A date may stand between the place and the verb (`성수동으로 4월 28일에 이사했어요`).
    re: /(\S+?)(?:으로|로)\s*(?:(?:\d+\s*월\s*)?(?:\d+\s*일)?(?:에|쯤에?|경에?)?\s*|지난\s*(?:주|달)에?\s*|어제\s*|작년에?\s*)?이사(?:를)?\s*(?:했|왔|갔|와서|가서|해서)/,
    build: (m, l, body) => {
      const v = movedHome(body, m);
      if (LIFE_STAGE.test(body.slice(0, m.index ?? 0))) return undefined;
      return v === undefined ? undefined : single(v, `${topic(l)} ${josa(v, "으로", "로")} 이사해서 ${v}에 산다 (사는 곳)`);
    },
    relative: true,
  },
  {
    // Moving away and staying: `제주로 내려갔어`, `서울로 올라왔어요`; not a trip (`내려갔다 왔어`).
    attribute: "residence",
    re: /(\S+?)(?:으로|로)\s*(?:내려갔|올라갔|내려왔|올라왔)(?!다)/,
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      return NOT_A_HOME.test(v) || SETTING.test(v) || LIFE_STAGE.test(body.slice(0, m.index ?? 0))
        ? undefined
        : single(v, `${topic(l)} ${josa(v, "으로", "로")} 옮겨서 ${v}에 산다 (사는 곳)`);
    },
    relative: true,
  },
  {
    // Living with a pet (`고양이 두 마리랑 같이 살아요`, `강아지랑 살아`): the pet is kept.
    attribute: "pet",
    re: new RegExp(
      `(?:^|\\s)(${PET})(?:\\s*(\\S+\\s*마리))?(?:이랑|랑|하고|와|과)\\s*(?:같이\\s*|함께\\s*)?(?:살아요|살고\\s*있|삽니다|살아|산다|사는데|지내요|지내)`,
    ),
    build: (m, l) => list(m[1] as string, `${topic(l)} 반려동물 ${m[1]}${m[2] ? ` ${m[2]}` : ""}와 산다`, m[1]),
    relative: true,
  },
  {
    // Where one lives said in a relative clause on what one is (`대구에 사는 회사원이에요`, `일산 사는
    // 대학생이야`): the home, and the job as the work rule reads it (its last word). Only a job after
    // `사는` and the copula ending the sentence: `부산에 사는 친구가 …` is someone else's home.
    attribute: "residence",
    re: new RegExp(
      `(?:^|\\s)(\\S+?)(?:에|(?<=[가-힣])(?=\\s))\\s*사는\\s+(?:[가-힣A-Za-z]+\\s+)?(\\S*?(?:${JOB}))(?:이에요|예요|에요|입니다|이야|야|이다)[.!~…]*$`,
    ),
    build: (m, l) => {
      const v = clean(m[1] as string);
      const job = m[2] as string;
      if (NOT_A_HOME.test(v) || SETTING.test(v) || !nounLike(v)) return undefined;
      return [single(v, `${topic(l)} ${v}에 산다 (사는 곳)`), { ...single(job, `${topic(l)} ${job} (직업)`), attribute: "work" }];
    },
    relative: true,
  },
  {
    attribute: "residence",
    // `서울에 살아요`; casual speech drops the particle (`나 서울 살아`).
    // How long one has lived there (`수원 산 지 5년 됐어요`, `망원동 산지 삼년 됐어`), the progressive
    // (`부천 사는 중이에요`) and `-면서` (`청주에 살면서`, a clause of its own: SENTENCE_BREAK) say it too.
    // Living alone away from home says where too (`서울에서 자취해요`, `청주에서 자취하는데`).
    // How long may stand before the verb (`상도동에 4년째 살고 있어요`, `부산에서 10년 동안 살았어요`).
    // So may how one lives there (`여수에 혼자 사세요`, `분당에 따로 살아요`).
    // Staying somewhere (`요즘 부산에서 지내요`, `지금은 제주에서 지내고 있어요`) is living there; not for a
    // while (`방학 동안`, `며칠`).
    re: /(\S+?)(?:에서|에|(?<=[가-힣])(?=\s))\s*(?:(?:\d+|몇|한|두|세|네|다섯|십)\s*(?:년|달|개월|해)\s*(?:째|간|동안|넘게|정도|쯤)?\s+)?(?:(?:혼자|따로|둘이서?|아직|아직도|여전히|계속)\s+)?(?:살아요|살고|삽니다|살아|산다|사는데|살거든|살죠|살며|살면서|사는\s*중|산\s*지\s*(?:\S+\s+){0,2}?(?:됐|되었|넘었|돼)|사세요|사십니다|사시는데|사셔|자취(?:해요|하고|합니다|한다|하는데|하거든|하며|해(?=[\s.!~…]|$)|\s*중|하는\s*중)|(?<=(?:본가|친정|시댁|처가)(?:에서|에)?\s*)지내(?:요|는데|고\s*있|는\s*중|(?=[\s.!~…]|$))|(?<=\S에서\s*)(?:지내(?:요|는데|고\s*있|는\s*중|(?=[\s.!~…]|$))|지냅니다))/,
    build: (m, l, body) => {
      // `천안 살면서` names a town ending in `안`: the negation is `안` as a word of its own.
      if (/(?:^|\s)안\s*(?:살|자취)|살지\s*않|자취\s*안/.test(body)) return undefined;
      // A stay for a while (`방학 동안 부산에서 지내요`, `며칠 제주에서 지내`) is no home.
      if (/지내|지냅/.test(m[0]) && /(?:동안|방학|휴가|연휴|주말|며칠|잠깐|잠시|출장|여행|한\s*달|일주일)/.test(body)) return undefined;
      let v = withPlaceWord(body, m);
      // A kind of housing after the place (`신림 원룸 살아`, `분당 아파트에 살아요`) is that place's;
      // a price or a size before it (`월세 원룸`, `작은 원룸`) is no place (NOT_A_HOME, bareNoun).
      const before = clean(wordsBefore(body, m).at(-1) ?? "");
      // So is a parent's house after the place (`일산 본가에서 살아`, `대구 친정에서 지내요`).
      if ((HOUSING.test(v) || PARENTS_HOUSE.test(v)) && bareNoun(before) && /^[가-힣]{2,6}$/.test(before)) v = before;
      // A neighbourhood after its town (`전주 효자동에`, `경기 광주 오포읍에`) keeps the town.
      else if (
        /^[가-힣]{1,5}(?:동|읍|면)$/.test(v) &&
        /^[가-힣]{2,3}$/.test(before) &&
        bareNoun(before) &&
        !ADVERB.test(before) &&
        !TIME_UNIT_NOUN.test(before) &&
        !NOT_A_HOME.test(before) &&
        !/^(?:요즘|요새|지금|아직|여기|거기|저기|저희|우리|혼자|같이|원래|예전|전엔|나도|저도)$/.test(before)
      )
        v = `${before} ${v}`;
      // A kind of housing (`아파트 살아서`) or a place too general names no home; nor does living
      // with someone (`부모님을 모시고 살아요`, `애들 데리고 살아`).
      // A time for how long (`지금까지 살고 있어요`, `평생 살았어`) is no place.
      if (NOT_A_HOME.test(v) || /^(?:모시고|데리고)$/.test(v) || /(?:랑|하고)$/.test(v) || vaguePlace(v)) return undefined;
      if (/^(?:지금까지|이제까지|여태|여태껏|여지껏|아직까지|평생|계속|쭉|오래|오랫동안)$/.test(v)) return undefined;
      return single(v, `${topic(l)} ${v}에 산다 (사는 곳)`);
    },
    relative: true,
  },
  {
    attribute: "hometown",
    re: new RegExp(`고향(?:은|이)\\s*(\\S+?)${COPULA}`),
    build: (m, l) => single(clean(m[1] as string), `${l}의 고향은 ${clean(m[1] as string)}`),
    relative: true,
  },
  {
    // The copula's connective (`고향이 강릉이라 …`, `고향은 목포고 …`), chat's `임` (`본가는 목포임`); the
    // family home (`본가가 대전이라`, `친정이 전주라서`) is where one is from too. A town before the
    // home one goes down to (`대전 본가 내려가서`) is it as well; one moved into (`인천 본가 들어왔어`) is a residence.
    attribute: "hometown",
    re: new RegExp(
      `(?:^|\\s)(?:고향|본가|친정)(?:은|는|이|가)\\s*([가-힣]{2,6}?)(?:${COPULA_LINK}|${COPULA}|임)(?=[\\s.,!~…]|$)|(?:^|\\s)([가-힣]{2,6})\\s+본가(?:에|로)?\\s*(?:내려가|내려갔|내려와|다녀|갔다|가요|가서|갈\\s)`,
    ),
    build: (m, l, body) => {
      const v = clean((m[1] ?? m[2]) as string);
      // A plan said after it (`고향이 강릉이라 그쪽으로 내려가려고 해요`) is the clause's fact: the plan
      // rule reads the town in it.
      if (/(?:려고|예정|계획)/.test(body.slice((m.index ?? 0) + m[0].length))) return undefined;
      // `김해라고 들었어` quotes; `안동이라고` too.
      if (/(?:라|이)$/.test(v) || !nounLike(v) || vaguePlace(v) || /^(?:어디|시골|여기|거기|저기|서울쪽)$/.test(v)) return undefined;
      // When one goes down (`다음주 본가 내려가요`, `설날 본가`, `추석 연휴 본가`) is no town (review65).
      if (HOME_VISIT_TIME.test(v)) return undefined;
      return single(v, `${l}의 고향은 ${v}`);
    },
    relative: true,
  },
  {
    // A town after its province (`고향은 경상도 진주예요`, `고향이 충청도 공주라서`), the province
    // shortened as people write it (`고향은 전남 여수예요`, `제 고향은 경북 안동입니다`): the town.
    attribute: "hometown",
    re: new RegExp(`고향(?:은|이)\\s*(\\S+도|${PROVINCE_SHORT})\\s+([가-힣]+?)(?:${COPULA_LINK}|${COPULA})(?=[\\s.,!~…]|$)`),
    build: (m, l) => {
      // `전남 쪽이에요` names the province alone.
      if (/^(?:쪽|지역|근처|부근|어디|시골|그쪽|이쪽)$/.test(clean(m[2] as string))) {
        const province = m[1] as string;
        return single(province, `${l}의 고향은 ${province}`);
      }
      const v = clean(m[2] as string);
      return (DO_NOUN.test(m[1] as string) || new RegExp(`^(?:${PROVINCE_SHORT})$`).test(m[1] as string)) && nounLike(v)
        ? single(v, `${l}의 고향은 ${m[1]} ${v}`)
        : undefined;
    },
    relative: true,
  },
  {
    attribute: "hometown",
    // Born and raised (`대구에서 나고 자랐어요`) is where one is from.
    re: /(\S+?)\s*출신|(\S+?)에서\s*(?:태어났|자랐|나고\s*자랐|나고\s*자란|태어나고\s*자랐|태어나서\s*자랐)/,
    build: (m, l, body) => {
      const v = clean((m[1] ?? m[2]) as string);
      // `강사 출신` is a former job, not a hometown; `… 출신인 사람/분` describes someone else.
      if (m[1] && (new RegExp(`(?:${JOB}|강사|선수|배우|가수|은행원|군인|경찰)$`).test(v) || /출신인\s*(?:사람|분|친구|동료)/.test(body)))
        return undefined;
      return single(v, `${topic(l)} ${v} 출신 (고향)`);
    },
    relative: true,
  },
  {
    // A workplace moved to (`판교로 회사 옮겼어`, `회사를 강남으로 옮겼어요`): where one works now.
    attribute: "work",
    re: /(?:(\S+?)(?:으로|로)\s*(?:회사|직장|사무실)(?:를|을)?|(?:회사|직장|사무실)(?:를|을)?\s*(\S+?)(?:으로|로))\s*(?:옮겼|옮겨요|옮깁니다|옮겨서|옮겨(?=[\s.!~…]|$))/,
    build: (m, l) => {
      const v = clean((m[1] ?? m[2]) as string);
      return SETTING.test(v) || !nounLike(v) ? undefined : single(v, `${topic(l)} ${v}에서 일한다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    attribute: "work",
    re: /(\S+?)(?:으로|로)\s*(?:이직|취직|입사)(?:했|해|하게)/,
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      // A move to come (`다음 달에 수원으로 이직해서 …`) is a plan; a past one (`이직했`) the work now.
      if (!/(?:이직|취직|입사)했/.test(m[0]) && MOVE_TO_COME.test(body))
        return { ...list(`${v} 이직`, `${topic(l)} ${josa(v, "으로", "로")} 이직할 계획 (계획)`), attribute: "plan" };
      return single(v, `${topic(l)} ${v}에서 일한다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    // A workplace moved to by 옮기다 alone (`LG전자로 옮겼어요`, `한국은행 대구지점으로 옮겨서 일해요`) or
    // gone to work at (`시청으로 출근합니다`, `평택 물류센터로 출근해요`): where one works now. Only a
    // workplace by its form ({@link MOVED_WORKPLACE}): a town (`서울로 옮겼어요`), a thing moved
    // (`창고로`) or a way to work (`버스로 출근해요`) is none, and a move to come is left to the plans.
    attribute: "work",
    re: /(?:^|\s)(\S+?)(?:으로|로)\s*(?:(옮겼|옮겨서|옮겨요|옮김|옮깁니다)|출근(?:해요|합니다|해|하고\s*있|하는데|하거든|함)(?=[\s.!~…]|$))/,
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      if (!movedWorkplace(v)) return undefined;
      if (!/^옮겼/.test(m[2] ?? "") && MOVE_TO_COME.test(body)) return undefined;
      const place = withEmployerBefore(v, body.slice(0, (m.index ?? 0) + (m[0].length - m[0].trimStart().length)));
      return single(place, `${topic(l)} ${place}에서 일한다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    attribute: "work",
    // A capacity or a shift may stand between (`물류센터에서 야간조로 일하고`, `병원에서 간호사로
    //일해요`): the place is the workplace; a job named there is the same job, one `work` fact of
    // both (`병원 간호사`): `work` holds one value, and a second fact would stand as the first's
    // replacement (`간호사`, before: `병원`).
    // An internship there is work there too (`스타트업에서 인턴하고 있어요`, `카카오에서 인턴 중이야`).
    // A job named in a town (`대전에서 공무원으로 일합니다`): the job is the work, the town the home.
    // A word may qualify the job (`네이버웹툰에서 백엔드 개발자로 일합니다`, `학원에서 수학 강사로
    // 일해요`): the job is its last word, as the work rule reads it, and the value keeps the word.
    re: /(\S+?)에서\s*(?:(\S+\s+)?(\S+?)(?:으로|로)\s+)?(?:일해|일하고|일합니다|근무|일한다|일하는|인턴\s*(?:하고|해요|합니다|한다|하는데|중|해(?=[\s.!~…]|$)))/,
    build: (m, l, body) => {
      const v = withOrganisation(clean(m[1] as string), body.slice(0, m.index ?? 0));
      const place = single(v, `${topic(l)} ${v}에서 일한다 (직장, 직업)`);
      const job = m[3] === undefined ? "" : clean(m[3]);
      if (!new RegExp(`(?:${JOB})$`).test(job)) return place;
      const qualifier = m[2] === undefined ? "" : m[2].trim();
      const role = nounLike(qualifier) && !TIME_BEFORE_E.test(qualifier) ? `${qualifier} ${job}` : job;
      const work = single(job, `${topic(l)} ${job} (직업)`);
      // A bare `회사` or `직장` beside the job names no workplace (`IT 회사에서 개발자로 일합니다`).
      if (/^(?:회사|직장)$/.test(v)) return work;
      if (TOWN.test(v)) return [work, { ...single(v, `${topic(l)} ${v}에 산다 (사는 곳)`), attribute: "residence" }];
      return single(`${v} ${role}`, `${topic(l)} ${v}에서 ${josa(role, "으로", "로")} 일한다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    // Work at a place said with 일을 하다 and what the work is (`시청에서 행정 일을 해요`, `물류센터에서
    // 일을 하고 있어요`): the workplace; not home (`집에서 일을 해요`) nor a while (`잠깐`, `오늘`).
    attribute: "work",
    re: /(?:^|\s)(\S+?)에서\s+((?:\S+\s+){0,2}?)일(?:을|도)?\s*(?:해요|합니다|한다|하고\s*있(?!었)|하는데|하거든|해(?=[\s.!~…]|$))/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      return NOT_A_HOME.test(v) || SETTING.test(v) || !nounLike(v) || /(?:^|\s)(?:좀|잠깐|잠시|오늘|지금|같이|함께|혼자)\s/.test(` ${m[2]}`)
        ? undefined
        : single(v, `${topic(l)} ${v}에서 일한다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    attribute: "school",
    // Away from school for a term or more (`휴학 중이에요`, `학교는 휴학했어`): the school said as 휴학.
    re: /(?:^|\s)휴학(?:\s*중|했|하고\s*있|함(?=[\s.!~…]|$)|해서|하는\s*중)/,
    build: (_m, l) => single("휴학", `${topic(l)} 학교를 휴학했다 (학교, 휴학)`),
    relative: true,
  },
  {
    attribute: "school",
    // A school level in slang or by its year, said as what one is (`고딩임`, `동생 중딩이에요`,
    // `언니 대딩이야`, `나 고2임`): where the speaker or the relative goes to school.
    // A connective may go on (`고1이고 요즘 …`, `고3이라 집이 …`).
    re: new RegExp(
      `(?:^|\\s)(${SCHOOL_SLANG})(?:(?:이에요|이야|입니다|이고|인데|이거든요?|이라서|이라|임|예요|야)[.!~…]*$|(?:이고|고|인데|이라서|이라)(?=\\s)|고$)`,
    ),
    build: (m, l) => single(m[1] as string, `${topic(l)} ${m[1]} (학교)`),
    relative: true,
  },
  {
    // A pastime taken up (`요즘 클라이밍 시작했어`, `작년부터 테니스 시작했어요`, `필라테스 새로
    // 시작함`): a hobby now; only an activity the rules know ({@link HABIT_ACTIVITY}, instruments,
    // what is ridden), so `다이어트 시작했어` or `일 시작했어` is none, and not one taken up then
    // left (`시작했다가`, `시작했었는데`).
    attribute: "hobby",
    re: new RegExp(
      `(?:^|\\s)(${HABIT_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN})(?:을|를|도)?\\s*(?:(?:새로|다시|요즘|최근에?|드디어)\\s*)*(?:배우기\\s*)?(?:시작했(?!다가|었)|시작함(?=[\\s.!~…]|$)|시작해서|시작한\\s*지)`,
    ),
    build: (m, l) => list(m[1] as string, `${topic(l)} ${josa(m[1] as string, "을", "를")} 시작했다 (취미, 활동)`),
    relative: true,
  },
  {
    attribute: "school",
    // Got into (`고려대 붙었어요`, `서울대학교 합격했어`): the school the speaker or relative goes to.
    // A nursery or a kindergarten is a small child's school (`작은애는 어린이집 다녀요`). Entering one
    // (`딸이 올해 중학교에 들어갔어요`) is going there now. A class named after a nursery or a
    // kindergarten (`햇살어린이집 만3세반 들어갔어요`, `별빛유치원 햇님반 다녀요`) is no part of its name.
    re: /(\S*(?:대학교|대학|고등학교|중학교|초등학교|학교|대학원|학원|어린이집|유치원)|\S{1,4}대|[가-힣]{1,4}(?:공고|여고|외고|과고|상고|예고|체고|여중)|[가-힣]{2,4}(?:중|고|초)(?=\s*\d+\s*학년))(?:\s+(?:만\s*)?[\d가-힣]{1,4}반)?\s*(?:에\s*|을\s*|를\s*)?(?:다녀|다니|다닙|학생|재학|졸업|에\s*입학|입학|나왔|나온|(붙었|합격했|합격함|합격해서)|(\d+\s*학년)|에?\s*들어(?:갔|감(?=[\s.!~…]|$)))/,
    build: (m, l, body) => {
      let v = clean(m[1] as string);
      // An academy one attends (`영어학원 다녀요`) is its activity's: the hobby rule below reads it.
      if (v.endsWith("학원") && !v.endsWith("대학원") && m[2] === undefined) return undefined;
      // A year at a school named (`청라초등학교 1학년이에요`); a level alone is that level and year
      // (`초등학교 2학년이에요`, `중학교 3학년이고`, `고등학교 1학년 됐어요`: the English `in 5th grade`).
      if (m[3] !== undefined && /^(?:학교|학원|대학원)$/.test(v)) return undefined;
      if (m[3] !== undefined && /^(?:초등학교|중학교|고등학교|대학|대학교)$/.test(v)) {
        const year = (m[3] as string).replace(/\s+/g, "");
        return single(`${v} ${year}`, `${topic(l)} ${v} ${year} (학교)`);
      }
      // `학교 다니고 있어` names no school; `카이스트 대학원 붙었어` names it before, and so does a
      // school by its form before a graduate school gone to (`아주대 대학원 다녀`, `고려대학교 대학원생`).
      if (/^(?:학교|대학|대학교|학원|대학원)$/.test(v)) {
        const before = wordsBefore(body, m).at(-1) ?? "";
        const schoolBefore =
          v === "대학원" && /^[가-힣A-Za-z]{1,6}(?:대|대학|대학교)$/.test(before) && !/^(?:대|대학|대학교)$/.test(before);
        if ((m[2] === undefined && !schoolBefore) || !bareNoun(before)) return undefined;
        v = `${before} ${v}`;
      }
      // A school said of a person the clause goes on to name (`서울대 나온 사람이랑 결혼했어`, `연대
      // 다니는 남자 만나`): that person's, not the speaker's.
      if (SCHOOL_OF_PERSON.test(body.slice((m.index ?? 0) + m[0].length))) return undefined;
      // A school one finished (`서울대 나왔어요`, `연세대를 졸업했어요`) is no longer gone to.
      const finished = /^\s*(?:에\s*|을\s*|를\s*)?(?:졸업|나왔|나온)/.test(
        m[0].slice((m[1] as string).length).replace(/^\s+(?:만\s*)?[\d가-힣]{1,4}반/, ""),
      );
      return single(v, finished ? `${topic(l)} ${josa(v, "을", "를")} 졸업했다 (학교)` : `${topic(l)} ${v}에 다닌다 (학교)`);
    },
    relative: true,
  },
  {
    attribute: "work",
    re: /(\S*(?:회사|은행|병원|공장|사무실|기업|그룹|전자|연구소|청|자동차|증권|건설|화학|카드|보험|통신|제약|물산|엔터|전력|항공|제철|중공업|은행|마트|백화점|호텔|센터|출판사|신문사|방송사|여행사|잡지사|보험사|증권사|건설사|제약사|법인|스타트업))(?:에|(?=\s))\s*(?:다녀요|다니고|다닙니다|다녀|다닌다|다니는데|다니거든|다니지만|다녀서|다니는\s*중)/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      // A hospital by its kind alone (`병원 다녀요`) is as likely a patient's visits: no workplace.
      return /^(?:병원|대학병원|종합병원|동네병원|센터)$/.test(v) ? undefined : single(v, `${topic(l)} ${v}에 다닌다 (직장, 직업)`);
    },
    relative: true,
  },
  {
    attribute: "hobby",
    // `요가 학원에 다녀요`, `수영을 다녀요`, `수영 다녀`; not `강릉에 다녀왔어요` (a trip: an event).
    // An academy is its activity's (`피아노 학원 다녀`, `영어학원 다녀요` -> 피아노, 영어); a clinic
    // or a treatment ({@link CLINIC}: `소아과`, `물리치료`) is no pastime.
    // A name in Latin letters (`GS리테일 다녀`) is an organisation, not an activity.
    re: new RegExp(
      `(\\S+?)(?:에|을|를|${BARE})\\s*(?:다녀요|다니고|다닙니다|다녀(?!왔|오|올|온|와)|다닌다|다니는데|다니거든|다니지만|다니는\\s*중|다닌\\s*지(?=\\s))`,
    ),
    build: (m, l, body) => {
      let v = clean(m[1] as string);
      // A graduate school (`대학원`) is a school, no academy: the school rule reads it.
      if (v.endsWith("대학원")) return undefined;
      if (v.endsWith("학원")) v = v === "학원" ? (wordsBefore(body, m).at(-1) ?? "") : v.slice(0, -2);
      // A Latin name is an organisation; a bare `학교`/`회사` names no activity (nor a school or workplace).
      return /[A-Za-z]/.test(v) ||
        !bareNoun(v) ||
        /^(?:학교|대학|대학교|대학원|학원|회사|직장|병원)$/.test(v) ||
        /(?:어린이집|유치원)$/.test(v) ||
        // A count of times (`일주일에 세 번 다녀요`): the activity is named before it.
        /^(?:번|회|시간|분|날|주|달|년)$/.test(v) ||
        // A club (`배드민턴 클럽 다녀`) is its activity's: the club rule below reads it.
        /(?:동호회|동아리|클럽|크루)$/.test(v) ||
        CLINIC.test(v)
        ? undefined
        : list(v, `${topic(l)} ${v}에 다닌다 (취미, 활동)`);
    },
    relative: true,
  },
  {
    attribute: "study",
    re: new RegExp(`(\\S+?)(?:을|를|${BARE})\\s*전공`),
    build: (m, l) => single(clean(m[1] as string), `${topic(l)} ${josa(clean(m[1] as string), "을", "를")} 전공한다 (학교, 전공)`),
    relative: true,
  },
  {
    attribute: "work",
    // The job, after at most one word that qualifies it (`영어 선생님`, `초등학교 교사`: value 교사);
    // the match starts at the job, so a word there with a subject's particle is read as whose it
    // is (`민지는 의사예요` is 민지's, not the speaker's).
    re: new RegExp(
      `(?<=^(?:직업은\\s*)?((?:[가-힣A-Za-z]+\\s|[A-Za-z][A-Za-z0-9+#./-]*\\s){0,2}))(\\S*?(?:${JOB}))(?:이에요|예요|에요|입니다|이야|야|이고|이다|이라서|라서|이라|라|인데|(?:이)?잖아요?(?=[\\s.,!~…]|$)|(?:으로|로)\\s*(?:${WORK_YEARS})?일|(?<=${OPEN_SYLLABLE})(?<!배우)고(?=[\\s.,!~…]|$)(?!\\s*(?:있|계|싶)))`,
    ),
    // An object before it makes the job's word a verb (`기타를 배우고`: 배우다, no actor).
    // A Latin word before the job is part of it (`UX 디자이너`, `backend 개발자`, `ios 개발자`).
    // Two words may stand before it (`대학병원 응급실 간호사`: value 간호사); only the last is read here.
    build: (m, l) =>
      /(?:을|를)\s$/.test(m[1] as string)
        ? undefined
        : single(
            /(?:^|\s)[A-Za-z][A-Za-z0-9+#./-]*\s$/.test(m[1] as string) ? `${/\S+\s$/.exec(m[1] as string)?.[0]}${m[2]}` : (m[2] as string),
            `${topic(l)} ${m[1]}${m[2]} (직업)`,
          ),
    relative: true,
  },
  {
    attribute: "work",
    // A job by its Latin abbreviation, as what one is (`PM이에요`, `저 PO입니다`, `나 QA임`).
    re: /^(PM|PO|QA|CTO|CEO|CFO|COO|CMO|MD|SRE|DBA|HR|AE)(?:이에요|예요|이야|야|입니다|이고|인데|이거든요?|이라서|이라|임)(?=[\s.,!~…]|$)/,
    build: (m, l) => single(m[1] as string, `${topic(l)} ${m[1]} (직업)`),
    relative: true,
  },
  {
    attribute: "work",
    re: /(\S+?)(?:으로|로)\s*(?:일해|일하고|일합니다|일한다|근무)/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      return modifierForm(v) ? undefined : single(v, `${topic(l)} ${v} (직업)`);
    },
    relative: true,
  },
  {
    // A sport one goes out to play (`조기축구 나가요`, `동네 풋살 나갑니다`): a pastime. Only a game
    // played with others: a race entered (`마라톤 나가요`) is a plan, and `밖에 나가요` no game at all.
    attribute: "hobby",
    re: /(?:^|\s)([가-힣]*(?:축구|야구|농구|배구|풋살|족구|배드민턴|테니스|탁구|볼링))(?:를|을)?\s*(?:나가요|나가|나갑니다|나가고\s*있|나가는데|나가거든|나가죠)(?=[\s.!~…]|$)/,
    build: (m, l) => list(m[1] as string, `${topic(l)} ${m[1]}에 나간다 (취미, 활동)`),
    relative: true,
  },
  {
    // A shop run on a selling platform (`스마트스토어 해요`): the shop is the work.
    attribute: "work",
    re: /(?:^|\s)(스마트스토어|오픈마켓|온라인\s*쇼핑몰|쇼핑몰)(?:를|을|도)?\s*(?:해요|합니다|한다|하고\s*있(?!었)|하는데|하거든|해(?=[\s.!~…]|$))/,
    build: (m, l) => single(m[1] as string, `${topic(l)} ${m[1]}를 한다 (직업, 일)`),
    relative: true,
  },
  {
    // What one sells on a selling platform, in the present (`아이디어스에서 수제 캔들 팔아요`, `쿠팡에서
    // 캠핑용품 팔고 있어`): the goods are the work. Not a second-hand market (`당근에서 자전거 팔아요`: a
    // thing of one's own), nor a sale done (`팔았어요`).
    attribute: "work",
    re: /(?:^|\s)(?:네이버\s*)?(스마트스토어|쿠팡|아이디어스|인스타그램|인스타|에이블리|지그재그|11번가|지마켓|G마켓|옥션|쇼핑몰|오픈마켓|온라인)(?:에서|으로|로)\s+((?:[가-힣A-Za-z]+\s+)?[가-힣A-Za-z]+?)(?:을|를)?\s+(?:팔아요|팔아|팝니다|판다|팔고\s*있(?:어요|어|습니다|다)|파는데|판매해요|판매하고\s*있(?:어요|어|습니다|다)|판매합니다|판매해|판매\s*중)(?=[\s.!~…]|$)/,
    build: (m, l) => {
      const v = clean(m[2] as string);
      return v.split(/\s+/).every(nounLike) ? single(v, `${topic(l)} ${m[1]}에서 ${josa(v, "을", "를")} 판다 (직업, 일)`) : undefined;
    },
    relative: true,
  },
  {
    // Driving a vehicle for a living (`택시 운전해요`, `아빠는 버스 운전하셔`, `트럭 운전을 합니다`):
    // the vehicle is the work; driving a car (`차 운전해요`) or no vehicle (`운전 해요`) is none.
    attribute: "work",
    re: /(?:^|\s)(택시|버스|트럭|화물차|화물|덤프트럭|덤프|레미콘|지게차|마을버스|시내버스|고속버스|관광버스|대리)\s*(?:운전|기사)(?:을|를|도)?\s*(?:해요|합니다|한다|하고\s*있(?!었)|하는데|하거든|해(?=[\s.!~…]|$)|일\s*해)/,
    build: (m, l) => single(m[1] as string, `${topic(l)} ${m[1]} 운전을 한다 (직업)`),
    relative: true,
  },
  {
    // A business run (`작은 꽃집을 운영해요`, `카페 운영하고 있어요`), or work done for a living in
    // the progressive or plain form (`장사를 하고 있어요`, `프리랜서로 번역 일 해요`), or a business
    // run said with 하다 ({@link BUSINESS}: `카페를 해요`, `카페 알바 해`; not `식당 예약 해`). A local
    // business in a named place also says where the speaker lives (`전주에서 자영업 해요`).
    attribute: "work",
    re: new RegExp(
      `(?:(\\S+?)에서\\s+(?:\\S+\\s+)??)?(?:(\\S+?)(?:을|를|${BARE})\\s*운영(?:해|하고|합니다|한다|하는데|하거든|중)|(?:(${LIVELIHOOD})(?:을|를|로|으로|도)?\\s*(?:[가-힣]+\\s+)?|(${BUSINESS})(?:을|를|도)?\\s*(?:(?:${LIVELIHOOD})\\s*)?)(?:일\\s*)?(?:(?:주\\s*\\d\\s*(?:일|회|번)|주말마다|매일)\\s+)?(?:하고\\s*있|해요|합니다|한다|하는데|하거든|하는\\s*중|해(?=[\\s.!~…]|$)|뛰어|뛰고|일해|일하고))`,
    ),
    build: (m, l, body) => {
      const place = m[1] === undefined ? undefined : clean(m[1]);
      const value = clean((m[2] ?? m[3] ?? m[4]) as string);
      if (modifierForm(value) || SETTING.test(value)) return undefined;
      // A part-time job says what it is by the role or the place it names (`바리스타로 알바했어요`,
      // `CU 편의점에서 알바해요`, `물류센터 알바 뛰어요`): that, not `알바`.
      if (/^(?:알바|아르바이트)$/.test(value)) {
        const role = /(?:^|\s)([가-힣A-Za-z]+?)(?:으로|로)\s+(?:알바|아르바이트)/.exec(m[0])?.[1];
        // The shift's time between (`빵집 야간 알바`) is passed over.
        const words = wordsBefore(body, m);
        while (words.length > 1 && /^(?:야간|주말|평일|새벽|단기)$/.test(words.at(-1) ?? "")) words.pop();
        const before = words.at(-1) ?? "";
        const named =
          role ?? place ?? (bareNoun(before) && !TIME_OR_FREQUENCY.test(before) && !FIRST_PERSON_WORD.test(before) ? before : undefined);
        if (named !== undefined && !SETTING.test(named)) return single(named, `${topic(l)} ${named}에서 알바한다 (직업, 일)`);
      }
      const work = single(value, `${topic(l)} ${value} (직업, 일)`);
      if (place === undefined || NOT_A_HOME.test(place) || TRADING_PLACE.test(place) || SETTING.test(place) || !LOCAL_WORK.test(value))
        return work;
      return [work, { ...single(place, `${topic(l)} ${place}에 산다 (사는 곳, ${value})`), attribute: "residence" }];
    },
    relative: true,
  },
  {
    // A graduate course at a school (`카이스트에서 박사과정 하고 있어`, `서울대 석사과정이에요`).
    attribute: "school",
    // A year of it (`카이스트 석사 2년차예요`, `아주대 대학원 석사 2년차야`) is being there now.
    re: /(\S+?)(?:에서\s*|\s+)(?:대학원\s*)?(?:박사|석사|석박사|학부)\s*(?:과정)?\s*(?:하고|중|밟|다니|이에요|예요|입니다|이야|이고|인데|\d+\s*(?:년차|학기)(?:이에요|예요|입니다|이야|야|이고|인데|에요|(?=[\s.!~…]|$)))/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      // `민지는 박사과정 하고 있어`: a word with a subject's particle is whose it is, no school.
      return SETTING.test(v) || !nounLike(v) ? undefined : single(v, `${topic(l)} ${v}에서 대학원 과정 (학교)`);
    },
    relative: true,
  },
  {
    attribute: "study",
    re: /(\S+?)(?:을|를)\s*(?:공부하고|공부해요|공부합니다|공부한다|공부\s*중)/,
    build: (m, l) => single(clean(m[1] as string), `${topic(l)} ${josa(clean(m[1] as string), "을", "를")} 공부한다 (공부, 전공)`),
    relative: true,
  },
  {
    attribute: "marital",
    // Not married (`결혼 안 했어`, `결혼은 아직 안 했습니다`, `결혼 안 함`) is 미혼, read before the
    // married form it contains; not a plan (`결혼 안 할 거야`). Engaged or divorced before a connective
    // too (`약혼했고`, `이혼하고 혼자 지내요`): the status, as English `got engaged` (not an event).
    re: /결혼(?:은|도)?\s*(?:아직\s*)?(안\s*했|안\s*함(?=[\s.!~…ㅋㅎ]|$)|안\s*한\s*상태|하지\s*않았|못\s*했)|결혼(?:했|을\s*했|한\s*지)|(미혼|싱글|이혼|약혼)(?:이에요|이야|입니다|이다|했|하였|하셨|하고|해서|한\s*지)/,
    build: (m, l) => {
      const v = m[1] !== undefined ? "미혼" : (m[2] ?? "기혼");
      return single(v, `${topic(l)} ${v} (결혼, 관계)`);
    },
    relative: true,
  },
  {
    attribute: "family",
    re: new RegExp(`(${REL})\\s*이름(?:은|이)\\s*(\\S+?)${COPULA}`),
    build: (m, l) => list(`${m[1]} ${m[2]}`, `${l}의 ${m[1]} 이름은 ${m[2]} (가족)`, m[1]),
  },
  {
    attribute: "family",
    // The count, if any, between (`딸이 둘 있어요`); not what a relative has (`남편이 당뇨가 있어요`).
    re: new RegExp(`(${REL})(?:이|가)\\s*(?:(${COUNT})\\s*)?(?:있어요|있습니다|있어|있다|있고|있는데)`),
    build: (m, l) =>
      list(`${m[1]}${m[2] ? ` ${m[2]}` : ""}`, `${l}에게는 ${josa(`${m[1]}${m[2] ? ` ${m[2]}` : ""}`, "이", "가")} 있다 (가족)`, m[1]),
  },
  {
    // A count said with the copula (`아이가 셋이에요`, `형이 둘인데`, `손주가 넷입니다`): the relatives
    // one has. A relative's own (`언니가 애가 셋이에요`) are theirs.
    attribute: "family",
    re: new RegExp(`(?:^|\\s)(${KIN})(?:이|가)\\s*(?=${COUNT_IS})(${COUNT_WORD})`),
    build: (m, l) => {
      const v = `${m[1]} ${m[2]}`;
      return list(v, `${l}에게는 ${josa(v, "이", "가")} 있다 (가족)`, m[1]);
    },
    relative: true,
  },
  {
    // Casual speech drops the particle when a count follows (`딸 둘 있어요`, `아들 하나 있어`).
    attribute: "family",
    re: new RegExp(
      `(?:^|\\s)(${REL})\\s+((?:한|두|세|네)\\s*명|하나|둘|셋|넷|\\d+\\s*명)\\s*(?:있어요|있습니다|있어|있다|있고|있는데|있어서)`,
    ),
    build: (m, l) => list(`${m[1]} ${m[2]}`, `${l}에게는 ${josa(`${m[1]} ${m[2]}`, "이", "가")} 있다 (가족)`, m[1]),
  },
  {
    // Kin one has, without a particle or a count (`저 언니 있어요`, `여동생 있어`), several joined
    // (`누나랑 남동생 있습니다`, `아들 하나 딸 하나 키우는 엄마예요`): one fact each. Friends and
    // colleagues are not had this way (`친구 있어요`), nor is one who is somewhere (`엄마 집에 있어요`).
    attribute: "family",
    re: KIN_HAD,
    build: (m, l) =>
      [...(m[1] as string).matchAll(KIN_EACH)].map((k) => {
        const v = `${k[1]}${k[2] ? ` ${k[2]}` : ""}`;
        return list(v, `${l}에게는 ${josa(v, "이", "가")} 있다 (가족)`, k[1]);
      }),
  },
  {
    // One's pet by its kind, then its breed by the copula (`저희 강아지는 말티즈예요`, `우리 고양이
    // 러시안블루야`, `울 강아지 보더콜리고 …`): the pet is the breed.
    attribute: "pet",
    re: new RegExp(
      `^(?:${MY}\\s*)?(?:집\\s*)?(강아지|고양이|반려견|반려묘|개)(?:는|은|가|이|도)?\\s+([가-힣]+?)(?:${COPULA_LINK}|${COPULA})[.!~…]*(?=\\s|$)`,
    ),
    build: (m, l) => {
      const breed = m[2] as string;
      return BREED.test(breed) ? list(breed, `${topic(l)} 반려동물 ${breed}를 키운다`, breed) : undefined;
    },
  },
  {
    attribute: "pet",
    // The name may end its clause in `-고` (`강아지 이름은 두리고 …`).
    re: new RegExp(`(${PET})\\s*이름(?:은|이)\\s*(\\S+?)(?:${COPULA}|(?<=${OPEN_SYLLABLE})고(?=[\\s,.!~…]|$))`),
    build: (m, l) => list(`${m[1]} ${m[2]}`, `${l}의 반려동물 ${m[1]} 이름은 ${m[2]}`, m[2]),
  },
  {
    // `고양이 나비를 키워요`: a pet named where it is kept (not a count: `고양이 두 마리를`).
    attribute: "pet",
    re: new RegExp(`(${PET})\\s+([가-힣]{1,4}?)(?:이)?(?:를|을)\\s*(?:키워|키우고|키웁니다|키운다|입양했|입양해|데려왔)`),
    build: (m, l) =>
      /마리$|^(?:한|두|세|네|몇|여러)$/.test(m[2] as string)
        ? undefined
        : list(`${m[1]} ${m[2]}`, `${l}의 반려동물 ${m[1]} 이름은 ${m[2]}`, m[2]),
  },
  {
    attribute: "pet",
    re: new RegExp(
      // `키우는데` too (`비숑 한 마리 키우는데 …`), and a breed as the subject of 있다 (`코숏이 있어요`).
      `(${PET})(?:를|을|가|도|는|(?<=[^고])이)?\\s*(?:(\\S+\\s*마리)(?:를|을)?\\s*)?(?:키워|키우고|키웁니다|키운다|키우는데|입양했|입양해|데려왔|있어요|있습니다)`,
    ),
    build: (m, l, body) => {
      // A breed said right after a pet by its kind (`강아지 키워요 말티즈예요`, `강아지 키워 웰시코기고 …`) is the pet.
      const after = /^(?:요|고|는데|서)?[\s,.!~…]*([가-힣]+?)(?:예요|이에요|에요|입니다|이야|야|이고|고|요)?(?=[\s,.!~…]|$)/.exec(
        body.slice((m.index ?? 0) + m[0].length),
      );
      const breed = after?.[1] !== undefined && BREED.test(after[1]) && GENERIC_PET.test(m[1] as string) ? after[1] : undefined;
      const v = breed ?? (m[1] as string);
      return list(v, `${topic(l)} 반려동물 ${v}${m[2] ? ` ${m[2]}` : ""}를 키운다`, v);
    },
  },
  {
    // One's pet by its kind and its name, then its breed (`우리 고양이 나비는 러시안블루예요`, `반려견
    // 콩이는 올해 열 살 된 포메예요`): the pet is the breed, keyed by the name.
    attribute: "pet",
    re: new RegExp(
      `^(?:${MY}\\s*)?(?:집\\s*)?(?:강아지|고양이|반려견|반려묘|개)\\s+([가-힣]{1,4}?)(?:는|은)\\s+(?:\\S+\\s+){0,4}?([가-힣]+?)(?:${COPULA_LINK}|${COPULA}|임)[.!~…]*$`,
    ),
    build: (m, l) => {
      const breed = m[2] as string;
      return BREED.test(breed) ? list(`${breed} ${m[1]}`, `${topic(l)} 반려동물 ${breed} ${m[1]}를 키운다`, m[1]) : undefined;
    },
  },
  {
    attribute: "health",
    re: new RegExp(`(\\S+?)\\s*${ALLERGY}(?:가|도)?\\s*(?:있|가\\s*있)`),
    build: (m, l) => list(`${clean(m[1] as string)} 알레르기`, `${topic(l)} ${clean(m[1] as string)} 알레르기가 있다 (건강, 알레르기)`),
    relative: true,
  },
  {
    // Quitting a habit (`담배 끊었어요`, `술 끊은 지 1년`): the habit holds no longer.
    attribute: "health",
    // Not one not quit yet (`아직 담배 못 끊었어요`, `술은 안 끊었어`).
    // A span between (`술 한 달 끊었어요`, `커피 일주일 끊었어`) is for how long, still quitting.
    re: /(담배|전자담배|술|커피|탄산|탄산음료|야식|밀가루|설탕|카페인|게임)(?:은|는|을|를|도)?\s*(?:(?!못|안)\S+\s+|(?:한|두|세|네|\d+)\s*(?:달|주|해|년)\s+)?(?:끊었|끊은\s*지|끊고|끊음|끊었음)/,
    build: (m, l) => ({ ...list(m[1] as string, `${topic(l)} ${josa(m[1] as string, "을", "를")} 끊었다 (건강, 습관)`), ended: true }),
    relative: true,
  },
  {
    // A habit given up, said with 이제/더 이상 and a negated verb (`술 이제 안마셔`, `커피는 이제 안 마셔요`,
    // `담배 이제 안 피워`): the habit holds no longer, as with 끊다 above; not a habit without the
    // change (`커피 안 마셔요`), which the constraint rule reads, nor one almost given up (`이제 거의 안 마셔요`).
    attribute: "health",
    re: /(담배|전자담배|술|커피|탄산|탄산음료|야식|밀가루|설탕|카페인)(?:은|는|을|를|도)?\s*(?:이제는?|이젠|더\s*이상|더이상)\s*(?:(?!안|못|거의|별로|잘|자주)\S+\s+){0,2}(?:안|못)\s*(?:마셔|마시|마십|마심|피워|피우|피웁|피움|먹어|먹습|먹음|먹고)/,
    build: (m, l) => ({
      ...list(m[1] as string, `${topic(l)} ${josa(m[1] as string, "을", "를")} 이제 안 한다 (건강, 습관)`),
      ended: true,
    }),
    relative: true,
  },
  {
    // A medicine taken as a regimen (`혈압약을 먹고 있어요`, `매일 갑상선약 먹어요`, `당뇨약 복용
    // 중입니다`); not one taken once (`감기약 먹었어`: the past) nor one for a passing complaint
    // (`감기약 먹고 있어요`).
    attribute: "health",
    re: /(?:^|\s)([가-힣]{1,8}(?:약|억제제|보조제|치료제))(?:을|를|도|은|는)?\s*(?:(?:매일|꾸준히|계속|아직|아직도|평생|늘|항상|요즘|하루에\s*\S+|\S+째)\s*)*(?:먹고\s*있(?!었|지)|먹어요|먹습니다|먹어(?=[\s.!~…]|$)|먹는다|먹는\s*중|먹는데|먹거든|챙겨\s*먹(?:어|고|습)|복용(?:하고\s*있(?!었|지)|해요|합니다|한다|하는\s*중|하는데|\s*중))/,
    // The value is the condition a `<condition>약` treats (`혈압약` -> 혈압, `당뇨약` -> 당뇨), as a
    // condition stated outright is; the text keeps the medicine.
    build: (m, l) => {
      const v = m[1] as string;
      const condition = v.endsWith("약") ? v.slice(0, -1) : v;
      return PASSING_MEDICINE.test(v) ? undefined : list(condition, `${topic(l)} ${josa(v, "을", "를")} 복용한다 (건강, ${condition})`);
    },
    relative: true,
  },
  {
    // A food one reacts to (`땅콩 먹으면 두드러기가 나요`, `복숭아 먹으면 입이 부어`): an allergy
    // stated as its reaction; read though `-면` is otherwise a hypothetical (see REACTION).
    attribute: "health",
    re: new RegExp(`(?:^|\\s)([가-힣A-Za-z]+?)(?:을|를|도|은|는|${BARE})?\\s*${REACTION.source}`),
    build: (m, l) => {
      const v = m[1] as string;
      // A noun may end like a particle here (`고양이`): only what ends like another case is none.
      const noun =
        !FUNCTION_WORD.test(v) &&
        !SETTING.test(v) &&
        !notAValue(v) &&
        !REL_WORD.test(v) &&
        !/(?:에|에서|로|랑|하고|와|과|서|고|면|게)$/.test(v);
      return noun ? list(`${v} 알레르기`, `${topic(l)} ${v} 알레르기가 있다 (건강, 알레르기)`) : undefined;
    },
    relative: true,
  },
  {
    // An illness that put one in hospital or on the floor (`아빠가 뇌경색으로 쓰러지셨어`, `엄마가
    // 폐렴으로 입원하셨어요`, `작년에 위암으로 수술 받았어요`, `디스크 때문에 수술했어요`, `허리 디스크로
    // 다음주에 수술하셔`): the illness, with the body part before it, is the health fact, not the
    // stay (an event); by its name ({@link ACUTE_ILLNESS}, {@link CONDITION}) or an illness's
    // suffix, so a cause that is no illness (`과로로 쓰러졌어`, `교통사고로 입원했어`) states none.
    attribute: "health",
    re: new RegExp(
      `(?:^|\\s)((?:(?:${BODY_PART})\\s*)?(?:${ACUTE_ILLNESS}|${CONDITION}|[가-힣]{1,10}?(?:염|증후군|증|병|질환|암)))(?:으로|로|\\s*때문에|\\s*때매|\\s*땜에)\\s*(?:(?:갑자기|또|크게|급하게|급히|잠깐|다시|오래|결국|(?:다음|이번|지난)\\s*(?:주|달)에?|작년에?|올해|내일|모레|어제|지난해에?|\\d+\\s*월에?)\\s*)*(?:쓰러지|쓰러졌|쓰러져|입원|수술|투병|치료\\s*(?:받|중)|고생(?:하|했|중))`,
    ),
    build: (m, l) => {
      const v = m[1] as string;
      return NOT_ILLNESS.test(v) || v.length < 2 ? undefined : list(v, `${topic(l)} ${v} (건강)`);
    },
    relative: true,
  },
  {
    // A condition one has (`빈혈이 있어요`, `통풍 있어서`, `고지혈증 진단받았어요`), not one
    // denied (`당뇨는 없어요`).
    attribute: "health",
    re: new RegExp(
      `(?:^|\\s)(${CONDITION})(?:이|가|도|은|는)?\\s*(?:좀\\s*|약간\\s*|심하게\\s*|심한\\s*)?(?:있|걸렸|걸려|진단|앓|판정|심해|심하)`,
    ),
    build: (m, l) => list(m[1] as string, `${topic(l)} ${m[1]} (건강)`),
    relative: true,
  },
  {
    attribute: "health",
    // A medicine for it (`당뇨약`) is read above, where taking it is said.
    re: /(채식주의자|비건|당뇨|고혈압|천식|임신\s*중|임산부)(?!약|(?:은|는|이|가|도)?\s*(?:없|아니|아닙|아냐|검사))/,
    build: (m, l) => list(m[1] as string, `${topic(l)} ${m[1]} (건강, 식단)`),
    relative: true,
  },
  {
    attribute: "constraint",
    // Negation before the verb (`못/안 먹어`, spaced or not, an adverb between: `진짜 못 먹겠어`,
    // `거의 안 마셔`) or after it (`먹지 못해`, `마시지 않아`).
    re: new RegExp(
      `(\\S+?)(?:을|를|은|는|${BARE})\\s*(?:(?:잘|아예|전혀|거의|진짜|정말|절대|별로|원래|아직|도저히)\\s*)*(?:못\\s*먹(?![히혀힌힐힘])|안\\s*먹(?![히혀힌힐힘])|먹으면\\s*안|못\\s*마셔|안\\s*마셔|못\\s*마십|못\\s*마시|(?:먹|마시)지\\s*(?:못|않))(?!었|했|았)`,
    ),
    build: (m, l, body) => {
      let v = withModifier(body, m, clean(m[1] as string));
      // `새우 게 이런거 못 먹어`: the list before the demonstrative, by its first noun.
      if (DEMONSTRATIVE.test(v)) v = clean(wordsBefore(body, m)[0] ?? "");
      // `고수 비누맛나서 못먹음`: a reason clause stands between; the food is the noun before it.
      if (CONNECTIVE_VERB.test(v)) v = clean(wordsBefore(body, m).at(-1) ?? "");
      // A meal skipped (`점심을 안 먹어요`) is no diet; a past one (`못 먹었어`) is an event; not
      // having it often (`잘 안 마셔요`, `별로 안 먹어`) is a habit, not an inability.
      return v === "" ||
        /(?:^|\s)(?:잘|별로)\s*안\s*(?:먹|마)/.test(body) ||
        // A medicine not taken (`혈압약 안 먹어요`) is no diet either.
        /^(?:밥|아침|점심|저녁|식사|끼니|간식|야식|[가-힣]*약)(?:은|는|을|를|도)?$/.test(v)
        ? undefined
        : list(`${v} 못 먹음`, `${topic(l)} ${josa(v, "을", "를")} 먹지 못한다 (건강, 식단 제약)`);
    },
    relative: true,
  },
  {
    attribute: "health",
    // A sprain as people say it (`발목 접질렸어`, `손목을 삐끗했어요`): a body part, its particle dropped.
    re: new RegExp(`(\\S+?)(?:을|를|이|가|(?<=(?:${BODY_PART}))(?=\\s))\\s*(?:다쳤|부러졌|삐었|접질렸|접질러서|삐끗했|삐끗해서)`),
    build: (m, l) => list(`${clean(m[1] as string)} 부상`, `${topic(l)} ${josa(clean(m[1] as string), "을", "를")} 다쳤다 (건강)`),
    relative: true,
  },
  {
    // An illness named by its suffix (`장염`, `불면증`, `손목터널증후군`, `공황장애`, `위암`) or a
    // disc (`허리 디스크`), the body part before it kept, with 있다/걸리다/심하다/생기다/진단받다/앓다,
    // or as the reason of what follows (`허리 디스크 때문에 오래 못 앉아요`, `위염 때문에 커피 끊었어요`).
    attribute: "health",
    re: new RegExp(
      `(?:^|\\s)((?:(?:${BODY_PART})\\s*)?(?:[가-힣]{1,10}?(?:염|증후군|증|병|장애|질환|암)|디스크))(?:이|가|도|은|는)?\\s*(?:좀\\s*|약간\\s*|심하게\\s*|또\\s*)?(?:있(?!는\\s*(?:사람|분|환자|애|친구|경우)|는지|나요|어요\\?|어\\?)|걸렸|걸려|심해|심하|생겼|진단|앓|판정|때문에|땜에|때매)`,
    ),
    build: (m, l) => {
      const v = m[1] as string;
      return NOT_ILLNESS.test(v) || v.length < 2 ? undefined : list(v, `${topic(l)} ${v} (건강)`);
    },
    relative: true,
  },
  {
    // A lasting complaint of a body part (`허리가 안 좋아서`, `무릎이 아파`, `어깨 수술 받았어요`).
    attribute: "health",
    re: new RegExp(
      `(?:^|\\s)((?:왼쪽|오른쪽|양쪽)?\\s*(?:(?:${BODY_PART})\\s+)?(?:${BODY_PART}))(?:가|이|은|는|도)?\\s*(?:(?:좀|많이|자주|계속|너무|원래|별로|늘)\\s*)*(?:안\\s*좋|아파|아프|아픕|시큰|수술)`,
    ),
    build: (m, l) => {
      const v = clean(m[1] as string);
      return list(v, `${topic(l)} ${v} (건강)`);
    },
    relative: true,
  },
  {
    // The one liked best (`보드게임은 스플렌더 제일 좋아해요`, `크림빵을 가장 좋아해서`, `과일은 복숭아가
    // 젤 좋아요`): the favourite, of the kind the topic names. `이`/`가` is the subject's particle but
    // for nouns that end in it (`떡볶이`, `고양이`).
    attribute: "favorite",
    re: new RegExp(
      `(?:(?:^|\\s)([가-힣]{1,6})(?:은|는)\\s+)?(?<=^|\\s)([가-힣A-Za-z0-9+#]+?)(?:을|를|(?<=${OPEN_SYLLABLE})가|(?<=${CLOSED_SYLLABLE})(?<!떡볶|고양|닭꼬치|오)이)?\\s+(?:제일|젤|가장)\\s*좋아(?:해요|해|합니다|하고요?|해서|하는데|하거든요?|하죠|요|용)?(?=[\\s.,!~…]|$)`,
    ),
    build: (m, l) => {
      const kind = m[1];
      const v = clean(m[2] as string);
      if (ADVERB.test(v) || /(?:은|는)$/.test(v) || (!nounLike(v) && !/^[A-Za-z0-9+#]+$/.test(v) && !/^(?:떡볶|고양|닭꼬치|오)이$/.test(v)))
        return undefined;
      if (kind !== undefined && (ADVERB.test(kind) || /^(?:지금|요즘|요새|오늘|이제|그래도|그중|그|이|저|전|난|저는|나는)$/.test(kind)))
        return list(v, `${josa(l, "이", "가")} 제일 좋아하는 것은 ${v} (좋아함)`);
      return kind
        ? list(`${kind}: ${v}`, `${josa(l, "이", "가")} 제일 좋아하는 ${josa(kind, "은", "는")} ${v} (좋아함)`, kind)
        : list(v, `${josa(l, "이", "가")} 제일 좋아하는 것은 ${v} (좋아함)`);
    },
  },
  {
    attribute: "favorite",
    // Chat's `최애` before the kind says the same (`제 최애 가수는 아이유예요`, `최애 음식 떡볶이임`).
    // `내 최애는 뉴진스야` names no kind: the favourite alone.
    re: new RegExp(
      `(?:(?:제일|가장)\\s*좋아하는|(?:^|\\s)(?:${MY}\\s*)?최애)(?:\\s+(\\S+?)(?:은|는|\\s)|(?<=애)(?:는|\\s))\\s*((?:[가-힣A-Za-z]{2,8}\\s(?=\\S+(?:이에요|예요|입니다|이야|임)(?=[\\s.,!~…]|$)))?\\S+)(?:(?<=${CLOSED_SYLLABLE})(?:이에요|이야|입니다|이고|이다|이라서?|임|인데|이지만|이거든요?)|(?<=${OPEN_SYLLABLE})(?:예요|에요|야|입니다|고|다|라서?|임|인데|지만|거든요?)|(?<=[A-Za-z0-9])(?:이에요|예요|이야|야|입니다|임))(?=[\\s.,!~…]|$)`,
    ),
    build: (m, l) => {
      // `아이유인데` reads as `아이유이에요` ({@link COPULA_CONNECTIVE_END}): the `이` is the copula's.
      // A sentence adverb before a two-word value (`역시 아이유예요`) is no part of it.
      const said = (m[2] as string).replace(/^(?:역시|당연히|단연|단연코|진짜|정말|아무래도|무조건)\s+/, "");
      const v = /에요$/.test(m[0]) ? said.replace(new RegExp(`(?<=${OPEN_SYLLABLE})이$`), "") : said;
      return m[1] === undefined
        ? list(v, `${l}의 최애는 ${v} (좋아함)`)
        : list(`${m[1]}: ${v}`, `${josa(l, "이", "가")} 제일 좋아하는 ${josa(m[1] as string, "은", "는")} ${v} (좋아함)`, m[1]);
    },
  },
  {
    // Chat's 최애 (`떡볶이 최애임`, `영화는 라라랜드가 최애야`): the favourite, of the kind the topic
    // names (`영화: 라라랜드`); a 극혐 after it in the clause (`Java 최애고 PHP는 극혐`) is disliked.
    // `이` is a subject's particle but for nouns that end in it (`떡볶이`, `고양이`).
    attribute: "favorite",
    re: new RegExp(
      `(?:^|\\s)(?:([가-힣]{1,6})(?:은|는)\\s+)?([가-힣A-Za-z0-9+#]+?)(?:(?<=${OPEN_SYLLABLE})가|(?<=${CLOSED_SYLLABLE})(?<!떡볶|고양|닭꼬치|오)이)?\\s*최애(?!\\s+[가-힣A-Za-z]+(?:은|는)\\s)(?:${COPULA_LINK}|${COPULA})?(?=[\\s.,!~…]|$)(?:\\s+([가-힣A-Za-z0-9+#]+?)(?:은|는|도)?\\s*극혐(?=[\\s.,!~…]|$|이))?`,
    ),
    build: (m, l) => {
      const kind = m[1];
      const v = clean(m[2] as string);
      if (!nounLike(v) && !/^[A-Za-z0-9+#]+$/.test(v) && !/^(?:떡볶|고양|닭꼬치|오)이$/.test(v)) return undefined;
      const favorite = kind
        ? list(`${kind}: ${v}`, `${josa(l, "이", "가")} 제일 좋아하는 ${josa(kind, "은", "는")} ${v} (좋아함)`, kind)
        : list(v, `${josa(l, "이", "가")} 제일 좋아하는 것은 ${v} (좋아함)`);
      if (m[3] === undefined) return favorite;
      const hated = clean(m[3]);
      return [
        favorite,
        {
          ...list(hated, `${topic(l)} ${josa(hated, "을", "를")} 아주 싫어한다 (싫어함)`),
          attribute: "dislikes",
          keyAttribute: "preference",
        },
      ];
    },
  },
  {
    // A relative clause of the speaker's verb, its noun then named (`제가 다니는 회사는 한화예요`,
    // `키우는 강아지는 말티즈예요`, `많이 듣는 가수는 데이식스예요`): the attribute by the verb.
    attribute: "work",
    re: new RegExp(
      `^(?:(?:제가|내가|저희가|우리가)\\s+)?(?:(?:요즘|요새|지금|현재|${DEGREE_WORDS}|자주)\\s+)*(다니는|일하는|근무하는|키우는|좋아하는|듣는|즐겨\\s*보는|보는|타는)\\s+(\\S+?)(?:은|는|이|가)\\s+(\\S+?)${COPULA}[.!~…]*$`,
    ),
    build: (m, l) => {
      const [verb, noun, value] = [m[1] as string, m[2] as string, clean(m[3] as string)];
      if (/다니는|일하는|근무하는/.test(verb)) {
        if (/학교|대학|학원|대학원/.test(noun)) return { ...single(value, `${topic(l)} ${value}에 다닌다 (학교)`), attribute: "school" };
        return /회사|직장|곳|데|병원|은행|팀/.test(noun) ? single(value, `${topic(l)} ${value}에서 일한다 (직장, 직업)`) : undefined;
      }
      if (verb === "키우는")
        return new RegExp(`^(?:${PET})$`).test(noun)
          ? { ...list(value, `${topic(l)} 반려동물 ${noun} ${value}를 키운다`, value), attribute: "pet" }
          : undefined;
      if (verb === "타는")
        return /차|자동차|차량/.test(noun)
          ? { ...list(value, `${topic(l)} ${value}를 탄다 (소유물)`, "차"), attribute: "belonging" }
          : undefined;
      return {
        ...list(value, `${topic(l)} ${noun} ${josa(value, "을", "를")} 좋아한다 (좋아함)`),
        attribute: "likes",
        keyAttribute: "preference",
      };
    },
    relative: true,
  },
  {
    // What one cannot bear to watch (`공포영화 진짜 못 봐`, `잔인한 영화는 못 봐요`, `무서운 거 못
    // 봅니다`): a dislike, when what is watched is frightening or gory; not a meeting missed (`오늘은
    // 못 봐`) nor a show one had no time for. Not being able to eat stays a constraint (above).
    attribute: "dislikes",
    re: new RegExp(
      `(?:^|\\s)(\\S+?)(?:을|를|은|는|도|${BARE})\\s*(?:(?:진짜|정말|절대|도저히|잘|아예|전혀|원래|너무)\\s*)*(?:못\\s*(?:봐요|봐|봅니다|본다|보겠어요|보겠어|보겠습니다|보겠다|보는\\s*편)|보지\\s*못(?:해요|해|합니다|한다))(?=[\\s.!~…]|$)`,
    ),
    build: (m, l, body) => {
      let v = withModifier(body, m, clean(m[1] as string));
      const before = wordsBefore(body, m).at(-1) ?? "";
      // The word before qualifies what is watched: an adjective's modifier (`잔인한 영화`), a verb's
      // with its subject (`피 나는 장면`), a noun of a compound (`좀비 영화`).
      const first = wordsBefore(body, m).at(-2) ?? "";
      if (v === clean(m[1] as string)) {
        if (/는$/.test(before) && nounLike(first)) v = `${first} ${before} ${v}`;
        else if ((modifierForm(before) && !/는$/.test(before)) || bareNoun(before)) v = `${before} ${v}`;
      }
      return GRUESOME.test(v)
        ? { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 못 본다 (싫어함)`), keyAttribute: "preference" }
        : undefined;
    },
    relative: true,
  },
  {
    // The topic, then why or when it is disliked, then 싫다 (`당근은 식감 때문에 싫어요`, `가지는
    // 냄새만 맡아도 싫어`, `민트초코는 보기만 해도 진짜 싫음`): the topic is what is disliked.
    attribute: "dislikes",
    re: new RegExp(
      `^(?:(?:저는|나는|전|난|저|나)\\s+)?([가-힣A-Za-z]+?)(?:은|는)\\s+((?:\\S+\\s+){0,2}?(?:\\S*(?:해도|아도|어도|봐도)|\\S*(?:때문에|땜에|때매)))\\s+${DEGREE}(?:싫어요|싫어|싫다|싫음|싫습니다|싫더라(?:고요)?)[.!~…]*$`,
    ),
    build: (m, l) => {
      const v = m[1] as string;
      // A reason with its own subject (`오이는 동생이 먹어도 싫어`) is still the topic's; a pronoun
      // or a time as the topic (`그건`, `요즘은`) names nothing.
      if (NOT_AN_OBJECT.test(v) || SENSE.test(v) || /^(?:요즘|요새|지금|이제|오늘|그|이|저|그건|이건)$/.test(v)) return undefined;
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 싫어한다 (싫어함)`), keyAttribute: "preference" };
    },
    relative: true,
  },
  {
    attribute: "dislikes",
    // Stacked particles stay off the noun (`등산도를` -> 등산).
    re: new RegExp(
      `(\\S+?)(?:도(?=[을를]))?${CASE_PARTICLE}?\\s*(?:\\S+\\s+(?:때문에|땜에|때매)\\s+)?(?:더\\s*이상\\s*|이제\\s*)?${DEGREE}(?:${hada("싫어")}|싫어요|싫어|싫다|싫음|싫은데|싫고|안\\s*${hada("좋아")}|별로\\s*안\\s*좋아|좋아하지\\s*않)`,
    ),
    build: (m, l, body) => {
      const v = withModifier(body, m, clean(m[1] as string));
      // The smell or the taste of what was named (`오이 극혐임 냄새도 싫음`) is no thing of its own.
      if (NOT_AN_OBJECT.test(v) || SENSE.test(v) || /^(?:때문에|땜에|때매)$/.test(v)) return undefined;
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 싫어한다 (싫어함)`), keyAttribute: "preference" };
    },
    relative: true,
  },
  {
    // A strong dislike in slang (`나 민트초코 극혐`, `오이가 극혐이에요`, `비 오는 날은 딱 질색이야`,
    // `벌레라면 질색을 해요`): what is named before 극혐 or 질색, with or without its particle.
    attribute: "dislikes",
    re: new RegExp(
      `(?:^|\\s)(\\S+?)(?:${CASE_PARTICLE}|이라면|라면|은\\s*진짜|는\\s*진짜)?\\s*(?:(?:딱|진짜|정말|완전|완전히|너무|극도로)\\s*)*(?:극혐|질색)(?:이에요|이야|입니다|임|이다|이고|인데|이라서|이라|이거든요?|을\\s*(?:해요|해|합니다|한다)|해요|합니다|해)?(?=[\\s.,!~…ㅋㅎㅠㅜ]|$)`,
    ),
    build: (m, l, body) => {
      let v = withModifier(body, m, clean(m[1] as string));
      // A verb's modifier with its subject qualifies it (`비 오는 날`).
      const [first, before] = [wordsBefore(body, m).at(-2) ?? "", wordsBefore(body, m).at(-1) ?? ""];
      if (v === clean(m[1] as string) && /[가-힣]는$/.test(before) && !FIRST_PERSON_WORD.test(before))
        v = nounLike(first) ? `${first} ${before} ${v}` : `${before} ${v}`;
      if (NOT_AN_OBJECT.test(v) || FIRST_PERSON_WORD.test(v) || /^(?:나|저|난|전|저희|우리|내|제)$/.test(v)) return undefined;
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 싫어한다 (싫어함)`), keyAttribute: "preference" };
    },
    relative: true,
  },
  {
    attribute: "likes",
    // 좋아하다 is transitive: its object takes 을/를 (or 은/는/도), never 이/가, so `떡볶이 좋아해`
    // likes 떡볶이, not 떡볶.
    re: new RegExp(`(\\S+?)${OBJECT_PARTICLE}?\\s*${DEGREE}(?:${hada("좋아")}|사랑해|즐겨)`),
    build: (m, l, body) => {
      const v = withModifier(body, m, clean(m[1] as string));
      if (NOT_AN_OBJECT.test(v)) return undefined;
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 좋아한다 (좋아함)`), keyAttribute: "preference" };
    },
    relative: true,
  },
  {
    // An activity kept up, said bare as the whole clause with 하다, its habit word after it or
    // none (`요즘 요가 해요`, `클라이밍 하거든 주말마다`, `러닝함 아침마다`, `홈트해요`): a hobby.
    // Only the activities of a class ({@link HABIT_ACTIVITY}); not a one-off time (`오늘 요가 해`).
    attribute: "hobby",
    re: new RegExp(
      `^(?:(?:요즘|요새|요즘은|요새는|평소에?|꾸준히|열심히|집에서)\\s+)*(${HABIT_ACTIVITY})(?:을|를)?\\s*(?:해요|합니다|한다|하거든요?|하고\\s*있어요?|하고\\s*있습니다|해)(?:\\s+(?:${HABITUALLY}|퇴근하고|퇴근\\s*후에?|출근\\s*전에?|아침에|저녁에|꾸준히))?[.!~…]*$`,
    ),
    build: (m, l) => list(m[1] as string, `${topic(l)} ${josa(m[1] as string, "을", "를")} 한다 (취미, 활동)`),
    relative: true,
  },
  {
    // The activity first, as the topic or object, then when it recurs and its verb (`테니스는
    // 주말마다 쳐`, `요가는 매일 아침 해요`, `수영은 일주일에 세 번 다녀요`): a hobby. Only the
    // activities of a class ({@link HABIT_ACTIVITY} and the played ones), so a chore (`청소는 주말마다
    // 해요`) is none; not a negation (`안 쳐`) nor an object of its own between (`회원들을`).
    attribute: "hobby",
    re: new RegExp(
      `(?:^|\\s)(?:(${STRUCK})${TOPIC_OR_OBJECT}((?:\\S+\\s+){1,4}?)${playing(["치", "쳐", "칩", "친", "치는"])}|(${BOWED})${TOPIC_OR_OBJECT}((?:\\S+\\s+){1,4}?)${playing(["켜", "켜", "켭", "켠", "켜는"])}|(${BLOWN})${TOPIC_OR_OBJECT}((?:\\S+\\s+){1,4}?)${playing(["불", "불어", "붑", "분", "부는"])}|(${RIDDEN})${TOPIC_OR_OBJECT}((?:\\S+\\s+){1,4}?)${playing(["타", "타", "탑", "탄", "타는"])}|(${HABIT_ACTIVITY})${TOPIC_OR_OBJECT}((?:\\S+\\s+){1,4}?)(?:해요|합니다|한다|하는데|하거든|하고\\s*있(?!었)|하는\\s*중|해(?=[\\s.!~…]|$)|다녀요|다닙니다|다닌다|다니고\\s*있|다니는데|다녀(?=[\\s.!~…]|$)|가요|갑니다|간다|가는데|가거든|가(?=[\\s.!~…]|$)))`,
    ),
    build: (m, l, body) => {
      const activity = (m[1] ?? m[3] ?? m[5] ?? m[7] ?? m[9]) as string;
      const between = ` ${(m[2] ?? m[4] ?? m[6] ?? m[8] ?? m[10]) as string}`;
      if (!HABIT_WORD.test(between) || /\s(?:안|못)\s|[가-힣](?:을|를)\s/.test(between)) return undefined;
      return list(activity, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    attribute: "hobby",
    re: new RegExp(
      `(?:${HABIT_TIME})\\s+(?:\\S+\\s+)*?(\\S+?)(?:을|를|(?<=[가-힣A-Za-z0-9])(?=\\s))\\s*(?:해요|합니다|한다|해|쳐요|칩니다|쳐|타요|탑니다|배워요|배우고|다녀요|(?:타|배워|다녀)(?=[\\s.!?~…]|$))`,
    ),
    // A request reported (`주말마다 캠핑 가자고 해요`, `놀러 오라고 해`) is no activity of one's own.
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      // A time of day (`매일 아침 해요`) is when, not what; someone else named inside (`주말에 팀
      // 선배가 집들이를 한다는데`) does it, not the speaker.
      return /(?:자고|라고|다고|냐고)$/.test(v) || /^(?:아침|점심|저녁|밤|새벽|오전|오후)$/.test(v) || someoneElseDoes(m[0])
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // A habit of a 하다 verb written as one word (`매주 일요일에 배드민턴하는데`, `요즘 매일 요가해요`);
    // not work or chores (`매일 야근해요`).
    attribute: "hobby",
    re: new RegExp(`(?:${HABIT_TIME})\\s+(?:\\S+\\s+)*?([가-힣A-Za-z]{2,}?)(?:하는데|해요|합니다|한다|하거든|하고|해)(?=[\\s.!?~…]|$)`),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      // `회원들하고`, `친구하고`: the particle 하고 (with) after people, not a 하다 verb.
      return /^(?:야근|출근|퇴근|근무|일|청소|설거지|빨래|운전|통화|연락|숙제|회의|출장|외식|배달|주문|공부|준비|생각|걱정|고민)$/.test(
        v,
      ) ||
        SETTING.test(v) ||
        /들$/.test(v) ||
        REL_WORD.test(v)
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // Walking or running as a habit (`매일 아침 공원에서 한 시간씩 걸어요`, `아침마다 한강에서
    // 달려`): a hobby, as 걷기/달리기; not a call (`전화 걸어요`: 걸다 takes an object), nor a way
    // to get somewhere (`걸어가요`, `걸어서`).
    attribute: "hobby",
    re: new RegExp(
      `(?:${HABIT_TIME})\\s+((?:\\S+\\s+)*?)(?:(걸어요|걷습니다|걷는다|걷고\\s*있|걷는데|걷거든|걸어(?=[\\s.!?~…]|$))|(달려요|달립니다|달린다|달리고\\s*있|달리는데|뛰어요|뜁니다|뛴다|뛰고\\s*있|달려(?=[\\s.!?~…]|$)))`,
    ),
    build: (m, l, body) => {
      // The object of 걸다 may stand before the time word too (`전화 자주 걸어요`).
      const between = [...wordsBefore(body, m), ...(m[1] as string).trim().split(/\s+/)];
      if (between.some((w) => /(?:을|를)$/.test(w) || /^(?:전화|말|돈|시동|기대|내기|목숨|승부)$/.test(w))) return undefined;
      // The pastime by the word for it: 걷다 is 걷기, 달리다 달리기, and 뛰다 (`10km 뛰어요`) 러닝.
      const run = m[2] === undefined ? (/^(?:뛰|뜁|뛴)/.test(m[3] as string) ? "러닝" : "달리기") : "걷기";
      return list(run, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // Going to a place of an activity as a habit (`평일 저녁마다 헬스장 가요`).
    attribute: "hobby",
    re: new RegExp(
      `(?:${HABIT_TIME})\\s+(?:\\S+\\s+)*?(\\S*(?:헬스장|헬스|체육관|수영장|도서관|교회|성당|절|공방|요가원|암장|볼링장|골프장|테니스장|탁구장|댄스학원|클럽))(?:에|을|를)?\\s*(?:가요|가|갑니다|간다|가는데|가거든|다녀)(?=[\\s.!?~…]|$)`,
    ),
    build: (m, l, body) => list(clean(m[1] as string), `${topic(l)} ${clean(body)} (취미, 활동)`),
    relative: true,
  },
  {
    // Going to an activity as a habit (`주말엔 보통 낚시 가요`, `토요일마다 등산을 갑니다`): a
    // hobby; with a time to come instead (`내일 낚시 가요`) it is a plan, read below.
    attribute: "hobby",
    re: new RegExp(
      `${HABITUALLY}\\s+(?:\\S+\\s+)*?(${GONE_ACTIVITY})(?:을|를|도)?\\s*(?:하러\\s*)?(?:가요|가|갑니다|간다|가는데|가거든|가죠|다녀요|다녀)(?=[\\s.!?~…]|$)`,
    ),
    build: (m, l, body) => list(m[1] as string, `${topic(l)} ${clean(body)} (취미, 활동)`),
    relative: true,
  },
  {
    // A club of an activity one goes out to or joined (`사진 동호회에 나가요`, `배드민턴 클럽 다녀`,
    // `밴드 동아리 활동해요`, `테니스 클럽 가입했어`): the activity; not a club of a workplace or a school (`회사 동호회`).
    attribute: "hobby",
    re: /(?:^|\s)([가-힣A-Za-z]+)\s*(?:동호회|동아리|클럽|크루)(?:에|에서)?\s*(?:나가요|나갑니다|나간다|나가고\s*있(?!었)|나가는데|나가거든|나가(?=[\s.!~…]|$)|다녀요|다닙니다|다니고\s*있(?!었)|다니는데|다녀(?=[\s.!~…]|$)|활동(?:해요|합니다|한다|하고\s*있(?!었)|하는데|\s*중|해(?=[\s.!~…]|$))|가입(?:했|해서|함(?=[\s.!~…]|$)))/,
    build: (m, l, body) => {
      const v = m[1] as string;
      // A noun may end like an adjective's modifier here (`사진`): nothing else stands before a club.
      return !nounLike(v) || WORKPLACE.test(v) || /^(?:회사|직장|학교|대학|동네|교회|성당|지역)$/.test(v)
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // Being into an activity (`요즘 뜨개질에 빠졌어`, `골프에 푹 빠져 있어요`): a hobby now; not
    // a fall or a state of mind ({@link NOT_INTO}), nor a past one (`빠졌었어`), nor the listener's
    // or someone's noticed or heard (`서핑에 빠졌구나`, `빠졌네`, `빠졌대`).
    attribute: "hobby",
    // Hooked (`뜨개질에 꽂혔어`, `클라이밍에 꽂혀 있어요`) is the same; one thing pointed at is
    // no pastime (`그 노래에 꽂혔어`).
    re: /(?:^|\s)([가-힣A-Za-z]+?)에\s*(?:(?:푹|완전|제대로|요즘|요새|또|아주|진짜|완전히)\s*)*(?:빠졌(?!었|구나|네|대)|빠져\s*있(?!었)|빠져서|빠져\s*살|꽂혔(?!었|구나|네|대)|꽂혀\s*있(?!었)|꽂혀서)/,
    build: (m, l, body) => {
      const v = m[1] as string;
      const pointed = /^(?:그|이|저|그런|이런|저런|요|이번|그\s*사람)$/.test(wordsBefore(body, m).at(-1) ?? "");
      // The particle is off already: a noun may end like one (`레고`, `요가`).
      if (pointed || NOT_INTO.test(v) || notAValue(v) || FUNCTION_WORD.test(v) || SETTING.test(v) || REL_WORD.test(v) || modifierForm(v))
        return undefined;
      // Into a thing, not a pastime (`공룡에 푹 빠져 있어요`, `레고에 빠졌어`): a liking.
      if (!KNOWN_ACTIVITY.test(v) && !ACTIVITY_FORM.test(v))
        return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 좋아한다 (좋아함)`), attribute: "likes" };
      return list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // Playing an instrument or a sport by its class and verb (`저는 테니스를 쳐요`, `바이올린 켜요`,
    // `요즘 자전거 타고 있어`); not a negation (`골프 안 쳐요`: 안 stands between) nor the past.
    attribute: "hobby",
    re: new RegExp(
      `(?:^|\\s)(?:(${STRUCK})${PLAYED_OBJECT}${playing(["치", "쳐", "칩", "친", "치는"])}|(${BOWED})${PLAYED_OBJECT}${playing(["켜", "켜", "켭", "켠", "켜는"])}|(${BLOWN})${PLAYED_OBJECT}${playing(["불", "불어", "붑", "분", "부는"])}|(${RIDDEN})${PLAYED_OBJECT}${playing(["타", "타", "탑", "탄", "타는"])})`,
    ),
    build: (m, l, body) => {
      const v = (m[1] ?? m[2] ?? m[3] ?? m[4]) as string;
      return list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // 연주하다 takes an instrument, in any form (`바이올린을 연주해요`, `해금 연주를 해요`,
    // `비올라를 연주했어요`); a piece played (`그 곡을 연주했어요`) names none, nor a word without
    // its particle that is no noun (`공연에서 연주했어요`, `친구들이랑`, `직접`).
    attribute: "hobby",
    re: new RegExp(`(\\S+?)(?:을|를|${BARE})\\s*연주(?:를|도)?\\s*(?:해|하|합니다|한다|했|하였|함|중)`),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      const instrument = new RegExp(`^(?:${STRUCK}|${BOWED}|${BLOWN})$`).test(v);
      return /(?:곡|노래|음악|작품|악보|소나타|협주곡|교향곡)$/.test(v) ||
        DEMONSTRATIVE.test(v) ||
        SETTING.test(v) ||
        !(instrument || bareNoun(v))
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    // The hobby named before 취미 or 낙 (`등산이 취미예요`, `기타 연주가 취미라서`, `미드 보는 게
    // 요즘 낙이야`), with the bare noun
    // before it (`기타 연주`) and the activity a verb's modifier names (`등산하는 게 취미야` -> 등산,
    // `사진 찍는 게 취미예요` -> 사진 찍기; see withModifier).
    attribute: "hobby",
    re: new RegExp(
      `(?:^|\\s)(?:([가-힣A-Za-z]+?)(?:(?<=${CLOSED_SYLLABLE})이|(?<=${OPEN_SYLLABLE})가|(?<=[A-Za-z])(?:이|가))|(게|것이|거))\\s*(?:(?:요즘|요새|제|내|유일한|삶의|인생의|큰)\\s*)*(?:취미(?:${COPULA}|${COPULA_LINK}|로)|낙(?:이에요|이야|입니다|이다|이라서|이라|인데|이고|이거든|이죠))`,
    ),
    build: (m, l, body) => {
      const before = wordsBefore(body, m).at(-1) ?? "";
      let v = (m[1] ?? m[2]) as string;
      if (m[2] !== undefined) v = withModifier(body, m, "것");
      // Before a verb's noun form `-기` (`사진 찍기`) stands its object, even one ending like an
      // adjective's modifier (`사진`; see withModifier).
      else if (bareNoun(before) || (/[가-힣]기$/.test(v) && nounLike(before))) v = `${before} ${v}`;
      return SETTING.test(v) || notAValue(v) ? undefined : list(v, `${l}의 취미는 ${v} (취미)`);
    },
    relative: true,
  },
  {
    attribute: "likes",
    // The copula in its connective forms too (`롯데 팬이라 자주 가`, `팬인데`, `팬이고`).
    re: /(\S+?)(?:\s*팬(?:이에요|입니다|이야|이다|이라서|이라|인데|이고|이거든)|에\s*관심이\s*(?:많|있))/,
    build: (m, l) => {
      const v = clean(m[1] as string);
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 좋아한다 (좋아함, 관심)`), keyAttribute: "preference" };
    },
    relative: true,
  },
  {
    // A licence or certificate obtained (`운전면허 땄다`, `자격증 취득했어요`).
    attribute: "event",
    re: new RegExp(`(\\S+?)(?:을|를|도|${BARE})?\\s*(?:땄|따냈|취득했)`),
    // A time before the verb (`자격증은 작년에 땄어요`) is not what was obtained.
    build: (m, l, body) => {
      const v = m[1] as string;
      return SETTING.test(v) || (/(?:에|엔)$/.test(v) && TIME_BEFORE_E.test(v.replace(/(?:에|엔)$/, "")))
        ? undefined
        : list(clean(v), `${topic(l)} ${clean(body)} (경험)`);
    },
    relative: true,
  },
  {
    // A life event said with 했다 (`과장으로 승진했어요`, `시험 합격했다`).
    attribute: "event",
    // A promotion to a title (`팀장으로 승진했어요`) is also the work now held.
    re: new RegExp(`(?:(?:^|\\s)(\\S+?)(?:으로|로)\\s*)?(${EVENT_NOUN})(?:을|를)?\\s*(?:했|하였|함(?=[\\s.!~…]|$))`),
    build: (m, l, body) => {
      const event = list(m[2] as string, `${topic(l)} ${clean(body)} (경험)`);
      const title = m[1] === undefined ? "" : clean(m[1]);
      return m[2] === "승진" && PROMOTED_TO.test(title)
        ? [event, { ...single(title, `${topic(l)} ${title} (직업)`), attribute: "work" }]
        : event;
    },
    relative: true,
  },
  {
    // A birth: past is an event (`아기 낳았어`), present or future a plan (`다음 달에 애기 낳아`).
    attribute: "event",
    re: new RegExp(`(?:${CHILD})(?:를|을)?\\s*(?:(낳았|출산했)|(낳아|낳는|낳을|출산\\s*예정))`),
    build: (m, l, body) =>
      m[1]
        ? list("출산", `${topic(l)} ${clean(body)} (출산, 경험)`)
        : { ...list("출산", `${topic(l)} ${clean(body)} (출산, 계획)`), attribute: "plan" },
    relative: true,
  },
  {
    // Expecting a child (`둘째 가졌어요`, `아기 가졌어`, `임신 12주예요`): a pregnancy, the child's order
    // kept in the value (`둘째 임신`); not one weighed (`둘째 가질까`) nor wished for.
    attribute: "event",
    re: new RegExp(
      `(?:^|\\s)(?:(${CHILD})(?:를|을)?\\s*(?:가졌|임신했)|임신\\s*\\d+\\s*(?:주|개월)\\s*(?:차|째)?(?:예요|이에요|야|이야|입니다|임|인데|이고)(?=[\\s.,!~…]|$))`,
    ),
    build: (m, l) => {
      const v = m[1] === undefined || /^(?:아기|애기|아이|애)$/.test(m[1]) ? "임신" : `${m[1]} 임신`;
      return list(v, `${topic(l)} ${v} 중이다 (임신, 가족)`);
    },
    relative: true,
  },
  {
    // Signing up for an activity (`필라테스도 등록했어`, `수영 등록했어요`), or buying a pass by its
    // count in any register (`PT 열 번 끊었어`, `3개월 끊었습니다`: the count's noun, {@link COUNT_VALUE}).
    attribute: "hobby",
    re: new RegExp(`(\\S+?)(?:도|을|를|${BARE})\\s*(?:등록했|등록함|등록해서|끊었어요|(?<=(?:회권?|번|개월|달)\\s?)끊었)(?!\\S*\\s*끊)`),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      // What a count counts is read here too (`전화 두 번 끊었어` hung up twice: no activity).
      const counted = COUNT_VALUE.test(v) ? countedNoun(body, v, m.index ?? 0) : v;
      return counted === undefined || SETTING.test(counted) || /^(?:회원|카드|계좌|주소|이름|번호|수강|신청|전화|통화|연락)$/.test(counted)
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    attribute: "belonging",
    re: /(\S+?)(?:을|를)\s*(?:가지고\s*있|갖고\s*있)/,
    build: (m, l) => list(clean(m[1] as string), `${topic(l)} ${josa(clean(m[1] as string), "을", "를")} 가지고 있다 (소유물)`),
  },
  {
    attribute: "belonging",
    // When, where or how it was bought may stand between the thing and the verb (`포터2 중고로
    // 샀어요`, `중고로 아이오닉5 샀어`): the thing, not `중고로`; a model ends in a digit or a letter.
    // The thing as the topic comes without its `은`/`는` (`차는 당근에서 샀어`: 차).
    re: new RegExp(
      `(\\S+?)(?:을|를|(?<=[가-힣])[은는](?=\\s)|(?<=[가-힣A-Za-z0-9])(?=\\s))\\s*(?:${DEAL_WORD}\\s+)*(?:샀어|샀습니다|샀다|구입했|장만했|구매했)`,
    ),
    // A count (`하나 장만했어요`, `두 개 샀어`) or how it was bought alone (`중고로 샀어요`) names no
    // thing: the thing is said before.
    build: (m, l) => {
      const v = clean(m[1] as string);
      return /^(?:하나|둘|셋|넷|한\s*개|두\s*개|세\s*개|개|대|벌|켤레)$/.test(v) || DEAL_ALONE.test(v)
        ? undefined
        : list(v, `${topic(l)} ${josa(v, "을", "를")} 샀다 (소유물)`);
    },
  },
  {
    // A device and the make or model used (`키보드는 레오폴드 써`, `폰은 아이폰 15 써요`, `노트북
    // 맥북 쓰고 있어`): what the speaker owns, one per kind of device (a new phone replaces the
    // last). Not a tool or a service (`상태관리는 zustand 써요`), a negation (`안 써`) nor the past.
    attribute: "belonging",
    re: new RegExp(
      `(?:^|\\s)(${DEVICE})(?:은|는|도|으로|로)?\\s+([가-힣A-Za-z][가-힣A-Za-z0-9]*(?:\\s+[A-Za-z0-9][A-Za-z0-9+]*)?)\\s*(?:써요|씁니다|쓴다|쓰고\\s*있(?!었)|쓰는\\s*중|쓰는데|쓰거든|쓰죠|써(?=[\\s.!~…]|$))`,
    ),
    build: (m, l) => {
      const [device, v] = [m[1] as string, clean(m[2] as string)];
      return !nounLike(v.split(/\s+/)[0] as string)
        ? undefined
        : list(v, `${topic(l)} ${josa(device, "으로", "로")} ${josa(v, "을", "를")} 쓴다 (소유물)`, device);
    },
    relative: true,
  },
  {
    // A make that names its device (`맥북 M2 3년째 쓰는 중`, `아이폰 써요`): the make, one per kind
    // of device ({@link MAKE_DEVICE}); the model may follow it, joined or not (`아이폰16 프로 써`,
    // `갤럭시 Z폴드 쓰는데`).
    attribute: "belonging",
    re: new RegExp(
      `(?:^|\\s)(${Object.keys(MAKE_DEVICE).join("|")})(?:[A-Za-z0-9]+)?(?:은|는|도)?(?:\\s+(?:[A-Za-z0-9][A-Za-z0-9+]*(?:${MODEL_WORD})?|${MODEL_WORD})){0,2}\\s+(?:(?:\\d+|몇)\\s*(?:년|달|개월)\\s*째\\s+)?(?:써요|씁니다|쓴다|쓰고\\s*있(?!었)|쓰는\\s*중|쓰는데|쓰거든|써(?=[\\s.!~…]|$))`,
    ),
    build: (m, l) => {
      const make = m[1] as string;
      const device = MAKE_DEVICE[make] as string;
      return list(make, `${topic(l)} ${josa(device, "으로", "로")} ${josa(make, "을", "를")} 쓴다 (소유물)`, device);
    },
    relative: true,
  },
  {
    // A pet that died (`키우던 고양이가 작년에 무지개다리 건넜어요`, `앵무새가 죽었어요`, `토끼는 하늘나라
    // 갔어요`): a pet no longer had. The speaker's only (`친구 강아지가 죽었대`: someone else's).
    attribute: "pet",
    re: new RegExp(
      `(?:^|\\s)(?:(?:우리|저희|울|내|제)\\s+)?(${PET})(?:이|가|은|는|도)?\\s+(?:\\S+\\s+){0,3}?(?:무지개\\s*다리(?:를)?\\s*건넜|하늘나라(?:로|에)?\\s*(?:갔|떠났)|별이\\s*됐|죽었|세상을\\s*떠났)(?!다(?:는|고|면|며)|던)`,
    ),
    build: (m, l, body) => {
      const v = m[1] as string;
      // A pet of a film, a show, a game or a dream (`영화에서 강아지가 죽었어`, `꿈에서`) is no one's.
      if (STORY_SETTING.test(body.slice(0, m.index ?? 0))) return undefined;
      // Whose the pet is, by the word before it: a person's (`친구 강아지가`, `민지 고양이가`, `언니네
      // 강아지가`) is theirs.
      const owner =
        body
          .slice(0, m.index ?? 0)
          .trim()
          .split(/\s+/)
          .at(-1) ?? "";
      if (REL_WORD.test(owner.replace(/네$/, "")) || /의$/.test(owner) || (owner !== "" && givenNameLike(owner))) return undefined;
      return { ...list(v, `${topic(l)} ${josa(v, "은", "는")} 이제 없다 (반려동물, 죽었다)`, v), ended: true };
    },
  },
  {
    // A vehicle one gets about on (`전기자전거로 출퇴근해요`, `출퇴근은 스쿠터로 해요`, `오토바이 타고
    // 다녀요`, `자전거 타고 학교 다녀`): one's own, as the labelled sets read it. Not a bus, the
    // underground or a shared bike (no `VEHICLE` of one's own), nor a negation.
    attribute: "belonging",
    re: new RegExp(
      `(?:^|\\s)(${VEHICLE})(?:(?:으로|로)\\s*(?:\\S+\\s+){0,2}?(?:출퇴근|출근|통근|통학|등교|등하교)|\\s*(?:를|을)?\\s*타고\\s+(?:\\S+\\s+){0,2}?(?:다녀|다닙니다|다니는|다니고|다녀요|출퇴근|출근|통근|통학|등교))|(?:^|\\s)(?:출퇴근|출근|통근|통학)(?:은|는)\\s+(${VEHICLE})(?:으로|로)\\s+(?:해요|합니다|해|하고|하는데|다녀)`,
    ),
    build: (m, l, body) => {
      if (/(?:^|\s)안\s|못\s|않|없이/.test(body.slice(m.index ?? 0))) return undefined;
      const v = (m[1] ?? m[2]) as string;
      return list(v, `${topic(l)} ${josa(v, "을", "를")} 타고 다닌다 (소유물)`, v);
    },
    relative: true,
  },
  {
    // A vehicle or a device one sold or got rid of (`차는 이번에 팔았어요`, `예전에 오토바이 있었는데
    // 팔았어`, `아이패드 중고로 처분했어요`, a car by its model: `쏘렌토는 작년에 팔았어요`, `모닝은
    // 폐차했어요`, or given to a relative: `스쿠터는 동생 줬어`): a belonging no longer had. Not what a
    // shop sells (`팔아요`) nor someone else's sale (`남편이 차를 팔았어`: the rule is the speaker's only).
    attribute: "belonging",
    re: new RegExp(
      `(?:^|\\s)(차|자동차|자가용|오토바이|바이크|스쿠터|자전거|캠핑카|${CAR_MODEL}|${DEVICE}|${Object.keys(MAKE_DEVICE).join("|")})(?:은|는|을|를|도)?\\s+(?:(?:있었는데|있었지만|있었거든요?|${DEAL_WORD})\\s+)*(?:팔았|팔아버렸|팔아\\s*버렸|처분했|정리했|넘겼|폐차(?:했|시켰|함)|(?:(?:${REL})(?:한테|에게|께)?\\s+)(?:드렸|줬|주었|물려줬|물려드렸|넘겨줬))`,
    ),
    build: (m, l) => {
      const v = m[1] as string;
      return { ...list(v, `${topic(l)} ${josa(v, "을", "를")} 이제 갖고 있지 않다 (소유물, 팔았다)`, v), ended: true };
    },
  },
  {
    attribute: "belonging",
    re: new RegExp(`(?:제|내)?\\s*차는\\s*(\\S+?)${COPULA}`),
    // `차는 없어요` says there is none: a predicate (없다, 있다, 아니다) is no car.
    build: (m, l) => (PREDICATE_WORD.test(m[1] as string) ? undefined : list(`차 ${m[1]}`, `${l}의 차는 ${m[1]} (소유물)`, "차")),
    // A relative's car is theirs (`남편 차는 테슬라예요`): the bare relative before it owns it.
    relative: true,
  },
  {
    attribute: "plan",
    re: /(.+?)\s*(?:할|갈|볼|올|떠날|만날|시작할|받을|보러\s*갈)\s*(?:예정|계획)/,
    build: (m, l, body) => list(clean(m[1] as string), `${topic(l)} ${clean(body)} (계획)`),
  },
  {
    attribute: "plan",
    // `-려고 해요/합니다` and `-려고 준비 중이에요` (`카페 차리려고 준비 중이에요`: the verb's
    // object is the plan); the final `-려고요` is left to the intention rule below (it needs a
    // time). Not a plan not to (`안 옮기려고 해`) nor one someone else has.
    re: new RegExp(
      `(.+?)(?:하|가|보|오|만나|떠나|배우|사|받|시작하)려고\\s+(?:해요|합니다|해|한다|하고|하는)|(.+?)(?:하|가|보|오|만나|떠나|배우|사|받|시작하)려고(?:해요|합니다|해|한다|하고|하는)|^(.+?)\\s+[가-힣]+려고\\s*(?:해요|합니다|해|한다|하고|하는|준비\\s*${DOING_NOW})`,
    ),
    build: (m, l, body) => {
      const v = clean((m[1] ?? m[2] ?? m[3]) as string);
      return /(?:^|\s)(?:안|못)$/.test(v) || (m[3] !== undefined && someoneElseDoes(`${v} 가`))
        ? undefined
        : list(v, `${topic(l)} ${clean(body)} (계획)`);
    },
  },
  {
    attribute: "plan",
    // A time to come and a verb in the present or future (`다음 달에 결혼해!`, `내일 면접 봐`,
    // `모레 제주도 갑니다`, `대회 나가`: 가 a word of its own or 나가); not a habit (`주말에는 주로 등산 가요`) nor a negation (`결혼 안 해`).
    re: /((?:내일|모레|다음\s*주|다음\s*달|내년|이번\s*주말|이번\s*주|주말에|\d+월\s*\d+일).*?)(?:거예요|거야|겁니다|갈게요|가요|해요|할게요|예정|(?:해|(?:(?<=\s)|나)가|(?<=\s)봐)(?=[\s.!~…]|$)|한다|합니다|(?:(?<=\s)|나)(?:간다|갑니다)|봐요|봅니다|본다)/,
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      return HABIT_WORD.test(body) || /(?:^|\s)(?:안|못)$/.test(v) ? undefined : list(v, `${topic(l)} ${clean(body)} (계획)`);
    },
    // A relative's too (`언니가 다음 달에 결혼해요`, `작은딸은 내년 봄에 결혼합니다`).
    relative: true,
  },
  {
    // What is being planned (`일본 여행을 계획하고 있어요`, `제주도 여행 계획 중이야`): a plan, with
    // the bare noun before it (`일본 여행`); not one planned before (`계획 중이었어`).
    attribute: "plan",
    re: new RegExp(
      `(?:^|\\s)([가-힣A-Za-z]+?)(?:을|를|${BARE})\\s*계획(?:을|를)?\\s*(?:${DOING_NOW}|짜고\\s*있(?!었)|세우고\\s*있(?!었)|했|세웠|짰)`,
    ),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      if (!bareNoun(v)) return undefined;
      return list(withCompoundNoun(body, m, v), `${topic(l)} ${clean(body)} (계획)`);
    },
  },
  {
    // Preparing for an event (`이사 준비하고 있어요`, `공무원 시험 준비 중이야`) is a plan; a chore
    // prepared (`저녁 준비하고 있어요`) is none: only a noun of {@link PREPARED_EVENT}.
    attribute: "plan",
    re: new RegExp(`(?:^|\\s)([가-힣A-Za-z]+?)(?:을|를|${BARE})\\s*준비(?:를|도)?\\s*${DOING_NOW}`),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      if (!PREPARED_EVENT.test(v) || !bareNoun(v)) return undefined;
      return list(withCompoundNoun(body, m, v), `${topic(l)} ${clean(body)} (계획)`);
    },
  },
  {
    // A decision: `-기로 했다` (`제주도 가기로 했어요`); not one not to (`안 받기로 했어요`).
    attribute: "plan",
    re: /^(.+?)기로\s*(?:했|하고|한|결정했|정했|약속했)/,
    build: (m, l, body) =>
      /(?:^|\s)(?:안|못)\s+\S+$/.test(m[1] as string) || someoneElseDoes(m[1] as string)
        ? undefined
        : list(clean(m[1] as string), `${topic(l)} ${clean(body)} (계획)`),
  },
  {
    // The future `-ㄹ 거예요/거야/거라/겁니다/건데` of an action (`이직할 거라`, `볼거라`); not a
    // guess about a state (`바쁠 거예요`, `괜찮을 거야`, `그럴 거야`).
    attribute: "plan",
    re: new RegExp(`^(.+?${RIEUL_SYLLABLE})\\s*(?:거예요|거에요|거야|겁니다|거라|건데|거거든)`),
    build: (m, l, body) => {
      const verb = (m[1] as string).split(/\s+/).at(-1) ?? "";
      return FUTURE_STATE.test(verb) || !/\s/.test((m[1] as string).trim()) || someoneElseDoes(m[1] as string)
        ? undefined
        : list(clean(m[1] as string), `${topic(l)} ${clean(body)} (계획)`);
    },
  },
  {
    // An intention ending the sentence: `-려고(요)`, and its spoken `-려구(요)` (`가보려구요`).
    attribute: "plan",
    re: /^(.+?[가-힣])(?:으)?려(?:고|구)(?:요)?[.!~…]*$/,
    // A purpose after the act (`식기세척기 샀어요. 설거지 줄이려고`) has the same form: only a
    // clause that says when counts (`토요일에 치과 가보려구요`).
    build: (m, l, body) =>
      FUTURE_TIME.test(m[1] as string) && !someoneElseDoes(m[1] as string)
        ? list(clean(m[1] as string), `${topic(l)} ${clean(body)} (계획)`)
        : undefined,
  },
  {
    // `기타를 배우고 있어요`, `요가를 배우기 시작했어요`: an activity the speaker keeps up.
    attribute: "hobby",
    // 반말 too (`나 요즘 수영 배워`); not a negation (`수영은 안 배워`).
    re: new RegExp(`(\\S+?)(?:을|를|${BARE})\\s*(?:배우고|배워요|배웁니다|배우는\\s*중|배우기\\s*시작|배워(?=[\\s.!~…]|$))`),
    build: (m, l, body) => {
      const v = clean(m[1] as string);
      return FUNCTION_WORD.test(v) ? undefined : list(v, `${topic(l)} ${clean(body)} (취미, 활동)`);
    },
    relative: true,
  },
  {
    attribute: "event",
    // `결혼식 갔다 왔어` drops the particle; a time word before the verb is no place (`어제 갔다 왔어`).
    re: new RegExp(`(\\S+?)(?:에|${BARE})\\s*(?:갔어|갔다|갔었|다녀왔|갔습니다|놀러\\s*갔)`),
    build: (m, l, body) => {
      if (SETTING.test(m[1] as string)) return undefined;
      const v = tripPlace(body, m, clean(m[1] as string));
      return list(v, `${topic(l)} ${clean(body)} (경험)`);
    },
  },
  {
    attribute: "event",
    re: /(\S+?)(?:을|를)\s*(?:시작했|배우기\s*시작했|끝냈|마쳤|졸업했)/,
    build: (m, l, body) => list(clean(m[1] as string), `${topic(l)} ${clean(body)} (경험)`),
  },
];

/** Events and activities by name ({@link PREPARED_EVENT}, {@link TRIP_PURPOSE}, {@link GONE_ACTIVITY}, the played classes). */
const ACTIVITY_OR_EVENT = new RegExp(
  `${PREPARED_EVENT.source}|${TRIP_PURPOSE.source}|^(?:${GONE_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN}|운동|취미|요리|독서|공부)$`,
);

/**
 * Who a clause is about, from the words before the rule's value: the first word carrying a topic
 * or subject particle (`은/는/이/가/도/께서`) that does not set a time or place. The speaker's own
 * words (`저는`, `제가`, `우리는`) give the speaker; a relation (`동생이`, `제 친구는`, `회사 동료가`,
 * also `동생 민지는`) gives that person; anyone else (a name `민지는`, `그 사람이`, `고양이가`) means
 * the clause is not a fact about the speaker or a relation: `undefined`. No such word: the speaker
 * (Korean drops the subject).
 */
function subjectOf(before: string, speaker: Speaker, next: string): Speaker | undefined {
  const words = before
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  for (let i = 0; i < words.length; i += 1) {
    const word = (words[i] as string).replace(/[,.!~…]+$/, "");
    if (FIRST_PERSON_WORD.test(word)) return speaker;
    // The listener (`너 내일 사회 봐 준다고 했잖아`): nothing the speaker states of themself.
    if (/^(?:너|너는|넌|니가|네가|너도|당신|당신은|당신이)$/.test(word)) return undefined;
    // A third person, with its particle or without (`어제 걔 이사했어`, `그 친구 요즘 테니스 쳐`).
    if (THIRD_PERSON_WORD.test(word)) return undefined;
    const person = words[i + 1] ?? next;
    if (
      /^(?:그|이)$/.test(word)
        ? DEMONSTRATED_PERSON.test(person)
        : word === "저" && /^(?:사람|분|녀석|놈|양반)(?:들)?(?:은|는|이|가|도)?$/.test(person)
    )
      return undefined;
    const m = /^(.+?)(께서는|께서|은|는|이|가|도)$/.exec(word);
    if (!m || SETTING.test(word) || ADNOMINAL.test(word) || DO_NOUN.test(word) || GA_NOUN.test(word) || ATTRIBUTE_TOPIC.test(word))
      continue;
    // A word in `-는` before a bound noun is a verb's modifier whatever its stem (`술 마시는 거`,
    // `노래 부르는 게`): a topic is never followed by one. `게` is also a noun (crab: `민지는 게 못
    // 먹어`), so before it only a word after the verb's object counts.
    const after = words[i + 1] ?? next;
    if (m[2] === "는" && BOUND_NOUN.test(after) && (after !== "게" || i > 0)) continue;
    const stem = m[1] as string;
    const particle = m[2] as string;
    // An event or an activity as the topic (`여행은 제주도로 가기로 했어`, `테니스는 주말마다 쳐`)
    // says what the clause is about, not who.
    if (ACTIVITY_OR_EVENT.test(stem)) continue;
    const relationOf = (r: string) => ({ id: `${speaker.id}'s ${r}`, label: `${speaker.label}의 ${r}` });
    const joined = i > 0 ? `${words[i - 1]} ${stem}` : stem;
    if (REL_WORD.test(joined)) return relationOf(joined.replace(/\s+/g, " "));
    if (REL_WORD.test(stem)) return relationOf(stem);
    // `동생 민지는`: a name after a relation is that relative.
    const previous = (words[i - 1] ?? "").replace(new RegExp(`^${MY}$`), "");
    if (previous !== "" && REL_WORD.test(previous)) return relationOf(previous);
    // `이` and `도` also end plain words (`같이`, `많이`, `오늘도`): only a longer word counts as a subject there.
    if ((particle === "이" || particle === "도") && word.length < 3) continue;
    return undefined;
  }
  return speaker;
}

/**
 * Where a sentence ends: punctuation, a line break, a comma, a connective (`-는데`, `-지만`), or a
 * final ending before a space. The plain ending `-다` counts after a syllable with a final
 * consonant (`간다`, `했다`, `있다`, `좋다`) only: nouns that end in `다` mostly follow an open
 * syllable (`캐나다`, `바다`, `마다`), so `우리 누나 캐나다 살아` stays one sentence.
 */
/**
 * A wish (`살고 싶어`, `가면 좋겠다`): a `-서` clause before it is part of what is wished
 * (`제주로 이사해서 살고 싶어`), not a fact of its own, so the sentence is not cut there.
 */
const WISH = /(?:싶어|싶다|싶은|싶습니다|싶네요|싶어요|바라요|좋겠)/;
const SENTENCE_BREAK = new RegExp(
  `(?<=[.!?。…~])\\s+|\\n+|(?<=(?:요|${CLOSED_SYLLABLE}다|죠|(?<!다)니다))\\s+(?=[가-힣A-Za-z])|,\\s+|(?<=(?:는데|은데|인데|신데|(?<!까)지만|는데요|라서|여서|으니|니까|니깐|거든|잖아))\\s+(?!(?:\\S+\\s+){0,2}?(?:팔았|팔아버렸|처분했|넘겼|(?:정년)?(?:퇴직|은퇴)(?:하셨|했|하였)))|(?<=[았었했]고|[가-힣]이고)\\s+(?=[가-힣A-Za-z])|(?<=[가-힣](?:아서|어서|해서|와서|워서|셔서))\\s+(?=[가-힣A-Za-z])(?![^\\n]*${WISH.source})|(?<=(?:^|\\s)\\S*?(?:살면서|사시면서))\\s+(?![^\\n]*${HYPOTHETICAL.source})`,
);

/** Where a sentence ends (punctuation, a line break, a final ending before a space), not a connective. */
const SENTENCE_END = new RegExp(`(?<=[.!?。…~])\\s+|\\n+|(?<=(?:요|${CLOSED_SYLLABLE}다|죠|(?<!다)니다))\\s+(?=[가-힣A-Za-z])`);

/**
 * Verbs whose connective `-고` joins two clauses each stating its own fact (`서울에 살고`, `회사
 * 다니고`, `딸이 하나 있고`, `고양이 키우고`), by the stem before `고`: a 하다 verb (`일하고`), not
 * the particle `하고` after a person (`엄마하고`).
 */
const CLAUSE_GO = /(?:살|다니|하|있|없|키우|배우|치|타|켜|지내|쓰|마시|모시|기르|그만두|관두)고$/;
/**
 * What follows a `-고` that keeps it in its clause: an auxiliary (`-고 있다`, `-고 계시다`, `-고
 * 싶다`, `-고 나서`, `-고 보니`, `-고 말았다`) or a verb of going with the means (`타고 가요`, `들고
 * 다녀요`, `타고 출근해요`).
 */
const GO_AUXILIARY =
  /^(?:있|계시|계세|계셔|싶|나서|나니|나면|나선|보니|보면|말|다녀|다니|가|갔|간|갈|와|왔|온|올|오|출퇴근|출근|통근|통학|등교|그만뒀|그만두었|관뒀|퇴사했|접었)/;
/** Words ending in `-고` that end a time, not a clause of their own (`퇴근하고 매일 타요`). */
const GO_TIME = /^(?:퇴근하고|출근하고|하교하고|등교하고|수업하고|끝나고|마치고|일어나고)$/;

/**
 * Where a clause ending in `-고` ends its own fact ({@link CLAUSE_GO}, or the copula after a job or
 * a name: `개발자고`, `하윤이고`), before `next`: not before an auxiliary ({@link GO_AUXILIARY}),
 * not a time ({@link GO_TIME}), not the particle `하고` after a person (`엄마하고`), not in a
 * quotation (`"…살고…"`), and not where the rest is a relative clause on the noun it ends with
 * (`아들 키우고 회사 다니는 엄마예요`).
 */
function endsClauseAtGo(before: string, word: string, next: string, rest: string): boolean {
  // A quotation's `-다고/-라고/-냐고/-자고` (`준다고 했지`) and a purpose's `-려고` end no clause of their own.
  const quoted = /(?:다|라|냐|자|려)고$/.test(word) && !new RegExp(`(?:${JOB})고$`).test(word);
  if (GO_AUXILIARY.test(next) || GO_TIME.test(word) || quoted) return false;
  // An honorific verb after (`무릎 수술하고 재활 중이셔서`) marks a senior as the subject of both
  // clauses: honorifics often mark only the last verb, so the clause before is theirs too.
  if (HONORIFIC.test(rest)) return false;
  if ((before.match(/["“”‘’]/g)?.length ?? 0) % 2 === 1) return false;
  const restWords = rest.split(/\s+/);
  if (ADNOMINAL.test(restWords.at(-2) ?? "") && /(?:이에요|예요|입니다|이야|야|이다)[.!~…]*$/.test(restWords.at(-1) ?? "")) return false;
  const stem = word.slice(0, -1);
  if (
    /하고$/.test(word) &&
    (REL_WORD.test(word.slice(0, -2)) || new RegExp(`^(?:${PET})$`).test(word.slice(0, -2)) || /들하고$/.test(word))
  )
    return false;
  if (CLAUSE_GO.test(word)) return true;
  // The copula's `-고` after a topic that names what the value is (`고향은 목포고 …`, `본가는 대전이고 …`,
  // `직업은 교사고 …`) ends that fact's clause.
  if (HOME_TOPIC.test(before.split(/\s+/).at(-1) ?? "")) return true;
  const noun = stem.replace(/이$/, "");
  // An age in native numbers ends its clause too (`올해 스물하나고 대전에 살아요`), and so does a
  // school year (`큰애는 중1고 작은애는 …`).
  return new RegExp(`(?:${JOB})$|^(?:${KOREAN_AGE}|${SCHOOL_SLANG})$`).test(noun) || givenNameLike(noun);
}

/** A sentence cut after each `-고` that ends a clause of its own ({@link endsClauseAtGo}). */
function clausesAtGo(sentence: string): string[] {
  const words = sentence.split(/\s+/);
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < words.length - 1; i += 1) {
    const word = (words[i] as string).replace(/,$/, "");
    if (!word.endsWith("고")) continue;
    const before = words.slice(0, i).join(" ");
    const rest = words.slice(i + 1).join(" ");
    if (!endsClauseAtGo(before, word, words[i + 1] as string, rest)) continue;
    out.push(words.slice(start, i + 1).join(" "));
    start = i + 1;
  }
  out.push(words.slice(start).join(" "));
  return out;
}

/** Splits a Korean message into sentences (punctuation, line breaks, or a final ending before a space) and clauses (`-는데`, `-고`, `-서`). */
export function koreanSentences(text: string): string[] {
  return text
    .split(SENTENCE_BREAK)
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .flatMap(clausesAtGo);
}

/** `<workplace>을/를 퇴사했어요`, `<회사·은행·병원…>을/를 그만뒀어요` ({@link positiveOfEnded}). */
const LEFT_WORKPLACE =
  /^(?:(?:작년에|올해|지난달에?|지난주에?|얼마\s*전에?|최근에?)\s+)?((?:\S+\s+){0,3}?(?:다니던|일하던|근무하던)\s+)?([가-힣A-Za-z&]+?)(을|를|은|는)\s*(?:(?:작년에|올해|재작년에|지난달에?|지난주에?|얼마\s*전에?|최근에?|\d+\s*월에)\s+)?(퇴사(?:했|하였)|그만뒀|그만두었|관뒀)/;
/**
 * A workplace's name by its form, said as what one's 회사 or 직장 is (`직장은 한빛소프트예요`,
 * `회사 LG전자임`, `회사는 SK예요`): a firm's ending or capitals; not a bare kind of workplace (`회사`,
 * `병원`) nor a word in Latin letters, which is as often a tool (`회사가 React라서`).
 */
const WORKPLACE_NAME =
  /^(?:[가-힣A-Za-z0-9&]{1,8}(?:전자|그룹|증권|은행|카드|보험|공사|소프트|테크|랩스|컴퍼니|코리아|엔터|제약|건설|물산|화학|통신|항공|생명|바이오|모빌리티|게임즈|스튜디오|병원|연구소)|[A-Z][A-Z0-9&]{1,4})$/;
/** Workplaces by their form (`회사`, `은행`, `삼성전자`, a Latin name), which 그만두다 leaves as a job. */
const LEFT_WORKPLACE_FORM = /(?:회사|은행|병원|전자|그룹|증권|카드|보험|공사|센터|연구소|연구원|스튜디오|[A-Za-z])$/;
/** `<clause>-다가` and, later in the sentence, a verb of leaving, moving or stopping. */
const WHILE_THEN =
  /^(.*?)([가-힣]+?)(?:시)?(?:다가?\s+(?:\S+\s+)*?\S*(그만뒀|그만두었|그만두고|관뒀|관두고|퇴사|퇴직|은퇴|이사|내려왔|올라왔|내려갔|올라갔|옮겼|이직|나왔|접었|끊었|바꿨|바꾸었|갈아탔)|고\s+(?:\S+\s+)?(그만뒀|그만두었|관뒀|퇴사했|접었))/;
/**
 * What one switched to after `-다가` (`갤럭시 쓰다가 아이폰으로 바꿨어`, `부산 살다가 서울로 이사왔어요`):
 * the stem before `-다가` and the new value, said with `(으)로` before the verb of switching.
 */
const SWITCHED_TO =
  /(?:^|\s)(쓰|살|타|다니)다가?\s+(?:\S+\s+){0,3}?(\S+?)(?:으로|로)\s*(?:바꿨|바꾸었|갈아탔|이사|내려왔|올라왔|내려갔|올라갔)/;
/**
 * A move said with the town it started from (`광주에서 세종으로 이사했어요`, `부산에서 서울로
 * 올라왔어요`): the words before the town (`$1`, the subject and a when), the town left (`$2`), the
 * move to the new town (`$3`) and that town (`$4`). Only a past move; one to come is a plan.
 */
const MOVED_FROM =
  /^(.*?)(?<=^|\s)([가-힣A-Za-z]+?)에서\s+(?:\S+\s+){0,2}?((\S+?)(?:으로|로)\s*(?:\S+\s+){0,2}?(?:이사\s*(?:했|왔|갔|와서|가서|해서)|내려왔|올라왔|내려갔|올라갔))/;

/** {@link MOVED_FROM} when both its towns are places one lives in (not `회사에서 가까운 곳으로`). */
function movedFrom(sentence: string): RegExpExecArray | null {
  const m = MOVED_FROM.exec(sentence);
  const home = (v: string) => nounLike(v) && !NOT_A_HOME.test(v) && !SETTING.test(v) && !WORKPLACE.test(v);
  return m && home(m[2] as string) && home(clean(m[4] as string)) ? m : null;
}

/**
 * A job move said with the workplace it started from (`카카오에서 네이버로 이직했어요`, `원래 우체국에
 * 있다가 올해 농협으로 옮겼어요`): the words before the workplace left (`$1`), that workplace (`$2`) and
 * the one moved to (`$3`), both workplaces by their form ({@link movedWorkplace}). Only a past move.
 */
const JOB_MOVED_FROM =
  /^(.*?)(?<=^|\s)([가-힣A-Za-z0-9&]+?)(?:에서|에\s*(?:있|계시|다니)다가?)\s+(?:\S+\s+){0,3}?(\S+?)(?:으로|로)\s*(?:옮겼|이직(?:했|하였))/;
/** Kinds of employer by how their name ends (`스타트업`, `에이전시`, `회계법인`, `로펌`), a job move's either side. */
const FIRM_KIND = /(?:스타트업|에이전시|법인|로펌|사무소|대기업|중소기업|공기업|외국계|게임사|증권사|보험사|제약사|건설사)$/;
/**
 * A job move (`카카오에서 네이버로 옮겼어요`): both sides workplaces ({@link movedWorkplace}), or
 * one a kind of employer ({@link FIRM_KIND}: `삼일회계법인에서 딜로이트로 옮겼어요`, `네이버에서
 * 스타트업으로 옮겼어`) and the other a name, not a town ({@link TOWN}); two towns stay none
 * (`서울에서 대구로 옮겼어요`), and so does a town and a kind (`서울에서 스타트업으로 옮겼어요`).
 */
function jobMovedFrom(sentence: string): RegExpExecArray | null {
  const m = JOB_MOVED_FROM.exec(sentence);
  if (!m) return null;
  const [from, to] = [m[2] as string, clean(m[3] as string)];
  // The other side a name, not a town (`서울에서 스타트업으로`: 서울 is no workplace left).
  const named = (side: string) => movedWorkplace(side) || (bareNoun(side) && !TOWN.test(side));
  const either = (FIRM_KIND.test(from) && named(to)) || (FIRM_KIND.test(to) && named(from));
  return (movedWorkplace(from) && movedWorkplace(to)) || either ? m : null;
}

/** The present of the value switched to ({@link SWITCHED_TO}), as a sentence the rules read: `아이폰 쓰고 있어요`. */
function switchedTo(sentence: string): string | undefined {
  // The workplace a job move went to (`… 농협으로 옮겼어요`: `농협에서 일하고 있어요`).
  const job = jobMovedFrom(sentence);
  if (job) return `${(job[1] as string).replace(DURATION, "")}${clean(job[3] as string)}에서 일하고 있어요`;
  // The town moved to: the move said without where it started (`작년에 세종으로 이사했어요`).
  const moved = movedFrom(sentence);
  if (moved) return `${moved[1]}${sentence.slice((moved.index ?? 0) + moved[0].length - (moved[3] as string).length)}`;
  const m = SWITCHED_TO.exec(sentence);
  if (!m) return undefined;
  const value = m[2] as string;
  if (!nounLike(value)) return undefined;
  return m[1] === "살" ? `${value}에 살고 있어요` : `${value} ${m[1]}고 있어요`;
}

/** A school left for good (`자퇴`), what was gone to before it (`전문대 호텔조리과 다니다가 …`). */
const DROPPED_OUT =
  /^(.*?\S(?:학교|대학|대|과|고|중|원))(?:을|를|에)?\s+(?:(?:다니다가?|다니고|다녔는데)\s+(?:\S+\s+){0,3}?)?자퇴(?:했|하였|하고|함|해서|해(?=[\s.!~…]|$)|해요|한\s*지)/;
/** Retiring, in the past (`정년퇴직하셨어요`, `은퇴했어`, `퇴직하였습니다`); one to come is a plan. */
const RETIRE = "(?:정년\\s*)?(?:퇴직|은퇴)(?:을|를)?\\s*(?:하셨|했|하였|하고|하시고)";
/**
 * A job said before retiring, in the past (`초등학교 선생님이었는데 2월에 정년퇴직하셨어요`) or as
 * the post retired from (`시청 공무원으로 정년퇴직하고`, `용접공으로 삼십 년을 일하다가 은퇴했습니다`,
 * only a length or a when between): the words before it, the job and, for the post, its particle.
 */
const RETIRED_AS = new RegExp(
  `^(.*?)(\\S+?)(?:(?:이었|였|이셨|셨)(?:는데|고|지만|다가)?\\s+(?:\\S+\\s+){0,2}?|(으로|로)\\s+(?:(?:\\S*(?:년|월|말|초)\\S*|[일이삼사오육칠팔구십백\\d]+|동안|있다가|계시다가|일하다가|일하시다가|근무하다가)\\s+){0,5})${RETIRE}`,
);
/** A job or workplace retired from, as the verb's object (`공무원 퇴직하셨어`, `경찰을 은퇴했어요`). */
const RETIRED_FROM = new RegExp(`^(.*?)(?<=^|\\s)([가-힣A-Za-z]+?)(?:을|를|에서)?\\s+${RETIRE}`);
/** Leaving a job (`그만뒀`, `관뒀`, `퇴사`), not a habit alone (`접었`, `끊었`). */
const LEFT_JOB = /^(?:그만|관|퇴사|퇴직|은퇴|이직)/;
/** How long something held (`오래`, `3년`, `한동안`): said of a past, not part of its value. */
const DURATION = /(?<=^|\s)(?:원래는?|예전에는?|예전엔|오래|계속|쭉|한동안|\d+\s*(?:년|달|개월)(?:간|동안|정도|쯤)?|[가-힣]*까지)\s+/g;
/** The activity a clause is about, as its topic or object (`테니스는 …`, `수영을 …`). */
const ACTIVITY_TOPIC = /^([가-힣A-Za-z]+?)(?:은|는|을|를|도)\s/;
/** Nouns that name a workplace, not an activity (`회사`, `삼성전자`, `은행`). */
const WORKPLACE = /(?:회사|직장|은행|병원|공장|전자|그룹|증권|카드|보험|센터|연구소|학교|학원)$/;

/** Words that mark a change: what follows holds no longer (`이제 … 않아요`, `더 이상 안 …`). */
const NO_LONGER = /(?:^|\s)(?:이제는?|이젠|더\s*이상|더이상|지금은|요즘은|요새는)(?=\s)/;
/** An activity as the topic, `이제`, then `못 하다`/`못 치다` (a reason may stand between). */
const GIVEN_UP_ACTIVITY =
  /^([가-힣A-Za-z]+?)(?:은|는|을|를|도)?\s+(?:이제는?|이젠|더\s*이상|더이상)\s+(?:(?!못)\S+\s+){0,3}못\s*(?:해|하|합|함|칩|쳐|치|타|탑|탐)/;
/** Where a story is told or dreamt (`영화에서`, `드라마 속에서`, `꿈에`): what happens there happens to no one's own. */
const STORY_SETTING = /(?:영화|드라마|소설|만화|웹툰|애니|게임|꿈|뉴스|예능)\s*(?:속)?(?:에서|에)?(?=\s|$)/;
/** An activity as the topic or the object, then a verb of giving up (`그만뒀`, `접었`), a when between. */
const GAVE_UP_ACTIVITY =
  /^([가-힣A-Za-z]+?)(?:은|는|을|를|도)?\s+(?:(?:\S+에|작년|올해|재작년|얼마\s*전|최근|결국|그냥|진작)\s+){0,2}(?:그만뒀|그만두었|관뒀|접었)(?:어요|어|습니다|다|음)?[.!~…]*$/;
/**
 * What a clause of {@link DONE_THEN_QUIT} or {@link PART_TIME_LEFT} says was given up, as a sentence
 * the rules read: `취미는 수영이에요` (not a pastime taught: `피아노를 가르쳤지만 …` was a job), the
 * place of a part-time job (`스타벅스에서 일하고 있어요`).
 * `undefined` for any other clause.
 */
function doneThenQuit(sentence: string): string | undefined {
  const done = DONE_THEN_QUIT.exec(sentence);
  if (done && done[1] !== "운동") {
    const v = done[1] as string;
    // Taught (`피아노를 가르쳤지만 …`) is a job, whose value the rules would not keep: none.
    return /가르쳤|가르치셨/.test(done[0]) ? undefined : `취미는 ${josa(v, "이에요", "예요")}`;
  }
  const partTime = PART_TIME_LEFT.exec(sentence.replace(FIRST_PERSON, ""));
  if (partTime && nounLike(partTime[1] as string) && !/^(?:야간|주말|평일|오늘|어제|이번|지난)$/.test(partTime[1] as string))
    return `${partTime[1]}에서 일하고 있어요`;
  return undefined;
}

/** A negated predicate: `-지 않다`, `안 <verb>`, `<noun>이/가 아니다`. */
const NEGATED = /지\s*않|(?:^|\s)안\s+[가-힣]|아니(?:에요|예요|야|다|고|라서|었)|아닙니다/;
/** Words that set a sentence in the past as it no longer is (`예전에는 서울에 살았는데`). */
const USED_TO =
  /^(?:예전에는?|예전엔|전에는|전엔|옛날에는?|원래는?|과거에는|한때는?|어릴\s*때는?|[\S]+\s*때는|작년까지는?|얼마\s*전까지(?:는|만\s*해도)?)\s+/;
/**
 * A past tense fused into the verb's last syllable (`갔`, `했`, `달렸`, `쳤`): any syllable with the
 * final ㅆ but `있` (there is) and `겠` (the future).
 */
const FUSED_PAST = `(?:(?!있|겠)[${Array.from({ length: 399 }, (_, i) => `\\u${(0xac14 + 28 * i).toString(16)}`).join("")}])`;
const PAST = new RegExp(FUSED_PAST);
/** A clause in the past going on with `-는데`/`-지만` (`했는데`, `뛰었는데`, `다녔지만`, `했었는데`). */
const DONE_BEFORE = new RegExp(`${FUSED_PAST}(?:었)?(?:는데|지만)$`);
/** Giving up with no topic of its own (`무릎 때문에 그만뒀어요`, `이제는 안 합니다`; not `동생은 그만뒀어`). */
const QUIT_ALONE =
  /^(?:(?:지금은|이제는|요즘은|결국은)\s+|(?!\S+(?:은|는)\s)\S+\s+){0,5}(?:그만뒀|그만두었|관뒀|접었|그만둠|안\s*(?:해요|합니다|해|함|한다))\S*[.!~…]*$/;
/**
 * A pastime done, then given up, in one clause ({@link DONE_BEFORE} and {@link QUIT_ALONE} joined):
 * `수영을 꽤 오래 했는데 애들 낳고 그만뒀어요`, `마라톤도 뛰었는데 이제는 안 합니다`.
 */
const DONE_THEN_QUIT = new RegExp(
  `(?:^|\\s)(${HABIT_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN})(?:은|는|을|를|도)?\\s+(?:\\S+\\s+){0,4}?\\S*${FUSED_PAST}(?:었)?(?:는데|지만)\\s+(?:\\S+\\s+){0,5}?(?:그만뒀|그만두었|관뒀|접었|그만둠|안\\s*(?:해요|합니다|해|함|한다))`,
);
/** A part-time job at a place, then left (`스타벅스 알바 지난달에 그만뒀어`, `편의점 야간알바 이번 달까지만 하고 그만뒀어요`). */
const PART_TIME_LEFT =
  /(?:^|\s)([가-힣A-Za-z]{2,})\s*(?:야간\s*|주말\s*|평일\s*)?알바(?:는|를|도)?\s+(?:\S+\s+){0,5}?(?:그만뒀|그만두었|관뒀|그만둠|잘렸|잘림)/;
/** The double past (`쳤었`, `했었`, `살았었`, `갔었`): a past that holds no longer; the first past syllable is `$1`. */
const DOUBLE_PAST = new RegExp(`(${FUSED_PAST})었`, "g");
/**
 * A fused past no rebuild above read (`갔`, `왔`, `봤`, `셨`), with its ending: as the present in
 * 해요체, the syllable without its ㅆ and `요` (`주말마다 등산 갔는데` -> `주말마다 등산 가요`).
 */
const OTHER_PAST = new RegExp(`(${FUSED_PAST})(?:어요|어|습니다|는데|지만|고|다|었)?(?=[\\s.!~…]|$)`, "g");

/**
 * The positive form of a sentence that says something holds no longer, for the rules to read:
 * negations become affirmations (`살지 않아요` -> `살고 있어요`, `안 살아요` -> `살아요`, `교사가
 * 아니에요` -> `교사예요`) and a past set by {@link USED_TO} becomes present (`살았는데` -> `살고
 * 있어요`, `일했어요` -> `일하고 있어요`, `교사였어요` -> `교사예요`). `undefined` for any other sentence.
 */
function positiveOfEnded(sentence: string): string | undefined {
  // A pastime one can do no longer (`등산은 이제 무릎 때문에 못 합니다`, `요가 이제 못해`): the pastime,
  // ended. Only a known activity as the topic (`일은 이제 못 해` is no pastime).
  const cannot = NO_LONGER.test(sentence) ? GIVEN_UP_ACTIVITY.exec(sentence.replace(FIRST_PERSON, "")) : null;
  if (cannot && new RegExp(`^(?:${HABIT_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN})$`).test(cannot[1] as string))
    return `취미는 ${josa(cannot[1] as string, "이에요", "예요")}`;
  // A pastime done, then given up (`수영을 꽤 오래 했는데 애들 낳고 그만뒀어요`), or a part-time job
  // at a place left (`스타벅스 알바 지난달에 그만뒀어`: the place, as a job).
  const given = doneThenQuit(sentence);
  if (given) return given;
  // A pastime given up, as the topic or the object (`드럼은 9월에 접었어`, `테니스는 작년에 그만뒀어요`,
  // `요가 그만뒀어`): the pastime, ended. Only a known activity (`회사 그만뒀어` is a job left).
  const gaveUp = GAVE_UP_ACTIVITY.exec(sentence.replace(FIRST_PERSON, ""));
  // Exercise in general (`운동을 그만뒀어요`) names no pastime.
  if (
    gaveUp &&
    gaveUp[1] !== "운동" &&
    new RegExp(`^(?:${HABIT_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN})$`).test(gaveUp[1] as string)
  )
    return `취미는 ${josa(gaveUp[1] as string, "이에요", "예요")}`;
  if (NO_LONGER.test(sentence) && NEGATED.test(sentence)) {
    return (
      sentence
        .replace(/(?:이제는?|이젠|더\s*이상|더이상|지금은|요즘은|요새는)\s+/g, "")
        .replace(/([가-힣]+?)지\s*않(?:았)?(?:아요|어요|습니다|아|는다|는데|고|다)?/g, "$1고 있어요")
        .replace(/(^|\s)안\s+(?=[가-힣])/g, "$1")
        // `일 안 해요` -> `일 해요` -> `일해요`: a noun of a 하다 verb joins it again.
        .replace(/(일|공부|운동|근무|연습)\s+(해|합니다|하고)/g, "$1$2")
        .replace(/(\S+?)(?:이|가)\s*(?:아니(?:에요|예요|야|다|고|라서)|아닙니다)/g, (_m, noun: string) => josa(noun, "이에요", "예요"))
    );
  }
  // The speaker may come first: `저는 작년까지 대학원생이었어요`, `나 예전엔 편의점에서 일했어`.
  const speakerFirst = FIRST_PERSON.exec(sentence)?.[0] ?? "";
  // Leaving a named workplace: `삼성을 퇴사했어요` (퇴사 is leaving a company), `삼성전자를
  // 그만뒀어요` (그만두다 only with a workplace's form: a course or a habit is no job).
  // A place one worked at, named as such (`십 년 다니던 병원을 그만두었습니다`), is left as a job too.
  const left = LEFT_WORKPLACE.exec(sentence.slice(speakerFirst.length));
  const place = left?.[2] as string | undefined;
  if (
    left &&
    place !== undefined &&
    !/^(?:회사|직장|일)$/.test(place) &&
    // As the topic (`물류센터는 5월에 그만뒀어`) only a workplace by its form: `동생은 퇴사했어` is the sibling's.
    (/^[은는]$/.test(left[3] as string)
      ? LEFT_WORKPLACE_FORM.test(place) || MOVED_WORKPLACE_FORM.test(place)
      : /^퇴사/.test(left[4] as string) || left[1] !== undefined || LEFT_WORKPLACE_FORM.test(place))
  )
    return `${place}에서 일하고 있어요`;
  // Leaving a school (`고등학교 자퇴했어요`, `호텔조리과 다니다가 입대 전에 자퇴했어요`): the school
  // or the department gone to holds no longer.
  const dropped = DROPPED_OUT.exec(sentence.slice(speakerFirst.length));
  if (dropped) return `${(dropped[1] as string).replace(DURATION, "").trim()} 다녀요`;
  // A job retired from, said before the retirement (`간호사였는데 작년에 정년퇴직하셨어요`) or as what
  // was retired from (`공무원 퇴직하셨어`, `은행 퇴직했어요`): the job or the workplace, ended.
  const retired = RETIRED_AS.exec(sentence) ?? RETIRED_FROM.exec(sentence);
  // A verb before the retirement (`은행 다니다 퇴직하고`), or a post after its workplace (`은행에서
  // 지점장으로 있다가`, the workplace kept), is read with `-다가` below.
  const post = retired?.[3] !== undefined;
  if (retired && !/(?:다|다가|고|서)$/.test(retired[2] as string) && !(post && /\S에서\s+$/.test(retired[1] as string))) {
    const job = retired[2] as string;
    // The post (`교사로 있다가 … 정년퇴직했습니다`) as a job held.
    if (post) return `${retired[1]}${josa(job, "으로", "로")} 일하고 있어요`;
    if (WORKPLACE.test(job) || LEFT_WORKPLACE_FORM.test(job)) return `${retired[1]}${job}에서 일하고 있어요`;
    // A title with 님 (`선생님`) is a job too, which nounLike does not take.
    if ((nounLike(job) || /님$/.test(job)) && !SETTING.test(job)) return `${retired[1]}${josa(job, "이에요", "예요")}`;
  }

  // The workplace a job move started from is worked at no longer (`카카오에서 네이버로 이직했어요`,
  // `우체국에 있다가 농협으로 옮겼어요`).
  const jobMoved = jobMovedFrom(sentence);
  if (jobMoved) return `${(jobMoved[1] as string).replace(DURATION, "")}${jobMoved[2]}에서 일하고 있어요`;
  // The town a move started from is lived in no longer (`작년에 광주에서 세종으로 이사했어요`).
  const moved = movedFrom(sentence);
  if (moved) return `${moved[1]}${moved[2]}에 살고 있어요`;
  // `-다가` then a verb of leaving: what was done before holds no longer (`삼성전자 다니다가
  // 그만뒀어요`, `인천에서 살다가 이사왔어요`, `테니스는 치다가 그만뒀어`).
  const until = WHILE_THEN.exec(sentence);
  if (until) {
    const before = (until[1] as string).replace(DURATION, "");
    // A post held (`교사로 있다가 정년퇴직했습니다`, `지점장으로 계시다가`) is a job held.
    const verb =
      until[2] === "있" || until[2] === "계" ? (/(?:으로|로)\s+$/.test(before) ? "일하" : (until[2] as string)) : (until[2] as string);
    // A place one went to, then left as one leaves a job (`카카오 다니다가 관뒀어`, `쿠팡은 2년
    // 다니고 그만뒀어요`): the work, unless it is an activity (`수영 다니다가 그만뒀어요`).
    const organisation =
      /^(?:다니|다녀)$/.test(verb) && LEFT_JOB.test((until[3] ?? until[4]) as string)
        ? /(?:^|\s)([가-힣A-Za-z&]+?)(?:은|는|을|를|도|에)?\s*$/.exec(before.replace(FIRST_PERSON, ""))?.[1]
        : undefined;
    if (
      organisation !== undefined &&
      // A workplace by its form (`은행에 다니다가`) is read below as it was.
      !WORKPLACE.test(organisation) &&
      !ACTIVITY_OR_EVENT.test(organisation) &&
      !new RegExp(`^(?:${HABIT_ACTIVITY})$`).test(organisation) &&
      !/(?:학원|학교|교실|클럽|동호회|동아리|센터|장|원|과)$/.test(organisation) &&
      !REL_WORD.test(organisation) &&
      !/^(?:학교|대학|대학교|대학원)$/.test(organisation)
    )
      return `${before.slice(0, before.lastIndexOf(organisation))}${organisation}에서 일하고 있어요`;
    const activity = /^(?:하|치|타|배우|다니|다녀)$/.test(verb) ? ACTIVITY_TOPIC.exec(before.replace(FIRST_PERSON, "")) : null;
    if (activity && !WORKPLACE.test(activity[1] as string) && !REL_WORD.test(activity[1] as string)) return `취미는 ${activity[1]}예요`;
    return `${before}${verb}고 있어요`;
  }
  const past = USED_TO.exec(sentence.slice(speakerFirst.length));
  // The double past (`쳤었는데`, `살았었어요`) says by itself that it holds no longer.
  const doublePast = DOUBLE_PAST.test(sentence);
  // The past may be set by the adverb alone, the verb in a connective (`예전에 제주에서 살아서`).
  if (doublePast || (past && (PAST.test(sentence) || /[가-힣](?:아서|어서)$/.test(sentence)))) {
    return (
      sentence
        .slice(speakerFirst.length + (past?.[0].length ?? 0))
        .replace(DOUBLE_PAST, "$1")
        .replace(WALKED_PAST, "$1걸어요")
        .replace(/(\S+?)(?:이었|였)(?:어요|어|습니다|는데|지만|고|다)?/g, (_m, noun: string) => josa(noun, "이에요", "예요"))
        .replace(/([가-힣]*)했(?:어요|어|습니다|는데|지만|고|다|었)?/g, "$1하고 있어요")
        .replace(/([가-힣]*)녔(?:어요|어|습니다|는데|지만|고|다|었)?/g, "$1니고 있어요")
        .replace(/([가-힣]*)웠(?:어요|어|습니다|는데|지만|고|다|었)?/g, "$1우고 있어요")
        // The past of 치다, 타다, 켜다 fuses into one syllable (`쳤`, `탔`, `켰`).
        .replace(
          /(^|\s)(쳤|탔|켰)(?:어요|어|습니다|는데|지만|고|다|었)?/g,
          (_m, space: string, past: string) => `${space}${{ 쳤: "치", 탔: "타", 켰: "켜" }[past]}고 있어요`,
        )
        .replace(/([가-힣]*[가-힣])(?:았|었)(?:어요|어|습니다|는데|지만|고|다|었)?/g, "$1고 있어요")
        .replace(/([가-힣]+)(?:아서|어서)$/, "$1고 있어요")
        .replace(OTHER_PAST, (_m, past: string) => `${String.fromCharCode(past.charCodeAt(0) - 20)}요`)
        .replace(DURATION, "")
    );
  }
  return undefined;
}

/**
 * `true` when a plan's `value` is a clause of the body that starts where the match does (`민지는
 * 제주도 가` for `-기로 했어`, `수아가 이직할` for `-ㄹ 거야`) and names, before its last word, a
 * subject other than `who`: the words before the match are read by {@link subjectOf} already, these
 * are read the same way. Other values are nouns, which may end like a particle (`고양이 나비`).
 */
function clauseOfSomeoneElse(body: string, m: RegExpMatchArray, value: string, who: Speaker): boolean {
  if (!body.startsWith(value, m.index ?? 0)) return false;
  const words = value.trim().split(/\s+/);
  if (words.length < 2) return false;
  return subjectOf(words.slice(0, -1).join(" "), who, words.at(-1) as string)?.id !== who.id;
}

/** A number in digits or words (`20`, `스무`, `세`, `열두`, `육`, `백십`): the count before a counter. */
const COUNT_NUMBER =
  "(?:\\d+|(?:열|스물|스무|서른|마흔|쉰)(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)?|한|두|세|네|다섯|여섯|일곱|여덟|아홉|[일이삼사오육칠팔구십백천]{1,4})";
/**
 * A count with its counter as a rule's value (`20회`, `세번`, `3개월`, and `번` alone after `스무`):
 * how many times or how long, never what was done. `회`, `번`, `회권`, `개월` and `달` also alone, any
 * counter after a number (`일` alone is work, not a day).
 */
const COUNT_VALUE = new RegExp(
  `^(?:${COUNT_NUMBER}\\s*(?:회권?|번|개월|달|주|주일|시간|일|년|개|장|권|잔|병|마리|명)|회권?|번|개월|달)(?:이나|나|씩|째|정도|쯤)?$`,
);
/** A number word alone (`스무` before `번`), which a counted noun stands before. */
const COUNT_NUMBER_WORD = new RegExp(`^${COUNT_NUMBER}$`);

/**
 * What a count counts (`PT 20회 끊었어요` -> `PT`, `콘서트 세 번 갔어` -> `콘서트`): the bare noun
 * right before the count, found from where the count stands in `body` at or after `from`;
 * `undefined` when none stands there (`일주일에 세 번 갔어`: a time, no noun).
 */
function countedNoun(body: string, count: string, from: number): string | undefined {
  const at = body.indexOf(count, from);
  if (at < 0) return undefined;
  const words = body.slice(0, at).trim().split(/\s+/);
  while (words.length > 0 && COUNT_NUMBER_WORD.test(words.at(-1) as string)) words.pop();
  const word = (words.at(-1) ?? "").replace(/(?<=[가-힣A-Za-z0-9]{2})(?:을|를|은|는)$/, "");
  return word !== "" && nounLike(word) && !TIME_BEFORE_E.test(word) && !notAValue(word) && !COUNT_VALUE.test(word) ? word : undefined;
}

/**
 * The first rule matching `body` said by `subject`: the candidate, or `undefined` when no rule
 * matches or the clause names someone else as its subject.
 */
function matchKorean(body: string, subject: Speaker, isRelative: boolean): CandidateFact[] | undefined {
  for (const rule of RULES) {
    const m = body.match(rule.re);
    if (!m) continue;
    // A subject named inside the clause, before the value (`어제 친구가 부산으로 이사했어요`).
    let who = subject;
    if (!isRelative) {
      const next =
        body
          .slice(m.index ?? 0)
          .trim()
          .split(/\s+/)[0] ?? "";
      const found = subjectOf(body.slice(0, m.index ?? 0), subject, next);
      if (!found) return undefined;
      who = found;
    }
    if ((isRelative || who !== subject) && !rule.relative) continue;
    const built = rule.build(m, who.label, body);
    const all = (Array.isArray(built) ? built : built ? [built] : [])
      // A count read as the value is what it counts (`PT 20회 끊었어요`: `PT`), or nothing.
      .flatMap((b) => {
        const v = b.value.trim();
        if (!COUNT_VALUE.test(v)) return [b];
        const noun = countedNoun(body, v, m.index ?? 0);
        return noun === undefined ? [] : [{ ...b, value: noun, ...(b.keyValue === undefined ? {} : { keyValue: noun }) }];
      })
      .filter(
        // A numeral read as an age is a value though a stopword (`네`: four, not the yes-word).
        (b) =>
          b.value.trim() !== "" &&
          !(notAValue(b.value) && !(rule.attribute === "age" && NUMERAL_AGE.test(b.value.trim()))) &&
          !(rule.attribute === "plan" && clauseOfSomeoneElse(body, m, b.value, who)),
      );
    if (all.length === 0) continue;
    return all.map((b) => ({ subject: who.id, attribute: rule.attribute, language: "ko" as const, ...b }));
  }
  return undefined;
}

/** `저는 민지예요`: the speaker naming themself, a one-word sentence after `저는/나는/전/난`. */
const SELF_NAME =
  /^(?:저는|나는|전|난)\s+([가-힣]{2,3}?)(?:이에요|예요|입니다|이야|야|이고요|이라고\s*합니다|라고\s*합니다|이라고\s*해요|라고\s*해요|(이고|고))[.!~…,]*$/;
/** One-word answers to `저는 …예요` that are not names: roles, states, origins, faiths. */
const NOT_A_NAME =
  /^(?:막내|외동|장남|장녀|차남|차녀|초보|처음|혼자|반대|찬성|아직|다행|미혼|기혼|싱글|주부|백수|무교|기독교|불교|천주교|채식|비건|괜찮|여기|거기|집|회사|학교|휴가|퇴근|출근|오늘|내일|괜찮아|[가-힣]+(?:인|생|님|씨|적|파|형|족|층))$/;

function selfNamed(sentence: string, speaker: Speaker): CandidateFact | undefined {
  const m = SELF_NAME.exec(sentence.replace(LEAD, ""));
  if (!m || NOT_A_NAME.test(m[1] as string) || new RegExp(`^(?:${JOB}|${REL}|${PET})$`).test(m[1] as string)) return undefined;
  // A clause cut at the copula's `-고` (`저는 하윤이고 …`) is a name only of a name's syllables (not `바쁘고`).
  if (m[2] !== undefined && !givenNameLike(m[1] as string)) return undefined;
  return { subject: speaker.id, attribute: "name", language: "ko", ...single(m[1] as string, `${speaker.label}의 이름은 ${m[1]}`) };
}

/** A clause that announces the speaker's name or repeats its question (`이름은요,`, `제 이름요?`): the clause after may be the name alone. */
const NAME_ASKED = /^(?:(?:제|내)\s*)?이름(?:은|이|요|은요|이요)?(?:\s*요)?[?,.!…~]*$/;
/** A clause asking back whether the speaker is meant (`저요?`, `나?`): the clause after may be the name alone, or anything. */
const ME_ASKED = /^(?:저요|저|나|나요)\?+$/;
/** Greetings and acknowledgements around a name given alone (`반갑습니다`, `잘 부탁드립니다`). */
const GREETING =
  /^(?:안녕하세요|안녕하십니까|안녕|반갑습니다|반가워요|반가워|잘\s*부탁(?:드립니다|드려요|합니다|해요|해)|처음\s*뵙겠습니다|네|넵|아)[.!~…,]*$/;
/** Surnames of two syllables (`남궁`, `제갈`), which people type apart from the given name (`제갈 윤`). */
const DOUBLE_SURNAME = "남궁|황보|제갈|선우|독고|사공|서문|동방";
/**
 * A full name alone, the whole clause (`김서윤이에요`, `박준혁입니다`, `제갈 윤 이에요`, `한지민`): a
 * surname and a given name of one or two syllables, the copula or `요` after it (a space before
 * it too, as people type it), or nothing.
 */
const NAME_ALONE = new RegExp(
  `^((?:${DOUBLE_SURNAME})\\s?[가-힣]{1,2}|(?:${SURNAME})[가-힣]{2})(?:\\s?(이에요|예요|입니다|이요|요|이야|야|이고요|고요|(?:이)?라고\\s*(?:합니다|해요|해)))?[.!~…]*$`,
);
/** Words of a surname and two syllables that end like a place (`양재동`, `서초구`, `이태원`), never a name. */
const NOT_A_FULL_NAME = /(?:동|역|구|시|군|읍|면|리|로|길|점|관|원)$/;

/**
 * The speaker's name given alone as an answer ({@link NAME_ALONE}): after a clause asking for it
 * ({@link NAME_ASKED}: `이름은요, 한지민`, `저요? 윤하린`), any surname and two syllables; or, with the
 * copula, as the whole message but greetings (`김서윤이에요`, `박준혁입니다. 잘 부탁드립니다.`), a given
 * name of common syllables only ({@link givenNameLike}): `고구마예요` and `정류장이요` are no name.
 */
function nameAlone(clause: string, asked: "name" | "me" | undefined, alone: boolean, speaker: Speaker): CandidateFact | undefined {
  const m = NAME_ALONE.exec(clause.trim());
  if (!m) return undefined;
  const name = (m[1] as string).replace(/\s+/g, "");
  // `요` after a verb's or the copula's ending is no name's (`이상해요`, `민지예요`, `서울이요`).
  if (m[2] === "요" && /[예해에이어아여워와봐돼줘네세게래야]$/.test(name)) return undefined;
  if (NOT_A_NAME.test(name) || new RegExp(`^(?:${JOB}|${REL}|${PET})$`).test(name) || notAValue(name)) return undefined;
  const double = new RegExp(`^(?:${DOUBLE_SURNAME})`).test(name);
  const given = double ? name.slice(2) : name.slice(1);
  const common = [...given].every((c) => GIVEN_SYLLABLE.has(c)) && !NOT_A_FULL_NAME.test(name) && !NOT_A_GIVEN_NAME.test(given);
  // After `이름은요`, any name but one that ends like a place; after `저요?` (the answer may be
  // anything: `서울이요`, `서른이요`) or alone, a name of common syllables.
  // Alone, only as one introduces oneself (`-이에요`, `-입니다`, `-라고 합니다`): `-이요`/`-요` answer
  // any question (`한정식이요`, `조수석이요`).
  const introduced = m[2] !== undefined && !/^(?:이요|요|이야|야)$/.test(m[2]);
  const named = asked === "name" ? common || !NOT_A_FULL_NAME.test(name) : common && (asked === "me" || (alone && introduced));
  if (!named) return undefined;
  return { subject: speaker.id, attribute: "name", language: "ko", ...single(name, `${speaker.label}의 이름은 ${name}`) };
}

/**
 * A pet or a person named at a connective, what follows in the clause and the clause after going
 * on about them: `이름은 콩이고 …` after a pet (read as `고양이 이름은 콩이고`), `보리라는 코숏이고 …`,
 * `하린이라는 딸인데 …`. `$1` the pet or relative whose name `$2` is; `$3` a name `-라는` calls `$4`.
 */
const NAMED_FIRST = new RegExp(
  `(?:^|\\s)(?:(${PET}|${REL})\\s*이름(?:은|이)\\s*([가-힣A-Za-z]+?)|([가-힣A-Za-z]+?)(?:이)?라는\\s+([가-힣A-Za-z]+?))(?:이고|고|인데|이구|이라서|라서)(?=[,\\s]|$)`,
);

/**
 * The facts of a clause that named someone, or that follows one ({@link NAMED_FIRST}): the age it gives is
 * theirs, not the speaker's (`고양이 키워요. 이름은 콩이고 올해 일곱 살이에요` -> `user's 콩`, age
 * `일곱`; `딸이 있어요. 이름은 하린이고 여덟 살` -> `user's 딸`).
 */
function ofTheNamedOne(named: RegExpExecArray | null, facts: CandidateFact[], speaker: Speaker): CandidateFact[] {
  if (named === null) return facts;
  // A relative is called by the relation, as the rules call relatives (`user's 딸`); a pet by its name.
  const relation = [named[1], named[4]].find((w) => w !== undefined && REL_WORD.test(w));
  const name = relation ?? ((named[2] ?? named[3]) as string);
  return facts.map((f) =>
    f.attribute === "age" && f.subject === speaker.id
      ? { ...f, subject: `${speaker.id}'s ${name}`, text: `${speaker.label}의 ${name}${josa(name, "은", "는")} ${f.value}살 (나이)` }
      : f,
  );
}

/**
 * A pet named in such a clause (`보리라는 코숏이고`, `포메 이름은 두리고 다섯 살이에요`, the latter
 * read with the pet an earlier sentence named): the speaker's pet by that name.
 */
function petCalled(m: RegExpExecArray | null, speaker: Speaker): CandidateFact[] {
  const [name, kind] = m?.[1] !== undefined ? [m[2], m[1]] : [m?.[3], m?.[4]];
  if (name === undefined || kind === undefined || !new RegExp(`^(?:${PET})$`).test(kind)) return [];
  return [
    {
      subject: speaker.id,
      attribute: "pet",
      language: "ko",
      ...list(`${kind} ${name}`, `${speaker.label}의 반려동물 ${kind} 이름은 ${name}`, name),
    },
  ];
}

/** A sentence that starts with a name and says nothing of whose it is (`이름은 나비예요`, `이름이 초코예요`). */
const BARE_NAME = /^이름(?:은|이)\s/;
/** A pet or a relative named as a word of its own (`고양이를`, `남편이`; not the `개` of `개발자`). */
const NAMED_WORD = new RegExp(`(?:^|\\s)(${PET}|${REL})(?=(?:은|는|이|가|을|를|도|와|과|랑|하고|한테|께)?(?:[\\s.,!?~]|$))`, "g");

/** The last pet or relative `sentence` names ({@link NAMED_WORD}), if any. */
function lastNamed(sentence: string): string | undefined {
  let last: string | undefined;
  for (const m of sentence.matchAll(NAMED_WORD)) last = m[1];
  return last;
}

/**
 * `true` when a clause starts with someone else as its subject: a third person ({@link OTHERS}),
 * one introduced by name ({@link INTRODUCED}) or a given name with its particle (`민지는`,
 * `지훈이가`, {@link givenNameLike}).
 */
function someoneElseFirst(lead: string): boolean {
  if (OTHERS.test(lead) || INTRODUCED.test(lead)) return true;
  const m = /^([가-힣]{2,4}?)(?:이)?(?:은|는|이|가|도)\s/.exec(lead);
  // Not an attribute, a time or an activity as the topic (`나이는 …`, `주말엔 …`): subjectOf skips those.
  return m !== null && givenNameLike(m[1] as string) && subjectOf(lead, { id: "", label: "" }, "") === undefined;
}

/** Open verb stems whose `-니까`/`-거든` is a verb's, not a noun's copula (`키우니까`, not `의사니까`), and their 해요체. */
const OPEN_VERB_POLITE: Readonly<Record<string, string>> = {
  키우: "키워요",
  배우: "배워요",
  피우: "피워요",
  다니: "다녀요",
  마시: "마셔요",
  모시: "모셔요",
  가르치: "가르쳐요",
  지내: "지내요",
  타: "타요",
  치: "쳐요",
  가: "가요",
  오: "와요",
  보: "봐요",
  쓰: "써요",
  만나: "만나요",
  기르: "길러요",
  사: "살아요",
  하: "해요",
};
/**
 * A clause ending in a reason, `-(으)니까(요)`, `-니깐`, `-거든(요)` or what the listener knows,
 * `-잖아(요)` (`고양이 키우니까`, `제가 광주 사니까`, `대구 사람이거든요`, `혈압약 먹거든요`, `개발자잖아`):
 * the `$1` stem or noun, the `$2` ending. Not the
 * hearsay `-다니까`/`-라니까`/`-자니까` (`눈 온다니까`: someone's words).
 */
const REASON_END = /(\S*?)(?<![다라냐자])(으?니까요?|니깐|거든요?|잖아요?)([.,!~…]*)$/;

/**
 * A reason clause as the statement it makes (`고양이 키우니까` -> `고양이 키워요`, `광주 사니까` ->
 * `광주 살아요`, `의사니까` -> `의사예요`, `사람이거든요` -> `사람이에요`, `먹거든` -> `먹어요`, `안
 * 좋으시니까` -> `안 좋으세요`), so the rules read the fact the reason states, and the clause after it
 * is read on its own; a clause that is no reason is returned as it is.
 */
function reasonAsStatement(clause: string): string {
  const m = REASON_END.exec(clause);
  if (!m) return clause;
  const word = m[1] as string;
  const ending = m[2] as string;
  const head = clause.slice(0, m.index ?? 0);
  const done = (statement: string) => `${head}${statement}${m[3]}`;
  if (word === "") return clause;
  // The honorific `-(으)시-` (`좋으시니까`, `하시거든요`): read as `-세요`, which marks a senior.
  if (/시$/.test(word) && !/^(?:마시|모시|가르치|다니)$/.test(word.replace(/^.*\s/, ""))) return done(`${word.slice(0, -1)}세요`);
  const last = word.at(-1) as string;
  const code = last.charCodeAt(0) - 0xac00;
  if (code < 0 || code > 11171) return clause;
  const closed = code % 28 !== 0;
  // The copula after a noun with a final consonant (`사람이니까`, `부산이거든요`).
  if (/이$/.test(word) && word.length > 1 && ending !== "으니까" && new RegExp(`${CLOSED_SYLLABLE}이$`).test(word))
    return done(`${word}에요`);
  if (closed) {
    // `-으니까` and `-거든` after a closed stem (`먹으니까`, `있거든`, `했으니까`): its 해요체; the
    // past (ㅆ) and stems in ㅓ, ㅜ, ㅡ, ㅣ take `-어요`, stems in ㅏ, ㅗ `-아요`.
    if (ending.startsWith("니까") || ending === "니깐") return clause;
    const vowel = Math.floor(code / 28) % 21;
    return done(`${word}${code % 28 !== 20 && (vowel === 0 || vowel === 8) ? "아요" : "어요"}`);
  }
  if (ending.startsWith("으")) return clause;
  for (const [stem, polite] of Object.entries(OPEN_VERB_POLITE))
    if (word.endsWith(stem) && (word === stem || stem.length > 1 || stem === "하" || /\s/.test(word.slice(0, -stem.length).slice(-1))))
      return done(`${word.slice(0, -stem.length)}${polite}`);
  // A stem in ㅡ is an adjective's or a verb's (`바쁘니까`, `아프거든`), no noun's.
  if (Math.floor(code / 28) % 21 === 18) return clause;
  // A noun and the copula (`의사니까`, `여의도거든요`).
  return done(`${word}예요`);
}

/**
 * Facts stated in one Korean message. `speaker.id` is the stored subject (`user`), `speaker.label`
 * how texts name it (`사용자`). A sentence saying a value holds no longer (`이제 서울에 살지 않아요`,
 * `예전에는 삼성에서 일했는데`) gives that fact marked `ended`.
 */
export function extractKorean(text: string, speaker: Speaker): CandidateFact[] {
  const facts: CandidateFact[] = [];
  // The pet or person an earlier sentence of the message named: a bare `이름은 …` that follows
  // is theirs (`고양이를 키워요. 이름은 나비예요.`), not the speaker's.
  let named: string | undefined;
  // The relative an earlier sentence of the message was about (`엄마는 …`): a later sentence with
  // no subject of its own and an honorific verb is about them too (see HONORIFIC).
  let relative: string | undefined;
  // A sentence cut at its connectives (`-해서`, `-는데`, `-고`) keeps the topic its first clause set:
  // `우리 언니는 작년에 결혼해서 지금 싱가포르 살아` says where the sister lives.
  const clauses = plainSpeech(text)
    .split(SENTENCE_END)
    .flatMap((whole) => {
      // A reason with someone else as its subject (`남편이 운전하니까 …`) stays one clause with what
      // follows: what the speaker does for that reason is no fact of its own. The speaker's reason
      // (`고양이 키우니까 …`) states its fact and the clause after is read on its own.
      const parts = koreanSentences(whole)
        .reduce<string[]>((out, part) => {
          const before = out.at(-1);
          const reason = before !== undefined && /(?:니까|니깐|거든|잖아)$/.test(before) ? plainForm(before.replace(LEAD, "")) : undefined;
          if (reason !== undefined && (RELATIVE.test(reason) || someoneElseFirst(reason))) out[out.length - 1] = `${before} ${part}`;
          // Giving up with no topic of its own after a past (`필라테스는 작년까지 했는데 무릎 때문에
          // 그만뒀어요`): what was done is what was given up, so the two are read as one clause.
          else if (
            before !== undefined &&
            DONE_BEFORE.test(before) &&
            QUIT_ALONE.test(plainForm(part.replace(LEAD, ""))) &&
            doneThenQuit(`${before} ${part}`)
          )
            out[out.length - 1] = `${before} ${part}`;
          else out.push(part);
          return out;
        }, [])
        .map(reasonAsStatement);
      // The hearsay continues the clauses before only when it names no subject of its own
      // (`… 카페를 하는데 요즘 힘들대요`; not `… 살았었는데 카페가 많대요`).
      const last = parts.at(-1) ?? "";
      const reported = REPORTED.test(whole.trim()) && subjectOf(last.replace(LEAD, ""), speaker, "") === speaker;
      return parts.map((clause, i) => ({ clause, first: i === 0, reported: reported && i < parts.length - 1 }));
    });
  let topicRelative: string | undefined;
  // The clause before, when it stated something (not a question or a hypothetical): an
  // afterthought that follows it (`이사 가. 망원동으로`) completes it.
  let previous: string | undefined;
  // Someone else as the topic of a sentence's first clause (`민지는 서울에 사는데 …`): the clauses
  // after it with no subject of their own are about them too, never the speaker.
  let otherTopic = false;
  // The clause before, whatever it was: a name alone may answer it (`이름은요, 한지민`).
  let lastSaid = "";
  // The message is one clause but greetings: a name alone there is the speaker's (`김서윤이에요`).
  const alone = clauses.filter(({ clause }) => !GREETING.test(clause.replace(LEAD, ""))).length === 1;
  // The one relative the clause before said the speaker has (`손주가 넷입니다.`, `동생 하나 있음`):
  // a plural subject after it (`다들`, `모두`, `걔네 다`) or a school level alone (`고딩임`) is theirs.
  let had: string | undefined;
  let namedClause: RegExpExecArray | null = null;
  // Where in `facts` the clause before kept the speaker's pet by its kind alone (`강아지 키워요.`):
  // a breed said alone next (`말티즈예요`) names that pet.
  let petAt: number | undefined;
  // An earlier clause of this sentence named a pet or a small child ({@link PET_OR_CHILD_WORD}).
  let petSaid = false;
  for (const { clause: said, first, reported } of clauses) {
    const hadBefore = had;
    had = undefined;
    const petBefore = petAt;
    petAt = undefined;
    // The one the clause before named (`이름은 콩이고`), when this clause goes on in its sentence.
    const namedBefore = first ? null : namedClause;

    const askedName = NAME_ASKED.test(lastSaid.replace(LEAD, "")) ? "name" : ME_ASKED.test(lastSaid.trim()) ? "me" : undefined;
    // The pet by its kind the clause before kept with `-는데` in this sentence (`강아지 키우는데 …`):
    // a question after it asks of the listener's pet (`… 이름이 뭐예요?`), and a name after it
    // (`… 이름은 콩이에요`) says the same pet again; either way the kind alone is no fact of its own.
    const keptWhile = !first && petBefore !== undefined && /키우는데$/.test(lastSaid.trim()) ? petBefore : undefined;
    lastSaid = said;
    if (first) {
      topicRelative = undefined;
      otherTopic = false;
    }
    const lead = said.replace(LEAD, "");
    let sentence = named && BARE_NAME.test(lead) ? `${named} ${lead}` : said;
    const namedHere = NAMED_FIRST.exec(sentence.replace(LEAD, ""));
    namedClause = namedHere;
    // A question names the listener's pet or relative (`고양이 이름이 뭐예요?`), not the speaker's.
    if (!QUESTION.test(said)) named = lastNamed(said) ?? named;
    const own = OTHERS.test(plainForm(lead)) ? null : RELATIVE.exec(plainForm(lead));
    if (!first && otherTopic && !own && !FIRST_PERSON.test(lead) && subjectOf(lead, speaker, "") === speaker) continue;
    otherTopic = !own && !FIRST_PERSON.test(lead) && someoneElseFirst(plainForm(lead));
    if (own) {
      relative = (own[1] ?? own[2] ?? own[3]) as string;
      // A relative as the subject carries over (`동생이 대학생인데 수원에 살아요`); one the speaker
      // has (`딸이 하나 있고 …`) is no subject of what follows.
      const had = new RegExp(`^(?:(?:${COUNT})\\s*)?있|^${COUNT_IS}`).test(plainForm(lead).slice(own[0].length));
      // So does `우리 아들` with its particle dropped when the clause says what they are (`우리 아들
      // 이제 여섯 살인데 유치원 다녀요`), not when it is an object (`우리 아들 데리고 …`).
      const described = own[2] !== undefined && /(?:인데|이고|이라|이라서|인데요)$/.test(lead.trim());
      topicRelative = (/(?:은|는|께서는|이|가|께서)\s+$/.test(own[0]) || described) && !had ? relative : undefined;
    } else if (topicRelative !== undefined && !FIRST_PERSON.test(lead) && !OTHERS.test(plainForm(lead))) {
      sentence = `${topicRelative}는 ${lead}`;
    } else if (!FIRST_PERSON.test(lead) && HONORIFIC.test(lead) && !REQUESTED.test(lead)) {
      if (relative === undefined) continue;
      sentence = `${relative}는 ${lead}`;
    } else if (FIRST_PERSON.test(lead)) relative = undefined;
    const back = hadBefore === undefined ? null : PLURAL_BACK.exec(lead);
    if (hadBefore !== undefined && (back || SCHOOL_SLANG_ALONE.test(lead))) {
      // Read as the relatives' own clause (the relation need not be one the rules know as a subject).
      const rest = back ? lead.slice(back[0].length) : lead;
      previous = undefined;
      if (QUESTION.test(rest) || HYPOTHETICAL.test(rest)) continue;
      const theirs = matchKorean(rest, { id: `${speaker.id}'s ${hadBefore}`, label: `${speaker.label}의 ${hadBefore}` }, true);
      if (theirs && !reported) facts.push(...theirs);
      continue;
    }
    const breed = BREED_ALONE.exec(lead);
    const pet = petBefore === undefined ? undefined : facts[petBefore];
    if (pet !== undefined && petBefore !== undefined && breed && BREED.test(breed[1] as string)) {
      const v = breed[1] as string;
      facts[petBefore] = { ...pet, value: v, keyValue: v, text: pet.text.replace(pet.value, v) };
      continue;
    }
    const afterthought = AFTERTHOUGHT.exec(lead);
    if (afterthought && previous !== undefined) {
      facts.push(...completed(previous, afterthought, speaker));
      previous = undefined;
      continue;
    }
    previous = undefined;
    // A reaction's condition (`땅콩 먹으면 두드러기 나요`) is a fact's, not a hypothetical's, `-면`.
    const hypothetical = HYPOTHETICAL.test(sentence.replace(REACTION, (r) => r.replace(/면(?=\s)/, "")));
    if (QUESTION.test(sentence) || hypothetical || REPORTED_TO_LISTENER.test(sentence)) {
      if (keptWhile !== undefined && QUESTION.test(sentence)) facts.splice(keptWhile, 1);
      continue;
    }
    previous = sentence;
    const ended = positiveOfEnded(sentence);
    const endedFact = ended === undefined ? undefined : factOf(ended, speaker)?.[0];
    // `이제 커피를 안 좋아해요` is a dislike now (the `dislikes` rule, one preference key);
    // `예전에는 커피를 좋아했어요` is a liking that ended.
    // A sentence that ends in hearsay (`수진이는 카페를 하는데 요즘 힘들대요`) reports someone's
    // words: the clauses before the hearsay, about another person, are part of the report when
    // the hearsay goes on about them; the speaker's stay, and so does the hearsay clause of a
    // relative (`조카가 대학원 붙었대요`).
    const spoken = (f: CandidateFact) => !reported || f.subject === speaker.id;
    if (endedFact && ENDABLE_ATTRIBUTES.has(endedFact.attribute) && !(endedFact.attribute === "likes" && NO_LONGER.test(sentence))) {
      if (spoken(endedFact)) facts.push({ ...endedFact, ended: true });
      // The value switched to holds now (`스메그 쓰다가 우녹스로 바꿨어요`: 우녹스), of the same kind.
      const now = switchedTo(sentence);
      const nowFact = now === undefined ? undefined : factOf(now, speaker)?.[0];
      if (nowFact && nowFact.attribute === endedFact.attribute && nowFact.subject === endedFact.subject && spoken(nowFact))
        facts.push(nowFact);
      continue;
    }
    const found = factOf(sentence, speaker) ?? selfNamed(sentence, speaker) ?? nameAlone(lead, askedName, alone, speaker);
    const said1 = found === undefined ? [] : Array.isArray(found) ? found : [found];
    // The rest of a clause that named someone (`이름은 모모고 올해 여덟 살이야`) is read on its own
    // too: the clause's first rule read only the name.
    const after = namedHere ? sentence.slice((namedHere.index ?? 0) + namedHere[0].length).trim() : "";
    const rest =
      after === "" ? [] : (factOf(after, speaker) ?? []).filter((f) => f.attribute === "age" && !said1.some((g) => g.attribute === "age"));
    const ofPet = petSaid && !first && !FIRST_PERSON.test(lead);
    petSaid = (first ? false : petSaid) || lead.split(/\s+/).some((w) => PET_OR_CHILD_WORD.test(w));
    // An age after a clause that named a pet or a small child (`강아지 키우는데 세 살이에요`) is theirs.
    const all = ofTheNamedOne(namedHere ?? namedBefore, [...said1, ...rest], speaker).filter(
      (f) => !(ofPet && f.attribute === "age" && f.subject === speaker.id),
    );
    if (!all.some((f) => f.attribute === "pet")) all.push(...petCalled(namedHere, speaker));
    const kind = keptWhile === undefined ? undefined : facts[keptWhile]?.value;
    if (keptWhile !== undefined && all.some((f) => f.attribute === "pet" && f.value.startsWith(`${kind} `))) facts.splice(keptWhile, 1);
    facts.push(...all.filter(spoken));
    // Only a pet this clause kept (lib is ES2022: no findLastIndex).
    for (let i = facts.length - 1; i >= facts.length - all.length && i >= 0; i -= 1) {
      const f = facts[i] as CandidateFact;
      if (f.attribute === "pet" && f.subject === speaker.id && GENERIC_PET.test(f.value)) petAt = i;
    }
    // A relative the speaker has, said with `-는데` (`딸이 하나 있는데 도쿄에서 일해요`), is the
    // topic of the clauses after it: one relative only, and none of the speaker's own after.
    const kin = all.filter((f) => f.attribute === "family" && f.subject === speaker.id);
    if (kin.length === 1 && /(?:있는데|인데)$/.test(lead)) topicRelative = kin[0]?.keyValue;
    if (kin.length === 1) had = kin[0]?.keyValue;
  }
  // A pet named as the speaker's (`저희 고양이가 수술을 했는데 … 추천해 줄 수 있어요?`, `우리 말티즈
  // 산책은 …`) is a pet the speaker has, in a request or a question too, when no clause kept one.
  if (!facts.some((f) => f.attribute === "pet" && f.subject === speaker.id)) {
    for (const part of plainSpeech(text).split(SENTENCE_END)) {
      const own = OWN_PET.exec(part);
      // Not a pet of a dream or a film (`꿈에서 우리 강아지가 …`).
      if (!own || HYPOTHETICAL.test(part) || REPORTED.test(part.trim()) || STORY_SETTING.test(part) || OWN_PET_GONE.test(part)) continue;
      const v = own[1] as string;
      facts.push({
        subject: speaker.id,
        attribute: "pet",
        language: "ko",
        ...list(v, `${topic(speaker.label)} 반려동물 ${josa(v, "을", "를")} 키운다`, v),
      });
      break;
    }
  }
  // A bare `퇴사` (no job) beside the workplace the message says was left (`전에는 삼성전자
  // 다녔는데 2022년에 퇴사했어요`) says that one thing again.
  // Read after {@link asWorkplace}, which makes a place gone to (`현대차 다녔는데`) the workplace.
  const read = facts.map((f) => asWorkplace(f, text)).filter((f): f is CandidateFact => f !== undefined);
  const leftNamed = (f: CandidateFact) => f.ended === true && f.attribute === "work";
  return read.filter((f) => !(f.attribute === "work" && f.value === "퇴사" && read.some((g) => g.subject === f.subject && leftNamed(g))));
}

/**
 * A pet said to be dead or gone (`우리 강아지가 떠났어요`, `우리 강아지는 이제 없어요`, `저희 고양이가
 * 무지개다리를 건넜는데 …?`): no pet the speaker has, so the fallback of {@link OWN_PET} gives none (a
 * statement of it is the pet rule's, as ended).
 */
const OWN_PET_GONE = new RegExp(
  // `떠났` only with the pet as its subject: `우리 강아지랑 여행 떠났어요` is a trip.
  `(?:${PET})(?:이|가|은|는|도)?\\s+(?:(?:이제|더\\s*이상)\\s*)?없(?:어|었|습|다|는|지)|(?:${PET})(?:이|가|은|는|도)?\\s+(?:\\S+\\s+){0,2}?떠났|무지개\\s*다리|하늘나라|별이\\s*됐|죽었|죽어서|죽은|세상을\\s*떠|떠나보냈|안락사`,
);
/** A pet by its kind or breed after `저희`/`우리`/`제`/`내` (and `집`), as the subject, topic or object. */
const OWN_PET = new RegExp(`(?:^|\\s)(?:저희|우리|울|제|내)\\s*(?:집\\s*)?(${PET})(?=가|이|는|은|도|랑|를|을|한테|\\s)`);

/** What 다니다 names as a pastime (the hobby rule's text), to be read again as a workplace. */
const GONE_TO = "에 다닌다 (취미, 활동)";
/** Activities kept up as pastimes, whatever the message is about. */
const KNOWN_ACTIVITY = new RegExp(`^(?:${HABIT_ACTIVITY}|${STRUCK}|${BOWED}|${BLOWN}|${RIDDEN})`);

/** A pastime or a place of one by how its name ends (`미술`, `태권도`, `피아노`, `문화센터`, `성당`). */
const GONE_TO_ACTIVITY =
  /^(?:산|바다|공원|절)$|(?:장|원|관|센터|교실|도장|체육|미술|음악|피아노|바이올린|수업|교회|성당|절|레슨|강좌|강습|스쿨|도|술|학|(?:영|국|본|불|독|랑스|페인)어|기|댄스|공방|모임|과외|방|반|클래스|봉사)$/;
/** Adult and child relatives, by the end of a fact's subject (`user's 남편`, `user's 큰딸`). */
// Not a sibling, who may as well be a student (`형은 카이스트 다니고`).
const ADULT_KIN = /(?:남편|아내|와이프|아빠|엄마|아버지|어머니|아버님|어머님|부모님|장인|장모|시아버지|시어머니)$/;
const CHILD_KIN = /(?:아들|딸|큰애|작은애|첫째|둘째|셋째|막내)$/;

/**
 * What is gone to with 다니다 by a name alone (`현대모비스 다녀요`, `시대인재 다녀`) in a message
 * that says nothing of a job, when the name is no pastime nor a place of one ({@link
 * GONE_TO_ACTIVITY}): a spouse's or a parent's workplace, a child's school (an academy by its name
 * is a school too), and for the speaker or a sibling either of them, so no fact rather than a pastime.
 */
function goneToByName(fact: CandidateFact): CandidateFact | undefined {
  if (GONE_TO_ACTIVITY.test(fact.value)) return fact;
  const { keyValue: _keyValue, ...rest } = fact;
  const before = fact.text.slice(0, -GONE_TO.length);
  if (ADULT_KIN.test(fact.subject)) return { ...rest, attribute: "work", multi: false, text: `${before}에 다닌다 (직장, 직업)` };
  if (CHILD_KIN.test(fact.subject)) return { ...rest, attribute: "school", multi: false, text: `${before}에 다닌다 (학교)` };
  return undefined;
}

/**
 * A place gone to with 다니다 read as a pastime is the workplace when it is an employer by name
 * (`이제 토스 다님`), or when the message talks about the job (`이직했어 … 당근마켓 다녀`, `회사
 * 옮겼어요. 지금은 네이버 다녀요`) and it is no activity one keeps up or its academy or class (`퇴근하고
 * 헬스 다녀`, `이직 준비로 영어학원 다녀요` stay pastimes).
 */
function asWorkplace(fact: CandidateFact, text: string): CandidateFact | undefined {
  if (fact.attribute !== "hobby" || !fact.text.endsWith(GONE_TO)) return fact;
  const v = fact.value;
  const employer = KNOWN_EMPLOYER.test(v);
  if (!employer) {
    if (KNOWN_ACTIVITY.test(v) || /(?:공방|교실|체육관|도장|센터|(?:수영|헬스|볼링|골프|탁구|당구)장)$/.test(v)) return fact;
    const escaped = v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`${escaped}\\s*(?:학원|교실|레슨|수업|강습|클래스|장|원|동호회|클럽)`).test(text)) return fact;
    // A workplace by its form (`방송국`, `우체국`, `시청`, `공장`) is gone to for work; a clinic as a patient.
    const workplace = MOVED_WORKPLACE_FORM.test(v) && !GONE_TO_ACTIVITY.test(v) && !CLINIC.test(v);
    if (!workplace && !WORK_TALK.test(text)) return goneToByName(fact);
  }
  const { keyValue: _keyValue, ...rest } = fact;
  return { ...rest, attribute: "work", multi: false, text: `${fact.text.slice(0, -GONE_TO.length)}에 다닌다 (직장, 직업)` };
}

/**
 * The past typed with ㅅ for ㅆ, as people type it in chat (`끊엇어`, `햇어요`, `갓는데`): a syllable
 * with the final ㅅ and a vowel a past takes (ㅏ, ㅐ, ㅓ, ㅕ, ㅘ, ㅙ, ㅚ, ㅝ) before an ending, read with
 * ㅆ. Not `벗어` (벗다, to take off), whose ㅅ is its stem's.
 */
const TYPED_PAST = new RegExp(
  `(?<!벗)[${Array.from({ length: 19 * 21 }, (_, i) => i)
    .filter((i) => [0, 1, 4, 6, 9, 10, 11, 14].includes(i % 21))
    .map((i) => `\\u${(0xac00 + i * 28 + 19).toString(16)}`)
    .join("")}](?=(?:어요|어|다|는데|지만|음|습니다|고)(?:[\\s.,!?~…]|$))`,
  "g",
);

/**
 * Where a nominal ending of online 반말 (`-임`, `-함`, `-음`) ends its clause: before punctuation,
 * a line break (chat marks such as `ㅋㅋ` are read as one) or a space; a space after one ends the
 * sentence (`레오폴드 씀 작년에 지름` is two).
 */
const NOMINAL_END = "(?=[.!?…~]*(?:\\s|$))";
/**
 * Nouns that end in `임`, `함` or a final consonant and `음`, never a nominal ending: `게임`,
 * `모임`, `담임`, `결함`, `포함`, `얼음`, `발음`, `녹음`. A word ending in one is kept as it is.
 */
const NOUN_LIKE_ENDING =
  /(?:게임|모임|타임|네임|라임|프레임|프라임|책임|담임|피임|취임|후임|선임|소임|결함|고함|군함|전함|잠수함|포함|모함|수납함|보관함|우편함|편지함|메일함|사서함|수거함|휴지함|얼음|걸음|웃음|울음|믿음|졸음|죽음|묶음|볶음|젊음|놀음|물음|발음|녹음|복음|잡음|방음|폭음|굉음|단음|장음|탁음|반음|청음)$/;
/**
 * Verbs with an open stem read in their `-ㅁ` form (`씀`, `감`, `됨`, `지름`), as a word of their own
 * only: the same syllables end nouns (`장난감`, `자신감`). Not `봄` (spring), `잠` (sleep), `줌`
 * (Zoom), `삼` (three), `삶` (life).
 */
const OPEN_STEM_NOMINAL: Readonly<Record<string, string>> = {
  씀: "써",
  감: "가",
  옴: "와",
  됨: "돼",
  탐: "타",
  침: "쳐",
  지름: "질러",
  배움: "배워",
  키움: "키워",
  다님: "다녀",
  마심: "마셔",
  뜀: "뛰어",
  아님: "아니야",
  // Quitting in the nominal ending is done (`담배 끊음`, `알바 그만둠`): the past.
  끊음: "끊었어",
  그만둠: "그만뒀어",
  관둠: "관뒀어",
};
const OPEN_STEM_WORD = new RegExp(`(^|\\s)(${Object.keys(OPEN_STEM_NOMINAL).join("|")})${NOMINAL_END}`, "g");
/** `-는 중임` (`알바 하는 중임`, `공부하는중임`): the progressive, read as `-고 있어` (a stem that lost its ㄹ given back, {@link RIEUL_DROPPED}). */
const DOING_NOMINAL = new RegExp(`([가-힣]+?)는\\s*중임${NOMINAL_END}`, "g");
/**
 * The honorific `-(으)시-` in the nominal ending (`식당 하심`, `매일 걸으심`, `교회 다니심`), read as
 * `-(으)셔`; only after `하`, `으`, `다니`, `계`, `타`, `치`, since `-심` ends many nouns (`관심`,
 * `점심`, `욕심`, `오심`).
 */
const HONORIFIC_NOMINAL = new RegExp(`([가-힣]*(?:하|으|다니|계|타|치))심${NOMINAL_END}`, "g");
/** A word ending in `-임` (the copula), `-함` (하다) or a final consonant and `-음` (any other verb), at a clause's end. */
const NOMINAL_WORD = new RegExp(`([가-힣A-Za-z0-9]*?)(${CLOSED_SYLLABLE})?(임|함|음)${NOMINAL_END}`, "g");

/**
 * The plain-speech nominal endings of online 반말 in the plain forms the rules read, one word at a
 * time: `-임` as the copula (`2학년임` -> `2학년이야`, `스타크래프트임` -> `스타크래프트야`, `하는
 * 중임` -> `하는 중이야`, `지를 거임` -> `지를 거야`), `-함` as `-해` (`입대함` -> `입대해`, `안
 * 좋아함` -> `안 좋아해`), `-음` after a verb's stem as its plain form, past kept (`접었음` ->
 * `접었어`, `먹음` -> `먹어`, `좋음` -> `좋아`, `레오폴드 씀` -> `레오폴드 써`). A space after
 * one ends the sentence. Nouns ending in those syllables ({@link NOUN_LIKE_ENDING}: `게임`,
 * `모임`, `마음`, `이름`) are kept; so are punctuation (`-임?` stays a question) and a quotation
 * (`-다고 함`, `-라고 함`: hearsay stays hearsay, not the speaker's `-다고 해`).
 */
function plainSpeech(text: string): string {
  const stop = (after: string) => (/^\s+[가-힣A-Za-z0-9]/.test(after) ? "." : "");
  return text
    .replace(TYPED_PAST, (syllable: string) => String.fromCharCode(syllable.charCodeAt(0) + 1))
    .replace(HONORIFIC_NOMINAL, (m, stem: string, offset: number, all: string) => `${stem}셔${stop(all.slice(offset + m.length))}`)
    .replace(
      DOING_NOMINAL,
      (m, stem: string, offset: number, all: string) => `${RIEUL_DROPPED[stem] ?? stem}고 있어${stop(all.slice(offset + m.length))}`,
    )
    .replace(OPEN_STEM_WORD, (m, space: string, word: string, offset: number, all: string) => {
      const after = all.slice(offset + m.length);
      return `${space}${OPEN_STEM_NOMINAL[word]}${stop(after)}`;
    })
    .replace(NOMINAL_WORD, (m, before: string, closed: string | undefined, ending: string, offset: number, all: string) => {
      const word = `${before}${closed ?? ""}`;
      const whole = `${word}${ending}`;
      const after = all.slice(offset + m.length);
      if (word === "" || NOUN_LIKE_ENDING.test(whole)) return m;
      if (ending === "임") return `${josa(word, "이야", "야")}${stop(after)}`;
      // `-다고 함`, `-라고 함`: someone else's words, kept for the rules that read hearsay.
      if (ending === "함") return /[다라]고$/.test(word) ? m : `${word}해${stop(after)}`;
      // `-음` only after a final consonant (`먹음`, `했음`): `마음`, `처음`, `다음` are nouns.
      if (closed === undefined) return m;
      const code = closed.charCodeAt(0) - 0xac00;
      const vowel = Math.floor(code / 28) % 21;
      // The past (`했음`, `갔음`) takes `-어`; a stem in ㅏ or ㅗ (`좋음`, `많음`) takes `-아`.
      const final = code % 28 !== 20 && (vowel === 0 || vowel === 8) ? "아" : "어";
      return `${word}${final}${stop(after)}`;
    });
}

/**
 * A sentence ending in hearsay, `-대(요)` or `-래(요)` after a verb or the copula (`힘들대요`,
 * `결혼한대`, `의사래`); not a noun that ends in those syllables (`노래`, `반대`, `미래`, `침대`).
 */
const REPORTED = /(?<!노|미|원|거|반|기|세|군|침|무|시|학|대|상|교|초|후|전|해|연|절|최|지)(?:대|래)(?:요)?[.!~…]*$/;

/** A place said after its verb, as a sentence of its own (`망원동으로`, `성수동으로요`, `판교로!`). */
const AFTERTHOUGHT = /^([가-힣A-Za-z0-9]+?)(으로|로)(?:요)?[.!~…]*$/;

/**
 * The facts of `previous` completed by the afterthought `m` (`나 12월에 이사 가` + `망원동으로`):
 * the place put before the clause's last word or last two (`… 망원동으로 이사 가`), where a verb
 * takes it; only facts whose value is that place, so nothing `previous` stated alone is read twice.
 */
function completed(previous: string, m: RegExpExecArray, speaker: Speaker): CandidateFact[] {
  const place = m[1] as string;
  const words = previous.replace(/[.!~…]+$/, "").split(/\s+/);
  for (const k of [1, 2]) {
    if (words.length < k) break;
    const sentence = [...words.slice(0, -k), `${place}${m[2]}`, ...words.slice(-k)].join(" ");
    const found = (factOf(sentence, speaker) ?? []).filter((f) => f.value.includes(place));
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * A verb in its honorific form (`-시-`: `좋아하시고`, `사셔`, `다니세요`, `하십니다`, `하셨어요`):
 * Korean speakers never use it of themselves, so a sentence with one and no subject of its own is
 * about the relative an earlier sentence named (`엄마는 걷기 하셔. 등산도 좋아하시고`), or about
 * someone unnamed: no fact of the speaker's.
 */
/**
 * A polite request at a clause's end (`빼주세요`, `조심해 주세요`, `알려주세요`): the `-세요` asks the
 * listener, so it marks no senior as the clause's subject ({@link HONORIFIC}); what the clause says
 * before it is the speaker's (`3월 14일이 제 생일이라 그날은 빼주세요`).
 */
const REQUESTED = /(?:주|줘|드리)(?:세요|셔요|십시오)[.!~…]*$/;
const HONORIFIC =
  /[가-힣](?<!마)(?:시(?:고|는데|거든|지만|다가|던|며|죠)|셔(?:요|서)?|세요|십니다|셨(?:어요|어|습니다|다|는데|고|지만|거든요?|대요?|죠|잖아요?)?)(?=[\s.!~…]|$)/;

/** 짓다 after 농사 in its present forms, plain and honorific ({@link FARMED_AS}). */
const FARMED =
  /농사(를|도)?\s*(지어요|지어|짓습니다|짓는다|짓고|짓는데|짓거든|지으세요|지으셔요|지으셔|지으십니다|지으시는데|지으시고)(?=[\s.!~…]|$)/g;
/** Each form of {@link FARMED} as the same form of 하다. */
const FARMED_AS: Readonly<Record<string, string>> = {
  지어요: "해요",
  지어: "해",
  짓습니다: "합니다",
  짓는다: "한다",
  짓고: "하고",
  짓는데: "하는데",
  짓거든: "하거든",
  지으세요: "하세요",
  지으셔요: "하셔요",
  지으셔: "하셔",
  지으십니다: "하십니다",
  지으시는데: "하시는데",
  지으시고: "하시고",
};

/**
 * Honorific endings used for parents and seniors, in the plain polite form the rules read:
 * `일하세요/일하셔/일하십니다` -> `일해요/일해/일합니다`, `여든 살이세요` -> `여든 살이에요`,
 * `좋아하세요` -> `좋아해요`, `다니세요` -> `다녀요`. `사세요/사셔` are read by the rules as they are.
 */
function plainForm(sentence: string): string {
  return (
    sentence
      // Farming is said with 짓다 (`딸기 농사 지어요`, `밤 농사 지으세요`): as 하다, the verb the
      // livelihood rule reads; not the past (`지었어요`, farmed once).
      .replace(FARMED, (_m, particle: string | undefined, verb: string) => `농사${particle ?? ""} ${FARMED_AS[verb] ?? verb}`)
      .replace(/하세요/g, "해요")
      // 먹다's honorific (`혈압약을 드세요`, `회는 못 드셔`) as 먹다.
      .replace(/(^|\s)드(?:세요|셔요)(?=[.!~…\s]|$)/g, "$1먹어요")
      .replace(/(^|\s)드십니다/g, "$1먹습니다")
      .replace(/(^|\s)드셔(?=[.!~…\s]|$)/g, "$1먹어")
      .replace(/(^|\s)드시고(?=\s)/g, "$1먹고")
      .replace(/하셔(?=[.!~…\s]|$)/g, "해")
      .replace(/하십니다/g, "합니다")
      .replace(/하셨어요/g, "했어요")
      // The honorific past after a closed stem (`담배 끊으셨어요`, `많이 좋으셨대요`) as the plain past.
      .replace(/(?<=[가-힣])으셨(?=어요|어|습니다|다|는데|지만|고)/g, "었")
      // Connectives: `좋아하시는데` -> `좋아하는데`, `사시고` -> `살고`, `다니시다가` -> `다니다가`.
      .replace(/하시(?=는데|고|거든|지만|다가|던|는)/g, "하")
      // `사시는데` is `사는데` (ㄹ drops before `-는데`); was `살는데`, which no rule read.
      .replace(/사시는데/g, "사는데")
      .replace(/사시(?=고|다가)/g, "살")
      .replace(/다니시(?=고|는데|다가|던)/g, "다니")
      .replace(/다니세요/g, "다녀요")
      .replace(/다니셔(?=[.!~…\s]|$)/g, "다녀")
      // The verbs of playing (치다, 켜다, 타다, 불다: `당구 치세요`, `자전거 타셔`), before `-세요` after a noun is read as the copula.
      .replace(
        /(^|\s)(치|켜|타|부)(?:세요|셔요|셔|십니다)(?=[.!~…\s]|$)/g,
        (_m, space: string, stem: string) => `${space}${PLAYED_POLITE[stem] ?? stem}요`,
      )
      // Walking and running (걷다, 달리다, 뛰다: `매일 걸으세요`, `아침마다 달리셔`), whose
      // honorific the noun's copula below would misread (`달리세요` is no `달리예요`).
      .replace(
        /(^|\s)(걸으|달리|뛰)(세요|셔요|셔|십니다|시는데|시거든)(?=[.!~…\s]|$)/g,
        (_m, space: string, stem: string, ending: string) => `${space}${WALKED[stem]?.[HONORIFIC_ENDING[ending] ?? 0] ?? stem}`,
      )
      .replace(/(?<=[가-힣])이세요/g, "이에요")
      // The copula's and 있다's connectives (`여든셋이신데`, `교사이시고`, `당뇨가 있으셔서`).
      .replace(
        /(?<=[가-힣])이(?:신데|시고|십니다)(?=[.!~…,\s]|$)/g,
        (e) => ({ 이신데: "인데", 이시고: "이고", 이십니다: "입니다" })[e] ?? e,
      )
      .replace(
        /있으(?:셔서|세요|시고|신데|십니다)(?=[.!~…,\s]|$)/g,
        (e) => `있${({ 있으셔서: "어서", 있으세요: "어요", 있으시고: "고", 있으신데: "는데", 있으십니다: "습니다" })[e] ?? ""}`,
      )
      .replace(/(?<=[가-힣])(?<![이하사])세요(?=[.!~…\s]|$)/g, "예요")
  );
}

/**
 * The copula's connective ending a clause (`광주인데`, `간호사이지만`), or ending a sentence with
 * `-요` (`고향은 부산인데요`: was read as the value `부산인데`), after a noun.
 */
const COPULA_CONNECTIVE_END = /(?<=[가-힣A-Za-z0-9])(?:인데요?|이지만)[,.…~!]*$/;

/**
 * A vocative opening a sentence: a given name with `-아`/`-야` (`지훈아`, `민서야,`), or `야` alone;
 * a name or title with `씨`/`님` before a comma or the speaker's own word (`팀장님, 저 …`, `민수씨 저
 * …`). Before anything else `X씨` may be the subject (`민수씨 부산 간대요`), so it stays.
 */
const CALLED = /^([가-힣]{2,3})(아|야)(?:\s*,\s*|\s+)|^야(?:\s*,\s*|\s+)/;
const CALLED_POLITE = /^[가-힣]{1,4}\s?(?:씨|님)(?:\s*,\s*|\s+(?=(?:저|나|제가|내가|저희|우리)(?:는|도|가|[\s,]|$)))/;

/** `body` without the one it calls at its start ({@link CALLED}): the one spoken to is no part of a fact's value. */
function withoutVocative(body: string): string {
  const polite = CALLED_POLITE.exec(body);
  if (polite) return body.slice(polite[0].length);
  const m = CALLED.exec(body);
  if (!m) return body;
  if (m[1] === undefined) return body.slice(m[0].length);
  // `-아` after a final consonant (`지훈아`), `-야` after none (`민서야`), and only after a name.
  const closed = new RegExp(`${CLOSED_SYLLABLE}$`).test(m[1]);
  return closed === (m[2] === "아") && givenNameLike(m[1]) ? body.slice(m[0].length) : body;
}

/** The fact one Korean sentence states (subject found as {@link extractKorean} says), if any. */
function factOf(sentence: string, speaker: Speaker): CandidateFact[] | undefined {
  // A clause cut at the copula's connective states its fact as the final form would: `고향은
  // 광주인데 …` as `고향은 광주이에요`, so rules anchored at a final ending read it.
  const body = withoutVocative(plainForm(sentence).replace(LEAD, "")).replace(LEAD, "").replace(COPULA_CONNECTIVE_END, "이에요");
  if (OTHERS.test(body) || INTRODUCED.test(body)) return undefined;
  const rel = RELATIVE.exec(body);
  // `딸이 둘 있어요` names a relative the speaker has: a fact about the speaker, not the daughter.
  const hasRelative =
    rel && (new RegExp(`^(?:(?:${COUNT})\\s*)?있|^${COUNT_IS}`).test(body.slice(rel[0].length)) || KIN_HAD.exec(body)?.index === 0);
  // `친구 만나는 거 좋아해`: a relation without its particle before a verb's modifier and a bound
  // noun is that verb's object, and the sentence the speaker's.
  const objectOfModifier =
    rel !== null && rel[1] === undefined && BOUND_NOUN.test(body.slice(rel[0].length).match(/^\S+는\s+(\S+)/)?.[1] ?? "");
  if (rel && !hasRelative && !objectOfModifier && !/^(?:제|내)?\s*\S+\s*이름(?:은|이)/.test(body)) {
    const r = (rel[1] ?? rel[2] ?? rel[3]) as string;
    const own = matchKorean(
      bareAge(body.slice(rel[0].length), false),
      { id: `${speaker.id}'s ${r}`, label: `${speaker.label}의 ${r}` },
      true,
    );
    // `엄마 보러 부산 갈 거야`: a relation without its particle may be the object, not the
    // subject; when nothing is read of the relative, the sentence is the speaker's.
    if (own || !BARE_RELATIVE.test(body)) return own;
    return matchKorean(body, speaker, false);
  }
  return matchKorean(bareAge(body.replace(FIRST_PERSON, ""), FIRST_PERSON.test(body)), speaker, false);
}

/** An age in native numbers alone, after `올해` or none (`서른넷`, `올해 마흔둘!`): what 반말 says without the copula. */
const BARE_AGE = new RegExp(`^((?:올해\\s+)?)(${KOREAN_AGE})([.!~…]*)$`);

/**
 * A clause that is an age alone ({@link BARE_AGE}) with the copula the age rules read (`나 올해
 * 서른넷` -> `올해 서른넷이에요`), when the speaker said it of themself (`stated`: `나`/`저` before it)
 * or set it by `올해`; a number alone may answer anything (`몇 명 왔어? 서른넷`), so it is kept as it is.
 */
function bareAge(clause: string, stated: boolean): string {
  const m = BARE_AGE.exec(clause);
  if (!m || (!stated && m[1] === "")) return clause;
  const age = m[2] as string;
  return `${m[1]}${josa(age, "이에요", "예요")}${m[3]}`;
}
