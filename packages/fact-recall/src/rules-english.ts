import { type CandidateFact, ENDABLE_ATTRIBUTES } from "./fact-store.js";

/**
 * English extraction rules (spec R15). A message is cut into clauses; a clause yields a fact when
 * its subject is the speaker (`I`, `we` for shared activities) or a named relative (`my sister`,
 * stored as a fact about that person), and its predicate matches one rule below. Questions,
 * hypotheticals (`if`, `would`, `maybe`, `wish`) and clauses about anyone else yield nothing.
 */

const ADV =
  "(?:(?:just|recently|finally|also|really|so|very|super|pretty|quite|truly|deeply|absolutely|honestly|seriously|literally|definately|now|still|currently|actually|already|totally|definitely|completely|even|usually|often|always|sometimes|officially|eventually|lately|last\\s+\\w+|this\\s+\\w+)\\s+)*";
const VAL = "([^,;:!?]+)";
/**
 * A body part an injury names (`ankle`, `left knee`, `lower back`, `ACL`), the whole of what
 * follows `my` once where and how are cut off: an injury rule's object, so `broke my phone` is none.
 */
const ENGLISH_BODY_PART =
  /^(?:(?:left|right|lower|upper|middle|big|little|pinky|ring) )*(?:head|neck|back|spine|tailbone|shoulders?|collarbones?|arms?|forearms?|elbows?|wrists?|hands?|fingers?|thumbs?|knuckles?|ribs?|chest|hips?|pelvis|legs?|thighs?|knees?|kneecaps?|shins?|calf|calves|ankles?|feet|foot|heels?|toes?|nose|jaw|teeth|tooth|skull|eye socket|ears?|eardrums?|achilles(?: tendon)?|acl|mcl|meniscus|rotator cuff|hamstrings?|groin|quads?|biceps?|triceps?|glutes?|muscles?|ligaments?|tendons?|discs?|vertebrae?|cartilage|(?:\w+ )?(?:muscle|ligament|tendon|bone)s?)$/i;
/** Makes of phones, laptops, tablets and readers that name the device (`an iPhone`, `a Pixel 8`). */
const DEVICE_MAKE =
  "iPhone|iPad|MacBook|Macbook|Pixel|Galaxy|Kindle|Chromebook|ThinkPad|Surface|Apple Watch|AirPods|Fairphone|OnePlus|Xperia|Moto [A-Z0-9]\\w*";
const REL =
  "wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|son|daughter|kids?|children|child|sister|brother|siblings?|mom|mother|mum|dad|father|parents|grandma|grandmother|gran|granny|nan|nana|nanna|grandpa|grandfather|grandad|granddad|grandparents|stepmum|stepmom|stepdad|ex-wife|ex-husband|ex-partner|aunt|uncle|cousin|niece|nephew|friend|best friend|roommate|boss|coworker|colleague";
/** Relatives by family, not by friendship or work (a `'s` after them is read as `is`). */
const FAMILY_REL = REL.split("|")
  .filter((r) => !/^(?:friend|best friend|roommate|boss|coworker|colleague)$/.test(r))
  .join("|");
/** Pets by kind, then dog breeds (`a golden retriever named Biscuit`, `a beagle`), the two-word ones whole. */
const PET =
  "dog|puppy|cat|kitten|hamster|rabbit|bunny|parrot|bird|fish|turtle|tortoise|snake|horse|guinea pig|lizard|bearded dragon|gecko|ferret|chinchilla|gerbil|budgie|cockatiel|pet|" +
  "golden retriever|labrador(?: retriever)?|border collie|german shepherd|jack russell(?: terrier)?|retriever|collie|poodle|beagle|terrier|bulldog|husky|corgi|dachshund|pug|chihuahua|spaniel|schnauzer|maltese|shih tzu|greyhound|pit ?bull|" +
  // Breeds said alone (`a lurcher called Bramble`, `our cockapoo`).
  "whippet|lurcher|labradoodle|goldendoodle|cockapoo|cavapoo|cavalier|rottweiler|doberman|great dane|mastiff|sheepdog|weimaraner|vizsla|shiba(?: inu)?|akita|samoyed|malamute|bichon(?: frise)?|havanese|pomeranian|yorkie|westie|staffie|staffy|ragdoll|siamese|maine coon|sphynx";
/**
 * A word before a pet's kind that says which (`a springer spaniel`, `a rescue greyhound`, `a tabby
 * cat`; two of them: `a retired racing greyhound`): a lowercase word that is no quantifier or size
 * (`a few fish`, `a little dog` stays `dog`) and no word that joins (`a cousin with dogs`).
 */
const PET_KIND_WORD =
  "(?!(?:few|couple|lot|bunch|pair|new|little|big|small|old|young|cute|baby|sweet|second|third|with|and|or|of|who|that|which|like|than|for|to|from|at|in|on|whose|as)\\b)[a-z][a-z-]+";
/** Words of size, age or temper before a pet's kind (`a grumpy old cat`): no part of the kind. */
const PET_MOOD = "(?:little|big|small|tiny|huge|old|young|grumpy|lazy|fat|fluffy|cute|sweet|crazy|senior|elderly|adorable)";
const JOB =
  "teacher|nurse|doctor|engineer|developer|programmer|designer|lawyer|accountant|student|manager|writer|author|artist|chef|cook|driver|scientist|researcher|consultant|musician|painter|photographer|pharmacist|dentist|therapist|counselor|counsellor|analyst|architect|firefighter|officer|farmer|mechanic|electrician|plumber|professor|lecturer|barista|cashier|entrepreneur|freelancer|journalist|editor|pilot|soldier|veteran|dancer|singer|actor|actress|athlete|coach|intern|waiter|waitress|baker|carpenter|veterinarian|vet|social worker|ceo|founder|mentor|activist|volunteer|player|worker|owner|assistant|clerk|librarian|surgeon|paramedic|tutor|brewer|roaster|bartender|server|hairdresser|stylist|realtor|banker|nanny|janitor|" +
  // Health, care and service jobs named by their own word (`dental hygienist`, `midwife`, `florist`).
  "hygienist|physiotherapist|physio|midwife|optician|radiographer|receptionist|technician|translator|interpreter|paralegal|florist|carer|caregiver|" +
  // Trades and titles said short (`a biomed tech`, `a CPA`, `a PM at Stripe`, `a retired machinist`).
  "tech|cpa|pm|machinist|welder|dispatcher|contractor|nurse practitioner|" +
  // Utility and site trades (`a lineman for the power company`, `a crew foreman`).
  "lineman|lineworker|foreman|supervisor|inspector|surveyor|operator|installer|meter reader";
const EVENT_VERBS =
  "went|visited|joined|signed up|started|began|finished|completed|took|got|adopted|painted|drew|ran|read|saw|watched|met|attended|made|built|won|lost|learned|learnt|tried|volunteered|found|received|created|wrote|played|travell?ed|hiked|baked|cooked|celebrated|graduated|launched|opened|published|performed|participated|organized|organised|hosted|gave|had|spent|quit|left|picked up|took up|discovered|decided|applied|passed|failed|sold|ordered|booked|camped|swam|danced|sang|taught|helped|raised|donated|bought|purchased|moved|returned|came back|stopped|entered|reached|became|set up|tried out|went on|got back|got into|signed";
/**
 * Verbs whose progressive (`I'm planning ...`, `I'm waiting ...`, `I'm using it`) says what the
 * speaker intends, expects, feels, says or uses, or where they are going, rather than an activity
 * they keep up: never a hobby by themselves. `STATE_VERBS` are those of them that say no plan either with a time to come
 * (`I'm feeling better tomorrow` plans nothing; `I'm leaving tomorrow` does).
 */
const STATE_VERBS = "feeling thinking wondering hoping wanting saying talking kidding joking missing worrying loving enjoying".split(" ");
const NOT_ACTIVITY = new Set([
  ...STATE_VERBS,
  ..."going trying looking doing getting using seeing focusing planning preparing considering waiting expecting leaving heading coming staying moving packing starting having making taking dealing struggling learning working glad sure happy sorry so really not".split(
    " ",
  ),
]);

const FILLER_VALUES =
  /^(?:it|that|this|those|these|you|your|how|when|what|the way|to hear|hearing|seeing|them|him|her|everything|all of|so much|a lot)\b/i;

/** An age in words below twenty (`my daughter's seven`), read like a number. */
const AGE_WORD =
  "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen";

