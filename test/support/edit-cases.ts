/**
 * What test/stack.edits.test.ts runs (issues 16 and 21, spec R37): the stacks
 * (`[windowTrim(), summarize()]` and summarize alone (the other order is refused), with and without `background`,
 * `[windowTrim(), tokenCap()]`, tokenCap alone, the memoryStack preset in each placement mode with
 * factRecall and recall), built from one loaded copy of the threadwise modules per "process", and
 * random cases: a random stored thread (`stack-threads.ts`) on a MemorySaver or a SqliteSaver,
 * then operations on it, each by process A or B: turns, RemoveMessage, REMOVE_ALL_MESSAGES
 * rewrites, messages replaced in place by id (text much longer, much shorter, same length with
 * another script; tool calls removed or renamed; tool results), `updateState` on an older
 * checkpoint, forks, replays, the thread deleted and imported again under the same ids, a turn by
 * an agent with another stack, human-in-the-loop approve/edit/reject.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { codePointHead, messageText, type PromptContextMode, type ThreadwiseLogger, toolCallsOf } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryMiddleware, messageArchive, resolveMemoryConfig, type ThreadwiseSaver, turnAdmission } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import fc from "fast-check";
import { type AgentMiddleware, tool } from "langchain";
import { vi } from "vitest";
import { z } from "zod/v4";
import {
  emptyUserArb,
  lookupResult,
  type SeedStep,
  seedStepArb as storedStepArb,
  type TurnSpec,
  textArb,
  turnArb,
} from "./stack-threads.js";

/**
 * A stored step: the seed steps of `stack-threads.ts`, and now and then an empty user message an
 * OpenAI model answered (`emptyUserArb`), which core's view leaves out unless it is the newest
 * user message (then it is sent as typed: `asDesigned` in edit-run.ts). Drawn, they found the
 * archive's batches ending right before such a message (fixed in `alignedBatch`) and fact-recall's
 * re-read after an edit missing a former value stated in an archived message.
 */
const seedStepArb: fc.Arbitrary<SeedStep> = fc.oneof({ weight: 12, arbitrary: storedStepArb }, { weight: 1, arbitrary: emptyUserArb });

export const SYSTEM_PROMPT = "You are a helpful travel assistant. 친절한 여행 도우미입니다.";

/** The factories of one "process": one loaded copy of the threadwise modules. */
export interface Lib {
  windowTrim: typeof windowTrim;
  tokenCap: typeof tokenCap;
  summarize: typeof summarize;
  memoryMiddleware: typeof memoryMiddleware;
  resolveMemoryConfig: typeof resolveMemoryConfig;
  messageArchive: typeof messageArchive;
  turnAdmission: typeof turnAdmission;
}
export const LIB_A: Lib = { windowTrim, tokenCap, summarize, memoryMiddleware, resolveMemoryConfig, messageArchive, turnAdmission };

/**
 * Another copy of every threadwise module (its own module state and caches), as another process
 * has: process B, and the from-scratch reference.
 */
export async function loadProcess(): Promise<Lib> {
  vi.resetModules();
  const [window, cap, sum, memory] = await Promise.all([
    import("@threadwise/window-trim"),
    import("@threadwise/token-cap"),
    import("@threadwise/summarize"),
    import("@threadwise/memory"),
  ]);
  return {
    windowTrim: window.windowTrim,
    tokenCap: cap.tokenCap,
    summarize: sum.summarize,
    memoryMiddleware: memory.memoryMiddleware,
    resolveMemoryConfig: memory.resolveMemoryConfig,
    messageArchive: memory.messageArchive,
    turnAdmission: memory.turnAdmission,
  };
}

// ---------------------------------------------------------------------------------------------
// Stacks

export const STACK_KINDS = ["window+summarize", "summarize", "window+cap", "cap", "preset"] as const;
/**
 * The kinds above, `archive` (the preset with `archive: true`; its own property,
 * test/stack.archive.test.ts), and `window+summarize+cap` (`[windowTrim(), summarize(), tokenCap()]`,
 * drawn only by the breaker's fuzz, test/stack.fuzz.slow.test.ts, so the seeds above draw what they drew).
 */
export type StackKind = (typeof STACK_KINDS)[number] | "archive" | "window+summarize+cap";

export interface StackConfig {
  kind: StackKind;
  mode: PromptContextMode;
  /** The README's stacks as written (`[windowTrim(), summarize()]`, `[windowTrim(), tokenCap({ maxTokens })]`): default options. */
  defaults: boolean;
  maxMessages: number;
  windowEviction: "sliding" | "chunked";
  maxTokens: number;
  capEviction: "sliding" | "chunked";
  /** Extra messages over the window before a summary is due. */
  thresholdOver: number;
  /** summarize's `background` (summary prepared after the answer, adopted by the next call). */
  background: boolean;
  maxItems: number;
  /** Preset only: persistTrim's kept groups (deletes from the store after each run), or none. */
  keepGroups: number | undefined;
  /** Preset only: the recall block. */
  recall: boolean;
  /**
   * Archive only: `messageArchive` keeps the window plus this many groups hot and moves batches of
   * at least `archiveBatch` messages (so threads of a few turns archive); both unset: memoryStack's
   * own (window + `ARCHIVE_MARGIN_GROUPS` groups, batches of `DEFAULT_ARCHIVE_BATCH_MESSAGES`).
   */
  archiveMargin?: number;
  archiveBatch?: number;
  /** Archive only: the checkpointer encrypts (a keyring): archived messages are sealed. */
  archiveEncrypted?: boolean;
  /**
   * Archive only: persistTrim's kept groups when the run puts persistTrim in the archive stack
   * (`runArchiveProperty`'s `persistTrim`; it decides over the archive and the checkpoint, and may
   * bring archived messages back), or none.
   */
  trimKeepGroups?: number;
}

