import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import {
  type ArchivedAmongReader,
  addContextBlocks,
  annotateMultiturn,
  declaredSummarySlot,
  type ExtractedFacts,
  isContextMessage,
  isUserMessage,
  messageDigest,
  messageText,
  messageType,
  normalizeThreadId,
  promptLanguageFor,
  readSummarySlot,
  resolveLogger,
  SUMMARY_SLOT_KEY,
  type SummarySlotUpdate,
  summarySlotState,
  threadwiseMiddleware,
  truncateCharacters,
} from "@threadwise/core";
import type { CandidateFact, FactExtractionModel } from "@threadwise/fact-recall";
import { RECALL_WORDS, type RecallWords, timestampOf } from "@threadwise/recall";
import { z } from "zod/v4";
import { storeErrorFields } from "./store-error-fields.js";
import { assertStoreShape } from "./store-shape.js";
import type { TurnMessage } from "./user-items.js";
import { type ExtractedMessageFacts, UserMemoryEngine, type UserRecall } from "./user-memory-engine.js";
import { resolveUserMemoryOptions, type UserMemoryOptions } from "./user-memory-options.js";
import { nearMissFields, resolveUserScope, type ScopeSource, type UserScope } from "./user-scope.js";

/** Name of the middleware, and the `producer` of its block. */
export const USER_MEMORY_MIDDLEWARE_NAME = "threadwise/user-memory";
/** Kind of the block: not a head kind, so `cache_aware` places it in the stable tail, after the cached prefix. */
export const USER_MEMORY_BLOCK_KIND = "user_memory";

/** State of user memory for one model call, as the multiturn line shows it (`user_memory=<state>`). */
export type UserMemoryCallState = "on" | "no_user_id" | "no_store" | "store_error";

/** Threads whose turn block a process remembers at once. */
const MAX_OPEN_TURNS = 10_000;

/** The newest user message of the stored thread (core's `isUserMessage`: a tool_result carrier or a context message is none). */
function newestUserMessage(messages: readonly BaseMessage[]): BaseMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (isUserMessage(messages[i] as BaseMessage)) return messages[i];
  return undefined;
}

/** A stored user message as a turn commits it: id, text, speaker name, time. */
function asTurnMessage(m: BaseMessage): TurnMessage {
  return {
    id: m.id as string,
    text: messageText(m),
    ...(typeof m.name === "string" && m.name !== "" ? { name: m.name } : {}),
    ...(timestampOf(m) ? { at: timestampOf(m) } : {}),
  };
}

/**
 * The user messages the run added: the newest run of consecutive user messages before the answer,
 * oldest first. A run's tool loop in Anthropic's native format (user messages of only
 * `tool_result` blocks) is not one: the run's user messages are the ones before it.
 */
export function userMessagesOfRun(messages: readonly BaseMessage[]): BaseMessage[] {
  let end = messages.length - 1;
  while (end >= 0 && !isUserMessage(messages[end] as BaseMessage)) end -= 1;
  let start = end;
  while (start > 0) {
    const previous = messages[start - 1] as BaseMessage;
    if (isUserMessage(previous) || isContextMessage(previous)) start -= 1;
    else break;
  }
  return end < 0 ? [] : messages.slice(start, end + 1).filter(isUserMessage);
}

