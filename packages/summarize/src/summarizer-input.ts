import { type BaseMessage, HumanMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import {
  blockCallIdsOf,
  characterHead,
  contentText,
  MESSAGE_OVERHEAD_TOKENS,
  messageText,
  messageType,
  setBounded,
  type TokenCounter,
  toolCallsOf,
  toolResultIdsOf,
  withoutThinking,
} from "@threadwise/core";

/** Instructions the summarizer gets when no `prompt` is given. Short on purpose: it is paid on every call. */
export const DEFAULT_SUMMARY_PROMPT = [
  "Update the running summary of this conversation with the new messages.",
  "Keep facts about the user, names, dates, decisions, open tasks and tool results that still matter.",
  "Write short plain sentences in the conversation's language, at most 150 words. Reply with the summary only.",
].join("\n");

/** Marker put where a message was shortened to fit `maxInputTokens`. `{n}` is the characters left out. */
export const SHORTENED_MARKER = " [... {n} characters left out: summarizer input limit]";

/** Words (runs without whitespace) longer than this are counted in pieces. */
const LONG_WORD_CHARACTERS = 128;
/** Size of the pieces a long word is counted in. */
const WORD_PIECE_CHARACTERS = 64;
/** A line longer than this many characters per token of the budget is cut without being counted. */
const MAX_CHARACTERS_PER_TOKEN = 8;
/** The previous summary is kept whole unless it alone is over this share of `maxInputTokens`. */
const MAX_SUMMARY_SHARE = 0.5;
/** No line is cut below this many tokens; past that, whole lines are left out with a marker. */
const MIN_LINE_TOKENS = 24;

/** Texts up to this many characters have their {@link boundedTokenCount} remembered (per counter, by value). */
const COUNT_MEMO_MAX_CHARACTERS = 4096;
/** Most texts whose {@link boundedTokenCount} is remembered per counter; the oldest go first. */
const COUNT_MEMO_ENTRIES = 4096;
/** Remembered counts of texts, per counter (core's own counters only: a custom `countText` is called every time). */
const countMemos = new WeakMap<TokenCounter, Map<string, number>>();

/**
 * Whether UTF-16 code unit `c` is white space as the regular expression class `\s` reads it
 * (ECMAScript WhiteSpace and LineTerminator: tab, line feed, vertical tab, form feed, carriage
 * return, space, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF).
 */
function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Counts `text` as {@link boundedTokenCount} does, without its memo. One pass over the text for its long words. */
function countBounded(counter: TokenCounter, text: string): number {
  let total = 0;
  let last = 0;
  // Runs of LONG_WORD_CHARACTERS or more code units that are not white space (`\S{128,}`, leftmost
  // and longest, so whole runs), found in one pass: the regular expression retried every position.
  let run = 0;
  for (let i = 0; i <= text.length; i += 1) {
    if (i < text.length && !isWhiteSpace(text.charCodeAt(i))) {
      run += 1;
      continue;
    }
    if (run >= LONG_WORD_CHARACTERS) {
      const at = i - run;
      if (at > last) total += counter.countText(text.slice(last, at));
      for (let k = at; k < i; k += WORD_PIECE_CHARACTERS) total += counter.countText(text.slice(k, Math.min(k + WORD_PIECE_CHARACTERS, i)));
      last = i;
    }
    run = 0;
  }
  if (last < text.length) total += counter.countText(last === 0 ? text : text.slice(last));
  return total;
}

/**
 * Tokens of `text` with core's counter, except that words (runs without whitespace) of 128+
 * characters are counted in 64-character pieces: js-tiktoken's BPE is quadratic in the length of
 * one word (a 30,000-character line without spaces takes minutes), pieces make it linear. Pieces
 * never merge across a cut, so the result is at or just above the exact count: a safe bound.
 * With one of core's counters (not a custom `countText`), the count of a text of at most 4,096
 * characters is remembered by the text itself (a bounded memo per counter), so the lines, the
 * instructions and the framing a summary's passes and input count again cost a lookup.
 */
export function boundedTokenCount(counter: TokenCounter, text: string): number {
  if (counter.encoding === "custom" || text.length > COUNT_MEMO_MAX_CHARACTERS) return countBounded(counter, text);
  let memo = countMemos.get(counter);
  if (memo === undefined) {
    memo = new Map();
    countMemos.set(counter, memo);
  }
  let count = memo.get(text);
  if (count === undefined) {
    count = countBounded(counter, text);
    setBounded(memo, text, count, COUNT_MEMO_ENTRIES);
  }
  return count;
}

/** What a transcript line says for a message with no text and nothing else to name. */
export const EMPTY_MESSAGE_NOTE = "(empty)";

/** How {@link transcriptLine} names content blocks without text, by block type. */
const BLOCK_NOTES: Readonly<Record<string, string>> = {
  image: "image",
  image_url: "image",
  audio: "audio",
  input_audio: "audio",
  video: "video",
  file: "file",
  document: "document",
  reasoning: "reasoning",
  thinking: "reasoning",
  redacted_thinking: "reasoning",
};

/** The note of an assistant message whose only text is reasoning between `<think>` tags. */
const REASONING_NOTE = `(${BLOCK_NOTES.reasoning})`;

/** Blocks that repeat an AI message's `tool_calls` (rendered from the calls). */
const CALL_BLOCKS = new Set(["tool_use", "tool_call", "function_call", "server_tool_use", "input_json_delta"]);

/**
 * What a message without text holds, as a transcript note: its kinds of blocks in order of first
 * appearance (`(image)`, `(image, file)`; blocks that repeat tool calls not counted, other kinds
 * named `other content`), {@link EMPTY_MESSAGE_NOTE} when it holds none.
 */
function contentNote(content: unknown): string {
  const kinds: string[] = [];
  if (Array.isArray(content))
    for (const block of content) {
      if (!block || typeof block !== "object") continue;
      const type = String((block as { type?: unknown }).type ?? "");
      if (type === "text" || CALL_BLOCKS.has(type)) continue;
      const kind = BLOCK_NOTES[type] ?? "other content";
      if (!kinds.includes(kind)) kinds.push(kind);
    }
  return kinds.length === 0 ? EMPTY_MESSAGE_NOTE : `(${kinds.join(", ")})`;
}

/** Whether `body` (a transcript line less its `User: ` prefix) is a note {@link transcriptLine} wrote for a message without text. */
export function isContentNote(body: string): boolean {
  if (body === EMPTY_MESSAGE_NOTE) return true;
  const inner = /^\((.+)\)$/.exec(body)?.[1];
  const known = new Set([...Object.values(BLOCK_NOTES), "other content"]);
  return inner?.split(", ").every((kind) => known.has(kind)) === true;
}

/**
 * One message as a transcript line: `User: ...`, `Assistant: ...`, `Assistant called tool(args)`,
 * `Tool name: ...`. A message without text (blank, or only pictures, files or reasoning) is
 * written as a note of what it holds (`User: (image)`, `User: (empty)`, `Tool lookup: (empty)`),
 * so the line is never a bare prefix and the summarizer reads that a turn had no words. One line
 * (or, for an assistant with text and calls, or a user message with tool results and words, two)
 * per message: summarizerPasses counts them so. Anthropic's native format is read as its calls and
 * results: an AI message's `tool_use` blocks its `tool_calls` lack are calls, a user message's
 * `tool_result` blocks are `Tool result: ...` (their text). A `RemoveMessage` stored as a message
 * (langgraph#8423) is `""`: no line of the transcript, no token.
 */
export function transcriptLine(message: BaseMessage): string {
  const type = messageType(message);
  // A `RemoveMessage` LangGraph stored as a message (one written after REMOVE_ALL_MESSAGES,
  // langgraph#8423) is no turn: core groups it as an orphan that is never sent, and the summarizer
  // does not read it either (it was `Assistant: (empty)`).
  if (type === "remove") return "";
  const written = messageText(message);
  // An answer's reasoning written between `<think>` tags is read as reasoning blocks are: left out.
  const text = (type === "ai" ? withoutThinking(written) : written).trim();
  const body = text !== "" ? text : written.trim() !== "" ? REASONING_NOTE : contentNote((message as { content?: unknown }).content);
  if (type === "human") {
    const results = toolResultIdsOf(message).length > 0 ? toolResultTexts(message.content as unknown[]) : undefined;
    if (results === undefined) return `User: ${body}`;
    return text === "" ? `Tool result: ${results}` : `Tool result: ${results}\nUser: ${text}`;
  }
  if (type === "tool") return `Tool ${(message as ToolMessage).name ?? "result"}: ${body}`;
  if (type === "system") return `System: ${body}`;
  const blockCalls = new Set(blockCallIdsOf(message));
  const calls = [
    ...toolCallsOf(message).map((call) => ({ name: call.name, args: call.args })),
    ...(blockCalls.size === 0
      ? []
      : (message.content as Array<Record<string, unknown>>)
          .filter((b) => b?.type === "tool_use" && blockCalls.has(String(b.id ?? "")))
          .map((b) => ({ name: String(b.name ?? ""), args: b.input as Record<string, unknown> | undefined }))),
  ].map((call) => `${call.name}(${JSON.stringify(call.args ?? {})})`);
  const parts: string[] = [];
  if (text !== "" || calls.length === 0) parts.push(`Assistant: ${body}`);
  if (calls.length > 0) parts.push(`Assistant called ${calls.join(", ")}`);
  return parts.join("\n");
}

/** The text of a user message's `tool_result` blocks, joined with `; ` (a result without text: its content note). */
function toolResultTexts(content: readonly unknown[]): string {
  return content
    .filter((b): b is Record<string, unknown> => !!b && typeof b === "object" && (b as { type?: unknown }).type === "tool_result")
    .map((b) => contentText(b.content, "\n").trim() || contentNote(b.content))
    .join("; ");
}

/** Pieces of `text` in order: whitespace plus one word, long words split into pieces of 64 characters (grapheme clusters). */
function* pieces(text: string): Generator<string> {
  for (const match of text.matchAll(/\s*\S+|\s+$/g)) {
    const piece = match[0];
    if (piece.length < LONG_WORD_CHARACTERS) {
      yield piece;
      continue;
    }
    // Whole characters: a code-point cut split a decomposed Korean syllable or an emoji sequence.
    let rest = piece;
    while (rest !== "") {
      const head = characterHead(rest, WORD_PIECE_CHARACTERS);
      yield head;
      rest = rest.slice(head.length);
    }
  }
}

/**
 * Cuts `text` to at most `maxTokens` tokens, marker included, keeping its start; cuts between
 * words, or inside a long word between characters (grapheme clusters: never inside a Korean
 * syllable, composed or decomposed, nor an emoji sequence). One
 * pass over the kept prefix: each word is counted once.
 */
export function shortenToTokens(counter: TokenCounter, text: string, maxTokens: number): string {
  const longest = Math.max(1, maxTokens) * MAX_CHARACTERS_PER_TOKEN;
  if (text.length <= longest && boundedTokenCount(counter, text) <= maxTokens) return text;
  const markerFor = (kept: number) => SHORTENED_MARKER.replace("{n}", String(text.length - kept));
  const room = maxTokens - counter.countText(markerFor(0));
  let used = 0;
  let kept = 0;
  for (const piece of pieces(text)) {
    const cost = counter.countText(piece);
    if (used + cost > room) break;
    used += cost;
    kept += piece.length;
  }
  return text.slice(0, kept) + markerFor(kept);
}

/** The largest per-line cap `c` with `sum(min(t_i, c)) <= budget`, or `undefined` when none is at least `floor`. */
function waterLevel(tokens: readonly number[], budget: number, floor: number): number | undefined {
  const sorted = [...tokens].sort((a, b) => a - b);
  let used = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    const rest = sorted.length - i;
    const cap = Math.floor((budget - used) / rest);
    if (cap < (sorted[i] as number)) return cap >= floor ? cap : undefined;
    used += sorted[i] as number;
  }
  return Number.POSITIVE_INFINITY;
}