export const configArb: fc.Arbitrary<StackConfig> = fc.record({
  kind: fc.constantFrom<StackKind>(...STACK_KINDS),
  mode: fc.constantFrom<PromptContextMode>("legacy_system", "stable_tail", "cache_aware"),
  defaults: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  maxMessages: fc.integer({ min: 2, max: 10 }),
  windowEviction: fc.constantFrom("sliding" as const, "chunked" as const),
  maxTokens: fc.integer({ min: 150, max: 2500 }),
  capEviction: fc.constantFrom("sliding" as const, "chunked" as const),
  thresholdOver: fc.integer({ min: 1, max: 8 }),
  background: fc.boolean(),
  maxItems: fc.integer({ min: 1, max: 3 }),
  keepGroups: fc.option(fc.integer({ min: 3, max: 12 }), { nil: undefined }),
  recall: fc.boolean(),
});

/**
 * An archive stack (issue 27): the preset with `archive: true`, mostly with a tight archive (a small
 * margin over the window and small batches, so messages move within a few turns), sometimes with
 * memoryStack's own; no persistTrim unless the run asks for it (`runArchiveProperty`'s `persistTrim`:
 * then `trimKeepGroups`, the preset's draw, about half the time).
 */
export const archiveConfigArb: fc.Arbitrary<StackConfig> = fc
  .tuple(
    configArb,
    fc.oneof(
      { weight: 4, arbitrary: fc.record({ margin: fc.integer({ min: 0, max: 3 }), batch: fc.integer({ min: 1, max: 6 }) }) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  )
  .map(([c, tight, encrypted]) => ({
    ...c,
    kind: "archive" as const,
    keepGroups: undefined,
    trimKeepGroups: c.keepGroups,
    ...(tight ? { archiveMargin: tight.margin, archiveBatch: tight.batch } : {}),
    archiveEncrypted: encrypted,
  }));

/** A short name of a config, for the per-stack counts. */
export function stackName(c: StackConfig): string {
  if (c.kind === "archive")
    return `archive(${c.archiveBatch === undefined ? "memoryStack" : "tight"}${c.archiveEncrypted ? ",sealed" : ""}${c.recall ? ",recall" : ""})`;
  if (c.kind === "preset") return `memoryStack(${c.mode}${c.recall ? ",recall" : ""})`;
  if (c.kind === "window+summarize" || c.kind === "summarize" || c.kind === "window+summarize+cap")
    return `${c.kind}${c.background ? "(background)" : ""}`;
  return c.kind;
}

/**
 * The fake summarizer's answer: a function of its whole input, so a different input shows in the
 * slot. Its input's last 40 UTF-16 units, less a low surrogate they begin with: a model answers
 * well-formed text (was: the half of an emoji the cut left, which the strict validator refuses in
 * the system message that carries the summary, seed 29 case 11 of the breaker's fuzz).
 */
export function fakeSummary(messages: readonly BaseMessage[]): string {
  const input = messages.map((m) => messageText(m)).join("\n");
  let hash = 0;
  for (let i = 0; i < input.length; i += 1) hash = (hash * 31 + input.charCodeAt(i)) | 0;
  const tail = input.slice(-40).replace(/^[\udc00-\udfff]/, "");
  return `Summary of ${input.split("\n").length} lines (#${(hash >>> 0).toString(16)}): ${tail.replace(/\s+/g, " ")}`;
}

/**
 * The middlewares of `c`, made by `lib`. An `archive` stack needs `saver` (the case's
 * ThreadwiseSaver): turn admission first, as memoryStack puts it, then the preset with the archive.
 * A preset given a saver gets turn admission first too.
 */
export function buildStack(lib: Lib, c: StackConfig, logger: ThreadwiseLogger, saver?: ThreadwiseSaver): AgentMiddleware[] {
  const model = scriptedModel((messages: BaseMessage[]) => fakeSummary(messages), { strict: false });
  const mode = c.mode;
  if (c.kind === "archive") {
    if (!saver) throw new Error("an archive stack needs the case's ThreadwiseSaver");
    const stack = buildStack(lib, { ...c, kind: "preset" }, logger);
    const config = lib.resolveMemoryConfig({ ...presetInput(c), archive: true }, {});
    const archived = lib.memoryMiddleware(config, { models: { summarize: model as never }, logger }, saver);
    if (c.archiveBatch !== undefined) {
      const at = archived.findIndex((m) => m.name === "threadwise/message-archive");
      archived[at] = lib.messageArchive(saver, {
        keepGroups: c.maxMessages + (c.archiveMargin ?? 0),
        batchMessages: c.archiveBatch,
        // windowTrim's chunked step, as memoryStack aligns.
        alignMessages: c.maxMessages - Math.floor(c.maxMessages / 2),
        logger,
      }) as AgentMiddleware;
    }
    // The same middlewares as the preset's but for the archive's own and its checkpointer check (checked by name).
    const archiveOwn = new Set(["threadwise/message-archive", "threadwise/archive-checkpointer"]);
    const names = (list: AgentMiddleware[]) => list.map((m) => m.name).filter((name) => !archiveOwn.has(name));
    if (JSON.stringify(names(archived)) !== JSON.stringify(names(stack))) throw new Error("archive stack differs from the preset");
    return [lib.turnAdmission(saver), ...archived] as AgentMiddleware[];
  }
  if (c.kind === "preset") {
    const config = lib.resolveMemoryConfig(presetInput(c), {});
    const stack = lib.memoryMiddleware(config, { models: { summarize: model as never }, logger });
    // On a ThreadwiseSaver (an archive case's control) as memoryStack makes it: turn admission first.
    return saver ? [lib.turnAdmission(saver) as AgentMiddleware, ...stack] : stack;
  }
  const window = c.defaults
    ? lib.windowTrim({ logger })
    : lib.windowTrim({ maxMessages: c.maxMessages, eviction: c.windowEviction, logger });
  const cap = c.defaults
    ? lib.tokenCap({ maxTokens: c.maxTokens, logger })
    : lib.tokenCap({ maxTokens: c.maxTokens, encoding: "o200k_base", eviction: c.capEviction, logger });
  if (c.kind === "window+cap") return [window, cap] as AgentMiddleware[];
  if (c.kind === "window+summarize+cap") {
    const summary = lib.summarize({
      model,
      ...(c.defaults ? {} : { windowSize: c.maxMessages, threshold: c.maxMessages + c.thresholdOver }),
      promptContextMode: mode,
      background: c.background,
      logger,
    });
    return [window, summary, cap] as AgentMiddleware[];
  }
  if (c.kind === "cap") return [cap] as AgentMiddleware[];
  const summary = c.defaults
    ? lib.summarize({ model, promptContextMode: mode, background: c.background, logger })
    : lib.summarize({
        model,
        windowSize: c.maxMessages,
        threshold: c.maxMessages + c.thresholdOver,
        promptContextMode: mode,
        background: c.background,
        logger,
      });
  // `[summary, window]` is refused (core's ARCHITECTURE.md, "Middleware order"): the other kind is
  // summarize alone, on its own window.
  return (c.kind === "window+summarize" ? [window, summary] : [summary]) as AgentMiddleware[];
}

/** The preset's memory config input (also the archive stack's, with `archive: true`). */
function presetInput(c: StackConfig) {
  return {
    backend: "in_memory" as const,
    windowSize: c.maxMessages,
    maxHistoryTokens: c.maxTokens,
    summarize: true,
    summarizeThreshold: c.maxMessages + c.thresholdOver,
    factsMode: "heuristic" as const,
    factRecallMaxItems: c.maxItems,
    promptContextMode: c.mode,
    ...(c.keepGroups === undefined ? {} : { persistTrimKeepGroups: c.keepGroups }),
    ...(c.recall ? { recallMaxTokens: 200 } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Operations

export type Process = "A" | "B";

/**
 * How a stored message is replaced under its own id: `longer` (its text many times over),
 * `shorter` (a few characters), `script` (the same length in characters, in another script:
 * English becomes Korean or emoji, Korean becomes English, so the token count changes a lot),
 * `calls-removed` (an AI message's tool calls dropped, text instead), `call-renamed` (an AI
 * message's first tool call under another id), `args` (the calls' arguments, as
 * humanInTheLoop's `edit` decision does). A tool result gets `longer`, `shorter` or `script` of
 * its text; a kind that does not apply to the message falls back to `longer`.
 */
export const EDIT_KINDS = ["longer", "shorter", "script", "calls-removed", "call-renamed", "args"] as const;
export type EditKind = (typeof EDIT_KINDS)[number];

export type Op =
  | { kind: "turn"; by: Process; turn: TurnSpec }
  /** A turn on another thread served by the same instances, its messages under the main thread's ids with other text. */
  | { kind: "elsewhere"; by: Process; turn: TurnSpec }
  /**
   * A stored message replaced in place (see {@link pickIndex}): by `updateState` on the thread's
   * head, or sent with the next turn's input (`viaInput`), as an editing UI would.
   */
  | { kind: "edit"; by: Process; turn: TurnSpec; pick: number; nearTail: boolean; edit: EditKind; text: string; viaInput: boolean }
  /** `updateState` on an older checkpoint (`back` turns back) replacing one of its messages, then the turn from the checkpoint it made. */
  | { kind: "edit-old"; by: Process; turn: TurnSpec; back: number; pick: number; nearTail: boolean; edit: EditKind; text: string }
  /**
   * Archive cases only: an edit in place of a message held again, on a branch forked from an older
   * checkpoint (`back` turns back) taken before an archiving: one of that checkpoint's hot messages
   * that is archived now (any of its messages when none is), replaced by `updateState` on it or sent
   * with the fork's input (`viaInput`), then the fork's turn.
   */
  | { kind: "edit-held"; by: Process; turn: TurnSpec; back: number; pick: number; edit: EditKind; text: string; viaInput: boolean }
  | { kind: "remove"; by: Process; turn: TurnSpec; picks: number[] }
  /** A persistTrim-like rewrite: `REMOVE_ALL_MESSAGES`, then the stored suffix from `keepFrom` (a fraction). */
  | { kind: "rewrite"; by: Process; turn: TurnSpec; keepFrom: number }
  /** The turn from an older checkpoint (`configurable.checkpoint_id`, `back` turns back): a fork. */
  | { kind: "fork"; by: Process; turn: TurnSpec; back: number }
  /**
   * Resume any checkpoint of the thread's history (`pick` modulo its length), mid-run ones too: one
   * with work pending (the tool node after a tool-call answer, the model after tool results) goes
   * on from there (`invoke(null)`), one at the end of a run takes the turn's user message.
   */
  | { kind: "replay"; by: Process; turn: TurnSpec; pick: number }
  /**
   * The thread is deleted from the checkpointer and imported again under the same thread id:
   * another stored part whose messages take the old thread's ids position by position.
   */
  | { kind: "reimport"; by: Process; turn: TurnSpec; seed: SeedStep[] }
  /** A turn by a second agent on the same thread with another stack (the case's `otherConfig`). */
  | { kind: "other-stack"; by: Process; turn: TurnSpec }
  /**
   * A turn whose model calls `lookup` and `book` in parallel; `book` waits for a human
   * (humanInTheLoopMiddleware), who approves, edits or rejects it (`Command({ resume })`).
   */
  | { kind: "hitl"; by: Process; turn: TurnSpec; decision: "approve" | "edit" | "reject"; call: string }
  /**
   * The turn's user message given to a checkpoint taken right after the tools node (`pick` modulo
   * how many there are; the head when there is none): a fork of a run that stopped before its
   * reply, so the view has tool results followed by a user message (core's no-reply message).
   */
  | { kind: "fork-after-tools"; by: Process; turn: TurnSpec; pick: number }
  /**
   * The breaker's operations (test/stack.fuzz.slow.test.ts; never drawn by the seeds of the other
   * fuzz tests). `bulk`: one `updateState` on the head importing `count` messages (user and AI
   * messages, parallel tool calls with their results, ids `b<n>-<k>`), then the turn.
   */
  | {
      kind: "bulk";
      by: Process;
      turn: TurnSpec;
      count: number;
      salt: number;
      /** Every other round of parallel calls has its first call unanswered (an imported thread whose client lost results); drawn after the stack (`danglingImportOpsArb`). */
      unanswered?: boolean;
    }
  /**
   * A turn whose model calls `lookup` twice in parallel; the second call fails in a middleware's
   * `wrapToolCall` (`throw`: the run rejects; `abort`: the caller's AbortSignal fires; `crash`: the run
   * rejects and the process is gone: the agents and the saver object are dropped and a fresh saver on the
   * same storage, and fresh middleware instances, serve what follows). Then `turn` on the thread.
   */
  | { kind: "interrupted"; by: Process; turn: TurnSpec; how: "throw" | "abort" | "crash" }
  /** Two invokes on the thread at once, by A and B (each with a turn of no tool calls); one may be refused as a concurrent turn. */
  | { kind: "concurrent"; by: Process; turn: TurnSpec; other: TurnSpec }
  /** `updateState` on the head with `REMOVE_ALL_MESSAGES`, then the stored suffix from `keepFrom` (a fraction; 1: nothing kept), then the turn. */
  | { kind: "rewrite-update"; by: Process; turn: TurnSpec; keepFrom: number }
  /**
   * The state written as a node would have written it, then the run resumed with `invoke(null)`
   * (LangGraph's time travel, its `updateState(config, values, asNode)` and `bulkUpdateState`):
   * `call`: an AI message calling `lookup` `calls` times in parallel (ids no model answer uses)
   * written as `model_request` on the head, so the tools run and the model answers; `input`: the
   * turn's user message written as `__input__`, so the whole turn runs; `supersteps`: both in one
   * `bulkUpdateState` (the user message as input, then the call as the model's), then resumed.
   * `copy`: the checkpoint so written is copied first (`updateState(config, undefined, "__copy__")`,
   * a fork with its tasks left to run) and the copy is resumed.
   * Drawn by the breaker's fuzz after its stack (`asNodeOpsArb`), so the seeds draw the cases and
   * stacks they drew before it existed.
   */
  | { kind: "as-node"; by: Process; turn: TurnSpec; how: "call" | "input" | "supersteps"; calls: number; copy: boolean }
  /**
   * The state written as a middleware's node (not LangChain's `model_request`): an AI message calling
   * `lookup` `calls` times in parallel, by `updateState(head, { messages }, asNode)` with the outer or
   * the inner probe's `afterModel` node (`test/edit-outer-probe.after_model`: the last hook before the
   * route to the tools, so every other `afterModel` hook, humanInTheLoop's included, is skipped;
   * `test/edit-inner-probe.after_model`: the first, so the others run), then `invoke(null)`: the tools
   * run and the model answers. Drawn by the breaker's fuzz last (`asMiddlewareOpsArb`).
   */
  | { kind: "as-middleware"; by: Process; turn: TurnSpec; node: "outer" | "inner"; calls: number }
  /**
   * A review left waiting (humanInTheLoop on `book`, called in parallel with `lookup`, neither run yet),
   * then: `new-turn`, the client sends the turn's user message instead of a resume (the calls stay
   * unanswered in the thread); `edit`, the client replaces the waiting AI message by id with
   * `updateState` (the `book` call's arguments changed, as an editing UI does), and the review of
   * the edited call is approved; `drop-answer`, the review is approved and the turn's input removes
   * `lookup`'s result (`RemoveMessage`), leaving one of the AI message's two calls without its
   * answer. Then the turn. Drawn by the breaker's fuzz after its stack (`reviewOpsArb`).
   */
  | { kind: "review-left"; by: Process; turn: TurnSpec; after: "new-turn" | "edit" | "drop-answer"; call: string }
  /**
   * The turn sent as `Command({ update: { messages: [user] }, goto: "model_request" })`, as a client
   * that routes its input straight to the model does: the run skips every `beforeAgent` hook. Drawn
   * by the breaker's fuzz after its stack (`gotoOpsArb`).
   */
  | { kind: "goto"; by: Process; turn: TurnSpec }
  /**
   * The turn run with `durability: "exit"` (LangGraph stores its checkpoints only as the run ends):
   * its model calls come before any checkpoint of the run is stored, so the saver's puts read
   * nothing of the thread between the head read and those calls (breaker66: the saver's "archive
   * known empty" must still give a fresh process's answer). Drawn by the breaker's fuzz last, after
   * `as-middleware` (`breakerLastOpsArb`).
   */
  | { kind: "exit-turn"; by: Process; turn: TurnSpec }
  /**
   * One update carrying two messages with one id (https://github.com/langchain-ai/langgraphjs/pull/846:
   * the reducer keeps the later), by `updateState` on the head or with the turn's input
   * (`viaInput`), then the turn. `fresh`: an id the thread does not hold (two user messages, two AI
   * messages, a user then an AI message or the reverse, by `pick` modulo 4); `stored`: the id of a stored message (see {@link pickIndex}, so
   * an archived one too, which the archive run refuses), both copies edits of it (`edits`). Drawn
   * by `dupIdOpsArb` after the stack (`runArchiveProperty`'s `duplicateIds`), so the seeds draw the
   * cases and stacks they drew before it existed.
   */
  | {
      kind: "dup-ids";
      by: Process;
      turn: TurnSpec;
      target: "fresh" | "stored";
      pick: number;
      nearTail: boolean;
      edits: [EditKind, EditKind];
      text: string;
      viaInput: boolean;
    };

export type OpKind = Op["kind"];
/** Operations drawn only for archive cases (`editCase`s of the edit fuzz never hold one). */
export const ARCHIVE_ONLY_OPS: readonly OpKind[] = ["edit-held"];
/** Operations drawn only by the breaker's fuzz (`breakerCaseArb`, `asNodeOpsArb`; test/stack.fuzz.slow.test.ts). */
export const BREAKER_OPS: readonly OpKind[] = [
  "bulk",
  "interrupted",
  "concurrent",
  "rewrite-update",
  "as-node",
  "review-left",
  "goto",
  "dup-ids",
  "as-middleware",
  "exit-turn",
];
export const OP_KINDS: readonly OpKind[] = [
  "turn",
  "elsewhere",
  "edit",
  "edit-old",
  "edit-held",
  "remove",
  "rewrite",
  "fork",
  "replay",
  "reimport",
  "other-stack",
  "hitl",
  "fork-after-tools",
  ...BREAKER_OPS,
];

const processArb = fc.constantFrom<Process>("A", "B");
const editKindArb = fc.constantFrom<EditKind>(...EDIT_KINDS);
/** Edits land mostly among the newest messages, where the view is (an edit far back matters less often). */
const nearTailArb = fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });

/** The position an edit replaces in a thread of `length` messages: any position, or one of the newest 12 (`nearTail`). */
export function pickIndex(length: number, pick: number, nearTail: boolean): number {
  if (length === 0) return 0;
  return nearTail ? length - 1 - (pick % Math.min(length, 12)) : pick % length;
}
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("turn" as const), by: processArb, turn: turnArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("elsewhere" as const), by: processArb, turn: turnArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      by: processArb,
      turn: turnArb,
      pick: fc.nat(),
      nearTail: nearTailArb,
      edit: editKindArb,
      text: textArb,
      viaInput: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("edit-old" as const),
      by: processArb,
      turn: turnArb,
      back: fc.integer({ min: 1, max: 4 }),
      pick: fc.nat(),
      nearTail: nearTailArb,
      edit: editKindArb,
      text: textArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("remove" as const),
      by: processArb,
      turn: turnArb,
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("rewrite" as const),
      by: processArb,
      turn: turnArb,
      keepFrom: fc.double({ min: 0.1, max: 0.9, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("fork" as const), by: processArb, turn: turnArb, back: fc.integer({ min: 1, max: 4 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replay" as const), by: processArb, turn: turnArb, pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("reimport" as const),
      by: processArb,
      turn: turnArb,
      seed: fc.array(seedStepArb, { maxLength: 24 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("other-stack" as const), by: processArb, turn: turnArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("hitl" as const),
      by: processArb,
      turn: turnArb,
      decision: fc.constantFrom("approve" as const, "edit" as const, "reject" as const),
      call: fc.constantFrom("call_1", "call_2", "call_3", "call_4"),
    }),
  },
);

/** A fork with new input from a checkpoint taken after the tools node (`fork-after-tools`). */
const forkAfterToolsArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant("fork-after-tools" as const),
  by: processArb,
  turn: turnArb,
  pick: fc.nat(),
});

/** An edit in place of a message held again (`edit-held`, archive cases only). */
const editHeldArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant("edit-held" as const),
  by: processArb,
  turn: turnArb,
  back: fc.integer({ min: 1, max: 4 }),
  pick: fc.nat(),
  edit: editKindArb,
  text: textArb,
  viaInput: fc.boolean(),
});

/** `postgres`: a ThreadwiseSaver on PostgreSQL (archive cases of the breaker's fuzz only; see `useArchivePostgres` in edit-run.ts). */
export type SaverKind = "memory" | "sqlite" | "postgres";

export interface EditCase {
  saver: SaverKind;
  seed: SeedStep[];
  first: TurnSpec;
  ops: Op[];
  /** The stack of the second agent (`other-stack`). */
  otherConfig: StackConfig;
}

/** A case whose stored part is `long` times as often long (40 to 90 steps) as short (up to 24). */
function caseArb(long: number): fc.Arbitrary<EditCase> {
  return fc.record({
    saver: fc.constantFrom<SaverKind>("memory", "sqlite"),
    seed: fc.oneof(
      { weight: 5, arbitrary: fc.array(seedStepArb, { maxLength: 24 }) },
      { weight: 5 * long, arbitrary: fc.array(seedStepArb, { minLength: 40, maxLength: 90 }) },
    ),
    first: turnArb,
    ops: fc.array(opArb, { minLength: 3, maxLength: 10 }),
    otherConfig: configArb,
  });
}

/**
 * A case: a saver, a stored part, the first turn, then 3 to 10 operations (and at most one
 * `fork-after-tools`, drawn after the rest). Mostly short threads, sometimes long ones (a per-thread cache
 * that samples positions misses more).
 */
export const editCaseArb: fc.Arbitrary<EditCase> = fc
  .tuple(caseArb(0.2), fc.array(fc.tuple(fc.nat(), forkAfterToolsArb), { maxLength: 1 }))
  .map(([c, forks]) => {
    // Drawn after the case's own draws (as archiveCaseArb's edit-held): its stored part, turns and
    // other ops are those the seed drew before; the stack drawn after the case may differ.
    return withOps(c, forks);
  });
/**
 * The same for archive stacks: long stored parts as often as short ones, three times in four
 * without stored system messages (nothing after the first one is archived), so messages move, and
 * up to two edits in place of messages held again (`edit-held`) inserted among the operations.
 * The insertions are drawn last, so a seed's other draws are those it drew before they existed
 * (a case drawn without one is the case it was).
 */
export const archiveCaseArb: fc.Arbitrary<EditCase> = fc
  .tuple(caseArb(1), fc.nat(3), fc.array(fc.tuple(fc.nat(), editHeldArb), { maxLength: 2 }))
  .map(([c, k, held]) => ({ ...withOps(c, held), seed: k === 0 ? c.seed : c.seed.filter((step) => step.kind !== "system") }));

export const lookup = tool(async ({ q }: { q: string }) => lookupResult(q), {
  name: "lookup",
  description: "Looks up seats and bookings.",
  schema: z.object({ q: z.string() }),
});

/** The tool a human reviews (humanInTheLoopMiddleware's `interruptOn`). */
export const book = tool(async ({ seat }: { seat: string }) => `booked ${seat}`, {
  name: "book",
  description: "Books a seat.",
  schema: z.object({ seat: z.string() }),
});

/** A seed step with its texts reversed: same ids and lengths, other content. */
export function mirrored(step: SeedStep): SeedStep {
  const flip = (text: string) => [...text].reverse().join("");
  if (step.kind === "user" || step.kind === "assistant") return { ...step, content: { ...step.content, text: flip(step.content.text) } };
  if (step.kind === "system") return { ...step, text: flip(step.text) };
  if (step.kind === "tools") return { ...step, result: flip(step.result) };
  return step;
}

const HANGUL = "가나다라마바사아자차카타파하";
const EMOJI = "😀🚀🌏🎉";

/** Text of `length` UTF-16 units in another script than `text`: ASCII becomes Korean or emoji, anything else becomes English. */
export function otherScript(text: string, salt: number): string {
  const ascii = [...text].filter((ch) => ch.charCodeAt(0) < 128).length >= text.length / 2;
  let out = "";
  if (!ascii) {
    const words = "seat window aisle booking";
    while (out.length < text.length) out += words;
    return out.slice(0, text.length);
  }
  if (salt % 2 === 0) {
    for (let i = 0; out.length < text.length; i += 1) out += HANGUL[(i + salt) % HANGUL.length];
    return out;
  }
  // Emoji are two UTF-16 units each; an odd length ends on one Hangul syllable.
  for (let i = 0; out.length + 2 <= text.length; i += 1) out += [...EMOJI][(i + salt) % 4];
  return out.length < text.length ? `${out}가` : out;
}

/** New text for `old` by `kind`: many times longer, a few characters, or the same length in another script. */
function newText(old: string, kind: EditKind, text: string, salt: number): string {
  // Cut between code points: a client's edit holds no lone surrogate (the strict validator refuses one).
  if (kind === "shorter") return codePointHead(old.trim() === "" ? text : old, 1 + (salt % 4)) || "ok";
  if (kind === "script" && old.length > 0) return otherScript(old, salt);
  return Array.from({ length: 8 + (salt % 24) }, () => `${text} ${old}`).join(" ");
}

/**
 * The same message under the same id with other content, as a client editing a message (or
 * humanInTheLoop's `edit` decision for a tool call's arguments) sends it: the messages reducer
 * replaces it in place. `text` is random text the edit may use; `salt` varies lengths and scripts.
 */
export function edited(message: BaseMessage, kind: EditKind, text: string, salt: number): BaseMessage {
  const type = message.getType();
  const id = message.id as string;
  const old = messageText(message);
  if (type === "ai") {
    const calls = toolCallsOf(message);
    if (calls.length > 0 && kind === "calls-removed") return new AIMessage({ id, content: text });
    // A client that edits calls copies the stored message's other fields, its provider output
    // items (`response_metadata.output`) too: they then call what the message no longer does.
    const response_metadata = message.response_metadata;
    if (calls.length > 0 && kind === "call-renamed") {
      const renamed = calls.map((c, i) => ({ ...c, id: i === 0 ? `call_edit${salt % 7}` : c.id, type: "tool_call" as const }));
      return new AIMessage({ id, content: message.content, tool_calls: renamed, response_metadata });
    }
    if (calls.length > 0) {
      const args = kind === "args" ? { q: "long" } : undefined;
      return new AIMessage({
        id,
        content: kind === "args" ? message.content : newText(old, kind, text, salt),
        tool_calls: calls.map((c) => ({ ...c, args: args ?? c.args, type: "tool_call" as const })),
        response_metadata,
      });
    }
    return new AIMessage({ id, content: newText(old, kind, text, salt) });
  }
  if (type === "tool") {
    const m = message as ToolMessage;
    return new ToolMessage({ id, content: newText(old, kind, text, salt), tool_call_id: m.tool_call_id, name: m.name });
  }
  if (type === "system") return new SystemMessage({ id, content: newText(old, kind, text, salt) });
  return new HumanMessage({ id, content: newText(old, kind, text, salt) });
}

/** A turn without tool calls (the concurrent operation's: two runs pull answers from one script). */
const plainTurnArb: fc.Arbitrary<TurnSpec> = turnArb.map((turn) => ({ ...turn, rounds: [] }));

/** The breaker's operations (`bulk`, `interrupted`, `concurrent`, `rewrite-update`). */
export const breakerOpArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("bulk" as const),
      by: processArb,
      turn: turnArb,
      count: fc.constantFrom(5000, 300),
      salt: fc.nat({ max: 1000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("interrupted" as const),
      by: processArb,
      turn: turnArb,
      how: fc.constantFrom("throw" as const, "abort" as const, "crash" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("concurrent" as const), by: processArb, turn: plainTurnArb, other: plainTurnArb }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("rewrite-update" as const),
      by: processArb,
      turn: turnArb,
      keepFrom: fc.oneof(fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.constant(1)),
    }),
  },
);

