/**
 * Loader for the LoCoMo conversations in `data/locomo/locomo-dev.json` (CC BY-NC 4.0,
 * Maharana et al., ACL 2024). Used by benchmarks only; nothing here ships in a package.
 *
 * Quirks handled (see the data README): sessions are read from `session_N` keys only; evidence
 * strings may be malformed (`"D8:6; D9:17"`, `"D"`, `"D:11:26"`, space-joined lists) or use
 * leading zeros (`D30:05`); ids that resolve to no turn are counted, not fatal.
 */
import { parseTimestamp } from "@threadwise/core";
import { z } from "zod/v4";
import { LOCOMO_PATH } from "../../data/paths.js";
import { BenchDataError, BenchOptionError, checkShape, readDataFile } from "./data-file.js";

export { LOCOMO_PATH };

export interface LocomoTurn {
  /** Turn id as in the data, normalized: `D<session>:<turn>` without leading zeros. */
  diaId: string;
  speaker: string;
  /** The turn's text; an image turn gets `[image: <blip_caption>]` appended. */
  text: string;
  session: number;
  /** The session's date line, e.g. `1:56 pm on 8 May, 2023`. */
  dateTime: string;
}

export interface LocomoQa {
  question: string;
  answer: unknown;
  /** Normalized evidence turn ids that resolve to a turn of the conversation. */
  evidence: string[];
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. */
  category: number;
}

export interface LocomoConversation {
  sampleId: string;
  speakerA: string;
  speakerB: string;
  turns: LocomoTurn[];
  qa: LocomoQa[];
  /** Evidence strings that could not be parsed or did not resolve to a turn. */
  unresolvedEvidence: number;
}

/** One replayed exchange: the first speaker's merged turns as the user, the second's as the answer. */
export interface ReplayExchange {
  user: string;
  userTurnIds: string[];
  assistant: string;
  assistantTurnIds: string[];
}