/** What one summarizer call receives. */
export interface SummarizerInput {
  /** `[SystemMessage(prompt), HumanMessage(previous summary + new messages)]`. */
  messages: BaseMessage[];
  /** Tokens of the input, framing included (upper bound, see {@link boundedTokenCount}). */
  tokens: number;
  /** Lines that were shortened or left out to fit `maxInputTokens`. */
  shortened: number;
}

/**
 * Builds the input of one incremental summarizer call (spec R11): the instructions, then one user
 * message holding the previous summary (when there is one) and the newly evicted messages as a
 * transcript, nothing else:
 *
 * ```text
 * <previous_summary>
 * ...
 * </previous_summary>
 *
 * <new_messages>
 * User: ...
 * Assistant: ...
 * </new_messages>
 * ```
 *
 * Bounded by `maxInputTokens`: when over, the longest lines are cut to a common cap with
 * {@link SHORTENED_MARKER} (so one huge message cannot crowd out the rest); if even a small cap per
 * line does not fit, the newest lines are left out with a marker. The previous summary is never
 * dropped; it is shortened only when it alone takes more than half the budget.
 */
export function buildSummarizerInput(args: {
  previousSummary: string | undefined;
  span: readonly BaseMessage[];
  prompt: string;
  maxInputTokens: number;
  counter: TokenCounter;
  /**
   * What {@link summarizerPassLines} read of `span` while forming the pass (its `lines` and
   * `lineTokens`, one per message of `span`), so its transcript lines are not written and looked
   * up again. Ignored unless it has one line per message. @default undefined (read here)
   */
  read?: Pick<SummarizerPass, "lines" | "lineTokens">;
}): SummarizerInput {
  const { counter, maxInputTokens } = args;
  const count = (text: string) => boundedTokenCount(counter, text);
  let previous = args.previousSummary?.trim() || undefined;
  if (previous !== undefined && count(previous) > maxInputTokens * MAX_SUMMARY_SHARE) {
    previous = shortenToTokens(counter, previous, Math.floor(maxInputTokens * MAX_SUMMARY_SHARE));
  }
  const head = previous === undefined ? "" : `<previous_summary>\n${previous}\n</previous_summary>\n\n`;
  const fixed = count(args.prompt) + count(`${head}<new_messages>\n\n</new_messages>`) + 2 * MESSAGE_OVERHEAD_TOKENS;
  const budget = Math.max(0, maxInputTokens - fixed);

  const read = args.read !== undefined && args.read.lines.length === args.span.length ? args.read : undefined;
  let lines: readonly string[] = read ? read.lines : args.span.map(transcriptLine);
  const changed = lines.map(() => false);
  // A line far over the budget is not counted at all (it will be cut): counting is the costly part.
  // A line is counted with its newline, as it sits in the transcript: lines start with a word, so
  // the count is its exact share of the whole, and counting the whole below finds every line's
  // segments in the counter's memo instead of tokenizing the transcript twice (issue 16). A line
  // the passes counted has that count (the same text, the same counter).
  const lineTokens = lines.map((line, i) =>
    line === ""
      ? 0
      : line.length > Math.max(1, budget) * MAX_CHARACTERS_PER_TOKEN
        ? budget + 1
        : (read?.lineTokens[i] ?? count(`${line}\n`)),
  );
  const total = lineTokens.reduce((a, b) => a + b, 0);
  if (total > budget) {
    const level = waterLevel(lineTokens, budget, MIN_LINE_TOKENS);
    if (level !== undefined) {
      lines = lines.map((line, i) => {
        if ((lineTokens[i] as number) <= level) return line;
        changed[i] = true;
        return shortenToTokens(counter, line, level - 1);
      });
    } else {
      // Too many lines for even a short cap each: keep the oldest that fit at the floor, mark the rest.
      const kept: string[] = [];
      let used = count("[... 00000 more messages left out: summarizer input limit]") + 1;
      let end = 0;
      for (; end < lines.length; end += 1) {
        const line = lines[end] as string;
        if (line === "") continue;
        const short = shortenToTokens(counter, line, MIN_LINE_TOKENS - 1);
        const cost = count(`${short}\n`);
        if (used + cost > budget) break;
        used += cost;
        if (short !== line) changed[end] = true;
        kept.push(short);
      }
      let left = 0;
      for (let i = end; i < lines.length; i += 1) {
        changed[i] = lines[i] !== "";
        if (changed[i]) left += 1;
      }
      kept.push(`[... ${left} more messages left out: summarizer input limit]`);
      lines = kept;
    }
  }
  const shortened = changed.filter(Boolean).length;
  const user = `${head}<new_messages>\n${lines.filter((line) => line !== "").join("\n")}\n</new_messages>`;
  const messages = [new SystemMessage(args.prompt), new HumanMessage(user)];
  const tokens = count(args.prompt) + count(user) + 2 * MESSAGE_OVERHEAD_TOKENS;
  return { messages, tokens, shortened };
}