/**
 * Where and which `as-node` operation a breaker case gets: none or one, at a position (modulo the
 * number of operations plus one); drawn after the case and its stack (`afterStack` of the runners).
 */
export const asNodeOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(
    fc.nat(),
    fc.record({
      kind: fc.constant("as-node" as const),
      by: processArb,
      turn: turnArb,
      how: fc.constantFrom("call" as const, "input" as const, "supersteps" as const),
      calls: fc.integer({ min: 1, max: 3 }),
      copy: fc.boolean(),
    }),
  ),
  { maxLength: 1 },
);

/**
 * Where and which `review-left` operation a breaker case gets: none or one (drawn after the stack and
 * the `as-node` draw, so a seed's cases, stacks and `as-node` operations are those it drew before).
 */
export const reviewOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(
    fc.nat(),
    fc.record({
      kind: fc.constant("review-left" as const),
      by: processArb,
      turn: turnArb,
      after: fc.constantFrom("new-turn" as const, "edit" as const, "drop-answer" as const),
      call: fc.constantFrom("call_1", "call_2", "call_3", "call_4"),
    }),
  ),
  { maxLength: 1 },
);

/**
 * Where and which import of calls lacking answers a breaker case gets (a `bulk` operation with
 * `unanswered`, 300 or 1,000 messages): none or one, drawn after `review-left`.
 */
