import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseMessage } from "@langchain/core/messages";
import {
  addContextBlocks,
  contextBlocksOf,
  createTokenCounter,
  isUserMessage,
  messageText,
  promptLanguageFor,
  resolveLogger,
  SizedLru,
  type ThreadwiseLogger,
  threadwiseMiddleware,
  tokenize,
  viewMessages,
  withArchived,
  withTimeout,
} from "@threadwise/core";
import { createFactIndex, type Fact, type FactIndex, factSlotState, readFactSlot } from "@threadwise/fact-recall";
import { ArchiveMirror } from "./archive-mirror.js";
import { MessageIndex, type RecallEntry } from "./message-index.js";
import { RECALL_WORDS, type RenderedRecall, rankRecall, renderRecall } from "./recall-block.js";
import { type RecallOptions, type ResolvedRecallOptions, resolveRecallOptions } from "./recall-options.js";

/** Name of the middleware, and the `producer` of its block. */
export const RECALL_MIDDLEWARE_NAME = "threadwise/recall";
/**
 * Kind of the recall block. It changes with every user message, so it is not one of the kinds
 * placed where a prompt cache survives (summary, work memory): it sorts after them, in the tail.
 */
export const RECALL_BLOCK_KIND = "recall";

/** Everything recall keeps for one thread in the process (none of it is persisted). */
export interface ThreadRecallState {
  index: MessageIndex;
  /** The thread's archive as read through `archivedChanges` (issue 27). */
  archive: ArchiveMirror;
  facts: FactIndex;
  /**
   * Message text -> its embedding, for the in-process embedding ranking. Keyed by content, never
   * by message id: a message edited in place under its own id is embedded again (R37).
   */
  vectors: Map<string, number[]>;
  /** Entries with `seq` below this were added to `vectorStore` (a rebuilt index adds its entries again). */
  embeddedThrough: number;
  /** The query's embedding, by the query's text, for the model calls of one user turn. */
  query?: { text: string; vector: number[] };
}

/**
 * Creates the per-thread recall state. Its index counts no tokens at indexing: a message's tokens
 * are counted when it is first rendered (the `countText` given to {@link recallForQuery}, once per
 * entry), so indexing a thread a process has not seen costs its tokenizing for search only
 * (issue 21: counting every message at indexing was most of a rebuild).
 */
export function createThreadRecallState(options: Pick<ResolvedRecallOptions, "maxIndexedMessages" | "timestampOf">): ThreadRecallState {
  return {
    index: new MessageIndex({
      maxMessages: options.maxIndexedMessages,
      ...(options.timestampOf ? { timestampOf: options.timestampOf } : {}),
    }),
    archive: new ArchiveMirror(),
    facts: createFactIndex(),
    vectors: new Map(),
    embeddedThrough: 0,
  };
}

/** Inputs of {@link recallForQuery}. */
export interface RecallQuery {
  /** The newest user message's text. */
  query: string;
  /** Ids of the messages in the view (never recalled). */
  inView: ReadonlySet<string>;
  /** Facts to search (factRecall's slot), or none. */
  facts?: readonly Fact[];
  /** Facts not to recall (already placed by factRecall). */
  skipFact?: (fact: Fact) => boolean;
  /** Message ids ranked by embeddings, best first. */
  extraRanking?: readonly string[];
  /** `false`: the block's lines carry no `#<position>` (see `RenderOptions.positions`). @default true */
  positions?: boolean;
  /** The thread of a message, for an index over several threads (see `RenderOptions.threadOf`). @default undefined (one thread) */
  threadOf?: (messageId: string) => string | undefined;
}

/**
 * Ranks and renders the recall block for one query on a synced thread state: the pure part of
 * {@link recall}, shared with `bench/recall.ts`. The message index must have been synced with the
 * stored thread; the fact index is synced here with `query.facts`.
 */