/**
 * Cross-thread memory of one user (spec R40), on LangGraph's `Store`: what one conversation
 * learned, the next one knows. Opt-in; without it threads stay isolated (R16).
 *
 * **Scope.** The user is `context.user_id`, else `configurable.user_id` (LangGraph's convention;
 * the key is `userIdKey`), under the tenant `context.tenant_id` / `configurable.tenant_id`, else
 * `tenantId`. Ids pass core's `normalizeUserId` (the thread-id rules). A run that names no user
 * gets no cross-thread memory (never a shared bucket) and the multiturn line says
 * `user_memory=no_user_id`. Namespace: `["threadwise", "user-memory", "v1", <tenant>, <user>, "items"]`
 * (labels escaped so no store's prefix search can reach another user).
 *
 * **Store.** `createAgent({ store })`, read from the runtime (`InMemoryStore` embedded,
 * `PostgresStore` migrated by `threadwise migrate`), else the `store` option.
 *
 * **What is kept, and when.** In `afterAgent`, once the run has produced its answer and every
 * after-hook inside this one passed (a run that throws or is interrupted writes nothing): the run's
 * user messages (`message` items), the facts the rules (or the LLM) find in them, with provenance
 * (thread id, message id, time; a changed value supersedes, the old one is kept in `superseded`),
 * and the thread's digest (its summary when summarize made one; else, with `keepMessages: false`,
 * its first user message). A stored message of the thread edited by id since (`updateState`
 * replacing it, a fork that sent the same id with other words) is taken back: its item takes the
 * new words, and the facts it stated and no longer states go (a corrected value is not kept as
 * superseded). A stored message the thread no longer holds while an older one stays (`RemoveMessage`)
 * is taken back likewise; one gone with every older message stays (a trim), unless `trims` is
 * `false`: then it stays only when persistTrim or the archive took it (persistTrim names what it
 * took in the thread's summary slot, `trimmed`; the archive holds what it took: `archivedAmong`),
 * and is taken back otherwise (a `RemoveMessage` of the oldest).
 * `llm` facts without `model` are read with the agent's model in the run's model call and kept in
 * the thread's state for the commit, so a run resumed by another process commits the same facts.
 * At most `maxItems` items and `maxBytes` bytes per user: oldest messages leave first, then
 * digests, then the weakest facts.
 *
 * **Recall.** Before each model call, the user's items from other threads most relevant to the
 * newest user message, ranked as `recall` ranks (BM25+ with core's Korean-aware tokenizer over
 * messages and digests, fused with the facts), within `maxTokens`, placed as a `user_memory`
 * block through core placement (`cache_aware`: in the stable tail, never in the cached prefix).
 * Computed once per user message (a tool loop reuses it).
 *
 * **Deleted threads.** With `deletedThreads` (`memoryStack` passes its checkpointer's tombstones),
 * a deleted thread's words are recalled nowhere (R24): its messages and digest are left out, a fact
 * it last stated rolls back to the value a thread that stays stated (or goes), and the user's next
 * commit deletes them from the store (see `forgetDeletedThreads`). A block reused in a tool loop is
 * computed again when a thread it drew on was deleted meanwhile.
 *
 * **Failures.** A store that throws or exceeds `timeoutMs` (it is called directly, not through
 * LangGraph's batching queue, which the run waits for) on read or write: the turn goes on
 * without user memory, a warning is logged once (until the store works again), and the multiturn
 * line says `user_memory=store_error`. A sealed value that was tampered with or copied from
 * another user is refused the same way (`THREADWISE_DECRYPTION_FAILED` in the warning).
 *
 * @throws ThreadwiseConfigError at construction on an invalid option or env value;
 *   ThreadwiseKeyringError for an unusable keyring. In a run: ThreadwiseUserIdError for a user id
 *   that breaks the thread-id rules.
 * @example
 * import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
 * const agent = createAgent({ model, checkpointer: new MemorySaver(), store: new InMemoryStore(), middleware: [userMemory()] });
 * await agent.invoke({ messages: [{ role: "user", content: "I moved to Busan." }] }, { configurable: { thread_id: "t1", user_id: "u1" } });
 * // a new thread of the same user: the block holds "User moved to Busan ..."
 * await agent.invoke({ messages: [{ role: "user", content: "Where do I live?" }] }, { configurable: { thread_id: "t2", user_id: "u1" } });
 */