export const danglingImportOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(
    fc.nat(),
    fc.record({
      kind: fc.constant("bulk" as const),
      by: processArb,
      turn: turnArb,
      count: fc.constantFrom(300, 1000),
      salt: fc.nat({ max: 1000 }),
      unanswered: fc.constant(true),
    }),
  ),
  { maxLength: 1 },
);

/** Where and which `goto` operations a breaker case gets: none to two, drawn after the import of calls lacking answers. */
export const gotoOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(fc.nat(), fc.record({ kind: fc.constant("goto" as const), by: processArb, turn: turnArb })),
  { maxLength: 2 },
);

/**
 * Where and which `as-middleware` operation a breaker case gets: none or one, drawn after every other
 * draw of the case (`runProperty`'s and `runArchiveProperty`'s `lastOps`), so a seed's cases, stacks
 * and other operations are those it drew before it existed.
 */
export const asMiddlewareOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(
    fc.nat(),
    fc.record({
      kind: fc.constant("as-middleware" as const),
      by: processArb,
      turn: turnArb,
      node: fc.constantFrom("outer" as const, "inner" as const),
      calls: fc.integer({ min: 1, max: 3 }),
    }),
  ),
  { maxLength: 1 },
);

/** Where and which `exit-turn` operations a breaker case gets: none to two, drawn after `as-middleware`. */
export const exitTurnOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(fc.nat(), fc.record({ kind: fc.constant("exit-turn" as const), by: processArb, turn: turnArb })),
  { maxLength: 2 },
);