export function recallForQuery(
  state: ThreadRecallState,
  query: RecallQuery,
  options: ResolvedRecallOptions,
  countText: (text: string) => number,
): RenderedRecall {
  const terms = tokenize(query.query);
  if (query.facts) state.facts.sync(query.facts);
  const inView = (id: string) => query.inView.has(id);
  if (terms.length === 0 && !query.extraRanking?.length) return { text: "", tokens: 0, messageIds: [], factKeys: [], items: [] };
  const items = rankRecall({
    messages: state.index,
    ...(query.facts ? { facts: state.facts } : {}),
    terms,
    query: query.query,
    inView,
    ...(query.skipFact ? { skipFact: query.skipFact } : {}),
    ...(query.extraRanking ? { extraRanking: query.extraRanking } : {}),
    depth: options.depth,
    ...(query.threadOf ? { threadOf: query.threadOf } : {}),
  });
  return renderRecall(items, state.index, {
    maxTokens: options.maxTokens,
    neighbours: options.neighbours,
    maxMessageTokens: options.maxMessageTokens,
    maxNeighbourTokens: options.maxNeighbourTokens,
    maxItems: options.maxItems,
    label: options.label,
    countText,
    inView,
    terms,
    ...(query.positions === false ? { positions: false } : {}),
    ...(query.threadOf ? { threadOf: query.threadOf } : {}),
    ...(options.words ? { words: options.words } : {}),
  });
}