/** Tokens a pass leaves free beside its lines: counts of joined texts differ from the sums of their parts by a few. */
const PASS_MARGIN_TOKENS = 16;

/**
 * Splits the messages a summary must cover into passes (spec R39), oldest first, each small enough
 * that {@link buildSummarizerInput} takes every line of it whole: the lines of one pass (tokens,
 * counted as the input counts them) fit in `maxInputTokens` less the instructions, the framing and
 * the most a previous summary can take there (half the cap: a longer one is shortened). A message
 * alone over that budget is a pass of its own (then shortened with {@link SHORTENED_MARKER}). A
 * pass ends at a group's start when it can (a call and its results in one pass); only a call whose
 * results alone are over the budget is split. Folding the passes in order into the running summary
 * (each pass's summary the next one's previous summary) covers a backlog of any size.
 *
 * @returns the passes, as consecutive slices of `span` (`[]` for an empty span).
 */
export function summarizerPasses(args: SummarizerPassesArgs): BaseMessage[][] {
  return summarizerPassLines(args).map((pass) => pass.messages);
}

/** Arguments of {@link summarizerPasses} and {@link summarizerPassLines}. */
export interface SummarizerPassesArgs {
  span: readonly BaseMessage[];
  prompt: string;
  maxInputTokens: number;
  counter: TokenCounter;
  /**
   * Passes wanted (a call folds at most `maxPassesPerCall` in): the first `maxPasses` passes, the
   * same as the first `maxPasses` of all of them, with only their lines and the next one counted,
   * so a call over a large backlog costs O(its passes), not O(backlog) (issue 21). @default all
   */
  maxPasses?: number;
}