/**
 * The operations the breaker's fuzz draws after every other draw of a case (`lastOps`):
 * `as-middleware`, then `exit-turn` (one draw after the other, so a seed's `as-middleware` draws
 * are those it drew before `exit-turn` existed).
 */
export const breakerLastOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc
  .tuple(asMiddlewareOpsArb, exitTurnOpsArb)
  .map(([asMiddleware, exitTurn]) => [...asMiddleware, ...exitTurn]);

/** The operations the breaker's fuzz draws after its stack: `as-node`, `review-left`, an import of calls lacking answers, then `goto` (one draw after the other). */
export const afterStackOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc
  .tuple(asNodeOpsArb, reviewOpsArb, danglingImportOpsArb, gotoOpsArb)
  .map(([asNode, review, dangling, goto]) => [...asNode, ...review, ...dangling, ...goto]);

/**
 * Where and which `dup-ids` operations a case gets: one to three (mostly an id of a stored message,
 * among the newest, so a hot one as often as an archived one), drawn after the stack and any other
 * operations drawn after it (`runArchiveProperty`'s `duplicateIds`).
 */
export const dupIdOpsArb: fc.Arbitrary<Array<[number, Op]>> = fc.array(
  fc.tuple(
    fc.nat(),
    fc.record({
      kind: fc.constant("dup-ids" as const),
      by: processArb,
      turn: turnArb,
      target: fc.oneof({ weight: 1, arbitrary: fc.constant("fresh" as const) }, { weight: 2, arbitrary: fc.constant("stored" as const) }),
      pick: fc.nat(),
      nearTail: fc.boolean(),
      edits: fc.tuple(editKindArb, editKindArb),
      text: textArb,
      viaInput: fc.boolean(),
    }),
  ),
  { minLength: 1, maxLength: 3 },
);