/** One embedding or vector-store call, bounded by core's timeout (these APIs take no abort signal). */
function bounded<T>(work: () => Promise<T>, timeoutMs: number, purpose: string): Promise<T> {
  return withTimeout(() => work(), { timeoutMs, label: `threadwise/recall:${purpose}` });
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Embedding ranking of the thread's messages (ids, best first). In the process: embeds each
 * indexed text that has no vector yet (once per distinct text; an edited message is a new text),
 * then ranks the indexed messages by cosine similarity, ties in thread order, so the ranking
 * depends only on the index, never on what was embedded before (R37). With `vectorStore`: adds the
 * entries indexed since the last call (all of them after a rebuild, so an edited message's
 * document is replaced under its id) and asks the store.
 */
async function embeddingRanking(
  state: ThreadRecallState,
  threadId: string,
  query: string,
  options: ResolvedRecallOptions,
): Promise<string[]> {
  const embeddings = options.embeddings as EmbeddingsInterface;
  const entries = state.index.entries();
  if (options.vectorStore) {
    const store = options.vectorStore;
    const fresh = entries.filter((entry) => entry.seq >= state.embeddedThrough);
    if (fresh.length > 0) {
      await bounded(
        () =>
          store.addDocuments(
            fresh.map((entry) => ({ pageContent: entry.text, metadata: { thread_id: threadId, message_id: entry.id } })),
            { ids: fresh.map((entry) => `${threadId}:${entry.id}`) },
          ),
        options.timeoutMs,
        "index",
      );
      state.embeddedThrough = (fresh[fresh.length - 1] as RecallEntry).seq + 1;
    }
    const k = options.depth * 2;
    const filter = options.vectorStoreFilter?.(threadId);
    const docs = await bounded(() => store.similaritySearch(query, k, filter as never), options.timeoutMs, "search");
    return docs
      .filter((doc) => doc.metadata?.thread_id === threadId)
      .map((doc) => String(doc.metadata?.message_id ?? ""))
      .filter((id) => id !== "");
  }
  const missing = [...new Set(entries.filter((entry) => !state.vectors.has(entry.text)).map((entry) => entry.text))];
  if (missing.length > 0) {
    const vectors = await bounded(() => embeddings.embedDocuments(missing), options.timeoutMs, "embed");
    missing.forEach((text, i) => {
      const vector = vectors[i];
      if (vector) state.vectors.set(text, vector);
    });
    // Bound: vectors of texts no longer indexed go.
    if (state.vectors.size > entries.length) {
      const indexed = new Set(entries.map((entry) => entry.text));
      for (const text of state.vectors.keys()) if (!indexed.has(text)) state.vectors.delete(text);
    }
  }
  if (state.query?.text !== query)
    state.query = { text: query, vector: await bounded(() => embeddings.embedQuery(query), options.timeoutMs, "embed-query") };
  const vector = state.query.vector;
  const ranked: Array<{ id: string; score: number }> = [];
  for (const entry of entries) {
    const v = state.vectors.get(entry.text);
    const score = v ? cosine(vector, v) : 0;
    if (score > 0) ranked.push({ id: entry.id, score });
  }
  // Stable sort: equal scores keep thread order.
  return ranked
    .sort((a, b) => b.score - a.score)
    .slice(0, options.depth)
    .map((r) => r.id);
}

/** Most texts whose token count {@link memoizeCount} remembers; the oldest goes first. */
export const TOKEN_MEMO_ENTRIES = 20_000;

/**
 * Remembers token counts of short texts by value (line heads, fact lines, sentences), so a
 * recall call encodes only what it has not seen: the block is rebuilt on every user message from
 * mostly the same lines. Texts over 2,000 characters are counted each time (bounded memory).
 */
export function memoizeCount(countText: (text: string) => number): (text: string) => number {
  const memo = new Map<string, number>();
  return (text) => {
    if (text.length > 2000) return countText(text);
    let n = memo.get(text);
    if (n === undefined) {
      n = countText(text);
      if (memo.size >= TOKEN_MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
      memo.set(text, n);
    }
    return n;
  };
}

/** The newest user message of the view (core's `isUserMessage`: never a tool_result carrier or a context message): the query. */
function newestUserMessage(messages: readonly BaseMessage[]): BaseMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (isUserMessage(messages[i] as BaseMessage)) return messages[i];
  return undefined;
}

/**
 * Recall of what left the view (spec R35): before each model call, the thread's own messages that
 * are no longer in the view (evicted by the window or covered by the summary; user and assistant
 * alike) and the facts of factRecall are searched together for the newest user message, and the
 * best are placed as one `recall` context block within `maxTokens`.
 *
 * How it works, all in `wrapModelCall` (no graph node, no state written):
 * - Index: one incremental BM25+ index per thread in the process (MiniSearch with core's
 *   Korean-aware tokenizer). New messages are tokenized and indexed once (O(new)); at most
 *   `maxIndexedMessages` per thread, and `maxThreads` threads and `maxHeldCharacters` characters
 *   of indexed text across threads, are held (least recently used thread first out). Nothing is persisted, and
 *   nothing held changes a request (R37): each call compares the index with the stored thread at
 *   every position (ids and texts, O(n) comparisons, no tokenizing) and, when the thread changed
 *   other than by appends or a head trim (a message edited in place under its own id,
 *   `RemoveMessage`, time travel, a thread imported again under the same ids, another process),
 *   rebuilds it from the stored thread, which the checkpointer (and its encryption) already
 *   holds. The block is the one a fresh process places. Embeddings are kept by text, so an
 *   edited message is embedded again and unchanged ones are not.
 * - The view: the request's messages as handed to this middleware (`viewMessages(request)`);
 *   their ids are never recalled, nor facts taken from them. Put `recall` after `windowTrim` /
 *   `summarize` in the middleware list so it sees their view (memoryStack does).
 * - Ranking: BM25+ over the messages (text, with a user message's speaker `name`), BM25+ over the
 *   facts of `_threadwise_facts` when factRecall is used (facts it already placed are skipped),
 *   and, with `embeddings`, a cosine ranking, fused by reciprocal rank fusion into one list; a
 *   matched question gives its rank to the other speaker's reply (rankRecall, `QUESTION_WEIGHT`).
 * - Rendering: `#<position> <speaker> (<timestamp>): <text>` per message, with `neighbours`
 *   messages on each side when they fit, long messages cut to their best sentences; a fact is one
 *   line pointing at the message it came from. Positions are 1-based in the stored thread; the
 *   timestamp is read by `timestampOf` (default `additional_kwargs.timestamp` or
 *   `response_metadata.timestamp`). The whole block stays within `maxTokens`.
 * - Placement: through core's `addContextBlocks` (R8): kind `recall`, after the summary and facts
 *   blocks; with `stable_tail` after the newest user message, so the cached prefix is unchanged.
 *   Nothing is placed when nothing matches.
 * - Failures of `embeddings` or `vectorStore` (throw, timeout) log a warning and fall back to the
 *   lexical ranking; the model call goes on.
 *
 * @throws ThreadwiseConfigError at construction on an invalid option or `MEMORY_RECALL_MAX_TOKENS`.
 * @example
 * const agent = createAgent({
 *   model,
 *   checkpointer: new MemorySaver(),
 *   middleware: [factRecall(), windowTrim({ maxMessages: 20 }), recall({ maxTokens: 300 })],
 * });
 */
export function recall(options: RecallOptions = {}) {
  const config = resolveRecallOptions(options);
  const logger: ThreadwiseLogger = resolveLogger(config.logger, options?.env);
  const countText = memoizeCount(
    config.countText ??
      (
        (counter) => (text: string) =>
          counter.countText(text)
      )(createTokenCounter()),
  );
  // Held thread states, least recently used first, bounded by threads and by the characters their
  // indexes hold (issue 21: a bound of 64 threads made a process serving more threads rebuild an
  // index on every call, however short the threads).
  const held = new SizedLru<string, ThreadRecallState>(config.maxThreads, config.maxHeldCharacters);
  const stateFor = (threadId: string): ThreadRecallState => {
    if (threadId === "") return createThreadRecallState(config);
    return held.get(threadId) ?? held.set(threadId, createThreadRecallState(config));
  };

  return threadwiseMiddleware({
    name: RECALL_MIDDLEWARE_NAME,
    // Declared to read factRecall's private slot (a hook sees only the private keys its schema
    // names); recall itself never writes it.
    ...(config.facts ? { stateSchema: factSlotState } : {}),
    wrapModelCall: async (request, handler) => {
      const hot: BaseMessage[] = request.state.messages ?? [];
      const view = viewMessages(request);
      const newest = newestUserMessage(view);
      if (!newest) return handler(request);
      const threadId = String((request.runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id ?? "");
      // With an archive, the thread is the archived messages then the stored ones (issue 27):
      // through `archivedChanges` a call reads and compares only what changed since the last one.
      const state = stateFor(threadId);
      if (config.archivedChanges && threadId !== "") await state.archive.sync(state.index, config.archivedChanges, threadId, hot);
      else state.index.sync(config.archived && threadId !== "" ? withArchived(await config.archived(threadId), hot) : hot);
      if (threadId !== "") held.resize(threadId, state.index.characters + state.archive.characters);
      const inView = new Set<string>();
      for (const message of view) if (typeof message.id === "string") inView.add(message.id);
      const query = messageText(newest);

      let facts: readonly Fact[] | undefined;
      let skipFact: ((fact: Fact) => boolean) | undefined;
      if (config.facts) {
        const slot = readFactSlot(request.state);
        if (slot.facts.length > 0) {
          facts = slot.facts;
          const placed = new Set(slot.recalled);
          const blocks = contextBlocksOf(request).map((block) => block.text);
          skipFact = (fact) => placed.has(fact.key) || blocks.some((text) => text.includes(fact.text));
        }
      }
      let extraRanking: string[] | undefined;
      if (config.embeddings) {
        try {
          extraRanking = await embeddingRanking(state, threadId, query, config);
        } catch (error) {
          logger.warn("recall: embedding ranking failed; ranked lexically", {
            reason: error instanceof Error ? error.message : "error",
          });
        }
      }
      const recallQuery: RecallQuery = {
        query,
        inView,
        ...(facts ? { facts } : {}),
        ...(skipFact ? { skipFact } : {}),
        ...(extraRanking ? { extraRanking } : {}),
      };
      // The heading and the lines' words (speakers, `fact`) in the conversation's language; counted
      // in the block's budget as rendered.
      const language = promptLanguageFor(config.promptLanguage, hot);
      const label = config.labels[language];
      const options = label === config.label && language === "en" ? config : { ...config, label, words: RECALL_WORDS[language] };
      const rendered = recallForQuery(state, recallQuery, options, countText);
      if (rendered.text === "") return handler(request);
      return handler(
        addContextBlocks(
          request,
          [{ kind: RECALL_BLOCK_KIND, producer: RECALL_MIDDLEWARE_NAME, label, text: rendered.text }],
          config.promptContextMode ? { mode: config.promptContextMode } : {},
        ),
      );
    },
  });
}