/** One pass of {@link summarizerPassLines}: its messages and what forming it read of them. */
export interface SummarizerPass {
  /** A consecutive slice of the span. */
  messages: BaseMessage[];
  /** {@link transcriptLine} of each message. */
  lines: string[];
  /** Tokens of each line with its newline ({@link boundedTokenCount}); `undefined` for a line too long to be counted. */
  lineTokens: Array<number | undefined>;
}

/**
 * {@link summarizerPasses}, each pass with the transcript lines and token counts its forming
 * read, for {@link buildSummarizerInput}'s `read`: a summary writes and counts each line once.
 */
export function summarizerPassLines(args: SummarizerPassesArgs): SummarizerPass[] {
  const { counter, maxInputTokens, span } = args;
  const count = (text: string) => boundedTokenCount(counter, text);
  const summaryShare = Math.floor(maxInputTokens * MAX_SUMMARY_SHARE);
  const fixed =
    count(args.prompt) +
    count("<previous_summary>\n\n</previous_summary>\n\n<new_messages>\n\n</new_messages>") +
    2 * MESSAGE_OVERHEAD_TOKENS;
  const budget = Math.max(1, maxInputTokens - fixed - summaryShare - PASS_MARGIN_TOKENS);
  const maxPasses = args.maxPasses ?? Number.POSITIVE_INFINITY;
  // Counted as the passes are formed (each line once): lines past the last pass wanted are never read.
  const lines: string[] = [];
  const counted: Array<number | undefined> = [];
  const tokens: number[] = [];
  const passes: SummarizerPass[] = [];
  const pass = (from: number, to: number): SummarizerPass => ({
    messages: span.slice(from, to),
    lines: lines.slice(from, to),
    lineTokens: counted.slice(from, to),
  });
  let start = 0;
  let used = 0;
  for (let i = 0; i < span.length && passes.length < maxPasses; i += 1) {
    const line = transcriptLine(span[i] as BaseMessage);
    lines.push(line);
    counted.push(line === "" ? 0 : line.length > budget * MAX_CHARACTERS_PER_TOKEN ? undefined : count(`${line}\n`));
    tokens.push(counted[i] ?? budget + 1);
    if (i > start && used + (tokens[i] as number) > budget) {
      // End the pass before the group holding message i (its call) when that leaves the pass non-empty.
      let end = i;
      while (end > start && isResult(span[end] as BaseMessage)) end -= 1;
      if (end === start || !isResult(span[i] as BaseMessage)) end = i;
      passes.push(pass(start, end));
      start = end;
      used = 0;
      for (let k = start; k < i; k += 1) used += tokens[k] as number;
    }
    used += tokens[i] as number;
  }
  // The loop read every line when it did not stop at the passes wanted.
  if (start < span.length && passes.length < maxPasses) passes.push(pass(start, span.length));
  return passes;
}

/** A tool result: a ToolMessage, or a user message of `tool_result` blocks (Anthropic's native format). */
function isResult(message: BaseMessage): boolean {
  return messageType(message) === "tool" || toolResultIdsOf(message).length > 0;
}