/** `c` with `extra`'s operations inserted (each at its position modulo the number of operations plus one). */
export function withOps(c: EditCase, extra: ReadonlyArray<readonly [number, Op]>): EditCase {
  const ops = [...c.ops];
  for (const [at, op] of extra) ops.splice(at % (ops.length + 1), 0, op);
  return { ...c, ops };
}

/**
 * A case of the breaker's fuzz: `base`'s case with one to three of {@link breakerOpArb}'s
 * operations inserted (drawn after the case, as `edit-held`), on `savers`.
 */
export function breakerCaseArb(base: fc.Arbitrary<EditCase>, savers: readonly SaverKind[]): fc.Arbitrary<EditCase> {
  return fc
    .tuple(base, fc.array(fc.tuple(fc.nat(), breakerOpArb), { minLength: 1, maxLength: 3 }), fc.constantFrom(...savers))
    .map(([c, extra, saver]) => ({ ...withOps(c, extra), saver }));
}

/**
 * `count` imported messages, ids `b<salt>-<k>`: user questions, AI answers, and every fifth
 * exchange a round of one to three parallel `lookup` calls (ids `bulk_<salt>_<k>_<j>`, unique
 * across the import) answered in reverse order (with `unanswered`, every other round's first call
 * left without its result); English and Korean text.
 */