/** Normalizes a turn id (`D30:05` -> `D30:5`); `undefined` when it is not `D<n>:<n>`. */
export function normalizeDiaId(raw: string): string | undefined {
  const m = /^D(\d+):(\d+)$/.exec(raw.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : undefined;
}

/** Splits one evidence string into turn ids; tolerant of `;`, `,` and spaces between ids. */
export function parseEvidence(raw: unknown): string[] {
  if (typeof raw !== "string") return [];
  const ids: string[] = [];
  for (const m of raw.matchAll(/D\s*(\d+)\s*:\s*(\d+)/g)) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
  return ids;
}

/**
 * The split of `data/locomo/locomo-dev.json` used when tuning recall (issue 25), fixed before any
 * tuning: defaults are chosen on `dev` and reported on `heldout` too. Conversations of other files
 * belong to neither and are selected by id.
 */
export const LOCOMO_SPLITS: Readonly<Record<"dev" | "heldout", readonly string[]>> = {
  dev: ["conv-26", "conv-41", "conv-43"],
  heldout: ["conv-30", "conv-42", "conv-44", "conv-47"],
};

/**
 * The conversations named by `samples` (a bench's `--samples` flag): `dev`, `heldout` (see
 * {@link LOCOMO_SPLITS}) or comma-separated sample ids; every conversation when unset.
 *
 * @throws BenchOptionError naming `--samples` and the ids the file holds when a named sample id is not in `conversations`
 */
export function selectSamples(conversations: LocomoConversation[], samples: string | undefined): LocomoConversation[] {
  if (samples === undefined || samples === "" || samples === "all") return conversations;
  const ids = samples === "dev" || samples === "heldout" ? LOCOMO_SPLITS[samples] : samples.split(",").map((s) => s.trim());
  const known = new Set(conversations.map((c) => c.sampleId));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new BenchOptionError(
      "--samples",
      `no conversation ${missing.join(", ")} in the data file (it holds ${conversations.map((c) => c.sampleId).join(", ")})`,
    );
  return conversations.filter((c) => ids.includes(c.sampleId));
}

/**
 * The one conversation a single-conversation bench replays: the one named `requested` (the bench's
 * `--conversation`), else `fallback`'s pick (by default `conv-26` when the file has it, the
 * conversation the committed results describe, else the file's first), so any LoCoMo-format file
 * works without naming a sample id.
 *
 * @param conversations - every conversation of the data file ({@link loadLocomo})
 * @param requested - a sample id, or undefined / "" for the default
 * @param path - the data file, for the error message
 * @throws BenchOptionError naming `--conversation` and the ids the file holds when `requested` is not in it;
 *   Error when the file holds no conversation; BenchDataError when the conversation picked has no
 *   turn of the first speaker answered by the second (nothing to replay)
 */
export function pickConversation(
  conversations: readonly LocomoConversation[],
  requested: string | undefined,
  path: string,
  fallback: (all: readonly LocomoConversation[]) => LocomoConversation | undefined = (all) =>
    all.find((c) => c.sampleId === "conv-26") ?? all[0],
): LocomoConversation {
  if (conversations.length === 0) throw new Error(`no conversation in ${path}`);
  const found =
    requested === undefined || requested === ""
      ? (fallback(conversations) as LocomoConversation)
      : conversations.find((c) => c.sampleId === requested);
  if (!found) {
    const ids = conversations.map((c) => c.sampleId).join(", ");
    throw new BenchOptionError("--conversation", `no conversation ${requested} in ${path} (it holds ${ids})`);
  }
  // A replay needs a user turn answered: a conversation of one speaker replays no model call.
  if (!replayExchanges(found).some((e) => e.user !== "" && e.assistant !== ""))
    throw new BenchDataError(
      path,
      LOCOMO_KIND,
      `[${conversations.indexOf(found)}].conversation`,
      `${found.sampleId}: no turn of speaker_a (${found.speakerA}) answered by speaker_b (${found.speakerB}): nothing to replay`,
    );
  return found;
}

/**
 * Checks that the conversations a question-answering bench reads (facts, recall, user-memory)
 * hold a question to ask: a QA item whose evidence names a turn of its conversation.
 *
 * @throws BenchDataError naming the file and the sample ids when none has such an item
 */
export function requireQuestions(conversations: readonly LocomoConversation[], path: string): void {
  if (conversations.some((c) => c.qa.some((q) => q.evidence.length > 0))) return;
  const ids = conversations.map((c) => c.sampleId).join(", ");
  throw new BenchDataError(path, LOCOMO_KIND, "(file)", `no QA item with evidence turn ids in ${ids}: no question to ask`);
}

/**
 * Checks that a bench which orders a user's statements by their session's date line
 * (`bench/user-memory.ts`: user memory reads a message's timestamp with core's `parseTimestamp`)
 * can read every date line of a conversation, or none: a line it cannot read (absent, or no date
 * in it) puts that session's statements at the commit's time, the run's clock, against the other
 * sessions' dates, so the newer of two values would be chosen by that mix, not by the dates. A
 * conversation with no readable line is ordered by commit (session) order throughout.
 *
 * @param conversations - the file's conversations, in file order (as {@link loadLocomo} returns them)
 * @throws BenchDataError naming `[<sample>].conversation.session_<N>_date_time`, the first unreadable
 *   line of a conversation that has a readable one
 */
export function requireDateLines(conversations: readonly LocomoConversation[], path: string): void {
  for (const [s, conversation] of conversations.entries()) {
    const lines = new Map<number, string>();
    for (const turn of conversation.turns) if (!lines.has(turn.session)) lines.set(turn.session, turn.dateTime);
    const unread = [...lines].filter(([, line]) => parseTimestamp(line) === undefined);
    if (unread.length === 0 || unread.length === lines.size) continue;
    const [session, line] = unread[0] as [number, string];
    throw new BenchDataError(
      path,
      LOCOMO_KIND,
      `[${s}].conversation.session_${session}_date_time`,
      `${line === "" ? "no date line" : `${JSON.stringify(line)} reads no date`} while other sessions' lines do: user memory would order this session's statements by commit time against their dates (core's parseTimestamp reads ISO 8601, year-first digits, Korean 2023년 5월 8일 오후 1:56 and English 1:56 pm on 8 May, 2023)`,
    );
  }
}

/**
 * One turn of a session as the file holds it (`img_url`, `query` and other keys are ignored). A
 * turn that is only an image (no `text`) must carry its `blip_caption`, which becomes its text.
 */
const locomoTurnShape = z
  .object({ speaker: z.string(), dia_id: z.string(), text: z.string().optional(), blip_caption: z.string().optional() })
  .refine((turn) => turn.text !== undefined || turn.blip_caption !== undefined, {
    path: ["text"],
    message: "no text and no blip_caption: expected a string",
  });

/**
 * A LoCoMo-format file as {@link loadLocomo} reads it: an array of samples, each with a
 * `sample_id`, a `conversation` (`speaker_a`, `speaker_b`, `session_N` arrays of turns and their
 * `session_N_date_time` lines) and `qa` items. Evidence strings are read leniently (see the quirks
 * above); everything else must have its type, and a QA item's `category` is one of LoCoMo's five.
 * {@link loadLocomo} also refuses a sample id used twice and a turn id (normalized) used twice in
 * one conversation.
 */
const locomoFileShape = z
  .array(
    z.object({
      sample_id: z.string(),
      conversation: z.looseObject({ speaker_a: z.string(), speaker_b: z.string() }),
      qa: z.array(
        z.object({
          // An empty question searches for nothing: its item would count as a miss (or a hit by recency).
          question: z.string().refine((q) => q.trim() !== "", { message: "empty: no question to ask" }),
          // Every bench tables items by these five; another number would count in `all` and in no row.
          category: z.number().refine((c) => Number.isInteger(c) && c >= 1 && c <= 5, {
            message: "expected 1-5 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)",
          }),
          evidence: z.array(z.unknown()).optional(),
          answer: z.unknown().optional(),
          adversarial_answer: z.unknown().optional(),
        }),
      ),
    }),
  )
  .min(1, "no conversation: expected an array of LoCoMo samples");
const LOCOMO_KIND = "LoCoMo-format file";

/**
 * Loads every conversation of the file.
 *
 * Sessions are read in the order of their numbers, whatever their order in the file or their
 * dates; a date line is kept as written, in any format (`session_N_date_time` absent or `null`:
 * `""`); a QA item's `answer` may be any JSON value (a number, a list).
 *
 * @throws BenchDataError (`bench/support/data-file.ts`) naming the first field that does not fit
 *   the LoCoMo format (`[0].conversation: expected object`, `[0].conversation.session_1[2].text`,
 *   `[0].conversation.session_2_date_time` that is not a string, `[0].conversation.speaker_b` that
 *   is speaker_a's name), a sample id used twice (`[1].sample_id`) or a turn id used twice in a
 *   conversation (`[0].conversation.session_2[0].dia_id`, `D01:1` and `D1:1` being one id)
 */
export function loadLocomo(path = LOCOMO_PATH): LocomoConversation[] {
  const raw = readDataFile(locomoFileShape, path, LOCOMO_KIND);
  // A sample id names a conversation's threads and scopes (user-memory's `<id>/question`): two
  // conversations under one id would share them.
  const firstSample = new Map<string, number>();
  raw.forEach((sample, s) => {
    const first = firstSample.get(sample.sample_id);
    if (first !== undefined)
      throw new BenchDataError(path, LOCOMO_KIND, `[${s}].sample_id`, `${JSON.stringify(sample.sample_id)} is also [${first}]'s sample_id`);
    firstSample.set(sample.sample_id, s);
  });
  return raw.map((sample, s) => {
    const conv = sample.conversation as Record<string, unknown>;
    // The replay tells the user from the model by speaker: under one name every turn would be the user's.
    if (conv.speaker_a === conv.speaker_b)
      throw new BenchDataError(
        path,
        LOCOMO_KIND,
        `[${s}].conversation.speaker_b`,
        `${JSON.stringify(conv.speaker_b)} is also speaker_a: the two speakers need two names`,
      );
    const turns: LocomoTurn[] = [];
    // A turn id is a replayed message's id and what evidence names: two turns under one id would
    // be one message to the reducer and one hit for either.
    const firstTurn = new Map<string, string>();
    const sessionKeys = Object.keys(conv)
      .filter((k) => /^session_\d+$/.test(k))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    if (sessionKeys.length === 0) checkShape(z.array(locomoTurnShape), undefined, path, LOCOMO_KIND, [s, "conversation", "session_1"]);
    for (const key of sessionKeys) {
      const session = Number(key.slice(8));
      // A date line in any format is kept as written (`2023-05-08`, `8 May, 2023`, `2023년 5월 8일`);
      // another type would be read as `20230508` or `[object Object]`.
      const date = conv[`${key}_date_time`];
      if (date !== undefined && date !== null && typeof date !== "string")
        throw new BenchDataError(
          path,
          LOCOMO_KIND,
          `[${s}].conversation.${key}_date_time`,
          `expected the session's date line, a string, received ${Array.isArray(date) ? "array" : typeof date}`,
        );
      const dateTime = date ?? "";
      for (const [t, turn] of checkShape(z.array(locomoTurnShape), conv[key], path, LOCOMO_KIND, [s, "conversation", key]).entries()) {
        // The replay tells the user from the model by speaker: a third name would be read as the model.
        if (turn.speaker !== conv.speaker_a && turn.speaker !== conv.speaker_b)
          throw new BenchDataError(
            path,
            LOCOMO_KIND,
            `[${s}].conversation.${key}[${t}].speaker`,
            `${JSON.stringify(turn.speaker)} is neither speaker_a (${JSON.stringify(conv.speaker_a)}) nor speaker_b (${JSON.stringify(conv.speaker_b)})`,
          );
        const diaId = normalizeDiaId(turn.dia_id) ?? turn.dia_id;
        const image = turn.blip_caption ? `[image: ${turn.blip_caption}]` : "";
        const text = turn.text === undefined ? image : image ? `${turn.text} ${image}` : turn.text;
        const first = firstTurn.get(diaId);
        if (first !== undefined)
          throw new BenchDataError(
            path,
            LOCOMO_KIND,
            `[${s}].conversation.${key}[${t}].dia_id`,
            `${JSON.stringify(turn.dia_id)} is also the id of ${first} (${diaId}): evidence and message ids would name two turns`,
          );
        firstTurn.set(diaId, `${key}[${t}]`);
        turns.push({ diaId, speaker: turn.speaker, text, session, dateTime });
      }
    }
    // A conversation without a turn gives every bench nothing to replay or index (0 / 0 figures).
    if (turns.length === 0) throw new BenchDataError(path, LOCOMO_KIND, `[${s}].conversation`, `no turn in ${sessionKeys.join(", ")}`);
    const known = new Set(turns.map((t) => t.diaId));
    let unresolvedEvidence = 0;
    const qa = sample.qa.map((item) => {
      const evidence: string[] = [];
      for (const e of item.evidence ?? []) {
        const ids = parseEvidence(e);
        if (ids.length === 0) unresolvedEvidence += 1;
        for (const id of ids) {
          if (known.has(id)) evidence.push(id);
          else unresolvedEvidence += 1;
        }
      }
      return { question: item.question, answer: item.answer ?? item.adversarial_answer, evidence, category: item.category };
    });
    return {
      sampleId: sample.sample_id,
      speakerA: conv.speaker_a as string,
      speakerB: conv.speaker_b as string,
      turns,
      qa,
      unresolvedEvidence,
    };
  });
}

/**
 * Replays a conversation as chat exchanges: the first speaker's turns are the user's, the second
 * speaker's turns the model's answers; consecutive turns of one speaker are merged (newline-joined).
 * A conversation that starts with the second speaker or ends with the first gets an empty side.
 */
export function replayExchanges(conversation: LocomoConversation): ReplayExchange[] {
  const out: ReplayExchange[] = [];
  let current: ReplayExchange | undefined;
  for (const turn of conversation.turns) {
    const isUser = turn.speaker === conversation.speakerA;
    if (isUser) {
      if (!current || current.assistantTurnIds.length > 0) {
        current = { user: "", userTurnIds: [], assistant: "", assistantTurnIds: [] };
        out.push(current);
      }
      current.user = current.user ? `${current.user}\n${turn.text}` : turn.text;
      current.userTurnIds.push(turn.diaId);
    } else {
      if (!current) {
        current = { user: "", userTurnIds: [], assistant: "", assistantTurnIds: [] };
        out.push(current);
      }
      current.assistant = current.assistant ? `${current.assistant}\n${turn.text}` : turn.text;
      current.assistantTurnIds.push(turn.diaId);
    }
  }
  return out;
}

/** One message of a replayed LoCoMo thread: its role, a stable id and its text. */
export interface ThreadMessageSpec {
  type: "human" | "ai";
  id: string;
  content: string;
}

/**
 * The LoCoMo conversations as one long alternating user/assistant thread of at least `need`
 * messages (empty exchanges skipped), repeated under new ids (`<id>#<pass>`) past their ~4,000
 * messages. Used by the benchmarks that need real text at a given thread length.
 *
 * @throws BenchDataError when no conversation of the file has a turn of its first speaker
 *   answered by its second (there would be nothing to repeat)
 */
export function locomoThread(need: number, path = LOCOMO_PATH): ThreadMessageSpec[] {
  const specs: ThreadMessageSpec[] = [];
  for (const conversation of loadLocomo(path)) {
    for (const [e, exchange] of replayExchanges(conversation).entries()) {
      if (exchange.user === "" || exchange.assistant === "") continue;
      specs.push({ type: "human", id: `${conversation.sampleId}-${e}-u`, content: exchange.user });
      specs.push({ type: "ai", id: `${conversation.sampleId}-${e}-a`, content: exchange.assistant });
    }
  }
  const once = specs.length;
  if (once === 0 && need > 0)
    throw new BenchDataError(
      path,
      LOCOMO_KIND,
      "(file)",
      "no turn of a speaker_a answered by its speaker_b in any conversation: no thread to build",
    );
  for (let pass = 2; specs.length < need; pass += 1) {
    for (const spec of specs.slice(0, once)) specs.push({ ...spec, id: `${spec.id}#${pass}` });
  }
  return specs;
}