export function userMemory(options: UserMemoryOptions = {}) {
  const config = resolveUserMemoryOptions(options);
  const engine = new UserMemoryEngine(config);
  const logger = resolveLogger(config.logger, options?.env);
  const scopeOptions = { userIdKey: config.userIdKey, tenantIdKey: config.tenantIdKey, defaultTenantId: config.tenantId };
  // The block of the newest user message per thread (tool loops reuse it).
  const turns = new Map<
    string,
    { messageKey: string; words: RecallWords; text: string; threadIds: string[]; placed: UserRecall["placed"] }
  >();
  // When the newest user message per thread first reached a model call here: when it was said,
  // for the commit to order a changed fact's values by (a slower run committing later is older).
  const said = new Map<string, { messageKey: string; at: string }>();
  const messageKeyOf = (scope: UserScope, message: BaseMessage) =>
    `${scope.tenantId}\u0000${scope.userId}\u0000${message.id ?? ""}\u0000${messageText(message)}`;
  let failing = false;
  let warnedStructured = false;
  let warnedNoStore = false;
  let checkedStore: BaseStore | undefined;
  let warnedNoUser = false;
  /** The slot: the hook's state when declared here, else from the graph (core `declaredSummarySlot`). */
  const slotOf = (source: { state?: unknown; runtime?: unknown }) =>
    config.declareState ? readSummarySlot(source.state) : declaredSummarySlot(source, "userMemory.declareState");

  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_OPEN_TURNS) map.delete(map.keys().next().value as string);
  };
  const storeFailed = (operation: "read" | "write", error: unknown, store: BaseStore, threadId: string | undefined) => {
    if ((error as { code?: unknown } | undefined)?.code === "THREADWISE_CLOSED") throw error; // a store closed by its owner (memoryStack's close()): not an outage to go on past
    if (!failing)
      logger.warn(
        `user_memory: store ${operation} failed; the turn goes on without user memory (warned once until the store works again)`,
        storeErrorFields(error, { operation, store, ...(threadId ? { threadId } : {}) }),
      );
    failing = true;
  };
  const storeOf = (runtime: { store?: BaseStore } | undefined): BaseStore | undefined => {
    // LangGraph hands nodes its AsyncBatchedStore, and the run waits for that queue before it ends:
    // a store that hangs would hang the turn past `timeoutMs`. The store it wraps is used instead.
    const given = runtime?.store as (BaseStore & { lg_name?: unknown; store?: BaseStore }) | undefined;
    const store = (given?.lg_name === "AsyncBatchedStore" && given.store ? given.store : given) ?? config.store;
    // A store that cannot write (no `put`) is a setup error, not an outage to go on past with a warning.
    if (store && store !== checkedStore) {
      assertStoreShape(store, "createAgent.store");
      checkedStore = store;
    }
    if (!store && !warnedNoStore) {
      warnedNoStore = true;
      logger.warn(
        "user_memory: no store; pass createAgent({ store }) or userMemory({ store }), or with memoryStack spread all of it: createAgent({ model, ...stack }) passes stack.store (runs go on without user memory)",
      );
    }
    return store;
  };
  const threadOf = (runtime: ScopeSource | undefined): string | undefined => {
    const id = (runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id;
    return id === undefined || id === null ? undefined : normalizeThreadId(id);
  };
  /**
   * `llm` facts without `userMemory({ model })`: the run's user messages are read with the agent's
   * model in its model call (the one place the model is reachable), and the facts wait in the
   * thread's state for the commit, so a run resumed by another process commits what the process
   * that ran it commits. `undefined` when every message was read already (same id and content).
   */
  const extractRun = async (
    messages: readonly BaseMessage[],
    known: readonly ExtractedFacts[],
    model: FactExtractionModel,
    signal: AbortSignal | undefined,
  ): Promise<ExtractedFacts[] | undefined> => {
    const entries: ExtractedFacts[] = [];
    let read = false;
    for (const message of userMessagesOfRun(messages)) {
      if (typeof message.id !== "string" || message.id === "" || messageText(message).trim() === "") continue;
      const digest = messageDigest(message);
      const kept = known.find((entry) => entry.id === message.id && entry.digest === digest);
      if (kept) {
        entries.push(kept);
        continue;
      }
      const found = await engine.extract(asTurnMessage(message), { model, signal });
      entries.push({ id: message.id, digest, facts: found.facts as unknown as ExtractedFacts["facts"], origin: found.origin });
      read = true;
    }
    return read ? entries : undefined;
  };
  const report = (request: object, state: "on" | "no_user_id" | "no_store" | "store_error", threadId?: string) => {
    if (!annotateMultiturn(request, { userMemory: state }) && state !== "on")
      logger.info(`user_memory: ${state}`, threadId ? { thread_id: threadId } : undefined);
  };

  return threadwiseMiddleware({
    name: USER_MEMORY_MIDDLEWARE_NAME,
    // Declared to read the thread's summary (summarize's slot) for the digest; never written here.
    // With declareState false, core's summarySlotMiddleware declares it.
    ...(config.declareState ? { stateSchema: summarySlotState } : {}),
    // langchain hands a node hook (afterAgent) only the run-context fields its middleware
    // declares, while wrapModelCall gets the whole context: undeclared, `context.user_id` was read
    // before each model call but gone at the commit, so a user named in `context` was recalled
    // for and never remembered (found trying the README as a new user).
    contextSchema: z.object({ [config.userIdKey]: z.unknown().optional(), [config.tenantIdKey]: z.unknown().optional() }),
    wrapModelCall: async (request, handler) => {
      // A missing declaration fails the first model call, not the commit after the answer.
      if (!config.declareState) slotOf(request);
      // A model named by a string is made at the first model call, so a wrong name fails at once.
      await engine.ownModel();
      const runtime = request.runtime as (ScopeSource & { store?: BaseStore; signal?: AbortSignal }) | undefined;
      const scope = resolveUserScope(runtime, scopeOptions);
      const threadId = threadOf(runtime);
      if (!scope) {
        // Silent (an info line) it read as user memory that does not work: a new user who turned it
        // on and named no user had no sign of why a new thread knew nothing.
        if (!warnedNoUser) {
          warnedNoUser = true;
          const nearMiss = nearMissFields(runtime, config.userIdKey);
          const hint = nearMiss.length > 0 ? `; this run has ${nearMiss.join(", ")}: did you mean ${config.userIdKey}?` : "";
          logger.warn(
            `user_memory: a run named no user, so it has no memory across threads; name the user in each run: { context: { ${config.userIdKey}: "..." } } or { configurable: { ${config.userIdKey}: "..." } }${hint} (warned once)`,
            threadId ? { thread_id: threadId } : undefined,
          );
        }
        report(request, "no_user_id", threadId);
        return handler(request);
      }
      const store = storeOf(runtime);
      if (!store) {
        report(request, "no_store", threadId);
        return handler(request);
      }
      const newest = newestUserMessage((request.state?.messages ?? []) as BaseMessage[]);
      if (!newest) return handler(request);
      // By id and text: a message edited in place keeps its id (the block must follow its new words).
      const newestText = messageText(newest);
      const messageKey = messageKeyOf(scope, newest);
      const turnKey = threadId ?? "";
      if (threadId && said.get(threadId)?.messageKey !== messageKey) remember(said, threadId, { messageKey, at: new Date().toISOString() });
      // The lines' words in the label's language, decided on the stored thread as the label is (a
      // block rendered in another language is not reused).
      const words = RECALL_WORDS[promptLanguageFor(config.promptLanguage, (request.state?.messages ?? []) as BaseMessage[])];
      const remembered = turns.get(turnKey);
      const cached = remembered?.messageKey === messageKey && remembered.words === words ? remembered : undefined;
      let text = cached?.text;
      try {
        // A thread the block drew on deleted since (spec R24): computed again, as a fresh process would.
        if (cached && config.deletedThreads && (await engine.deletedAmong(cached.threadIds, runtime?.signal)).size > 0) text = undefined;
        // An item it shows erased, expired or rewritten since (erase-user, an edit taken back by
        // another thread's commit): computed again, as a fresh process would.
        else if (cached && (await engine.placedChanged(store, scope, cached.placed, runtime?.signal))) text = undefined;
      } catch (error) {
        storeFailed("read", error, store, threadId);
        report(request, "store_error", threadId);
        return handler(request);
      }
      if (text === undefined) {
        try {
          const recalled = await engine.recall(store, scope, { text: newestText, threadId, words }, runtime?.signal);
          text = recalled.text;
          failing = false;
          if (threadId) remember(turns, turnKey, { messageKey, words, text, threadIds: recalled.threadIds, placed: recalled.placed });
        } catch (error) {
          storeFailed("read", error, store, threadId);
          report(request, "store_error", threadId);
          return handler(request);
        }
      }
      report(request, "on", threadId);
      const placed =
        text === ""
          ? request
          : addContextBlocks(
              request,
              [
                {
                  kind: USER_MEMORY_BLOCK_KIND,
                  producer: USER_MEMORY_MIDDLEWARE_NAME,
                  label: config.labels[promptLanguageFor(config.promptLanguage, (request.state?.messages ?? []) as BaseMessage[])],
                  text,
                },
              ],
              config.promptContextMode ? { mode: config.promptContextMode } : {},
            );
      const result = await handler(placed);
      if (!threadId || config.factsMode !== "llm" || config.model) return result;
      // After the answer (its tokens already streamed), so the agent model's calls keep their order.
      const messages = (request.state?.messages ?? []) as BaseMessage[];
      const extracted = await extractRun(messages, slotOf(request).userFacts ?? [], request.model as never, runtime?.signal);
      if (!extracted) return result;
      const update: SummarySlotUpdate = { userFacts: extracted };
      if (AIMessage.isInstance(result)) return new Command({ update: { [SUMMARY_SLOT_KEY]: update } });
      // A structured response cannot carry the Command: the commit reads this run's facts with the rules.
      if (!warnedStructured) {
        warnedStructured = true;
        logger.warn(
          "user_memory: llm facts of a run with a structured response are read with the rules; pass userMemory({ model }) to read them with a model (warned once)",
        );
      }
      return result;
    },
    afterAgent: async (state, runtime) => {
      const source = runtime as unknown as ScopeSource & { store?: BaseStore; signal?: AbortSignal };
      const scope = resolveUserScope(source, scopeOptions);
      const threadId = threadOf(source);
      if (!scope || threadId === undefined) return undefined;
      const store = storeOf(source);
      if (!store) return undefined;
      const messages = (state.messages ?? []) as BaseMessage[];
      // Only a run that ends on an answer commits (a guardrail that ended it elsewhere writes nothing).
      const last = messages.at(-1);
      if (!last || messageType(last) !== "ai") return undefined;
      const turn: TurnMessage[] = userMessagesOfRun(messages)
        .filter((m) => typeof m.id === "string" && m.id !== "")
        .map(asTurnMessage);
      // The thread's user messages by id, for stored ones edited in place since (made at the first lookup).
      let byId: Map<string, BaseMessage> | undefined;
      const byIdOf = () =>
        (byId ??= new Map(messages.filter((m) => typeof m.id === "string" && isUserMessage(m)).map((m) => [m.id as string, m])));
      const current = (id: string): TurnMessage | undefined => {
        const found = byIdOf().get(id);
        return found ? asTurnMessage(found) : undefined;
      };
      // The thread's summary when summarize made one; else, only when messages are not kept (they
      // would say it twice), its first user message.
      const slot = slotOf({ state, runtime });
      const summary = slot.summary?.text;
      // Facts the run's model call extracted (llm facts without a model of its own), for the
      // messages whose content is still what was read.
      const extracted = new Map<string, ExtractedMessageFacts>();
      for (const entry of slot.userFacts ?? []) {
        const message = byIdOf().get(entry.id);
        if (message && messageDigest(message) === entry.digest)
          extracted.set(entry.id, { facts: entry.facts as unknown as CandidateFact[], origin: entry.origin });
      }
      const first = config.keepMessages ? undefined : messages.find(isUserMessage);
      const digestSource = summary ?? (first ? messageText(first) : "");
      const digest =
        config.maxDigestCharacters === 0 || digestSource.trim() === ""
          ? undefined
          : truncateCharacters(digestSource.trim(), config.maxDigestCharacters);
      const newest = newestUserMessage(messages);
      const stamp = said.get(threadId);
      const saidAt = newest && stamp?.messageKey === messageKeyOf(scope, newest) ? stamp.at : undefined;
      said.delete(threadId);
      try {
        await engine.commit(
          store,
          scope,
          {
            threadId,
            messages: turn,
            digest,
            now: new Date().toISOString(),
            ...(saidAt !== undefined ? { saidAt } : {}),
            current,
            trims: config.trims,
            ...(slot.trimmed ? { trimmed: slot.trimmed } : {}),
            ...(config.archivedAmong
              ? { archivedAmong: (ids: readonly string[]) => (config.archivedAmong as ArchivedAmongReader)(threadId, ids) }
              : {}),
          },
          { extracted: (message) => extracted.get(message.id), signal: source.signal },
        );
        failing = false;
      } catch (error) {
        storeFailed("write", error, store, threadId);
      }
      turns.delete(threadId);
      return undefined;
    },
  });
}

export type { UserScope };