export function bulkMessages(count: number, salt: number, unanswered = false): BaseMessage[] {
  const out: BaseMessage[] = [];
  const texts = ["Where do I live?", "I live in Seoul.", "저는 간호사예요.", "Can you check seat 12A for tomorrow?", "좋아요, 고마워요."];
  for (let k = 0; out.length < count; k += 1) {
    const id = (part: string) => `b${salt}-${k}-${part}`;
    const text = texts[(k + salt) % texts.length] as string;
    out.push(new HumanMessage({ id: id("u"), content: `${text} (#${k})` }));
    if (k % 5 === 4 && out.length + 6 < count) {
      const calls = Array.from({ length: 1 + ((k + salt) % 3) }, (_, j) => ({
        id: `bulk_${salt}_${k}_${j}`,
        name: "lookup",
        args: { q: j === 0 ? "short" : "서울" },
        type: "tool_call" as const,
      }));
      out.push(new AIMessage({ id: id("c"), content: "", tool_calls: calls }));
      // With `unanswered`, every other round's first call has no result.
      const answered = unanswered && k % 10 === 4 ? calls.slice(1) : calls;
      for (const call of [...answered].reverse())
        out.push(new ToolMessage({ id: id(`r${call.id}`), content: `lookup ${call.args.q}: ok`, tool_call_id: call.id, name: "lookup" }));
    }
    out.push(new AIMessage({ id: id("a"), content: `Answer ${k}: ${text}` }));
  }
  return out.slice(0, count);
}