const CONTRACTIONS: Array<[RegExp, string | ((all: string, ...groups: string[]) => string)]> = [
  [/[’‘]/g, "'"],
  [/\bI'm\b/gi, "I am"],
  [/\bI've\b/gi, "I have"],
  [/\bI'll\b/gi, "I will"],
  [/\bI'd\b/gi, "I would"],
  [/\bwe're\b/gi, "we are"],
  [/\bwe've\b/gi, "we have"],
  [/\bwe'll\b/gi, "we will"],
  [/\bcan't\b/gi, "cannot"],
  [/\bwon't\b/gi, "will not"],
  [/\b(\w+)n't\b/gi, "$1 not"],
  [/\bgonna\b/gi, "going to"],
  // Chat spellings without the apostrophe (`im allergic`, `ive got`, `i dont smoke`) and `w/`.
  [/\bim\b/gi, "I am"],
  [/\bive\b/gi, "I have"],
  [/\b(do|does|did|is|are|was|have|has)nt\b/gi, "$1 not"],
  [/\bcant\b/gi, "cannot"],
  [/\bw\/\s*/gi, "with "],
  // A parent named by the word alone at a clause's start (`Mom's got dementia`, `dad is diabetic`,
  // `Grandma lives in Reno`) is the speaker's: `my` is put before it for the relative rules.
  [
    /(^|[.!?;]\s+|,\s+)(mom|mum|dad|grandma|grandpa|gran|granny|nana|nan)(?=(?:'s|\s+(?:is|has|had|lives|works|was|got|retired|just|still))\b)/gi,
    (_all: string, before: string, rel: string) => `${before}my ${rel.toLowerCase()}`,
  ],
  // A relative's `'s` that is `is` or `has` (`my mom's diabetic`, `my son's been ...`), not a
  // possessive (`my mom's house`): before a word that only follows a verb.
  [
    new RegExp(
      `\\b([Mm]y (?:${FAMILY_REL}))'s (?=(?:a|an|not|in|at|from|married|single|divorced|engaged|retired|allergic|diabetic|vegan|vegetarian|pescatarian|coeliac|celiac|lactose|deaf|blind|colou?rblind|asthmatic|epileptic|autistic|pregnant|stationed|based|away|\\d+|${AGE_WORD})\\b)`,
      "g",
    ),
    "$1 is ",
  ],
  [new RegExp(`\\b([Mm]y (?:${FAMILY_REL}))'s (?=(?:been|got)\\b)`, "g"), "$1 has "],
  [/\b(he|she)'s (been|got)\b/gi, "$1 has $2"],
  [/\b(he|she)'s\b/gi, "$1 is"],
];

interface Rule {
  attribute: string;
  re: RegExp;
  /** Builds value, key parts and text from the match; `undefined` rejects it. */
  build: (m: RegExpMatchArray, s: Subject) => Omit<CandidateFact, "subject" | "attribute" | "language"> | undefined;
  /** Allowed for a `we` subject (shared activities). */
  we?: boolean;
}

interface Subject {
  /** Stored subject: `user`, `user's sister`, a speaker name. */
  id: string;
  /** How the text names it: `User`, `User's sister`, `Caroline`. */
  label: string;
  we: boolean;
  /** The predicate as written (after the subject), for generic texts. */
  predicate: string;
}

/**
 * A time after a place, with the preposition and the hedge before it (`for 10 years`, `over the
 * past two years`, `since last month`): the whole phrase goes, never its number alone (`Busan for`).
 */
const TIME_TAIL =
  /\s+(?:(?:for|in|over|within|during|since|from|until|till)\s+)?(?:(?:about|almost|nearly|over|around|roughly|more than|less than|the past|the last)\s+)?(?:(?:last|next|this|a few|a couple of|two|three|several|\d+)\s+(?:week|weekend|month|year|summer|winter|spring|fall|days?|weeks|months|years|nights?)s?\b|yesterday|today|tomorrow|recently|ago)\b.*$/i;

/** A place or name value: the words before any time phrase (`Busan last month` -> `Busan`). */
function place(value: string): string {
  return cut(value.replace(TIME_TAIL, ""), 5);
}

function cut(value: string, maxWords = 8): string {
  const trimmed = value
    .replace(
      /\s+(?:now|since|for now|because|but|so|these days|at the moment|right now|anymore|already|again|too|as well|though|lol|haha)\b.*$/i,
      "",
    )
    .replace(/\s+and\s+(?:it|that|i|we|they|he|she)\b.*$/i, "")
    .trim();
  return trimmed
    .split(/\s+/)
    .slice(0, maxWords)
    .join(" ")
    .replace(/[.\s]+$/, "");
}

/**
 * What stands after a value in a clause without being part of it, by class of English function
 * words (the words themselves are classes: prepositions, determiners, subordinators, time nouns):
 *
 * - a time: `last month`, `every Tuesday`, `in 2019`, `on weekends`, `for six years`, `two years
 *   ago`, `since the pandemic`, `originally`, `these days`;
 * - a companion: `with` before a possessive, a quantifier or a word for people (`with my wife`,
 *   `with some coworkers`, `with friends`); not an instrument (`painting with watercolors`);
 * - a clause: a subordinator before its subject (`after I graduated`, `because my wife ...`);
 * - a purpose: `for` before a determiner or a purpose noun (`for work`, `for our anniversary`).
 *
 * The value is what comes before the first of them ({@link valueHead}).
 */
const NUMBER_WORD =
  "(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a few|a couple(?: of)?|several|many|some|few|\\d+(?:\\.\\d+)?)";
const TIME_UNIT = "(?:seconds?|minutes?|hours?|days?|nights?|weeks?|weekends?|months?|years?|decades?|semesters?|summers?|winters?)";
const WEEKDAY = "(?:mon|tues|wednes|thurs|fri|satur|sun)days?";
const MONTH_NAME = "(?:january|february|march|april|may|june|july|august|september|october|november|december)";
const SEASON = "(?:spring|summer|fall|autumn|winter)s?";

const DECADE = "(?:(?:19|20)?\\d0'?s|fifties|sixties|seventies|eighties|nineties)";
const TIME_NOUN = `(?:${TIME_UNIT}|${WEEKDAY}|${MONTH_NAME}|${SEASON}|morning|afternoon|evening|time|holidays?|break|quarter|term)`;
/** Words that set a time to come: with a progressive they make it a plan (`I'm flying to Lima tomorrow`). */
const FUTURE_TIME = new RegExp(
  `\\b(?:tomorrow|tonight|soon|next\\s+(?!time\\b)${TIME_NOUN}|this\\s+(?:weekend|evening|afternoon|${WEEKDAY}|${SEASON})|(?:in|within)\\s+(?:a|an|a few|a couple of|two|three|\\d+)\\s+(?:days?|weeks?|months?)|on\\s+${WEEKDAY}|(?:in|on|by)\\s+${MONTH_NAME}|later\\s+(?:today|this\\s+\\w+))\\b`,
  "i",
);
const DETERMINER = "(?:my|his|her|our|their|your|its|the|a|an|this|that|these|those|some)";
const TIME_ADJUNCT =
  `(?:last|next|this|every|each|that|one|the other|the following|the past|the last|the next)\\s+${TIME_NOUN}` +
  `|(?:for|in|over|within|during)\\s+(?:(?:about|almost|nearly|over|around|roughly|more than|less than|like|the (?:past|last))\\s+)?${NUMBER_WORD}\\s+${TIME_UNIT}` +
  `|(?:(?:about|almost|nearly|over|around|roughly|like)\\s+)?${NUMBER_WORD}\\s+${TIME_UNIT}\\s+(?:ago|now)` +
  `|(?:in|on|at|during|by|since|until|till|around|from|through|throughout)\\s+(?:the\\s+)?(?:(?:early|late|mid)[-\\s])?(?:\\d{4}s?\\b|${MONTH_NAME}|${WEEKDAY}|${SEASON}|${DECADE}|weekends?|weekdays|(?:the\\s+)?(?:morning|afternoon|evening|night|weekend|past|holidays))` +
  `|(?:before|after|during|since|until|till)\\s+(?:${DETERMINER}\\b|\\w+ing\\b)` +
  // A stage of life without a determiner (`before college`, `after grad school`).
  "|(?:before|after|during|since|until|till)\\s+(?:\\w+\\s+)?(?:school|college|university|uni|kids|retirement|graduation|marriage)\\b" +
  "|(?:yesterday|today|tonight|tomorrow|recently|lately|originally|nowadays|these days|those days|at the moment|at the time|right now|so far|for now|for a while|for ages|for years|for so long|ever since|every day|everyday|daily|weekly|on the side|any ?more|ago|downtown|nearby|locally|remotely|part[- ]time|full[- ]time)";
const COMPANION =
  "with\\s+(?:my|his|her|our|their|your|some|a few|a couple of|a group of|a bunch of|a friend|friends|family|coworkers|colleagues|classmates|the (?:kids|family|team|group)|him|them|us|everyone|someone|people|others)\\b";
const SUBORDINATE =
  "(?:after|before|because|since|when|while|until|till|once|as soon as|so that|so|but|although|though|whereas|and then)\\s+(?:i|he|she|we|they|you|it|my|his|her|our|their|the|a|an|this|that|there)\\b";
const PURPOSE = `for\\s+(?:work|school|fun|a living|business|college|a job|${DETERMINER})\\b`;
const ADJUNCT = new RegExp(`\\s+(?:${TIME_ADJUNCT}|${COMPANION}|${SUBORDINATE}|${PURPOSE})(?=[\\s.!]|$)`, "gi");
/** A place after a workplace or a job (`a startup in San Francisco`, `a nurse at a clinic`) and a job after a workplace (`... as a designer`). */
const WORK_TAIL = /\s+(?:in|at|near|on|as|for|with)\s+.*$/i;
/** A place after an activity (`running in the rain`, `climbing at the gym`), except after a verb the place completes (`living in Seoul`). */
const ACTIVITY_PLACE =
  /(?<!\b(?:living|staying|working|being|spending time|hanging out|moving|settling))\s+(?:in|at|on|around|near)\s+(?:the|a|an|my|our|his|her|their)\s+.*$/i;

/** What ends a place besides an adjunct: another place it is moved from or to, a relative clause, a conjunction. */
const PLACE_TAIL = /\s+(?:from|to|and|but|or|where|which|who|that)\s+.*$/i;

/** Kinds of value: a place, a workplace or job, an activity liked or done, an event or plan. */
type ValueKind = "place" | "work" | "activity" | "event";

/**
 * The value itself: `value` up to the first time, companion, clause or purpose after it
 * ({@link ADJUNCT}), never cut to nothing; a workplace or job also before a place or job after it
 * and without its article (`a small bakery` -> `small bakery`), an activity before a place.
 * `Denver last spring with my husband` -> `Denver`; `nurse for six years` -> `nurse`;
 * `went to Japan with my parents last month` -> `went to Japan`.
 */
function valueHead(value: string, kind: ValueKind): string {
  let head = value;
  for (const m of value.matchAll(ADJUNCT)) {
    if ((m.index ?? 0) > 0) {
      head = value.slice(0, m.index);
      break;
    }
  }
  if (kind === "work") head = head.replace(WORK_TAIL, "").replace(/^(?:a|an|the)\s+(?=\S)/i, "");
  if (kind === "activity") head = head.replace(ACTIVITY_PLACE, "");
  if (kind === "place") head = head.replace(PLACE_TAIL, "");
  return head.replace(/[.\s]+$/, "").trim() || value;
}

/** The predicate with the speaker's forms rewritten for a third-person text. */
function sentence(s: Subject): string {
  const p = s.predicate
    .replace(/^am\b/i, "is")
    .replace(/^have\b/i, "has")
    .replace(/^(love|like|enjoy|adore|hate|dislike|play|live|work|want|need|go|study|plan|hope|own)\b/i, "$1s")
    .replace(/^do not\b/i, "does not")
    .replace(/\bmy\b/gi, `${s.label}'s`)
    .replace(/\bmyself\b/gi, "themself")
    .replace(/[.\s]+$/, "");
  return s.we ? `${s.label} and others: we ${s.predicate.replace(/[.\s]+$/, "")}` : `${s.label} ${p}`;
}

/** Capitalized words after "I am" that describe the speaker rather than name them. */
const NOT_A_NAME =
  /^(?:OK|Okay|Fine|Sorry|Here|Back|Home|Done|Ready|Good|Great|Christian|Catholic|Protestant|Muslim|Jewish|Buddhist|Hindu|Atheist|Mormon|English|French|German|Dutch|Irish|Scottish|Welsh|British|Swiss|Greek|Thai|Polish|Danish|Swedish|Finnish|Turkish|Spanish|Jewish|Latino|Latina|Asian|African|European|Black|White|Gay|Lesbian|Bi|Trans|Queer|[A-Z][a-z]+(?:ese|ian|ean|can|ish|an|i))$/;

/**
 * Predicates that say a value held before and holds no longer, with the positive predicate the
 * rules read: "do not live in Seoul anymore", "no longer work at Google", "am not a teacher any
 * more", "used to live in Seoul", "stopped working at Google", "quit my job at Google", "retired
 * from Boeing". A plain "do not" without "anymore" is left to the rules
 * (`dislikes`, `constraint`).
 */
/** Languages one learns (`Japanese`, `British Sign Language`): a study ({@link RULES}), not a pastime. */
const LANGUAGE =
  "Japanese|Korean|Chinese|Mandarin|Cantonese|Spanish|French|German|Italian|Portuguese|Russian|Arabic|Hindi|Urdu|Polish|Dutch|Swedish|Norwegian|Danish|Finnish|Greek|Turkish|Vietnamese|Thai|Indonesian|Hebrew|Latin|Welsh|Irish|Gaelic|Swahili|Tagalog|(?:British |American )?Sign Language|BSL|ASL";
/**
 * A school by its name (`Ohio State`, `St Mary's primary`, `Stanford law`, `the University of Leeds`):
 * capitalized words, then a lowercase word for its level or faculty.
 */
const NAMED_SCHOOL =
  "((?:the )?[A-Z][\\w&'.-]*(?: (?:of |for |and )?[A-Z][\\w&'.-]*)*(?: (?:primary|elementary|middle|high|law|med|medical|business|nursing|grad|school|college|university|academy))?)";
/** Degrees and levels of study (`an MSc`, `my masters`, `a PhD`). */
const DEGREE = "(?:MSc|MA|MBA|MPhil|BSc|BA|BEng|MEng|PhD|doctorate|masters?|master's|bachelor's|bachelors|degree|diploma|PGCE)";
/** Children and siblings, who start at a school (`my daughter just started at Brudenell`) rather than a job. */
const SCHOOL_AGE_REL = /'s (?:son|daughter|kids?|child|children|grandson|granddaughter|niece|nephew)$/;
/** Businesses one owns or runs ({@link RULES}: a job). */
const BUSINESS =
  "shop|store|caf[eé]|coffee shop|restaurant|bakery|bar|pub|salon|business|company|firm|studio|gym|clinic|practice|farm|boutique|food truck|bookstore|startup|agency|daycare";
/** What ends a past job: its length, `before`/`until` something, `and retired` ({@link ENDED_FORMS}). */
const PAST_JOB_END = `(?:for (?:over |about |almost |nearly |more than )?${NUMBER_WORD}(?:-\\w+)? (?:years|decades)|before\\b|until\\b|and (?:then )?retired\\b)`;
/** A habit of eating, drinking or smoking one gives up ({@link ENDED_DIRECT}). */
const SUBSTANCE =
  "smoking|drinking|vaping|caffeine|coffee|alcohol|booze|soda|sugar|meat|dairy|cigarettes|weed|chewing tobacco|tobacco|dip|snuff|energy drinks|junk food|fast food|carbs|red meat|gluten";
/** Activities one keeps up or gives up as a hobby. */
const HOBBY_WORD =
  "golf|tennis|soccer|football|basketball|baseball|volleyball|hockey|chess|poker|yoga|pilates|crossfit|running|jogging|swimming|skiing|snowboarding|surfing|climbing|hiking|cycling|biking|dancing|painting|drawing|knitting|gaming|fishing|hunting|skating|boxing|golfing|rowing|singing|baking|gardening|photography|piano|guitar|violin|drums";

const ENDED_FORMS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^((?:really|actually|even)\s+)?(?:do|does) not (.+?)\s+any ?more\b[,.!]?\s*(.*)$/i, (m) => `${m[2]} ${m[3]}`],
  [/^(?:am|is|are) not (.+?)\s+any ?more\b[,.!]?\s*(.*)$/i, (m) => `am ${m[1]} ${m[2]}`],
  [/^(?:am|is|are) no longer (.+)$/i, (m) => `am ${m[1]}`],
  [/^(?:do not|does not)? ?no longer (.+)$/i, (m) => m[1] as string],
  [/^(?:have|has) not (?:been )?(\w+ing .+?)\s+(?:any ?more|since|for (?:a while|years|months))\b.*$/i, (m) => `am ${m[1]}`],
  // Waiting tables, bartending: a job at the place named (`used to wait tables at Olive Garden`).
  [/^used to (?:wait tables|waitress|bartend|babysit|cashier) (at|in|for) (.+)$/i, (m) => `work ${m[1]} ${m[2]}`],
  // A trade done for a named employer (`used to read meters for Avista`, `used to drive for Uber`):
  // the employer, ended; not a person or a cause (`used to cook for Dad`, `used to vote for Smith`).
  [
    /^used to (?!vote|root|cheer|pray|cook|shop|play|write home)(?:[a-z]+)(?: [a-z]+){0,2} for (?!(?:Mom|Mum|Dad|Grandma|Grandpa|Gran|Nan|God|Christmas|Easter)\b)([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})/,
    (m) => `work for ${m[1]}`,
  ],
  // A state that ended (`used to be vegetarian`): the positive form the rules read is `am ...`.
  [/^used to be (.+)$/i, (m) => `am ${m[1]}`],
  [/^used to (.+)$/i, (m) => m[1] as string],
  // A job held no longer, said by its qualifier (`my mum's a retired midwife`, `I'm a former nurse`).
  [new RegExp(`^am (?:an? )?(?:retired|former|ex-) ?((?:[\\w-]+ ){0,2}(?:${JOB}))s?\\b(.*)$`, "i"), (m) => `am a ${m[1]}${m[2]}`],
  // A past job by its length or what came after (`was a teaching assistant for 6 years before I
  // opened the shop`, `was a nurse for twenty years`): the job, ended; `was a nurse today` is none.
  [new RegExp(`^was (an? (?:[\\w-]+ ){0,2}(?:${JOB}))\\s+${PAST_JOB_END}`, "i"), (m) => `am ${m[1]}`],
  // A past job with its length or its end (`worked at Starbucks for six years`, `taught high school
  // history for thirty years and retired`, `worked at Costco before grad school`): a job that ended;
  // a past job without them may be one shift (`worked at the warehouse today`).
  [new RegExp(`^(?:worked|was working) ((?:at|for|in|as an?|as) .+?)\\s+${PAST_JOB_END}`, "i"), (m) => `work ${m[1]}`],
  [new RegExp(`^taught (.+?)\\s+${PAST_JOB_END}`, "i"), (m) => `work in ${m[1]}`],
  // "stopped working at Google", "quit my job at Google", "retired from Boeing": the job, ended
  // (a date after it is when it ended, not part of the job).
  [/^(?:stopped|quit) working (at|for|in) (.+)$/i, (m) => `work ${m[1]} ${untimed(m[2] as string)}`],
  [/^(?:quit|left) my job (?:at|with) (.+)$/i, (m) => `work at ${untimed(m[1] as string)}`],
  // A named employer only: "retired from teaching" is no workplace.
  [/^[Rr]etired from ([A-Z].+)$/, (m) => `work at ${untimed(m[1] as string)}`],
  // Or a workplace by its kind (`retired from the post office`, `from the Navy`).
  [
    /^[Rr]etired from (?:the )?((?:[\w-]+ ){0,2}(?:post office|army|navy|air force|marines|military|police(?: force| department| service)?|fire (?:department|service|brigade)|civil service|council|railroad|railways?|NHS|mines?|school district|hospital|bank|factory|mill|plant|county|city))\b(.*)$/,
    (m) => `work at ${untimed(`${m[1]}${m[2]}`)}`,
  ],
];

/** Car makes, and models said without their make (`a Prius`, `an F-150`), lowercase as typed too. */
const CAR_MAKE =
  "Subaru|Honda|Toyota|Ford|Chevy|Chevrolet|Tesla|Jeep|Nissan|Hyundai|Kia|Mazda|BMW|Audi|VW|Volkswagen|Mercedes(?:-Benz)?|Volvo|Dodge|GMC|Lexus|Acura|Buick|Cadillac|Chrysler|Mitsubishi|Porsche|Rivian|" +
  "Prius|Camry|Corolla|Civic|Accord|Tacoma|Tundra|RAV4|Outback|Forester|Crosstrek|Wrangler|Silverado|F-150|F-250|Ranger|Odyssey|Sienna|Highlander|Mustang";
const CAR_MAKE_ALONE = new RegExp(`^(?:${CAR_MAKE})$`, "i");
/**
 * Ended facts read straight from the clause (not through a positive rule): a habit given up (`quit
 * smoking`, `don't drink coffee anymore`: `health`, as the Korean `커피 끊었어`), a team, club or
 * activity given up (`quit the swim team`, `gave up tennis`: `hobby`).
 */
const ENDED_DIRECT: Array<[RegExp, string, (m: RegExpMatchArray) => string]> = [
  [
    new RegExp(
      `^${ADV}(?:quit|stopped|gave up|cut out|kicked|have ${ADV}(?:quit|stopped|given up|cut out|kicked)) (?:the )?(?:(?:drinking|smoking|vaping|eating) (?=(?:${SUBSTANCE})\\b))?(${SUBSTANCE})\\b`,
      "i",
    ),
    "health",
    (m) => m[1] as string,
  ],
  [/^used to (smoke|vape)\b/i, "health", (m) => `${(m[1] as string).replace(/e$/, "")}ing`],
  [
    /^(?:(?:really|actually|even)\s+)?(?:do not|no longer) (drink|smoke|vape|eat)(?: ([^,;:!?]+?))?\s+any ?more\b/i,
    "health",
    (m) => (m[2] ? cut(m[2], 4) : `${(m[1] as string).replace(/e$/, "")}ing`),
  ],
  [
    new RegExp(
      `^${ADV}(?:quit|left|gave up|have (?:quit|left|given up)) (?:the |my |our )?((?:[\\w-]+ ){1,2}(?:team|club|band|choir|orchestra|league|troupe))\\b`,
      "i",
    ),
    "hobby",
    (m) => m[1] as string,
  ],
  [
    // With the verb of going or playing and an article (`stopped going to yoga`, `stopped playing the
    // violin`, `quit the gym`).
    new RegExp(
      `^${ADV}(?:quit|gave up|stopped|have (?:quit|given up|stopped)) (?:playing |doing |going to )?(?:the |my )?(${HOBBY_WORD}|gym)\\b`,
      "i",
    ),
    "hobby",
    (m) => m[1] as string,
  ],
  // A home moved out of (`moved out of my casita in Barrio Viejo`, `we moved out of our flat in
  // May`): a residence no more; not a way or a role (`moved out of the way`: `my`/`our` only, and
  // not `my way`).
  [
    new RegExp(`^${ADV}(?:have |had )?moved out of (?:my|our) (?!way\\b)([^,;:!?]+)`, "i"),
    "residence",
    (m) => valueHead(cut(m[1] as string, 6), "place"),
  ],
  // A thing sold is a belonging no more (`sold my car last year`, `we sold our caravan`); not what
  // one sells for a living or once (`sold tickets`).
  // `the` names one's own only for a vehicle (`sold the van in March`; not `sold the tickets`).
  [
    // A car by its make or model is one's own too (`sold the Volvo`, `sold the F-150 in March`).
    new RegExp(
      `^(?:have |had )?sold (?:my|our|the (?=(?:old |family )?(?:car|van|truck|bike|motorbike|motorcycle|scooter|boat|caravan|camper|campervan|rv|${CAR_MAKE})\\b)) ?([^,;:!?]+)`,
      "i",
    ),
    "belonging",
    (m) => valueHead(cut(m[1] as string, 4), "event"),
  ],
  // An employer left for work of one's own (`left Deloitte to go freelance`, `left KPMG last year to
  // start my own firm`): a place left (`left London on Friday`) has no such purpose after it.
  [
    /^(?:have |had )?left ([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})(?:\s+[^,;:!?]*?)?\s+to (?:go (?:freelance|self[- ]employed|solo|independent|contracting)|start (?:my|our) own|set up (?:my|our) own|work for myself|become (?:a )?freelance)/,
    "work",
    (m) => m[1] as string,
  ],
];
/** `no more golf for me`, `no more coffee for me`: anywhere in a clause, about the speaker. */
const NO_MORE_FOR_ME = new RegExp(`\\bno more (?:(${SUBSTANCE})|(${HOBBY_WORD})) for me\\b`, "i");

/** `text` without a trailing time: "Boeing in 2019" -> "Boeing", "my uncle last year" -> "my uncle". */
function untimed(text: string): string {
  return text.replace(
    /\s+(?:(?:last|this) (?:year|month|week|spring|summer|fall|autumn|winter)|in (?:\d{4}|[A-Z][a-z]+)|(?:a|one|two|three|\d+) (?:years?|months?|weeks?) ago|recently)[.!]?$/,
    "",
  );
}

/** `true` when `rest` says only when (`in April`, `two years ago`, `last summer`): no object. */
function onlyWhen(rest: string): boolean {
  const t = `x ${rest.replace(/[.!\s]+$/, "")}`;
  return untimed(t) === "x" || valueHead(t, "event") === "x";
}

const single = (value: string, text: string) => ({ value, text, multi: false });
const list = (value: string, text: string, keyValue?: string) => ({ value, text, multi: true, ...(keyValue ? { keyValue } : {}) });

/** A stage of life long past as a move's when (`when I was 10`, `as a kid`, `in high school`). */
const LIFE_STAGE_EN =
  /\b(?:when (?:I|we) (?:was|were) (?:\d{1,2}|a (?:kid|child|teenager|baby|toddler)|(?:very )?(?:young|little|small)|in (?:high|middle|primary|elementary|grade) school)|as a (?:kid|child|teenager|baby|toddler)|in (?:my|our) teens|growing up)\b/i;
/** A place moved from before `to` (`Cheney`, `San Jose`): capitalized words. */
const MOVED_PLACE = "([A-Z][\\w'.-]*(?: [A-Z][\\w'.-]*){0,3})";
/**
 * Employers by name: firms people move between (`moved from Deloitte to KPMG`), and names with a
 * firm's word in them (`Acme Labs`, `Baird Capital`, `Hollis Group`).
 */
const EMPLOYER =
  "(?:Deloitte|KPMG|PwC|EY|Ernst & Young|Accenture|McKinsey|Bain|BCG|Google|Meta|Facebook|Amazon|AWS|Microsoft|Apple|Netflix|Stripe|Salesforce|IBM|Oracle|Intel|Nvidia|NVIDIA|Tesla|Uber|Airbnb|Spotify|Shopify|Goldman Sachs|JPMorgan|JP Morgan|Morgan Stanley|Barclays|HSBC|Lloyds|Boeing|Walmart|Costco|Tesco|Sainsbury's|Unilever|Samsung|LG|Naver|Kakao|Coupang|Hyundai)|[A-Z][\\w&'.-]*(?: [A-Z][\\w&'.-]*){0,2} (?:Inc|Ltd|LLC|Group|Bank|Labs|Partners|Consulting|Capital|Technologies|Systems|Solutions|Studios|Software|Analytics)\\b\\.?";
/** Kinds of employer named after `a`/`an` in a job move ({@link JOB_MOVED}). */
const FIRM_KIND = "startup|start-up|agency|firm|consultancy|company|bank|charity|nonprofit|non-profit|hospital|law firm|tech company";
/** A kind of employer after `a`/`an`/`another` ({@link FIRM_KIND}), the whole value: `a startup`, `an ad agency`. */
const FIRM_MOVED_TO = new RegExp(`^(?:a|an|another) (?:[A-Za-z][\\w-]* ){0,2}(?:${FIRM_KIND})$`, "i");
/**
 * A move between employers (`moved from Deloitte to KPMG`, `switched from Google to Meta`,
 * `jumped from Acme Labs to Hollis Group`): a job move, not a home move. The first is an employer
 * ({@link EMPLOYER}); the second too, or a kind of employer after `a`/`an` (`to a startup`, `to an
 * agency`, `to a small law firm`: the kind, no town). Places in the same words stay a home move
 * ({@link MOVED_FROM_TO}).
 */
const JOB_MOVED = new RegExp(
  `^${ADV}(?:have |had |just )?(?:moved|switched|jumped|went|transferred) (?:over )?from (${EMPLOYER}) to (?:(${EMPLOYER})|(?:a|an|another) ((?:[A-Za-z][\\w-]* ){0,2}(?:${FIRM_KIND})))(?=$|[\\s,.;:!?])`,
);
/** A stay's span (`for a week`, `for the summer`, `over Christmas`, `until Friday`): a visit, not a home. */
const STAY_FOR_A_WHILE =
  /\b(?:for (?:a|an|one|two|three|four|five|six|a few|a couple of|the) (?:night|day|week|weekend|month|summer|holidays?|semester|term|conference)s?|over (?:the )?(?:weekend|holidays?|Christmas|Easter|summer)|until (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|next|the end)|on (?:holiday|vacation|a trip|business))\b/i;
/** The place left in a move from one place to another: an ended residence beside the new one. */
const MOVED_FROM_TO = new RegExp(`^${ADV}(?:have |had )?(?:moved|relocated) (?:here |over |back )?from ${MOVED_PLACE} to `, "i");

/** Colours before a thing one has (`a green Subaru`). */
const COLOUR = "red|black|white|silver|gray|grey|blue|green|yellow|orange|brown|beige|tan|gold|maroon|navy|dark \\w+|light \\w+";
/** How a course is given, not what it teaches (`an online course`, `a 12-week program`). */
const COURSE_KIND = "online|evening|night|weekend|part-time|free|short|intro|introductory|new|\\d+-week";
/** What follows `a course in` that is no subject: a time (`in June`, `in the evenings`, `in two weeks`, `in 2027`) or `in person`. */
const NOT_COURSE_SUBJECT = new RegExp(
  `^(?:(?:(?:the|this|next|${NUMBER_WORD})\\s+)?(?:(?:early|late|mid)[-\\s])?(?:${TIME_NOUN}|night)s?|\\d{4}|person)$`,
  "i",
);
const RULES: Rule[] = [
  {
    // A sport kept up by how far one goes each week or day (`I run about 15 miles a week`, `I bike
    // 100k a week`, `swim 40 lengths every morning`): the sport is a hobby; said with no cue word it
    // was a bare statement.
    attribute: "hobby",
    re: /^(?:still |usually |also )?(run|bike|cycle|swim|walk|hike|row|ride)\s+(?:about |around |roughly |like |over |up to )?(?:\d[\d,.]*|a|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty)\s*(?:miles?|mi|km|k|kilometres?|kilometers?|laps?|lengths?)\s+(?:a|per|each|every)\s+(?:week|day|morning|month)\b(?!\s+(?:to|into)\s+(?:and from\s+)?(?:work|school|the office|uni|college|campus|my job)\b)/i,
    build: (m, s) => list((m[1] as string).toLowerCase(), `${s.label}'s hobby is to ${(m[1] as string).toLowerCase()} (hobby)`),
  },
  {
    // A bike or a scooter one gets to work or school on (`I bike to work`, `I cycle 15 km to work each
    // day`, `I ride my e-bike to campus`, `I bike everywhere`): one's own, as Korean `자전거로 출퇴근해요`
    // is; a commute is no hobby. `I ride 20 km a day to work` names no vehicle: nothing.
    attribute: "belonging",
    re: /^(?:still |usually |also |now |just )?(?:(bike|cycle)|ride (?:my|an?) (bike|bicycle|e-?bike|scooter|motorbike|motorcycle|moped))\b(?:\s+(?:about |around |roughly )?(?:\d[\d,.]*|a|one|two|three|four|five|ten|twenty)\s*(?:miles?|mi|km|k|kilometres?|kilometers?))?(?:\s+(?:a|per|each|every)\s+day)?\s+(?:to\s+(?:and from\s+)?(?:work|school|the office|uni|college|campus|my job)|everywhere)\b/i,
    build: (m, s) => {
      const v = m[2] === undefined ? "bike" : (m[2] as string).toLowerCase();
      return list(v, `${s.label} gets about on a ${v} (belongings)`, v);
    },
  },
  {
    // A wedding to come (`we're getting married in October`, `I'm getting married next year`): a plan.
    attribute: "plan",
    re: /^(?:am|are) getting married\b/i,
    build: (_m, s) => list("getting married", `${s.label} is getting married (plan)`),
    we: true,
  },
  {
    // What one drinks instead of what one does not (`I don't drink coffee at all, just Mountain
    // Dew`, `never drink beer, only cider`): the drink kept is liked; the one refused is no fact;
    // `just kidding`, `just saying` say how it was said.
    attribute: "likes",
    re: /^(?:do not|never) drink [^,;:!?]+,\s*(?:just|only|mostly)\s+(?!(?:kidding|joking|saying|sayin|curious|wondering)\b)([^,;:!?]+)/i,
    build: (m, s) => {
      const v = valueHead(cut(m[1] as string, 4), "activity");
      return FILLER_VALUES.test(v) || v.length < 2
        ? undefined
        : { ...list(v, `${s.label} drinks ${v} (likes)`), keyAttribute: "preference" };
    },
  },
  {
    // What one has instead of what one does not (`I don't own a smartphone, just a flip phone`).
    attribute: "belonging",
    re: /^(?:do not|did not) (?:own|have|use) (?:an?|any) [^,;:!?]+,\s*(?:just|only)\s+(?:an?|my)\s+([^,;:!?]+)/i,
    build: (m, s) => {
      const v = valueHead(cut(m[1] as string, 4), "event");
      return list(v, `${s.label} has ${v}, not ${s.predicate.replace(/^(?:do|did) not \w+ /i, "").replace(/,.*$/, "")} (belongings)`, v);
    },
  },
  {
    // A team or a band one follows (`I'm a massive Man City fan`, `a lifelong Arsenal supporter`): the name, capitalized.
    attribute: "likes",
    re: /^am (?:an? )?(?:(?:massive|big|huge|die-?hard|lifelong|loyal|proper|long-time|longtime) )?([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2}) (?:fan|supporter)\b/,
    build: (m, s) => ({ ...list(m[1] as string, `${s.label} is a fan of ${m[1]} (likes)`), keyAttribute: "preference" }),
  },
  {
    attribute: "name",
    re: /^(?:am called|go by) ([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)/,
    build: (m, s) => single(m[1] as string, `${s.label}'s name is ${m[1]}`),
  },
  {
    // "I'm Mina." / "I'm Mina, a nurse from Busan": a capitalized name alone after "am", not a
    // nationality, faith or other capitalized word that describes rather than names.
    attribute: "name",
    re: /^am ([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)(?=\s*(?:[,.!]|$|\s+(?:and|from|by the way)\b))/,
    build: (m, s) => (NOT_A_NAME.test(m[1] as string) ? undefined : single(m[1] as string, `${s.label}'s name is ${m[1]}`)),
  },
  {
    attribute: "age",
    re: new RegExp(
      `^${ADV}(?:am|turned|just turned) (\\d{1,3})(?: years? old)?\\b(?! (?:minutes|hours|days|weeks|months|times|percent|%))`,
      "i",
    ),
    build: (m, s) => single(m[1] as string, `${s.label} is ${m[1]} years old`),
  },
  {
    // An age in words (`I'm seventy-one`, `just turned forty`): a tens word, with its unit.
    attribute: "age",
    re: new RegExp(
      `^${ADV}(?:am|turned|just turned) ((?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)(?: years? old)?(?![\\w-]| (?:minutes|hours|days|weeks|months|times|percent|bucks|dollars))`,
      "i",
    ),
    build: (m, s) => single((m[1] as string).toLowerCase(), `${s.label} is ${(m[1] as string).toLowerCase()} years old`),
  },
  {
    // An age in words below twenty (`my daughter's seven`, `he just turned twelve`): only as the
    // clause's end or with `years old` (`I'm one happy camper`, `two weeks late` are none).
    attribute: "age",
    re: new RegExp(
      `^${ADV}(?:am|turned|just turned) (${AGE_WORD})(?:(?: years? old)|(?=\\s*(?:[,.!;)]|$)|\\s+(?:and|now|today|yesterday|last|this|lol|haha|btw|already)\\b))`,
      "i",
    ),
    build: (m, s) => single((m[1] as string).toLowerCase(), `${s.label} is ${(m[1] as string).toLowerCase()} years old`),
  },
  {
    // A move between employers (`moved from Deloitte to KPMG`): the employer now ({@link JOB_MOVED});
    // the one left is an ended job beside it.
    attribute: "work",
    re: JOB_MOVED,
    build: (m, s) => {
      const to = (m[2] ?? m[3]) as string;
      return single(to, `${s.label} moved from ${m[1]} to ${m[2] ?? `a ${to}`} (job)`);
    },
  },
  {
    attribute: "residence",
    re: new RegExp(`^${ADV}(?:have |had )?(?:moved|relocated)(?: back)? (?:to|into) ${VAL}`, "i"),
    build: (m, s) => {
      // A move at a stage of life long past (`when I was 10`, `as a kid`) says no home now.
      if (LIFE_STAGE_EN.test(s.predicate)) return undefined;
      const v = place(m[1] as string);
      return single(valueHead(v, "place"), `${s.label} moved to ${v} and lives there`);
    },
    // `we moved to Leeds`, `we live in Didsbury`: the household's home is the speaker's.
    we: true,
  },
  {
    attribute: "residence",
    re: new RegExp(
      `^${ADV}(?:live|lives|am living|have been living|have lived|reside|am based|am staying) (?:(?:on (?:my|her|his|their|our) own|alone|by (?:myself|herself|himself|themselves)) )?(?:(?:out|up|down|over|right) )?in ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      // A stay for a while (`I'm staying in Lisbon for a week`, `over the holidays`) is no home, as
      // Korean `방학 동안 부산에서 지내요` is none.
      if (/^am staying\b/i.test(s.predicate.replace(new RegExp(`^${ADV}`, "i"), "")) && STAY_FOR_A_WHILE.test(s.predicate))
        return undefined;
      const v = place(m[1] as string);
      return single(valueHead(v, "place"), `${s.label} lives in ${v}`);
    },
    we: true,
  },
  {
    // A move from one place to another (`we moved from Cheney to Spokane Valley`): home is where
    // one moved to; the place left is an ended residence ({@link MOVED_FROM_TO}), not a hometown.
    attribute: "residence",
    re: new RegExp(`^${ADV}(?:have |had )?(?:moved|relocated) (?:here |over |back )?from ${MOVED_PLACE} to ${VAL}`, "i"),
    build: (m, s) => {
      const v = place(m[2] as string);
      // A kind of employer moved to (`from Boston to a startup`) is no home (review66).
      if (FIRM_MOVED_TO.test(v)) return undefined;
      return single(valueHead(v, "place"), `${s.label} moved from ${m[1]} to ${v} and lives there`);
    },
    we: true,
  },
  {
    attribute: "hometown",
    re: new RegExp(`^${ADV}(?:have |had )?moved (?:here |away |over )?from ${VAL}`, "i"),
    build: (m, s) => {
      const v = cut(m[1] as string, 5);
      return single(valueHead(v, "place"), `${s.label} moved from ${v}, their home country or town`);
    },
  },
  {
    attribute: "hometown",
    re: new RegExp(`^${ADV}(?:am (?:originally )?from|grew up in|was born in) ${VAL}`, "i"),
    build: (m, s) => {
      const v = cut(m[1] as string, 5);
      return single(valueHead(v, "place"), `${s.label} is from ${v} (hometown)`);
    },
  },
  {
    attribute: "work",
    re: new RegExp(`^${ADV}(?:quit|left|lost) my job\\b|^${ADV}(?:got fired|got laid off|am unemployed|am between jobs)`, "i"),
    build: (_m, s) => single("no job", `${s.label} no longer has a job (${s.predicate.replace(/[.\s]+$/, "")})`),
  },
  {
    attribute: "work",
    re: new RegExp(
      `^${ADV}(?:work|works|am working|have been working|have worked|started working|got a (?:new )?job|started a (?:new )?job|have a (?:new )?job)(?: (?:nights|days|shifts|night shifts|weekends|part[- ]time|full[- ]time|remotely|the (?:front desk|register|till|counter|door|bar|(?:[\\w-]+ )?shift)))? (as an?|as|at|for|in) ${VAL}`,
      "i",
    ),
    // The value is the job or the workplace ("Naver", "nurse"); the preposition stays in the text.
    build: (m, s) => {
      const v = cut(m[2] as string, 6);
      return single(valueHead(v, "work"), `${s.label} works ${(m[1] as string).toLowerCase()} ${v} (job)`);
    },
  },
  {
    // A shift done at a place (`I do the night shift at a care home`, `used to do the early shift at
    // a bakery`): the place worked at.
    attribute: "work",
    re: new RegExp(
      `^${ADV}(?:do|does|did|pull|am doing|have done|cover) (?:the |an? |my )?(?:(?:early|late|night|morning|evening|weekend|double|overnight|graveyard|day|breakfast|lunch) )?shifts? at ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      return single(valueHead(v, "work"), `${s.label} works shifts at ${v} (job)`);
    },
  },
  {
    // A group one sings or plays in (`I sing in the Hexham choir`, `I play in a brass band`): the
    // pastime is the group's kind, not the words after `in`.
    attribute: "hobby",
    re: /^(?:also |still )?(?:sing|sings|play|plays|am|perform) in (?:the |a |an |our |my |a local |the local )?(?:[A-Z][\w'-]* )*((?:[a-z][\w-]* ){0,2}(?:choir|band|orchestra|ensemble))\b/,
    build: (m, s) => list(m[1] as string, `${s.label} sings or plays in a ${m[1]} (hobby)`),
  },
  {
    // A student of a degree at a school (`a second-year PhD student in chemistry at UIUC`): the
    // school (what is studied comes from {@link SIDE_FACTS}).
    attribute: "school",
    re: new RegExp(
      `^${ADV}am (?:an?|now an?) (?:[\\w-]+ )?(?:PhD|doctoral|masters?|master's|MSc|MA|MBA|grad(?:uate)?|undergrad(?:uate)?|postgrad(?:uate)?) student(?: in ([a-z][a-z ]*?))? (?:at|in) ${NAMED_SCHOOL}`,
    ),
    build: (m, s) => single(m[2] as string, `${s.label} goes to ${m[2]} (school)`),
  },
  {
    // A year of study at a school (`I'm a junior at UC Davis`): the school, before the job rule reads `student`.
    attribute: "school",
    re: new RegExp(
      `^${ADV}am (?:an?|in my) (?:freshman|sophomore|junior|senior|first[- ]year|second[- ]year|third[- ]year|final[- ]year|grad(?:uate)? student|(?:pre-?med |nursing |law |med |college |exchange )?student)(?: year)? (?:at|in) ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      // What is studied there is no part of the school (`at Leeds doing law`: {@link SIDE_FACTS}).
      const v = cut((m[1] as string).replace(/\s+(?:doing|studying|reading)\s.*$/i, ""), 6);
      return single(valueHead(v, "place"), `${s.label} goes to ${v} (school)`);
    },
  },
  {
    // A degree being done (`I'm doing an MSc in data science part-time at Salford`, `getting my
    // masters in education`): what is studied (the school from {@link SIDE_FACTS}).
    attribute: "study",
    re: new RegExp(
      `^${ADV}(?:am (?:doing|getting|taking|finishing|starting|working on|halfway through)|have started|started) (?:an?|my|the) (?:(?:part-time|online|full-time|evening|distance) )?${DEGREE}(?: degree)? in ([a-z][a-z ]*?)(?= (?:at|part-time|online|full-time|from|with|through|and|but|so|since)\\b|[,.!]|$)`,
      "i",
    ),
    build: (m, s) => single(m[1] as string, `${s.label} studies ${m[1]} (study)`),
  },
  {
    // Being at a school doing a subject (`my son's at Leeds Beckett doing sports science`): the
    // school; not `I'm at Tesco` alone, nor at work (`at Google doing backend`: no school word, no child).
    attribute: "school",
    re: new RegExp(`^am (?:now )?at ${NAMED_SCHOOL} (?:doing|studying|reading) ([a-z][a-z ]*)`),
    build: (m, s) =>
      SCHOOL_AGE_REL.test(s.id) || /(?:universit|college|school|academy|uni\b|institute|poly)/i.test(m[1] as string)
        ? single(m[1] as string, `${s.label} goes to ${m[1]} (school)`)
        : undefined,
  },
  {
    // Starting at a school (`my daughter just started at St Mary's primary`, `started kindergarten
    // at Indianola`, `is starting at Stanford law`): a child's start is at a school; anyone else's
    // only with a school's word in the name or a level before it (`I just started at Google` is a job).
    attribute: "school",
    re: new RegExp(
      `^${ADV}(?:started|am starting|have started|start|starts|will start|am going to start)(?: ${ADV})?(?: (kindergarten|school|preschool|pre-?k|nursery|reception|college|uni|university|(?:middle|high|elementary|primary|law|med|grad) school|[Yy]ear \\d+|\\d+(?:st|nd|rd|th) grade|(?:first|second|third|fourth|fifth|sixth|seventh|eighth) grade))? at ${NAMED_SCHOOL}`,
    ),
    build: (m, s) =>
      m[1] !== undefined ||
      SCHOOL_AGE_REL.test(s.id) ||
      /(?:universit|college|school|academy|primary|elementary|middle|high|law|med|medical|uni\b|institute)/i.test(m[2] as string)
        ? single(m[2] as string, `${s.label} goes to ${m[2]} (school)`)
        : undefined,
  },
  {
    // A child starting a school year or level with no school named (`my nephew just started Year 3`,
    // `she started kindergarten`, `my son is starting first grade`): the year or level.
    attribute: "school",
    re: new RegExp(
      `^${ADV}(?:started|am starting|has started|have started|starts|will start)(?: ${ADV})? ((?:kindergarten|preschool|pre-?k|nursery|reception|[Yy]ear \\d{1,2}|\\d{1,2}(?:st|nd|rd|th) grade|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) grade|(?:middle|high|elementary|primary) school))(?= *(?:[,.!?;]|$| (?:this|last|in|and|so|but|today|yesterday)\\b))`,
    ),
    build: (m, s) => (SCHOOL_AGE_REL.test(s.id) ? single(m[1] as string, `${s.label} is in ${m[1]} (school)`) : undefined),
  },
  {
    // A school year or level (`my son's in 2nd grade`, `I'm in high school`, `my niece is in year 8`).
    attribute: "school",
    re: /^am (?:now )?in (?:the )?([Yy]ear \d{1,2}\b(?! of\b)|\d{1,2}(?:st|nd|rd|th) grade|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) grade|kindergarten|pre-?k|preschool|daycare|(?:middle|high|elementary|primary|grade|nursing|law|med|medical|grad|graduate) school)\b/i,
    build: (m, s) => single(m[1] as string, `${s.label} is in ${m[1]} (school)`),
  },
  {
    // A school gone to for a degree (`I went to Penn State for undergrad`), not a visit.
    attribute: "school",
    re: new RegExp(
      `^${ADV}(?:went to|go to|attended) ([A-Z][\\w&'.-]*(?: (?:of |for |and )?[A-Z][\\w&'.-]*)*) for (?:my )?(?:undergrad|college|grad school|university|uni|my degree|school|a degree|law school|med school|nursing school|high school)\\b`,
    ),
    build: (m, s) => single(m[1] as string, `${s.label} went to ${m[1]} (school)`),
  },
  {
    // Owning or running a business is a job (`I own a little coffee shop in Portland`), not a belonging.
    attribute: "work",
    re: new RegExp(
      `^${ADV}(?:own|run|co-own|manage) (?:an?|my own|our own|the|a small|a little) ((?:[\\w-]+ ){0,2}(?:${BUSINESS}))\\b`,
      "i",
    ),
    build: (m, s) => single(valueHead(m[1] as string, "work"), `${s.label} owns and runs ${m[1]} (job)`),
  },
  {
    attribute: "work",
    re: new RegExp(`^${ADV}am (?:now )?(?:an?|the) ((?:[\\w-]+ ){0,2}(?:${JOB}))s?\\b`, "i"),
    build: (m, s) => single(m[1] as string, `${s.label} is a ${m[1]} (job)`),
  },
  {
    // A negated status: `I'm not married` (not `not married anymore`, an ended form).
    attribute: "marital",
    re: /^(?:am|are) not (?:yet )?married\b(?!\s+any ?more)/i,
    build: (_m, s) => single("not married", `${s.label} is not married (relationship status)`),
    // `we're not married`, `Jen and I aren't married`: the speaker is not.
    we: true,
  },
  { attribute: "work", re: /^am retired\b/i, build: (_m, s) => single("retired", `${s.label} is retired (job)`) },
  {
    // Serving in the forces (`he's in the army`, `I'm in the Navy`): the service is the job.
    attribute: "work",
    re: /^am (?:now |still )?in the (army|navy|air force|marines|military|coast guard|national guard|reserves|raf|royal navy)\b/i,
    build: (m, s) => single((m[1] as string).toLowerCase(), `${s.label} is in the ${(m[1] as string).toLowerCase()} (job)`),
  },
  {
    // A workplace by where one is, with a role, a team or a span (`I'm at Google as a PM`, `I'm
    // at Stripe now, on the payments team`, `I'm at Deloitte these days`, `at Kaiser full-time`); not
    // where one is at the moment (`I'm at Starbucks now`, `at Costco right now`: a bare `now` says
    // no more than that) nor a place in lower case (`at the gym`).
    attribute: "work",
    re: /^am (?:now )?at ([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})(?: now,?)?(?: (?:these days|full[- ]time|part[- ]time)\b| (?:as an? [\w -]+|(?:on|in) the [\w -]*(?:team|department|dept)\b))/,
    build: (m, s) => single(m[1] as string, `${s.label} works at ${m[1]} (job)`),
  },
  {
    attribute: "study",
    re: new RegExp(`^${ADV}(?:study|am studying|major in|am majoring in|majored in|studied) (?:(at) )?${VAL}`, "i"),
    // The value is what or where ("Seoul National University"); "at" stays in the text.
    build: (m, s) => {
      const v = cut(m[2] as string, 6);
      return single(valueHead(v, "work"), `${s.label} studies ${m[1] ? "at " : ""}${v} (school)`);
    },
  },
  {
    attribute: "school",
    re: new RegExp(
      `^${ADV}(?:go to|attend|am attending|graduated from|am enrolled (?:at|in)|am a student at) ([^,;:!?]*(?:university|college|school|academy|institute|uni)\\b[^,;:!?]*)`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      // A school one graduated from is no longer gone to (`graduated from Seoul National University`).
      const verb = /\bgraduated from\s*$/i.test(m[0].slice(0, m[0].length - (m[1] as string).length)) ? "graduated from" : "goes to";
      return single(valueHead(v, "place"), `${s.label} ${verb} ${v} (school)`);
    },
  },
  {
    // A school named after `graduated from` (`graduated from Stanford`, `from Seoul National
    // University`): a proper name there is a school, with or without the word "university".
    attribute: "school",
    re: new RegExp(`^${ADV}graduated from ((?:the )?[A-Z][\\w&'.-]*(?: (?:of |for |and )?[A-Z][\\w&'.-]*)*)`),
    build: (m, s) => single(m[1] as string, `${s.label} graduated from ${m[1]} (school)`),
  },
  {
    // A wedding, an engagement or a divorce that happened (`we got married in 2022`, `we got
    // engaged over the 4th`, `I got divorced in 2019`): the status now; not one to come (`getting
    // married`, a plan).
    attribute: "marital",
    // `was engaged` or `was divorced` may be long over (`I was engaged once`): only `got` or `have been`.
    re: new RegExp(
      `^${ADV}(?:(?:got|have got|have been|were|was) ${ADV}(married)|(?:got|have got|have been) ${ADV}(engaged|divorced))\\b`,
      "i",
    ),
    build: (m, s) => {
      const v = ((m[1] ?? m[2]) as string).toLowerCase();
      return single(v, `${s.label} is ${v} (relationship status)`);
    },
    we: true,
  },
  {
    attribute: "marital",
    // A widow by the noun or the past (`I'm a widow`, `I've been a widower since 2019`, `I was widowed young`).
    // Separated from something other than a spouse is no status (`separated from my team`, `from the main office`).
    re: /^(?:am (?:now )?|have been |was (?=widowed\b))(?:an? (?=widow))?(married|single|divorced|engaged|widowed|separated(?! from (?!(?:my|our) (?:wife|husband|spouse|partner)\b))|widow|widower)\b(?!['’]s)/i,
    build: (m, s) => single((m[1] as string).toLowerCase(), `${s.label} is ${(m[1] as string).toLowerCase()} (relationship status)`),
  },
  {
    attribute: "pet",
    re: new RegExp(
      `^${ADV}(?:have ${ADV})?(?:have|have got|got|adopted|own|am getting|rescued) (?:an?|another|two|three|\\d+|a new|some) (?:${PET_MOOD} ){0,2}((?:${PET_KIND_WORD} ){0,2}(?:${PET}))s?(?: (?:named|called) ([A-Z][\\w'-]+))?`,
      "i",
    ),
    build: (m, s) => {
      const kind = (m[1] as string).toLowerCase();
      return list(
        m[2] ? `${kind} named ${m[2]}` : kind,
        `${s.label} has a pet ${kind}${m[2] ? ` named ${m[2]}` : ""}`,
        (m[2] ?? kind) as string,
      );
    },
    we: true,
  },
  {
    attribute: "family",
    re: new RegExp(
      `^${ADV}(?:have|have got|'ve got|got) (an?|one|two|three|four|five|\\d+) (?:(older|younger|elder|big|little|baby|twin|teenage|adult|grown[- ]up|step|half) )?(sons?|daughters?|kids?|children|brothers?|sisters?|siblings?|grandchildren|grandkids)\\b(?<!^${ADV}got .*)|^${ADV}got (an?|one|two|three|four|five|\\d+) (?:(older|younger|elder|big|little|baby|twin|teenage|adult|grown[- ]up|step|half) )?(sons?|daughters?|kids?|children|brothers?|sisters?|siblings?|grandchildren|grandkids)\\b(?! (?:an?|the|some|something|anything|nothing|one|two|three|\\d+|his|her|their|my|our|presents?|gifts?|flowers|tickets?|cards?|toys?|books?|new)\\b)`,
      "i",
    ),
    // An age or kind between count and relative (`an older sister`, `two little boys` not: boys are no relatives).
    // `got` with a second object after the relative (`I got a little brother a present`) is a gift
    // bought for someone: no relative had.
    build: (m, s) => {
      const [count, kind, rel] = m[1] === undefined ? [m[4], m[5], m[6]] : [m[1], m[2], m[3]];
      const v = `${count} ${kind ? `${kind} ` : ""}${rel}`;
      return list(v, `${s.label} has ${v} (family)`, (rel as string).replace(/s$/, ""));
    },
    // `we have 2 kids`: the couple's children are the speaker's.
    we: true,
  },
  {
    attribute: "health",
    re: new RegExp(`^${ADV}am allergic to ${VAL}`, "i"),
    build: (m, s) => {
      const v = cut(m[1] as string, 5);
      return list(`allergic to ${v}`, `${s.label} is allergic to ${v} (health, allergy)`);
    },
  },
  {
    attribute: "health",
    re: /^(?:am|have been) (vegetarian|vegan|pescatarian|lactose intolerant|coeliac|celiac|pregnant|diabetic|gluten[- ]free|sober|deaf|blind|colou?rblind|in recovery)\b/i,
    build: (m, s) => list(m[1] as string, `${s.label} is ${m[1]} (health, diet)`),
  },
  {
    attribute: "health",
    re: new RegExp(
      `^${ADV}(?:have|have got|got|was diagnosed with|suffer from|am suffering from|am recovering from|am dealing with) (?:(?:early|mild|severe|early[- ]onset|late[- ]stage|chronic) )?(asthma|dementia|alzheimer'?s|parkinson'?s|epilepsy|copd|lupus|crohn'?s|celiac|coeliac|gout|sleep apnea|type (?:1|2|one|two) diabetes|diabetes|adhd|autism|anxiety|depression|insomnia|migraines?|arthritis|cancer|covid|high blood pressure|an? (?:bad |injured )?(?:back|knee|ankle|shoulder)(?: injury)?|an? [\\w ]*allergy|a cold|the flu|ptsd|an? (?:slipped|herniated|bulging|prolapsed|ruptured) disc|sciatica|(?:(?!(?:a|an|the|this|that|some|my) )[a-z][\\w'-]* ){1,2}syndrome)`,
      "i",
    ),
    build: (m, s) => list(m[1] as string, `${s.label} has ${m[1]} (health)`),
  },
  {
    // An illness that comes on at once (`my dad had a stroke in March`, `I had a heart attack two
    // years ago`): a health fact, not an event; what one had that is no illness (`had a baby`, `had
    // a great time`) stays an event below.
    attribute: "health",
    re: /^(?:had|suffered|survived|has had|have had) (?:an? |two |three |several |multiple )?(?:mild |minor |major |massive |small |bad |severe )?(stroke|mini[- ]stroke|heart attack|seizure|brain bleed|brain hemorrhage|aneurysm|pulmonary embolism|blood clot|concussion|tia)s?\b/i,
    build: (m, s) => list((m[1] as string).toLowerCase(), `${s.label} had ${(m[1] as string).toLowerCase()} (health)`),
  },
  {
    // An illness or an operation one had (`I had a kidney stone in February`, `had ACL surgery two
    // years ago`): a health fact, not an event.
    attribute: "health",
    re: /^(?:had|has had|have had|got|was diagnosed with) (?:an? |two |three )?((?:kidney |gall ?)stones?|appendicitis|pneumonia|shingles|sepsis|glandular fever|mono|(?:(?!a\b|an\b|my\b|the\b)[A-Za-z-]+ ){0,2}(?:surgery|operation|transplant))\b/i,
    build: (m, s) => list(m[1] as string, `${s.label} had ${m[1]} (health)`),
  },
  {
    // An injury by its verb and the body part (`sprained my wrist on the ice` -> `sprained wrist`);
    // where or how it happened is no part of it.
    attribute: "health",
    re: new RegExp(`^${ADV}(broke|hurt|injured|sprained|twisted|tore|fractured|dislocated|pulled) my ${VAL}`, "i"),
    build: (m, s) => {
      const part = cut(m[2] as string, 4).replace(
        /\s+(?:on|at|in|while|when|during|playing|moving|doing|from|after|trying|lifting|carrying|falling|running|skiing|at)\b.*$/i,
        "",
      );
      // Only a body part is an injury: `broke my phone`, `pulled my car over`, `hurt my feelings` are not.
      if (!ENGLISH_BODY_PART.test(part)) return undefined;
      const verb = (m[1] as string).toLowerCase();
      return list(`${verb} ${part}`, `${s.label} ${verb} their ${cut(m[2] as string, 4)} (health)`);
    },
  },
  {
    // What one cannot or must not take or do (`can't have dairy`, `not allowed to drive`); `do not`
    // and `never` only before eating: `I don't have a dog` says what one lacks, and `I don't drink
    // coffee` / `I never drink` a habit, not a limit (no rule: "cannot drink" would misstate it).
    attribute: "constraint",
    re: new RegExp(
      `^${ADV}(?:(?:cannot|can not|must not|should not|am not allowed to) (eat|drink|have|fly|drive)|(?:do not|never) (eat)) ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = `${m[1] ?? m[2]} ${cut(m[3] as string, 5)}`;
      return list(`cannot ${v}`, `${s.label} cannot ${v} (health, diet constraint)`);
    },
  },
  {
    attribute: "dislikes",
    re: new RegExp(
      // Not a verb's infinitive (`I hate to say it`, `I can't bear to leave`): a way of speaking, no dislike.
      `^${ADV}(?:hate|dislike|cannot stand|cannot abide|cannot bear|loathe|detest|do not like|do not enjoy|am not a fan of|am not into|do not really like) (?!to )${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      return FILLER_VALUES.test(v)
        ? undefined
        : { ...list(valueHead(v, "activity"), `${s.label} dislikes ${v}`, v), keyAttribute: "preference" };
    },
    we: true,
  },
  {
    // The one liked best (`I like Splendor best`, `of all of them I love peaches the most`): the
    // favourite, as Korean `제일 좋아해요` is.
    attribute: "favorite",
    re: new RegExp(
      `^${ADV}(?:love|loves|like|likes|enjoy|enjoys) ([^,;:!?]{2,40}?) (?:(?:the )?best|the most)(?=$|[,;:!?.]|\\s+(?:of all|by far|though|honestly)\\b)`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      return FILLER_VALUES.test(v) || /^(?:it|that|this|them|him|her|you|one|those|these|to\b.*|being\b.*)$/i.test(v)
        ? undefined
        : list(v, `${s.label} likes ${v} best (likes)`);
    },
  },
  {
    attribute: "likes",
    re: new RegExp(
      `^${ADV}(?:love|loves|like|likes|enjoy|enjoys|adore|am ${ADV}(?:into|(?:a )?(?:big |huge )?fan of|passionate about|obsessed with|crazy about|mad about(?! (?:my|his|her|their|our|your|the|it|this|that|him|them|what|how|being|having)\\b)|keen on|interested in)) ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 8);
      const head = valueHead(v, "activity");
      return FILLER_VALUES.test(v) || v.length < 2
        ? undefined
        : { ...list(head, `${sentence(s)} (likes)`), keyValue: v, keyAttribute: "preference" };
    },
    we: true,
  },
  {
    // A car one has by its make (`I have a green 2021 Subaru Crosstrek`, `we own an old Ford
    // Ranger`, `i have a 2015 toyota camry`): the make and the model after it, without the colour or
    // year; a make alone is no model (`a Ford`, still a car).
    attribute: "belonging",
    re: new RegExp(
      `^${ADV}(?:have|have got|own|still have) (?:an?|my|our) (?:(?:old|new|used|little|beat[- ]up|${COLOUR}) ){0,2}(?:(?:19|20)\\d\\d )?(${CAR_MAKE})(?: (?!(?:and|but|so|that|which|with|for|in|at|on|or)\\b)([A-Za-z0-9][\\w-]*))?\\b`,
      "i",
    ),
    build: (m, s) => {
      const [make, model] = [m[1] as string, m[2]];
      // A lowercase word after a capitalized make is a noun it qualifies (`a Ford meeting`), unless a model.
      if (model !== undefined && /^[a-z]/.test(model) && /^[A-Z]/.test(make) && !CAR_MAKE_ALONE.test(model)) return undefined;
      const v = model === undefined ? make : `${make} ${model}`;
      return list(v, `${s.label} has a ${v} (belongings)`);
    },
    we: true,
  },
  {
    attribute: "belonging",
    re: new RegExp(`^${ADV}(?:bought|purchased|own|got (?:a|an|my|some) new|have (?:a|an) new|got myself) ${VAL}`, "i"),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      return list(valueHead(v, "event"), `${sentence(s)} (belongings)`, v);
    },
    we: true,
  },
  {
    // A phone, a laptop or a tablet by its make (`I use an iPhone`, `I've got a Pixel 8 now`, `I'm
    // on a MacBook Air`): the make and the model after it, capitalised or a number. Not a make that
    // qualifies a noun after it (`a Surface meeting`).
    attribute: "belonging",
    re: new RegExp(
      `^${ADV}(?:use|uses|have|have got|own|am on) (?:an?|my) (?:(?:old|new|used|cheap|refurbished|${COLOUR}) ){0,2}(${DEVICE_MAKE})((?: (?:[A-Z0-9][\\w+]*|Pro|Max|Mini|Air|Plus|Ultra|mini|Fold|Flip)){0,3})\\b(?! (?!(?:for|at|to|and|or|but|now|too|as|with|from|since|because|so|which|that|in|on|all|mostly|these|lately)\\b)[a-z])`,
    ),
    build: (m, s) => {
      const v = `${m[1]}${m[2] ?? ""}`.trim();
      return list(v, `${s.label} uses a ${v} (belongings)`);
    },
  },
  {
    // A car by its model (`I drive a 2019 Prius`): the capitalized name, without the year or price.
    attribute: "belonging",
    re: new RegExp(
      `^${ADV}drive (?:an?|my|an old|a used|a new) (?:(?:old|new|used|little|red|black|white|silver|gray|grey|blue) )?(?:(?:19|20)\\d\\d )?([A-Z][\\w-]*(?: (?!I\\b)[A-Z0-9][\\w-]*)?)`,
    ),
    build: (m, s) => list(m[1] as string, `${s.label} drives a ${m[1]} (belongings)`),
  },
  {
    // What one sells on a marketplace is one's trade (`I sell pottery on Etsy`, `we sell hand-dyed
    // yarn through Etsy`): the goods; not a thing sold once (`sold my bike on eBay`: past).
    attribute: "work",
    re: new RegExp(
      `^${ADV}(?:sell|make and sell|have been selling|am selling) ([^,;:!?]+?) (?:on|through|via) (?:Etsy|eBay|Depop|Vinted|Amazon|Shopify|Instagram|TikTok Shop|Facebook Marketplace|Not On The High Street)\\b`,
      "i",
    ),
    build: (m, s) => {
      const v = (m[1] as string).replace(/^(?:my|our|some)\s+/i, "");
      return /^(?:it|them|stuff|things|everything|old stuff|clothes i do not wear)\b/i.test(v)
        ? undefined
        : single(v, `${s.label} sells ${v} (job)`);
    },
    we: true,
  },
  {
    // An activity kept up by how often (`I run every morning`, `I knit every night`, `I swim twice a
    // week`): the activity; not work or chores (`I work every day`, `cook every night` is a chore too
    // often to tell: left out).
    attribute: "hobby",
    re: /^(?:also |still )?(run|jog|swim|knit|crochet|sew|paint|draw|cycle|bike|hike|climb|boulder|surf|skate|ski|dance|sing|bake|garden|lift|box|row|meditate|journal|skateboard)(?:s|es)?\b(?: [^,;:!?]*?)? (?:every (?:morning|night|evening|day|weekend|week|sunday|monday|tuesday|wednesday|thursday|friday|saturday)|(?:once|twice|three times|four times|\d+ times|\d+x) a (?:week|day|month))\b/i,
    build: (m, s) => list((m[1] as string).toLowerCase(), `${sentence(s)} (hobby)`),
    we: true,
  },
  {
    // An outing kept up (`we go camping most weekends`, `he just goes fishing every day`): the
    // activity; not one to come (`going fishing tomorrow` is a plan, `am going`).
    attribute: "hobby",
    re: new RegExp(
      `^${ADV}(?:go|goes) (camping|fishing|hunting|hiking|skiing|snowboarding|surfing|climbing|bouldering|kayaking|canoeing|sailing|swimming|running|jogging|cycling|biking|bowling|skating|dancing|birding|birdwatching|backpacking|rafting|diving|scuba diving|snorkeling|golfing|paddleboarding)\\b`,
      "i",
    ),
    build: (m, s) => list((m[1] as string).toLowerCase(), `${sentence(s)} (hobby)`),
    we: true,
  },
  {
    // Volunteering is kept up like a hobby (`I volunteer at the public library every Tuesday`).
    attribute: "hobby",
    re: new RegExp(`^${ADV}(?:volunteer|have been volunteering|am volunteering) (at|for|with|in) ${VAL}`, "i"),
    build: (m, s) => {
      const v = `volunteering ${m[1]} ${valueHead(cut(m[2] as string, 6), "event")}`;
      return list(v, `${s.label} volunteers ${m[1]} ${cut(m[2] as string, 6)} (hobby)`, v);
    },
  },
  {
    // A course one is taking now (`I'm taking an online CART captioning course at night`, `I've been
    // doing a night class in accounting`): what it teaches is studied; `am taking` alone is a plan
    // only with a time to come (`am taking a trip`), which the plan rule below reads.
    attribute: "study",
    re: new RegExp(
      `^${ADV}(?:am|have ${ADV}been) ${ADV}(?:taking|doing|enrolled in) (?:an?|some|my|the|this) (?:(?:${COURSE_KIND}) )*(?:([A-Za-z][\\w'&-]*(?: [A-Za-z][\\w'&-]*){0,3}?) (?:course|class|classes|program|certificate)(?! in\\b)|(?:course|class|classes|program|certificate) in ([^,;:!?]+?))(?= (?:at|on|in|with|from|through|twice|every|and|but|so|because)\\b|[,.!]|$)`,
      "i",
    ),
    build: (m, s) => {
      const v = ((m[1] ?? m[2]) as string).trim();
      // Only the kind of course said (`an online course`): nothing it teaches.
      return FILLER_VALUES.test(v) || v.length < 2 || new RegExp(`^(?:${COURSE_KIND})$`, "i").test(v) || NOT_COURSE_SUBJECT.test(v)
        ? undefined
        : single(v, `${s.label} is taking a course in ${v} (study)`);
    },
  },
  {
    attribute: "plan",
    re: new RegExp(
      `^${ADV}(?:am (?:going|planning|about|hoping|scheduled|preparing|getting ready) to|am planning on|am training for|plan to|intend to|hope to|will|am thinking (?:of|about)|am looking forward to|am planning|am preparing for|am considering|are planning(?! to )|are preparing for|am moving to|am having|am starting|am taking|am visiting|am going on|are going to|are planning to|are moving to|are having|are thinking (?:of|about)) ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 10);
      return v.length < 3 ? undefined : list(valueHead(v, "event"), `${sentence(s)} (plans)`, v);
    },
    we: true,
  },
  {
    attribute: "hobby",
    re: new RegExp(`^${ADV}(?:play|plays|have been playing)(?: the)? ${VAL}`, "i"),
    build: (m, s) => {
      const v = cut(m[1] as string, 8);
      return list(valueHead(v, "activity"), `${sentence(s)} (hobby)`, v);
    },
    we: true,
  },
  {
    // A language being learned is a study, not a pastime (`I'm learning Japanese`, `I've been
    // learning Spanish on Duolingo`, `started learning British Sign Language`): the language alone.
    attribute: "study",
    re: new RegExp(
      `^${ADV}(?:(?:am|have ${ADV}been|have ${ADV}started|started|began) ${ADV}learning|am ${ADV}taking) (${LANGUAGE})\\b`,
      "i",
    ),
    build: (m, s) => single(m[1] as string, `${s.label} is learning ${m[1]} (study)`),
  },
  {
    // Tutoring as one's work (`I tutor maths on weekends`, `I tutor GCSE students`); not one's own
    // child (`I tutor my son`), and only the speaker or a relative saying it of themself.
    attribute: "work",
    re: /^(?:also |still |now |privately )?tutor\b(?!\s+(?:my|our|him|her|them)\b)/i,
    build: (_m, s) => single("tutor", `${s.label} works as a tutor (job)`),
  },
  {
    // What is learned, practiced or taken up is the activity (`I've been learning the guitar`, `I'm learning
    // to play the cello`, `practicing karate`); not a clause or a filler (`learning a lot`, `learning from it`).
    attribute: "hobby",
    re: new RegExp(
      `^${ADV}(?:(?:am|have ${ADV}been|have ${ADV}started|started|began) ${ADV}(?:learning|practicing|practising|taking up)|have ${ADV}taken up)(?: how)?(?: to (?:play|speak|do|make|cook|draw|paint|dance|sing|ride|swim|surf|skate|ski|knit|sew))?(?: the)? ${VAL}`,
      "i",
    ),
    build: (m, s) => {
      const v = cut(m[1] as string, 6);
      // Where it is learned from is no part of it (`coding from me`, `from YouTube`).
      const head = valueHead(v, "activity").replace(/\s+from\s+.*$/i, "");
      return FILLER_VALUES.test(head) ||
        /^(?:to|from|about|with|how|what|that|more|so|lots?|tons?|a ton|a bunch|plenty|new)\b/i.test(head) ||
        head.length < 2
        ? undefined
        : list(head, `${sentence(s)} (hobby)`, v);
    },
    we: true,
  },
  {
    // A progressive with a time to come is a plan (`I'm flying to Lima tomorrow`, `I'm running a
    // half marathon next month`), whatever the verb but one of feeling or talk.
    attribute: "plan",
    re: /^am (\w+ing) ([^,;:!?]+)/i,
    build: (m, s) => {
      const verb = (m[1] as string).toLowerCase();
      if (STATE_VERBS.includes(verb) || !FUTURE_TIME.test(m[2] as string)) return undefined;
      const head = valueHead(cut(m[2] as string, 10), "event");
      return list(FUTURE_TIME.test(head) ? verb : `${verb} ${head}`, `${sentence(s)} (plans)`, `${verb} ${cut(m[2] as string, 10)}`);
    },
    we: true,
  },
  {
    attribute: "hobby",
    re: /^(?:have been|am|have started) (\w+ing)\b/i,
    build: (m, s) =>
      NOT_ACTIVITY.has((m[1] as string).toLowerCase()) ? undefined : list((m[1] as string).toLowerCase(), `${sentence(s)} (activity)`),
    we: true,
  },
  {
    attribute: "event",
    re: new RegExp(`^${ADV}(?:have |had )?(${EVENT_VERBS}) ${VAL}`, "i"),
    build: (m, s) => {
      // Quitting or leaving said only by when (`but I quit in April`, `left last summer`): the job
      // before it is what ended (an ended fact of its own clause), no event of its own.
      if (/^(?:quit|left|stopped)$/i.test(m[1] as string) && onlyWhen(m[2] as string)) return undefined;
      const v = `${m[1]} ${cut(m[2] as string, 10)}`;
      return list(`${m[1]} ${valueHead(cut(m[2] as string, 10), "event")}`, `${sentence(s)} (event)`, v);
    },
    we: true,
  },
];

/**
 * A pet that died (`our old lab passed away in the spring`, `my cat Mochi died`, `we had to put our
 * dog down`): the speaker's pet, ended. Only the speaker's own (`my`/`our` right before it: `my
 * sister's cat died` is hers).
 */
const PET_DIED = new RegExp(
  `\\b(?:(?:[Mm]y|[Oo]ur) (?:(?:${PET_MOOD}|late|beloved|first) ){0,2}((?:${PET_KIND_WORD} )?(?:${PET}|lab mix|lab))(?:,? (?!I\\b)[A-Z][a-z][\\w'-]*,?)? (?:just |recently |finally |sadly )?(?:died|passed away|passed on|passed|crossed the rainbow bridge|was put (?:down|to sleep)|had to be put (?:down|to sleep))|\\b(?:I|we) (?:had to |just )?put (?:my|our) (?:(?:${PET_MOOD}|late|beloved|first) ){0,2}((?:${PET_KIND_WORD} )?(?:${PET}|lab mix|lab)) (?:down|to sleep))\\b`,
);
/**
 * A chat clause without its `I` that opens with a verb only the speaker's past takes there (`tore
 * my meniscus in January`, `grew up in Missoula`, `sold the truck in March`, `got married in 2019`,
 * `quit vaping`): the speaker's. A present verb is left out (`love it`, `live and learn`).
 */
const CHAT_FIRST_PERSON =
  /^()((?:grew up|was born|moved|relocated|tore|broke|sprained|twisted|fractured|dislocated|sold|got (?:married|engaged|divorced)|quit|stopped|gave up|cut out|retired|graduated)\s.*)$/i;
/** `Jen and I ...`, `Kuba and I ...`: a name and the speaker, read as `we`. */
const WE_WITH_NAME = /^(?:[A-Z][a-z][\w'-]*|my (?:wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?)) and (?:I|me)()\s+(.*)$/;
/** `in Missoula turned 95`: a capitalized place right after a relative, then a verb in lower case. */
const RELATIVE_IN_PLACE =
  /^(?:up |down |out |over |back )?in ([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}),?\s+(?=(?:is|has|had|was|just|still|turned|lives|works|got|retired)\b)(.*)$/;
/** A clause about a named relative (`my sister lives in Busan`): the relative, then the predicate. */
const RELATIVE_SUBJECT = new RegExp(`^my (${REL})\\s+(.*)$`, "i");
const FAMILY_CLAUSE = new RegExp(`\\b[Mm]y (${REL})(?:'s name)? is (?:named |called )?([A-Z][\\w'-]+)\\b`);
const PET_NAME_CLAUSE = new RegExp(`\\b[Mm]y (${PET})(?:'s name)? is (?:named |called )?([A-Z][\\w'-]+)\\b`);
/** A pet named right after its kind (`my cat Mochi is 12`, `our dog Rufus ...`): the speaker's pet, named. */
const PET_APPOSITION = new RegExp(`\\b(?:[Mm]y|[Oo]ur) (${PET}) (?!I\\b)([A-Z][a-z][\\w'-]*)\\b`);
/**
 * A breed said of a pet just named (`… is a 9 yr old lab mix`, `… is a rescue greyhound`): the breed;
 * not another animal the pet is compared with or near (`is friends with a whippet`).
 */
const PET_BREED_AFTER = new RegExp(
  `^,?\\s+(?:is|was) (?:an? )?(?:(?!(?:with|of|to|than|like|and|or|from|for|at|in|on|by|scared|afraid|friends|bigger|smaller)\\b)[\\w-]+ ){0,4}?((?:${PET_KIND_WORD} )?(?:[a-z]+ mix|${PET}|lab))\\b(?! (?:named|called|who|that)\\b)`,
  "i",
);
/** Kinds of pet that are no breed (`dog`, `cat`): the kind the pet was named with stays. */
const GENERIC_PET_KIND = /^(?:[\w-]+ )?(?:dog|puppy|cat|kitten|pet|bird|fish)$/i;
/**
 * A relative named right after the word for them (`my wife Dani is ...`, `my sister, Jo, lives
 * ...`): the name, to go into the fact's text; the clause is the relative's, read without it.
 */
const RELATIVE_NAMED = new RegExp(`^([Mm]y (?:${REL})),?\\s+(?!I\\b)([A-Z][a-z][\\w'-]*),?\\s+(?=[a-z])`);
/**
 * `my hobby is …`, `my hobbies are …`, `my sister's hobby is …` (present only: `was` is none, `is
 * not` neither): the activity, of the speaker or of the relative named. A list of hobbies
 * (`hiking, chess and baking`) is one fact each. `my favorite hobby is …` is left to
 * {@link FAVORITE_CLAUSE}.
 */
const HOBBY_CLAUSE = new RegExp(
  `\\b[Mm]y (?:(${REL})'s )?(?:(?:main|new|current|only|biggest|latest|real) )?(?:hobby is|hobbies are|hobbies include) (?!not\\b)${ADV}([^;:!?]+)`,
);
/** What ends a list of hobbies besides punctuation: a relative clause or a clause of its own (`hiking, which I love`). */
const LIST_END = /^(?:which|who|that|but|so|because|though|although|i|it|we|and)\b/i;
// Case-sensitive past the first word: a second word is part of the name only when capitalized
// (`Hollie Grant`, not `Hollie with an ie`).
// Chat drops the `my` at the clause's start (`name's Marcus Bell`, `fave food is ...`).
const NAME_CLAUSE =
  /(?:\b[Mm]y |^)(?:[Nn]ame is|[Nn]ame's)\s+([A-Za-z][\w'-]+(?: [A-Z][\w'-]+)?)|\b[Cc]all me ([A-Za-z][\w'-]+(?: [A-Z][\w'-]+)?)/;
/**
 * A workplace by the copula (`my company is Stripe`, `my employer's Kaiser`, `my job is at Target`,
 * `my wife's company is Etsy`): the name, of the speaker or the relative named. A lower-case word
 * there says how it is, not which (`my company is hiring`).
 */
const WORKPLACE_CLAUSE = new RegExp(
  `\\b[Mm]y (?:(${REL})'s )?(?:company|employer|workplace|job|work)(?: is|'s)(?: now)? (?:at |with )?(?!I\\b)([A-Z][\\w&'.-]*(?: [A-Z][\\w&'.-]*){0,3})`,
);
/**
 * Where the speaker is from, said of the home town or the family home (`my hometown's Dayton`, `my
 * home town is Bury`, `my parents' place is in Tulsa`, `back home in Fresno we …`): the town, a
 * capitalised name of up to three words, not the `I` that starts the next clause (`Back home in
 * Tulsa I used to …`). A time in its place ({@link NOT_A_HOMETOWN}) gives none.
 */
const HOMETOWN_CLAUSE =
  /(?:\b[Mm]y |^)(?:home ?town(?:'s|’s| is)|(?:parents|folks)['’] (?:place|house) is in|family home is in) ([A-Z][\w-]*(?: (?!I\b)[A-Z][\w-]*){0,2})|^[Bb]ack home in ([A-Z][\w-]*(?: (?!I\b)[A-Z][\w-]*){0,2})\b/;
/** A time where {@link HOMETOWN_CLAUSE} expects a town (`Back home in March it snowed`, `back home in Summer`). */
const NOT_A_HOMETOWN = new RegExp(`^(?:${MONTH_NAME}|${WEEKDAY}|${SEASON}|christmas|easter|thanksgiving|new year)\\b`, "i");
/** A name said to be the speaker's favourite (`Catan is my favorite`, `Splendor's my fave`): the name, capitalised. */
const FAVORITE_NAMED =
  /^([A-Z][\w'’&-]*(?: [A-Z][\w'’&-]*){0,3})(?: is|'s|’s) (?:my|our) (?:all[- ]time )?(?:favou?rite|fave)(?: one)?(?=$|[,;:!?.]|\s+(?:by far|for sure|though)\b)/;
const FAVORITE_CLAUSE = /(?:\bmy |^)(?:all[- ]time )?(?:favou?rite|fave) ([\w ]{1,24}?) (?:is|are) ([^,;:!?]+)/i;
/**
 * A vocative before the speaker's clause (`Rosa, I moved ...`, `Ms. Park, I'm ...`, `grandma, my
 * ...`): a name, with a title, a word or two before a comma and `I`/`my`/`we`. A sentence adverb
 * there (`Honestly, I ...`) goes as well, which changes nothing.
 */
const VOCATIVE = /^(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof|Coach)\.?\s+)?[A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?,\s+(?=(?:I|i|my|My|we|We)\b)/;
/** Facts a clause adds after a subject's first: a place after a job (`a firefighter up in Reno`), a base or a major after a comma. */
const SIDE_FACTS: Array<[RegExp, string]> = [
  [
    new RegExp(
      `^${ADV}[Aa]m (?:an?|the) (?:[\\w-]+ ){0,2}(?:${JOB})s?\\b(?: (?:for|at|with) [A-Z][\\w&'-]*(?: [A-Z][\\w&'-]*)*)?,?\\s+(?:(?:up|down|out|over|back)\\s+)?(?:based\\s+)?in ([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*){0,2})`,
    ),
    "residence",
  ],
  [/,\s*(?:now\s+)?based (?:in|out of) ([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})/, "residence"],
  [/,\s*(?:and\s+)?majoring in ([^,;:!?]+)/i, "study"],
  // Where one studies, after what (`studying mechanical engineering at Ohio State`, `an MSc in data
  // science at Salford`); not a language taken as a course (`study Korean at Yonsei on weekends`).
  [
    new RegExp(
      `^${ADV}(?:(?:am studying|study|studied) (?!at\\b|(?:${LANGUAGE})\\b)|am (?:doing|getting|taking|finishing|starting|working on) (?:an?|my|the) (?:[\\w-]+ )?${DEGREE}\\b)[^,;:!?]*? at ${NAMED_SCHOOL}`,
    ),
    "school",
  ],
  // What one studies at a school (`a PhD student in chemistry at UIUC`, `in my final year at Leeds doing law`).
  [/\bstudent in ([a-z][a-z ]*?) (?:at|in) [A-Z]/, "study"],
  [/\bat (?:the )?[A-Z][\w&'.-]*(?: (?:of )?[A-Z][\w&'.-]*)* (?:doing|studying|reading) ([a-z][a-z ]*)/, "study"],
];
/**
 * A predicate with a second one for the same subject (`is diabetic and lives in Fresno`, `live in
 * Provo and work at a clinic`, `is nine and obsessed with Lego`).
 */
const SAME_SUBJECT_AND =
  /\s+and\s+(?=(?:(?:still|now|also) )?(?:lives?|works?|am|is|has|have|goes|go|studies|study|plays?|retired from|(?:obsessed|mad|crazy) (?:with|about))\b)/i;
/** `my birthday is on 3/22`, `my son's birthday is May 2nd`: the date. */
/** Months as chat shortens them (`Nov 3rd`, `Sept. 12`). */
const MONTH_ABBR = "(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?";
const BIRTHDAY_CLAUSE = new RegExp(
  `\\b[Mm]y (?:(${REL})'s )?(?:birthday|bday|b-day)(?:'s| is)(?: on)? (?:the )?(\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?|(?:${MONTH_NAME}|${MONTH_ABBR}) \\d{1,2}(?:st|nd|rd|th)?|\\d{1,2}(?:st|nd|rd|th)? of (?:${MONTH_NAME}|${MONTH_ABBR}))\\b`,
  "i",
);
const LEAD =
  /^(?:(?:oh|well|so|and|but|also|actually|yeah|yes|yep|btw|by the way|anyway|honestly|plus|guess what|good news|fun fact|hey|hi|ok|okay|lol|haha|wow|thanks|yesterday|today|tonight|recently|lately|now|then|last\s+\w+|this\s+\w+|next\s+\w+|a few \w+ ago|\w+ \w+ ago|on \w+|in \w+)[,!:]?\s+)*/i;
const HYPOTHETICAL =
  /\b(?:if|unless|suppose|supposing|imagine|wish|wished|hypothetically|would|could|might|maybe|perhaps|someday|whether|pretend|dream of|dreamed of|dreamt of)\b/i;
const QUESTION_START =
  /^(?:what|where|when|who|whom|why|how|which|do|does|did|is|are|was|were|can|could|would|should|will|have|has|shall|may|any|anything)\b/i;

// Reactions and small talk about the conversation itself, not facts about the speaker.
const REACTION =
  /^(?:am|was|have been|feel|felt|think|thought|guess|bet|hope|agree|know|knew|understand|appreciate|mean|meant|can not wait|cannot wait|would|wish|see|totally|love (?:that|it|this|how|your|the way|hearing|seeing)|like (?:that|it|this|your)|really (?:appreciate|like|love|hope|think)|do not know|am not sure|remember when|hear you|get it|got it)\b/i;

/** A speech, hearing or belief verb that opens a predicate: what follows is someone's report. */
const REPORTED = new RegExp(
  `^${ADV}(?:says|said|say|tells|told|keeps (?:saying|telling)|kept (?:saying|telling)|is (?:saying|telling)|was (?:saying|telling)|thinks|reckons|reckoned|believes|mentioned|claims|claimed|heard|was told|have heard)\\b`,
  "i",
);
/**
 * A negated predicate (`do not own a car`, `never go out`): what no rule read of it is kept as no
 * statement, since it says what is not so and the rules read the negations that are facts
 * (`cannot eat`, `do not like`, `not ... anymore`).
 */
const NEGATED = new RegExp(
  `^${ADV}(?:do not|does not|did not|am not|is not|are not|was not|were not|have not|has not|never|cannot|can not|will not)\\b`,
  "i",
);

/**
 * A first-person clause no rule matched that still says something about the speaker: not a
 * reaction (`I'm so happy for you`, `I think so`), and with at least three content words.
 */
function isStatement(predicate: string): boolean {
  if (REACTION.test(predicate) || NEGATED.test(predicate)) return false;
  // Quitting or leaving said only by when (`quit two years ago`): what ended is in the clause before.
  const ended = /^(?:quit|left|stopped)\s+(.*)$/i.exec(predicate);
  if (ended && onlyWhen(ended[1] as string)) return false;
  const words = predicate.match(/[A-Za-z]{3,}/g) ?? [];
  return (
    words.filter(
      (w) => !/^(?:the|and|for|you|your|that|this|with|was|are|but|not|have|has|had|been|too|its|all|just|really|very|so|it's)$/i.test(w),
    ).length >= 3
  );
}

/** The first rule matching a subject's predicate: its attribute and what it builds. */
function matchRule(subject: Subject): { attribute: string; built: Omit<CandidateFact, "subject" | "attribute" | "language"> } | undefined {
  for (const rule of RULES) {
    if (subject.we && !rule.we) continue;
    const m = subject.predicate.match(rule.re);
    if (!m) continue;
    const built = rule.build(m, subject);
    if (built) return { attribute: rule.attribute, built };
  }
  return undefined;
}

/**
 * A predicate in one of {@link ENDED_FORMS} whose positive form matches a rule of an attribute
 * that can end: that fact, marked `ended` (its text states the value as it held). `undefined`
 * otherwise (the clause then goes through the rules as written).
 */
function endedFact(subject: Subject): ReturnType<typeof matchRule> {
  for (const [re, attribute, value] of ENDED_DIRECT) {
    const m = subject.predicate.match(re);
    if (!m) continue;
    const v = value(m);
    return { attribute, built: { ...list(v, `${subject.label} no longer: ${subject.predicate.replace(/[.\s]+$/, "")}`, v), ended: true } };
  }
  for (const [re, positive] of ENDED_FORMS) {
    const m = subject.predicate.match(re);
    if (!m) continue;
    const predicate = positive(m).replace(/\s+/g, " ").trim();
    const found = matchRule({ ...subject, predicate });
    if (!found || !ENDABLE_ATTRIBUTES.has(found.attribute)) return undefined;
    // "I don't like jazz anymore" is a dislike now (the `dislikes` rule, one preference key);
    // "I used to like jazz" is a liking that ended.
    if (found.attribute === "likes" && !/^used to\b/i.test(subject.predicate)) return undefined;
    return { attribute: found.attribute, built: { ...found.built, ended: true } };
  }
  return undefined;
}

const CLAUSE_SPLIT = new RegExp(
  `\\s*;\\s*|\\s+[-–—]+\\s+|,?\\s+(?:and|but|so|because|since|whereas|while)\\s+(?=(?:(?:now|then|today|these days|nowadays|later|since then),?\\s+)?(?:i|my|we)\\b)` +
    // A clause of a relative's own after a comma (`got married, my wife is a nurse`, `my husband bakes, he is a chef`).
    `|,\\s+(?=(?:my\\s+(?:${REL})|(?:(?:and |but )?now,?\\s+)?(?:he|she)\\s+(?:(?:just|still|now|also)\\s+)?(?:is|has|lives|works|goes|plays))\\b)` +
    // A clause of the speaker's own after a comma (`I work from home, I'm a UX designer`).
    "|,\\s+(?=(?:I|we)\\s+(?:am|are|work|live|study)\\b)",
  "i",
);
/** Relatives a later `he`/`she` in the message stands for (`My husband bakes, he's a pastry chef`). */
const HE = /^(?:husband|boyfriend|fianc[ée]|son|brother|dad|father|stepdad|grandpa|grandfather|grandad|granddad|uncle|nephew)$/;
const SHE =
  /^(?:wife|girlfriend|fianc[ée]e|daughter|sister|mom|mother|mum|stepmum|stepmom|grandma|grandmother|gran|granny|nan|nana|nanna|aunt|niece)$/;

/** Splits a message into sentences, then clauses that may each carry a subject. */
/**
 * A first-person or `my <relative>` statement, then a comma and a question (`…, does he need to …?`,
 * `…, can you …?`, `…, any ideas?`): group 1 is the statement. Not a hypothetical's (`if …`: the
 * clause is dropped later), nor a question first (`do you think my son is …?`).
 */
const STATEMENT_THEN_QUESTION = new RegExp(
  `^((?:I|I am|we|my (?:${REL}))\\b[^,?]*?),\\s+(?:(?:so|and|but)\\s+)?(?:does|do|did|can|could|should|would|will|is|are|was|were|what|how|which|where|when|who|any|anything)\\b[^?]*\\?$`,
  "i",
);
export function englishClauses(text: string): string[] {
  let t = text;
  for (const [re, to] of CONTRACTIONS) t = typeof to === "string" ? t.replace(re, to) : t.replace(re, to);
  const out: string[] = [];
  // Not after a title (`Ms. Park, ...`, `Dr. Lee`).
  for (const sentence of t.split(/(?<=[.!?])(?<!\b(?:Mr|Mrs|Ms|Dr|Prof|St)\.)\s+|\n+/)) {
    let s = sentence.trim();
    // A statement before a question about it (`My husband's a plumber, does he need to file
    // separately?`, `my wife is celiac, any tips?`): the statement, without the question.
    const asked = STATEMENT_THEN_QUESTION.exec(s);
    if (asked) s = asked[1] as string;
    if (s === "" || s.endsWith("?") || QUESTION_START.test(s)) continue;
    for (const clause of s.split(CLAUSE_SPLIT)) {
      if (clause.trim() !== "") out.push(clause.trim());
    }
  }
  return out;
}

/**
 * Facts stated in one English message. `speaker` names the subject (`user` by default; a speaker
 * name when replaying a multi-party transcript); `label` is how texts name it.
 */
export function extractEnglish(text: string, speaker: { id: string; label: string }): CandidateFact[] {
  const facts: CandidateFact[] = [];
  const push = (subject: string, attribute: string, built: Omit<CandidateFact, "subject" | "attribute" | "language">) =>
    facts.push({ subject, attribute, language: "en", ...built });
  // The relative the last clause was about, for a `he`/`she` after it.
  let lastRelative: string | undefined;
  for (const clause of englishClauses(text)) {
    if (HYPOTHETICAL.test(clause)) continue;
    const name = NAME_CLAUSE.exec(clause);
    if (name) {
      const given = (name[1] ?? name[2]) as string;
      push(speaker.id, "name", single(given, `${speaker.label}'s name is ${given}`));
    }
    const family = FAMILY_CLAUSE.exec(clause);
    if (family) {
      const rel = (family[1] as string).toLowerCase();
      push(speaker.id, "family", list(`${rel} named ${family[2]}`, `${speaker.label}'s ${rel} is named ${family[2]} (family)`, rel));
    }
    // A pet that died is no pet now: its name is no fact of its own.
    const died = PET_DIED.exec(clause);
    const pet = died ? null : (PET_NAME_CLAUSE.exec(clause) ?? PET_APPOSITION.exec(clause));
    if (pet) {
      // The breed the clause goes on to give the named pet (`our dog Biscuit is a 9 yr old lab mix`).
      const breed = PET_BREED_AFTER.exec(clause.slice((pet.index ?? 0) + pet[0].length))?.[1]?.toLowerCase();
      const kind = breed !== undefined && !GENERIC_PET_KIND.test(breed) ? breed : (pet[1] as string);
      push(speaker.id, "pet", list(`${kind} named ${pet[2]}`, `${speaker.label} has a pet ${kind} named ${pet[2]}`, pet[2] as string));
    }
    const favorite = FAVORITE_CLAUSE.exec(clause);
    if (favorite) {
      const thing = (favorite[1] as string).trim().toLowerCase();
      const value = cut(favorite[2] as string, 6);
      push(speaker.id, "favorite", list(`${thing}: ${value}`, `${speaker.label}'s favorite ${thing} is ${value} (likes)`, thing));
    }
    const named = favorite ? null : FAVORITE_NAMED.exec(clause.replace(LEAD, ""));
    if (named && !/^(?:It|That|This|He|She|They|Mine|Which|What|Who)$|^(?:My|Our|Your|His|Her|Their) /.test(named[1] as string)) {
      const v = named[1] as string;
      push(speaker.id, "favorite", list(v, `${speaker.label}'s favorite is ${v} (likes)`));
    }
    const homeSaid = HOMETOWN_CLAUSE.exec(clause.replace(LEAD, ""));
    const hometown = homeSaid && !NOT_A_HOMETOWN.test((homeSaid[1] ?? homeSaid[2]) as string) ? homeSaid : null;
    if (hometown) {
      const v = (hometown[1] ?? hometown[2]) as string;
      push(speaker.id, "hometown", single(v, `${speaker.label} is from ${v} (hometown)`));
    }
    const hobby = HOBBY_CLAUSE.exec(clause);
    if (hobby) {
      const rel = hobby[1]?.toLowerCase();
      const [id, label] = rel === undefined ? [speaker.id, speaker.label] : [`${speaker.id}'s ${rel}`, `${speaker.label}'s ${rel}`];
      for (const item of (hobby[2] as string).split(/\s*,\s*(?:and\s+)?|\s+and\s+/)) {
        if (LIST_END.test(item)) break;
        const v = valueHead(cut(item, 8), "activity").replace(/^(?:the|a|an)\s+(?=\S)/i, "");
        if (v.length >= 2 && !FILLER_VALUES.test(v)) push(id, "hobby", list(v, `${label}'s hobby is ${v} (hobby)`));
      }
    }
    const workplace = WORKPLACE_CLAUSE.exec(clause);
    if (workplace) {
      const rel = workplace[1]?.toLowerCase();
      const [id, label] = rel === undefined ? [speaker.id, speaker.label] : [`${speaker.id}'s ${rel}`, `${speaker.label}'s ${rel}`];
      const v = (workplace[2] as string).replace(/\.+$/, "");
      push(id, "work", single(v, `${label} works at ${v} (job)`));
    }
    const birthday = BIRTHDAY_CLAUSE.exec(clause);
    if (birthday) {
      const rel = birthday[1]?.toLowerCase();
      const [id, label] = rel === undefined ? [speaker.id, speaker.label] : [`${speaker.id}'s ${rel}`, `${speaker.label}'s ${rel}`];
      push(id, "birthday", single(birthday[2] as string, `${label}'s birthday is ${birthday[2]}`));
    }
    if (died) {
      const kind = ((died[1] ?? died[2]) as string).toLowerCase();
      push(speaker.id, "pet", { ...list(kind, `${speaker.label}'s pet ${kind} died (no longer a pet)`), ended: true });
    }
    const noMore = NO_MORE_FOR_ME.exec(clause);
    if (noMore) {
      const v = ((noMore[1] ?? noMore[2]) as string).toLowerCase();
      push(speaker.id, noMore[1] ? "health" : "hobby", { ...list(v, `${speaker.label} no longer: ${v}`), ended: true });
    }
    if (name || family || pet || favorite || named || hometown || hobby || workplace || birthday || noMore || died) continue;
    const unnamed = clause.replace(LEAD, "").replace(VOCATIVE, "");
    const relativeName = RELATIVE_NAMED.exec(unnamed)?.[2];
    const body = relativeName === undefined ? unnamed : unnamed.replace(RELATIVE_NAMED, "$1 ");
    let subject: Subject | undefined;
    const pronoun = /^(he|she)\s+(.*)$/i.exec(body);
    const rel =
      RELATIVE_SUBJECT.exec(body) ??
      (pronoun && lastRelative && (pronoun[1]?.toLowerCase() === "he" ? HE : SHE).test(lastRelative)
        ? ([body, lastRelative, pronoun[2]] as unknown as RegExpExecArray)
        : null);
    // A chat clause without its `I` (`used to live in midtown`).
    const first =
      /^(I|we)\s+(.*)$/i.exec(body) ?? /^()(used to\s.*)$/i.exec(body) ?? CHAT_FIRST_PERSON.exec(body) ?? WE_WITH_NAME.exec(body);
    if (first) {
      const we = first[1]?.toLowerCase() === "we" || WE_WITH_NAME.test(body);
      subject = { id: speaker.id, label: speaker.label, we, predicate: first[2] as string };
    } else if (rel) {
      const r = (rel[1] as string).toLowerCase();
      // Third-person verbs back to the base form the rules expect ("lives" -> "live" matches both).
      const predicate = (rel[2] as string)
        .replace(/^is\b/i, "am")
        .replace(/^has\b/i, "have")
        .replace(/^does not\b/i, "do not");
      const label = `${speaker.label}'s ${r}${relativeName === undefined ? "" : ` ${relativeName}`}`;
      subject = { id: `${speaker.id}'s ${r}`, label, we: false, predicate };
      lastRelative = r;
      // A relative named with where they live (`my grandma in Missoula turned 95`): that residence,
      // then the predicate after it.
      const where = RELATIVE_IN_PLACE.exec(predicate);
      if (where) {
        const v = where[1] as string;
        push(subject.id, "residence", single(v, `${label} lives in ${v}`));
        subject.predicate = (where[2] as string).replace(/^is\b/i, "am").replace(/^has\b/i, "have");
      }
    }
    if (!subject) continue;
    // What someone says, was told or believes (`my sister says she's moving`, `my boss told me ...`)
    // states nothing of the one who says it, and is no more than hearsay of anyone else.
    if (REPORTED.test(subject.predicate)) continue;
    let matched = false;
    // Each predicate of the subject joined by `and` (`is diabetic and lives in Fresno`): its ended
    // fact or its first rule.
    for (const part of subject.predicate.split(SAME_SUBJECT_AND)) {
      // A state after `and` goes without its verb (`is nine and obsessed with Lego`).
      const predicate = part
        .replace(/^is\b/i, "am")
        .replace(/^has\b/i, "have")
        .replace(/^(?=(?:obsessed|mad|crazy) (?:with|about)\b)/i, "am ");
      const partSubject = { ...subject, predicate };
      const found = endedFact(partSubject) ?? matchRule(partSubject);
      if (!found) continue;
      push(subject.id, found.attribute, found.built);
      matched = true;
      const left = found.attribute === "residence" && !found.built.ended ? MOVED_FROM_TO.exec(partSubject.predicate) : null;
      if (left) {
        const v = left[1] as string;
        push(subject.id, "residence", { ...single(v, `${subject.label} no longer lives in ${v} (moved away)`), ended: true });
      }
      const leftJob = found.attribute === "work" && !found.built.ended ? JOB_MOVED.exec(partSubject.predicate) : null;
      if (leftJob) {
        const v = leftJob[1] as string;
        push(subject.id, "work", {
          ...single(v, `${subject.label} no longer works at ${v} (moved to ${leftJob[2] ?? `a ${leftJob[3]}`})`),
          ended: true,
        });
      }
    }
    if (matched && !subject.we)
      for (const [re, attribute] of SIDE_FACTS) {
        const m = re.exec(subject.predicate);
        if (!m) continue;
        const v =
          attribute === "residence"
            ? valueHead(m[1] as string, "place")
            : attribute === "school"
              ? (m[1] as string).replace(/\.+$/, "")
              : valueHead(cut(m[1] as string, 6), "work");
        if (!facts.some((f) => f.subject === subject.id && f.attribute === attribute))
          push(
            subject.id,
            attribute,
            single(v, `${subject.label} ${attribute === "residence" ? "lives in" : attribute === "school" ? "goes to" : "studies"} ${v}`),
          );
      }
    if (!matched && isStatement(subject.predicate)) {
      const value = subject.predicate.replace(/[.!\s]+$/, "");
      push(subject.id, "statement", list(value, sentence(subject)));
    }
  }
  // A pet named as the speaker's, as the subject of what it has or does (`my lurcher has kidney
  // trouble, which dog foods …?`) or cared for (`remind me to give my greyhound her pill`): a pet the
  // speaker has, in a request or a question too, when no clause kept one. Not `with my dog` (a
  // companion), `my dog walker`, someone else's or a hypothetical.
  if (!facts.some((f) => f.attribute === "pet" && f.subject === speaker.id)) {
    for (const part of text.split(/(?<=[.!?])\s+|\n+/)) {
      const own = OWN_PET_SUBJECT.exec(part) ?? OWN_PET_OBJECT.exec(part);
      if (!own || HYPOTHETICAL.test(part.replace(/^(?:can|could|would) you\b/i, "")) || OWN_PET_GONE.test(part)) continue;
      const v = (own[1] as string).toLowerCase();
      push(speaker.id, "pet", list(v, `${speaker.label} has a pet ${v}`));
      break;
    }
  }
  return facts;
}

const OWN_PET_SUBJECT = new RegExp(
  `(?:^|[,;]\\s*|\\b(?:and|but|so)\\s+)(?:my|our) (?:(?:old|little|new|elderly|senior|rescue) )?(${PET})\\b(?!['’]s)\\s+(?:is|has|was|had|needs|keeps|hates|loves|gets|got|just|still|will not|does not|cannot|is not|won't|doesn't|can't|isn't|won’t|doesn’t|can’t|isn’t)\\b`,
  "i",
);
/**
 * A pet said to be dead or gone in the clause that names it (`my cat is gone now, should I …?`,
 * `my old dog has passed away, any advice?`): the request is about a pet no longer had, so the
 * fallback above gives none (a statement of it is {@link PET_DIED}'s, as ended).
 */
const OWN_PET_GONE =
  /\b(?:(?:is|was|'s|’s) (?:gone|dead)|died|passed (?:away|on)|no longer with (?:us|me)|put (?:down|to sleep)|run over|crossed the rainbow bridge)\b/i;
const OWN_PET_OBJECT = new RegExp(
  `\\b(?:give|feed|walk|bathe|groom|brush|medicate|take) (?:my|our) (?:(?:old|little|new|elderly|senior|rescue) )?(${PET})\\b(?!['’]s)`,
  "i",
);
