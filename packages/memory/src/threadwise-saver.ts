import { randomInt, randomUUID } from "node:crypto";
import { BaseMessage, coerceMessageLikeToMessage, RemoveMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { messagesStateReducer, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  ERROR,
  INTERRUPT,
  type PendingWrite,
  TASKS,
  uuid5,
} from "@langchain/langgraph-checkpoint";
import {
  type ArchiveCursor,
  type ArchivedChanges,
  type ArchivedMessagesReadOptions,
  BOUNDED_MAP_EVICTION_SHARE,
  parseOptions,
  sameMessage,
  setBounded,
  ThreadwiseConfigError,
  withArchived,
} from "@threadwise/core";
import { DEFAULT_IDENTITY, isSealed, SEALED_METADATA_KEY } from "@threadwise/encryption";
import { z } from "zod/v4";
import { ArchiveRecords } from "./archive-records.js";
import { ThreadwiseArchivedMessageError } from "./archived-message-error.js";
import { ThreadwiseClosedError } from "./closed-error.js";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { connectionLostDuring } from "./connection-lost-error.js";
import { ThreadwiseSealedStoreError } from "./sealed-store-error.js";
import { ThreadwiseTenantMismatchError } from "./tenant-mismatch-error.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { normalizeThreadId } from "./thread-id.js";
import {
  ARCHIVE_CLEARED_MESSAGE_ID,
  type ArchiveMark,
  type CheckpointCommit,
  type CommitLocked,
  type StoreOrderQuery,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadRegistry,
  type WritesTarget,
} from "./thread-registry.js";

/** LangGraph's separator of a subgraph's checkpoint namespace from its parent task's (`CHECKPOINT_NAMESPACE_SEPARATOR`). */
export const CHECKPOINT_NAMESPACE_SEPARATOR = "|";

/** Default of {@link ThreadwiseSaverOptions.turnLeaseMs}, in milliseconds (spec R38: a crashed writer blocks its thread for at most this). */
export const DEFAULT_TURN_LEASE_MS = 10_000;
/** A running turn renews its lease this often, as a fraction of the lease (a heartbeat every 1/3 lease). */
const HEARTBEAT_FRACTION = 1 / 3;
/** A turn silent (no checkpoint, no write) for this long stops its heartbeat: a run abandoned without an error write cannot hold its thread forever. */
const HEARTBEAT_MAX_SILENCE_MS = 30 * 60_000;
/** `configurable` key of a caller's operation id (spec R38), e.g. an HTTP request id. */
export const OPERATION_ID_KEY = "operation_id";
/** Longest operation id, in UTF-8 bytes. */
const MAX_OPERATION_ID_BYTES = 256;
/** LangGraph's id for writes of no task (`NULL_TASK_ID`, not exported): an update's or a `Command`'s writes on the checkpoint a run starts from. */
const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";

/**
 * Checkpoint metadata key under which the saver records where the thread's archive stood when it
 * stored the checkpoint ({@link ArchiveMark}, `{ stamp, seq }`), on every checkpoint of the root
 * namespace (issue 27): a fork, replay or `updateState` from that checkpoint then knows which
 * archived messages its branch had, and which were archived after it (by its own branch, or by
 * another one). Checkpoints stored before this key existed have none (see `#refuseArchivedReach`).
 */
export const ARCHIVE_MARK_METADATA_KEY = "threadwise_archive";
/**
 * Savers a `messageArchive` middleware was built on ({@link archiveWritesThrough}): they mark every
 * root checkpoint, whatever their {@link ThreadwiseSaverOptions.archive}.
 */
const ARCHIVE_WRITERS = new WeakSet<object>();

/**
 * The thread archive is written through `saver` (`messageArchive` calls it as it is built, before
 * any run): from now on it marks every root checkpoint ({@link ARCHIVE_MARK_METADATA_KEY}), as with
 * {@link ThreadwiseSaverOptions.archive} on. So a saver made with `archive` off (`createCheckpointer`
 * of a config without it) and handed to an archive stack records what the archive needs.
 */
export function archiveWritesThrough(saver: object): void {
  ARCHIVE_WRITERS.add(saver);
}

/** Checkpoint keys remembered per saver (stored or refused), so late pending writes find their fate. */
const RECENT_MEMORY = 10_000;
/**
 * Bound of the maps remembering checkpoint keys: core's `setBounded` forgets the oldest eighth at
 * once when full, so at least the newest {@link RECENT_MEMORY} are always remembered. Was: the
 * oldest key forgotten at every put once full, and `keys().next()` walks every hole V8 keeps
 * for a deleted entry until it rehashes, about 8 us per put in a process past 10,000 puts.
 */
const REMEMBERED_KEYS = Math.ceil(RECENT_MEMORY / (1 - BOUNDED_MAP_EVICTION_SHARE));
/** Writes one not-yet-stored checkpoint may collect before more are refused. */
const MAX_DEFERRED_WRITES = 10_000;

interface DeferredWrite {
  run: () => Promise<void>;
  /** What identifies the run that sent the write (its `control` and `signal`; see {@link ThreadwiseSaver}'s run records). */
  owner: RunKeys;
  endsTurn: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A turn whose lease this process renews ({@link ThreadwiseSaver}'s heartbeat). */
interface Heartbeat {
  /** The head the lease is held at. */
  checkpointId: string;
  /** `performance.now()` of the turn's last checkpoint. */
  lastSeen: number;
  run: RunRecord | undefined;
}

/** Options of {@link ThreadwiseSaver}. */
export interface ThreadwiseSaverOptions {
  /** Runs once before the first read or write (e.g. the PostgreSQL schema-version check); a failure is re-thrown on every call. */
  ready?: () => Promise<void>;
  /** Releases the backend's resources (pool, file handle). */
  close?: () => Promise<void>;
  /**
   * What {@link ThreadwiseClosedError} names after {@link ThreadwiseSaver.close}:
   * `createCheckpointer` passes `memory.checkpointer (<backend>)`.
   * @default "ThreadwiseSaver"
   */
  label?: string;
  /**
   * The turn lease, in milliseconds (spec R34, R38): while a run of a thread is in progress (its
   * newest checkpoint still has tasks), other runs of that thread are refused with
   * `ThreadwiseConcurrentTurnError` (`turn-in-progress`). Each checkpoint the run stores renews
   * the lease, and so does a heartbeat every third of it while the model or a tool runs, so a
   * turn of minutes keeps it; an error, an interrupt or the end of the run releases it, and so
   * do a stop by the run's abort signal, LangGraph's step timeout during a model or tool call,
   * and a drain requested during one (`RunControl.requestDrain()`). A run
   * stopped at a static breakpoint (`interruptBefore` / `interruptAfter`) stores nothing that
   * tells the saver it ended: pass `turnEndCallbacks(saver)` with it, or call {@link
   * ThreadwiseSaver.endTurn}, else its lease holds until it lapses. A writer
   * killed mid-turn stops renewing it: its thread takes a new turn at most this long after its
   * last renewal. Times are the database's (PostgreSQL `clock_timestamp()`, SQLite
   * `julianday('now')`) or, in memory, a monotonic clock. 0 turns the lease off (then only the
   * compare-and-set on the head holds).
   * @default 10000
   */
  turnLeaseMs?: number;
  /**
   * Make every channel version unique (`n + 1` plus a random fraction below 0.1) instead of `n + 1`.
   * PostgresSaver stores channel blobs under (thread, namespace, channel, version) with
   * `ON CONFLICT DO NOTHING`, so two branches from one checkpoint would write the same key and
   * the second branch would read the first one's value (langgraphjs #1812). `createCheckpointer`
   * sets it for PostgreSQL.
   * @default false
   */
  uniqueChannelVersions?: boolean;
  /**
   * The wrapped saver stores plaintext (no keyring). Reads then refuse a checkpoint holding sealed
   * records with `ThreadwiseSealedStoreError` (fail-closed, R26) instead of handing ciphertext
   * strings to the agent, and on a store holding sealed records every write is refused, new
   * threads included (R38; the store is scanned once, at the first write). `createCheckpointer`
   * sets it when no keyring is configured.
   * @default false
   */
  plaintext?: boolean;
  /**
   * Tenant the thread's archived messages are keyed under (and, when encrypted, sealed for):
   * `createCheckpointer` passes the encryption identity's tenant (env
   * `THREADWISE_MEMORY_TENANT_ID`).
   * @default "default"
   */
  tenantId?: string;
  /**
   * The thread's archive (`memoryStack`'s `archive`) may be written through this saver. Off, a
   * root checkpoint of a thread whose archive never held a message (its {@link ArchiveMark} stamp
   * is 0) is stored with its metadata as given, as LangGraph's own savers store it (no
   * {@link ARCHIVE_MARK_METADATA_KEY}; `getStateHistory`, LangGraph Studio and LangGraph's
   * checkpoint-validation suite see the metadata unaltered). A thread that has an archive (written
   * while the archive was on) keeps getting marks, which its forks and `readThread` need. Such
   * an unmarked checkpoint reads as one stored before marks existed, or by a plain saver: its
   * forks' messages are placed against the archive by id, and `readThread` at it reads the
   * archived messages before the first of its own the archive holds (the whole archive when it
   * holds none, none when it holds no message); the same as with a mark while the thread's archive stays empty. `createCheckpointer`
   * passes the config's `archive`; `messageArchive` built on the saver turns it on.
   * @default true
   */
  archive?: boolean;
}

const optionalFunction = (what: string) =>
  z.custom<() => Promise<void>>((value) => typeof value === "function", { message: `expected a function (${what})` }).optional();

/** {@link ThreadwiseSaver.archivedMessages}'s options, for the error naming an unknown one. */
const archivedReadOptionsSchema = z.strictObject({ last: z.number().int().positive().optional() });

/** {@link ThreadwiseSaverOptions} as a strict schema (a misspelt key is refused by name). */
const threadwiseSaverOptionsSchema = z.strictObject({
  ready: optionalFunction("() => Promise<void>"),
  close: optionalFunction("() => Promise<void>"),
  label: z.string().min(1).optional(),
  turnLeaseMs: z
    .number()
    .int("expected a whole number of milliseconds in [0, 2147483647]")
    .min(0, "expected a whole number of milliseconds in [0, 2147483647]")
    .max(2_147_483_647, "expected a whole number of milliseconds in [0, 2147483647]")
    .optional(),
  uniqueChannelVersions: z.boolean().optional(),
  plaintext: z.boolean().optional(),
  tenantId: z.string().min(1).optional(),
  archive: z.boolean().optional(),
});

/** What the saver knows about one run in this process (keyed by the run's abort signal). */
interface RunRecord {
  /** The run's first put: its admission (spec R38). `undefined` while the run sent none (a resumed run before its first checkpoint). */
  first?: Promise<unknown>;
  /** Id of the checkpoint of {@link first}, from the moment its put was sent: the run's operation id is stored with it. */
  firstId?: string;
  /**
   * The run's `Command` writes (update, goto, resume: writes of no task, root namespace) sent
   * before its first put ({@link ThreadwiseSaver.putWrites}), held in this process until the run
   * stores its first checkpoint or its first step's writes, and stored in that transaction: a run
   * refused there (`turn-in-progress`, `stale-parent`, `duplicate-operation`, refused before its
   * first call) stores none of them. LangGraph gets their promise back at once, so a put it chains
   * after them (a `DeltaChannel`'s writes) does not wait for itself.
   */
  held?: { at: string; writes: Array<() => Promise<void>> };
  /** The check of the operation id of the run's {@link held} writes under the thread's lock: its admission waits for it. */
  operationCheck?: Promise<unknown>;
  /** The checkpoint the run's operation id was stored with by its first writes ({@link WritesOperation.record}); its first checkpoint then stores none. */
  operationAt?: string;
  /**
   * The transaction storing the run's operation id with its first writes, or before its first
   * call ({@link ThreadwiseSaver.turnCall}), while in progress: the run's first checkpoint waits
   * for it, and is refused with it (was: sent meanwhile, it found {@link operationAt} set and
   * stored no id and checked none, so a retry refused `duplicate-operation` stored its checkpoint).
   */
  operationWrite?: Promise<unknown>;
  /** The archive check of messages the run's `Command` wrote on the checkpoint it starts from ({@link ThreadwiseSaver.putWrites}): its admission waits for it too. */
  commandCheck?: Promise<void>;
  /** A refusal of one of the run's puts: its later writes are refused with it. */
  refused?: unknown;
  /** `turnAdmission` reports the run's model and tool calls ({@link ThreadwiseSaver.turnCall}): its heartbeat then renews the lease only during them. */
  tracked: boolean;
  /** Model and tool calls of the run in progress. */
  calls: number;
  /** Id of the run's newest checkpoint stored (root namespace): the one its turn lease is held at. */
  stored?: string;
  /**
   * The turn lease the run holds at its newest checkpoint (one that left the turn open), and
   * `performance.now()` of its last renewal this process knows of: that checkpoint stored, or a
   * heartbeat's renewal (taken as it was sent). `undefined` once a checkpoint of the run closed the turn.
   */
  lease?: { checkpointId: string; renewedAt: number };
  /**
   * The step of the run's last checkpoint (root namespace): LangGraph stops a run whose step
   * passes `recursionLimit` right after storing it (`GraphRecursionError`, no write), so that
   * checkpoint ends the turn. The run's first put's step + `recursionLimit` + 1; `undefined` when
   * its config carries no `recursionLimit`.
   */
  lastStep?: number;
  /** A resumed run's claim of the turn lease before its first call ({@link ThreadRegistry.claimTurn}), shared by its parallel calls. */
  claim?: Promise<void>;
  /** A resumed run's store of its operation id before its first call ({@link ThreadwiseSaver.turnCall}), shared by its parallel calls. */
  operationClaim?: Promise<void>;
  /** The run's puts in progress (root namespace): an aborted run's turn ends once they are done. */
  putting: Set<Promise<unknown>>;
  /** Its abort signal is watched ({@link ThreadwiseSaver.watchAbort}); `true` once it fired. */
  abort?: { fired: boolean };
  /**
   * A model or tool call of the run ended with a drain requested (LangGraph's
   * `RunControl.requestDrain()`): the checkpoint its task ran from. LangGraph checks for a drain at
   * the superstep boundary after that task (`GraphDrained`), so the run's checkpoint that follows
   * this one is its last ({@link ThreadwiseSaver.turnCall}).
   */
  drainFrom?: string;
  /**
   * Root checkpoints a step of the run ran from and got past: a task of the step settled (its
   * writes came, `putWrites`) or the run stored the checkpoint that follows it. LangGraph's step
   * timeout stops the run only before that ({@link ThreadwiseSaver.watchStepTimeout}).
   */
  stepsPast?: Set<string>;
  /** Step timeout signals ({@link ThreadwiseSaver.watchStepTimeout}) watched already. */
  stepSignals?: WeakSet<AbortSignal>;
  /**
   * LangGraph's step timeout stopped the run at this checkpoint ({@link ThreadwiseSaver.watchStepTimeout}):
   * its put, when it comes after the timeout (under `async` durability it waits for the previous one), ends its lease too.
   */
  timedOutAt?: string;
}

/** `true` when a tuple read by a plaintext saver holds records sealed by `@threadwise/encryption`. */
function holdsSealed(tuple: CheckpointTuple): boolean {
  if (Object.values(tuple.checkpoint.channel_values ?? {}).some(isSealed)) return true;
  if (tuple.metadata && SEALED_METADATA_KEY in (tuple.metadata as object)) return true;
  return (tuple.pendingWrites ?? []).some(([, , value]) => isSealed(value));
}

/** `true` for a `messages` write holding a `RemoveMessage` of `REMOVE_ALL_MESSAGES` (the reducer keeps only what follows it). */
function rewritesMessages(value: unknown): boolean {
  const messages = Array.isArray(value) ? value : [value];
  // The id first: a plain property read, where `isInstance` inspects the object (every write of every step comes here).
  return messages.some(
    (message) => (message as { id?: unknown } | null | undefined)?.id === REMOVE_ALL_MESSAGES && RemoveMessage.isInstance(message),
  );
}

/** The `messages` of a checkpoint's pending input (`__start__`, a run's input not applied yet), as given: `[]` without one. */
function pendingInputMessages(checkpoint: Checkpoint): unknown[] {
  const input = (checkpoint.channel_values?.__start__ as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(input) ? input : input === undefined ? [] : [input];
}

/**
 * The id of the first message a checkpoint's pending input (`__start__`, a run's input not applied
 * yet) adds to its thread; `undefined` without one, or for an input that rewrites the thread
 * (`REMOVE_ALL_MESSAGES`: it empties the archive, see `#refuseArchivedReach`'s `rewrite`) or whose
 * first message has no id.
 */
function pendingInputFirstId(checkpoint: Checkpoint): string | undefined {
  const given = pendingInputMessages(checkpoint);
  if (given.length === 0 || rewritesMessages(given)) return undefined;
  const id = (given[0] as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : undefined;
}

/**
 * `true` while a checkpoint still has tasks to run: LangGraph's trigger channels (`__start__`,
 * `branch:to:<node>`) hold a value only then, and `__pregel_tasks` holds the `Send`s still to run
 * (createAgent sends each tool call to its tool node this way: the checkpoint before the tools has
 * no other trigger).
 */
function hasPendingTasks(checkpoint: Checkpoint): boolean {
  const values = checkpoint.channel_values ?? {};
  const sends = values[TASKS];
  if (Array.isArray(sends) && sends.length > 0) return true;
  return Object.keys(values).some((channel) => channel === "__start__" || channel.startsWith("branch:to:"));
}

/** What {@link ThreadwiseSaver}'s input check needs of a checkpoint's pending input, read from the checkpoint alone ({@link inputCheckOf}). */
interface InputCheck {
  /** Ids given that the hot part does not hold (appended by the reducer). */
  unseen: string[];
  /** Ids of the input's `RemoveMessage`s. */
  removals: string[];
  /** Removed ids neither in the hot part nor earlier in the input. */
  unknownRemovals: string[];
  /** Messages given under an id the hot part holds: the reducer replaces that message in place. */
  replacing: Map<string, unknown>;
  /** The ids to look up in the archive (each once; the rewrite marker's id left out, as `ArchiveRecords.having` does). */
  lookupIds: string[];
}

/**
 * The ids a checkpoint's pending input names, classified for the input check (see `#refuseInput`);
 * `undefined` when there is nothing to check: no input, a rewrite (`REMOVE_ALL_MESSAGES`), or
 * only messages without an id.
 */
function inputCheckOf(checkpoint: Checkpoint): InputCheck | undefined {
  const given = pendingInputMessages(checkpoint);
  if (given.length === 0 || rewritesMessages(given)) return undefined;
  const hot = new Set<unknown>();
  for (const message of (checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? []) hot.add(message.id);
  // Ids given earlier in the input (a removal of one of them is known to the reducer).
  const earlier = new Set<string>();
  const unseen: string[] = [];
  const removals: string[] = [];
  const unknownRemovals: string[] = [];
  const replacing = new Map<string, unknown>();
  for (const message of given) {
    const id = (message as { id?: unknown } | null)?.id;
    if (typeof id !== "string") continue;
    if (RemoveMessage.isInstance(message)) {
      // Looked up even when hot: a branch forked from before an archiving holds archived
      // messages in its hot part again, and removing the hot copy would leave the archived one
      // to be read back (the archive is one per thread, not per branch).
      removals.push(id);
      if (!hot.has(id) && !earlier.has(id)) unknownRemovals.push(id);
    } else {
      if (!hot.has(id)) unseen.push(id);
      else replacing.set(id, message);
      earlier.add(id);
    }
  }
  if (unseen.length === 0 && removals.length === 0 && replacing.size === 0) return undefined;
  const lookupIds = [...new Set([...unseen, ...removals, ...replacing.keys()])].filter((id) => id !== ARCHIVE_CLEARED_MESSAGE_ID);
  return { unseen, removals, unknownRemovals, replacing, lookupIds };
}

/**
 * Refuses a checkpoint whose channels another saver sealed on the way in: `encryptCheckpointer`
 * wrapped around a ThreadwiseSaver hands it ciphertext strings, and the window, the archive, edits
 * by id and deletions all need the messages themselves (the put failed with a bare `TypeError`).
 * Nothing is stored. Encryption belongs below the saver: `memoryStack({ keyringPath })` (or
 * `THREADWISE_MEMORY_KEYRING`) seals what ThreadwiseSaver stores, archive rows included.
 *
 * @throws {ThreadwiseConfigError} `memory.checkpointer`, when a channel value is sealed or
 *   `messages` is not a list.
 */
function refuseSealedInput(checkpoint: Checkpoint): void {
  const values = checkpoint.channel_values ?? {};
  const messages = values.messages;
  if (!Object.values(values).some(isSealed) && (messages === undefined || Array.isArray(messages))) return;
  throw new ThreadwiseConfigError(
    "memory.checkpointer",
    "the stack's ThreadwiseSaver was handed sealed channel values (is it wrapped in encryptCheckpointer?); it needs the messages themselves for the window, the archive and deletions, so nothing was stored. Run the agent on stack.checkpointer and encrypt with memoryStack({ keyringPath }) or THREADWISE_MEMORY_KEYRING, which seal what it stores, archive included",
  );
}

/**
 * Gives each message instance in a `messages` write (one message or an array) without an id a
 * random one, on the instance, as LangGraph's `messagesStateReducer` does when it applies the write
 * (`id` and `lc_kwargs.id`). Anything else (a plain object, a string, a `RemoveMessage`, which has
 * its id) is left as it is.
 */
function stampMessageIds(value: unknown): void {
  for (const item of Array.isArray(value) ? value : [value]) {
    if (!BaseMessage.isInstance(item) || (item.id !== undefined && item.id !== null)) continue;
    item.id = randomUUID();
    if (item.lc_kwargs) item.lc_kwargs.id = item.id;
  }
}

/**
 * `work`'s result, a lost connection it meets typed as `ThreadwiseConnectionLostError` naming
 * `operation` (`connectionLostDuring`); its promise is awaited here, so a rejection is typed too
 * (a `return` of a promise inside `try` let one pass untyped).
 */
async function lostDuring<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw connectionLostDuring(operation, error);
  }
}

/**
 * The checkpointer `memoryStack` hands to `createAgent`: wraps a LangGraph saver (MemorySaver,
 * SqliteSaver, PostgresSaver) and keeps its {@link ThreadRegistry} in step.
 *
 * - Every `put`/`putWrites` first records the write in the registry; a thread with a tombstone
 *   refuses it with `ThreadwiseThreadDeletedError` (spec R24), so a deleted thread id is never
 *   created again, by this process or any other.
 * - `deleteThread` removes every row of the thread and leaves a tombstone.
 * - The registry records each thread's head and moves it in the transaction of the write that
 *   makes it (spec R38); `getTuple` without `checkpoint_id` reads the head, so no writer's clock
 *   orders a thread.
 * - Concurrent turns (spec R34, R38): a run starts only while no other run of the thread holds
 *   its lease (`turn-in-progress`), and a turn that starts implicitly from the newest checkpoint
 *   commits only on top of the head (`stale-parent`); the loser gets a
 *   `ThreadwiseConcurrentTurnError` with nothing stored, before any model call when
 *   `turnAdmission` (part of `memoryStack`) awaits {@link ThreadwiseSaver.admission}.
 * - Time travel works as on LangGraph's savers: a run from a checkpoint the caller chose (an
 *   explicit `checkpoint_id`, `updateState`, a replay) is a branch and becomes the head.
 * - A run carrying `configurable.operation_id` is stored at most once per thread
 *   (`duplicate-operation`, not retryable).
 * - Every thread id goes through `normalizeThreadId` (strings only, no NUL, well-formed, 256 bytes).
 * - Nothing about threads is cached in the process: replicas sharing a database see the same thing.
 *
 * Reads pass through unchanged; the wrapped saver's serializer (e.g. an encrypting one) is used.
 */
export class ThreadwiseSaver extends BaseCheckpointSaver {
  /** The wrapped saver. */
  readonly inner: BaseCheckpointSaver;
  /** Per-thread bookkeeping and tombstones. */
  readonly registry: ThreadRegistry;
  readonly #options: ThreadwiseSaverOptions;
  readonly #turnLeaseMs: number;
  /** {@link ThreadwiseSaverOptions.archive}. */
  readonly #archiveOn: boolean;
  #ready: Promise<void> | undefined;
  /**
   * {@link ready} resolved: reads and writes then skip awaiting it (an await per call, each a
   * promise and a turn of the microtask queue). A failed `ready` leaves it `false`, so every call
   * still meets the failure.
   */
  #isReady = false;
  /** {@link close} was called: {@link ready} refuses every call with {@link ThreadwiseClosedError}. */
  #closed = false;
  /** Plaintext savers: whether the store holds sealed records, asked once (spec R26: fail closed). */
  #sealedStore: Promise<boolean> | undefined;
  /** Puts in flight, by `writeKey` (thread, namespace, checkpoint id): their pending writes wait for them. */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  /** Puts of this saver not settled yet, by thread id, from their first step ({@link #settled}). */
  readonly #puts = new Map<string, Set<Promise<unknown>>>();
  /**
   * Releases in progress of the lease of a run stopped by its caller or its step timeout, by thread
   * ({@link #endAbortedTurn}): another run's put of the thread waits for it, so the next turn in this
   * process is admitted once the caller sees the stop (was: it could come first and be refused
   * `turn-in-progress` by the lease being released, through a pooler most often).
   */
  readonly #endingTurns = new Map<string, { run: RunRecord; done: Promise<void> }>();
  /** Checkpoints this saver stored recently. */
  readonly #committed = new Map<string, true>();
  /** Checkpoints this saver was refused recently, with the error: their writes are refused too. */
  readonly #refused = new Map<string, unknown>();
  /**
   * Checkpoints (by `writeKey`) with a pending write rewriting `messages` (a `RemoveMessage` of
   * `REMOVE_ALL_MESSAGES`): the checkpoint that follows one of them is a rewrite of the thread.
   */
  readonly #rewrites = new Map<string, true>();
  /** Writes that arrived before the put of their checkpoint. */
  readonly #deferred = new Map<string, DeferredWrite[]>();
  /** Root checkpoints (by `writeKey`) whose turn {@link endTurn} ended before their put came: stored without a lease. */
  readonly #turnsEnded = new Map<string, true>();
  /** Runs of this process by the `control` and `signal` LangGraph passes with each of their puts and writes. */
  readonly #runs = new WeakMap<object, RunRecord>();
  /** Heartbeats of turns this process runs, by thread id. */
  readonly #heartbeats = new Map<string, Heartbeat>();
  /** The one timer of this saver's heartbeats ({@link #beat}): set by the first heartbeat, cleared at a beat that finds none. */
  #beatTimer: NodeJS.Timeout | undefined;
  /** Archived messages (issue 27): encoded, sealed and read back through the registry. */
  readonly #archive: ArchiveRecords;
  /**
   * Threads whose archive this saver knows to be empty under its tenant (`true`) or not (`false`),
   * from the mark each root put of the thread read inside its transaction, with the thread's lock
   * and lease (`stamp` 0: no row). `archivedMessages` and `archivedAmong` answer `[]` for a thread
   * known empty without a query or a wait (archiveoff65: with the archive off, every model call of
   * every thread read it, one indexed query, after waiting for the thread's checkpoints in flight).
   * What can fill it is told here: this saver's own `archiveMessages` (forgets the thread); another
   * saver or process archives only in a turn of its own, which ends with a checkpoint marked with
   * a stamp > 0 (an archiving saver marks every root checkpoint) that the next run of this process
   * reads through {@link getTuple} (or its first put reads the mark again) before its first model
   * call. A call of a run that stored no checkpoint yet (a resume at the head, durability `exit`)
   * forgets the thread first ({@link turnCall}): another process may have archived after the run's
   * head read, or without marking its checkpoints (an older threadwise), and nothing of this run's
   * read the mark since. Unknown (not here): the registry is asked, as before.
   */
  readonly #archiveEmpty = new Map<string, boolean>();
  /** Counts the news that a thread's archive may hold rows (an archive write, a mark > 0): a put's stamp 0 read before one is not kept. */
  #archiveNews = 0;

  /**
   * @throws ThreadwiseConfigError naming the option (`ThreadwiseSaver.turnLeaseMs`) when `options`
   *   is not an object (`null` included), a value has the wrong type, or `turnLeaseMs` is not a
   *   whole number in [0, 2147483647]; `ThreadwiseUnknownOptionError` for an unknown key.
   */
  constructor(inner: BaseCheckpointSaver, registry: ThreadRegistry, options: ThreadwiseSaverOptions = {}) {
    super(inner.serde);
    parseOptions("ThreadwiseSaver", threadwiseSaverOptionsSchema, options);
    this.inner = inner;
    this.registry = registry;
    this.#options = options;
    this.#turnLeaseMs = options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS;
    this.#archiveOn = options.archive ?? true;
    this.#archive = new ArchiveRecords(registry, inner, options.tenantId ?? DEFAULT_IDENTITY);
    registry.adoptSaver?.(inner);
  }

  /**
   * Writes `messages` to the thread's archive (issue 27): an idempotent upsert keyed by tenant,
   * thread and message id, in one transaction with the tombstone check. `messageArchive` calls
   * it before it removes the same messages from the checkpoint, so a crash in between leaves a
   * message in both places, never in neither; every reader dedupes by id, the hot copy winning.
   * @throws TypeError for a message without a string id; ThreadwiseThreadDeletedError.
   */
  archiveMessages(threadId: string, messages: readonly BaseMessage[]): Promise<void> {
    return lostDuring("archiveMessages", async () => {
      const id = normalizeThreadId(threadId);
      if (!this.#isReady) await this.ready("archiveMessages");
      if (this.#options.plaintext) await this.#refuseWriteOnSealedStore(id);
      this.#archiveMayHold(id);
      try {
        await this.#archive.write(id, messages);
      } finally {
        // A put that read the mark while the rows were being written must not record `empty` after them.
        this.#archiveMayHold(id);
      }
    });
  }

  /**
   * The thread's archived messages, oldest first (`[]` without an archive). Some may also still
   * be in the hot checkpoint (a crash between the two writes): {@link readThread} dedupes them.
   * A thread this saver knows to have no archived row (its last root put read none, and nothing
   * archived since that it heard of) is answered `[]` without a query or a wait.
   * @param options `last`: only the newest `last` archived messages (a positive integer; what
   *   summarize's coverage check reads at each due call).
   * @throws ThreadwiseConfigError naming `archivedMessages.last` when it is not a positive integer.
   */
  archivedMessages(threadId: string, options: ArchivedMessagesReadOptions = {}): Promise<BaseMessage[]> {
    return lostDuring("archivedMessages", async () => {
      const id = normalizeThreadId(threadId);
      // A misspelt option (`{ lats: 2 }`) is refused with its name, not read as "the whole archive".
      for (const key in options) if (key !== "last") parseOptions("archivedMessages", archivedReadOptionsSchema, options);
      const { last } = options;
      if (last !== undefined && !(Number.isInteger(last) && last > 0))
        throw new ThreadwiseConfigError("archivedMessages.last", `expected a positive integer, got ${String(last)}`);
      if (!this.#isReady) await this.ready("archivedMessages");
      if (this.#archiveEmpty.get(id) === true) return [];
      await this.#settled(id);
      return this.#archive.messages(id, last);
    });
  }

  /**
   * Which of `messageIds` the thread's archive holds now, in the order given (core's
   * `ArchivedAmongReader`; `[]` without an archive): one indexed lookup by key, nothing decoded.
   * factRecall and userMemory ask it for user messages gone from the checkpoint, to tell archived
   * ones (whose facts stay) from removed ones (R37).
   */
  archivedAmong(threadId: string, messageIds: readonly string[]): Promise<string[]> {
    return lostDuring("archivedAmong", async () => {
      const id = normalizeThreadId(threadId);
      if (messageIds.length === 0) return [];
      if (!this.#isReady) await this.ready("archivedAmong");
      if (this.#archiveEmpty.get(id) === true) return [];
      await this.#settled(id);
      return this.#archive.having(id, messageIds);
    });
  }

  /**
   * Waits for this saver's checkpoint writes of the thread still in flight (LangGraph stores a
   * step's checkpoint while the next step runs): a read of the archive sees what this process
   * wrote, e.g. a rewrite's emptying of the archive, which commits with the checkpoint after the
   * rewrite's input. Was: the first model call after a rewrite read the archive before that
   * commit on a slow store (PostgreSQL), and recall numbered and offered the messages the rewrite
   * removed, or not, by timing. Failed writes are the writer's to report; the read goes on.
   */
  /** The thread's archive may hold rows now: known not empty (see {@link #archiveEmpty}). */
  #archiveMayHold(threadId: string): void {
    this.#archiveNews += 1;
    setBounded(this.#archiveEmpty, threadId, false, REMEMBERED_KEYS);
  }

  /** A root put of the thread committed with `mark` read in its transaction; `news`: {@link #archiveNews} when the put began. */
  #archiveMarkCommitted(threadId: string, mark: ArchiveMark, news: number): void {
    if (mark.stamp > 0) this.#archiveMayHold(threadId);
    else if (news === this.#archiveNews) setBounded(this.#archiveEmpty, threadId, true, REMEMBERED_KEYS);
  }

  async #settled(threadId: string): Promise<void> {
    const pending = this.#puts.get(threadId);
    // `settled` never rejects (a put's failure settles it with the error).
    if (pending && pending.size > 0) await Promise.all([...pending]);
  }

  /**
   * What the thread's archive gained since `since` (core's `ArchivedChangesReader`; what recall
   * reads at each model call): `{ cursor, appended: true, messages }` with the archived messages
   * after those read up to `since` when the archive is a pure append of them, else
   * `{ cursor, appended: false, messages }` with the whole archive, as {@link archivedMessages}.
   * Pass `cursor` back at the next call. A cursor is valid in this saver (and process) only.
   */
  archivedChanges(threadId: string, since?: ArchiveCursor): Promise<ArchivedChanges> {
    return lostDuring("archivedChanges", async () => {
      const id = normalizeThreadId(threadId);
      if (!this.#isReady) await this.ready("archivedChanges");
      await this.#settled(id);
      return this.#archive.changes(id, since);
    });
  }

  /**
   * The digests of the messages the thread's archive held when its latest rewrite
   * (`REMOVE_ALL_MESSAGES`, then the kept messages) emptied it, oldest first, 8 characters each
   * (summarize's `coveredDigestOf`); `undefined` when no rewrite emptied it, or its marker was
   * stored by an earlier threadwise (core's `ArchiveClearedDigestsReader`; summarize's
   * `archiveCleared`). A rewrite that emptied nothing keeps the previous rewrite's digests. The
   * messages themselves are gone with the rewrite; the digests tell summarize whether the ones the
   * rewrite kept are those its summary covers (issue 27, R37). Sealed with the thread's records
   * when the saver encrypts. One indexed query, as {@link archivedMessages}.
   * With `since` (a root checkpoint of the thread): `undefined` too unless the archive held
   * messages at that checkpoint (its {@link ARCHIVE_MARK_METADATA_KEY}) and a rewrite emptied it
   * after it (fact-recall passes the checkpoint of its last read: a rewrite from before it, or one
   * that emptied an archive holding none of that checkpoint's messages, is no news to it; issue
   * 27, R37). A checkpoint not found or stored without a mark: as without `since`. One more
   * checkpoint read.
   * @throws ThreadwiseSealedStoreError when the digests are sealed and this saver does not encrypt.
   */
  archiveClearedDigests(threadId: string, since?: string): Promise<string | undefined> {
    return lostDuring("archiveClearedDigests", async () => {
      const id = normalizeThreadId(threadId);
      if (!this.#isReady) await this.ready("archiveClearedDigests");
      await this.#settled(id);
      if (since !== undefined) {
        const from = await this.#branchPoint(id, since);
        if (from && (from.mark.seq === 0 || !(await this.#archive.since(id, from.mark)).cleared)) return undefined;
      }
      return this.#archive.clearedDigests(id);
    });
  }

  /**
   * The whole thread, in order (issue 27): its archived messages, then the messages of the
   * checkpoint `config` names (the head by default). A message in both (a crash between the
   * archive write and the checkpoint write) appears once, where the checkpoint has it.
   * Equals the `messages` of a run that never archived. `[]` for an unknown thread. An older
   * checkpoint named by `checkpoint_id` reads the archived messages its branch had (its
   * {@link ARCHIVE_MARK_METADATA_KEY}): not those another branch archived after it, and none once
   * a rewrite emptied the archive since; one stored without a mark (before the thread's first
   * archiving, or by an earlier threadwise) reads the archived messages before the first of its
   * own the archive holds (the archive is a prefix of the thread), the whole archive when it holds
   * none of them, and none when it holds no message (the thread's input checkpoint).
   * The checkpoint's pending writes of no task (a turn sent as `Command({ update, goto })` writes
   * its messages there, on the checkpoint it starts from) are applied to its messages, as
   * LangGraph's `getState` applies them (`messagesStateReducer`).
   * @param config `{ configurable: { thread_id, checkpoint_id? } }`
   * @throws ThreadwiseTenantMismatchError (option `encryption.tenantId`) when the checkpoint
   *   records archived messages and the archive holds no row under this saver's tenant (the
   *   thread was written as another tenant: the read would miss its beginning).
   */
  readThread(config: RunnableConfig): Promise<BaseMessage[]> {
    return lostDuring("readThread", async () => {
      const threadId = threadIdOf(config);
      const tuple = await this.getTuple(config);
      let hot = ((tuple?.checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? []).slice();
      // Such a write that rewrites the thread (`REMOVE_ALL_MESSAGES`) leaves only what it keeps, the archived part included.
      let rewritten = false;
      for (const [taskId, channel, value] of tuple?.pendingWrites ?? [])
        if (taskId === NULL_TASK_ID && channel === "messages") {
          rewritten ||= rewritesMessages(value);
          hot = messagesStateReducer(hot, value as BaseMessage[]);
        }
      const mark = config.configurable?.checkpoint_id && tuple ? markIn(tuple.metadata) : undefined;
      if (mark) await this.#settled(threadId);
      let archived = rewritten ? [] : mark ? await this.#archive.messagesAt(threadId, mark) : await this.archivedMessages(threadId);
      // An older checkpoint without a mark (stored before the thread's first archiving, e.g. before
      // the archive was turned on, or by an earlier threadwise): the archive is a prefix of the
      // thread, so where the first of its own messages stands in the archive, its part of the
      // archive ends. Was: the whole archive, so messages said after the checkpoint were read back
      // before its own (newuser65: turn 5 of a thread read as 49 messages, turns 6-25 first).
      if (!mark && !rewritten && config.configurable?.checkpoint_id && tuple) archived = archivedBefore(archived, hot);
      // Archived messages are keyed under the tenant that wrote them: a checkpoint that records some
      // (its mark) over an archive holding no row under this saver's tenant was written as another.
      const recorded = !rewritten && archived.length === 0 ? markIn(tuple?.metadata) : undefined;
      if (recorded && recorded.stamp > 0 && (await this.#archive.mark(threadId)).stamp === 0)
        throw new ThreadwiseTenantMismatchError(threadId, this.#archive.tenantId);
      return withArchived(archived, hot).slice();
    });
  }

  /**
   * Refuses a branch or `updateState` whose messages reach into the archive (R37, R38; see
   * {@link ThreadwiseArchivedMessageError}). Reads the archive's ids only for such writes, and
   * only on threads that have an archive. Runs inside the registry's write transaction, so the
   * archive it reads is the one the checkpoint commits against. `from`: the checkpoint branched
   * from (its {@link ARCHIVE_MARK_METADATA_KEY} and hot part); without a mark (a checkpoint stored
   * before the key existed, or one not found) archived messages are placed by id only.
   * `rewrite`: the checkpoint applies a rewrite of `messages` (`REMOVE_ALL_MESSAGES`, then what it
   * keeps, even nothing), which empties the archive in the same transaction: its messages are the
   * whole thread, so they are not placed against the archive (was: a rewrite keeping nothing, or
   * an archived message changed, was refused though a thread without the archive takes it); only
   * the branch point is checked, so a rewrite on a branch another branch archived from since is
   * still refused rather than emptying that branch's archive.
   */
  async #refuseArchivedReach(
    threadId: string,
    checkpoint: Checkpoint,
    branch: boolean,
    from?: BranchPoint,
    rewrite = false,
  ): Promise<void> {
    if (rewrite) {
      if (from !== undefined) await this.#refuseArchivedSince(threadId, from);
      return;
    }
    const archived = await this.#archive.ids(threadId);
    const messages = (checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? [];
    const hot = messages.map((m) => m.id);
    if (archived.length === 0) {
      // A rewrite emptied the archive: a branch from before it (its thread does not begin with the
      // rewritten thread's first message) had archived messages before its hot part, gone now.
      // A branch from an input checkpoint holds no message yet: its thread begins with its input
      // (a replay from the thread's first checkpoint), refused at this first checkpoint of the run
      // (was: at its second, the fork left stored as the thread's head, which read back empty).
      const first = branch ? await this.#archive.clearedFirst(threadId) : undefined;
      const opening = hot.length > 0 ? hot[0] : pendingInputFirstId(checkpoint);
      if (first && opening !== undefined && opening !== first) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", []);
    } else {
      const held = this.#refuseMisplaced(threadId, archived, hot, branch);
      if (held > 0) await this.#refuseEditedArchived(threadId, messages.slice(0, held));
    }
    if (from !== undefined) await this.#refuseArchivedSince(threadId, from);
  }

  /**
   * The branch's own archive (R37; the memory README's "archived-fork"): `from` is the checkpoint
   * branched from, with where the archive stood when it was stored (its
   * {@link ARCHIVE_MARK_METADATA_KEY}). The rows archived since must be the ones that checkpoint's
   * branch would archive next: its hot part's opening run, in the archive's order (a run from a
   * chosen checkpoint archives from its own hot part, and each of its puts is a branch put).
   * Anything else was archived by another branch, which may have held messages this branch removed
   * (a redaction) or never had: reading the archive back would undo the removal or mix the
   * branches, so the write is refused (`archived-fork`, the rows from the first one out of place).
   * A rewrite that emptied the archive since takes the branch's archived messages with it: refused
   * (`messageIds` empty) when it had any.
   */
  async #refuseArchivedSince(threadId: string, from: BranchPoint): Promise<void> {
    const since = await this.#archive.since(threadId, from.mark);
    if (since.cleared && from.mark.seq > 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", []);
    // The hot part may open with messages archived up to the mark, held again (a branch forked from
    // before that archiving, or a crash between the two writes; a later batch re-archives them, keeping
    // their rows): the rows archived since continue after those (seed 113 case 38).
    let start = 0;
    while (start < from.hot.length && since.before.has(from.hot[start] as string)) start += 1;
    const out = since.ids.findIndex((id, k) => from.hot[start + k] !== id);
    if (out !== -1) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", since.ids.slice(out));
  }

  /**
   * {@link refuseArchivedReach} on a thread with archived messages (`archived`, in archive order), placed by id.
   * @returns how many archived messages the hot part holds again as its opening run (a branch forked from before an archiving, or a crash between the two writes).
   */
  #refuseMisplaced(threadId: string, archived: readonly string[], hot: ReadonlyArray<string | undefined>, branch: boolean): number {
    // A branch from a checkpoint with no message (the thread's first, before any archiving): the
    // archive holds the other branch's messages, which this one never had. The archive never
    // empties the hot part, so a later checkpoint always has a message to place the branch by.
    if (branch && hot.length === 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", archived);
    const inHot = new Set(hot.filter((id): id is string => typeof id === "string"));
    const first = hot[0];
    const at = first === undefined ? -1 : archived.indexOf(first);
    const from = at === -1 ? archived.length : at;
    const edited = archived.slice(0, from).filter((id) => inHot.has(id));
    if (edited.length > 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-edit", edited);
    const foreign = archived.slice(from).filter((id) => !inHot.has(id));
    if (foreign.length > 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", foreign);
    // A branch forked from before an archiving holds the archived messages hot again: they must open
    // its hot part in the archive's order, nothing between them, so its thread begins with the
    // archive. Else the other branch removed (or moved) messages before it archived: this branch's
    // next archiving would append those at the archive's end, out of order (seed 104 case 8).
    const held = archived.slice(from);
    const out = held.findIndex((id, k) => hot[k] !== id);
    if (out !== -1) throw new ThreadwiseArchivedMessageError(threadId, "archived-fork", held.slice(out));
    return held.length;
  }

  /**
   * Refuses (`archived-edit`) an edit in place of an archived message: one of `messages` whose id
   * is archived with other content (core's `sameMessage`: type, id, name, content, tool calls).
   * A branch forked from before an archiving holds archived messages hot again, and LangGraph's
   * reducer replaces a message given under one of their ids in place; that branch's next archiving
   * would rewrite the archived row (an archived id keeps its row), which every other branch reads:
   * the edit (a redaction) would leak into them. An unchanged copy passes.
   */
  async #refuseEditedArchived(threadId: string, messages: readonly BaseMessage[]): Promise<void> {
    const ids = messages.map((m) => m.id).filter((id): id is string => typeof id === "string");
    const archived = await this.#archive.copies(threadId, ids);
    const edited = messages
      .filter((m) => archived.has(m.id as string) && !sameMessage(archived.get(m.id as string), m))
      .map((m) => m.id as string);
    if (edited.length > 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-edit", edited);
  }

  /**
   * Refuses a run's input checkpoint (nothing stored, no lease) when LangGraph's `messages`
   * reducer will fail on the input, or the input names an archived message by id (R37):
   * - a message under an archived id (`archived-edit`, {@link ThreadwiseArchivedMessageError}):
   *   it would be appended at the end instead of replacing the archived one in place;
   * - a `RemoveMessage` of an archived id, also one the hot part holds again on a branch forked from
   *   before an archiving (`archived-edit`): the archived copy would be read back;
   * - a `RemoveMessage` of an id that is neither in the hot part nor earlier in the input: the
   *   reducer fails right after this checkpoint (before any middleware runs, so the caller sees
   *   LangGraph's "Attempting to delete a message with an ID that doesn't exist"); refused here with
   *   `archived-edit` for an archived id, else with the reducer's own message, so the failed run
   *   leaves neither a checkpoint nor a turn lease behind.
   * An input holding `REMOVE_ALL_MESSAGES` is a rewrite (the reducer keeps what follows the last
   * one, whatever its ids) and passes. Reads the archive only for ids not in the hot part and removals,
   * and not at all when the archive mark read under the thread's lock has stamp 0 (nothing was
   * ever archived under the saver's tenant); a registry that read them with the lock hands them over
   * ({@link CommitLocked.archivedInput}). `input`: the checkpoint's {@link inputCheckOf}.
   */
  #refuseInput(threadId: string, input: InputCheck | undefined, locked: CommitLocked): Promise<void> | undefined {
    if (input === undefined) return undefined;
    // Membership of these few ids only: this runs at every turn's input, on archives of any size.
    // Stamp 0 under the lock: the thread's archive never held a row (under this tenant), so no id of the input is archived.
    const found = locked.archiveMark?.stamp === 0 ? [] : locked.archivedInput;
    // Synchronous (no promise) unless the archive must be read: the usual input meets an empty archive or ids read with the lock.
    if (found === undefined) return this.#archive.having(threadId, input.lookupIds).then((ids) => this.#refuseFound(threadId, input, ids));
    return this.#refuseFound(threadId, input, found);
  }

  /** {@link #refuseInput} once `found` (which of the input's ids are archived) is known. */
  #refuseFound(threadId: string, input: InputCheck, found: readonly string[]): Promise<void> | undefined {
    const { replacing, unseen, removals, unknownRemovals } = input;
    const edited = found.filter((id) => !replacing.has(id) || unseen.includes(id) || removals.includes(id));
    if (edited.length > 0) throw new ThreadwiseArchivedMessageError(threadId, "archived-edit", edited);
    const refuseUnknown = () => {
      if (unknownRemovals.length > 0)
        throw new Error(`Attempting to delete a message with an ID that doesn't exist ('${unknownRemovals[0]}')`);
    };
    // A message hot again (a branch forked from before an archiving) and archived, given with other
    // content: an edit in place of an archived message (see `#refuseEditedArchived`).
    const held = found.filter((id) => replacing.has(id));
    if (held.length > 0)
      return this.#refuseEditedArchived(
        threadId,
        held.map((id) => coerceMessageLikeToMessage(replacing.get(id) as Parameters<typeof coerceMessageLikeToMessage>[0])),
      ).then(refuseUnknown);
    refuseUnknown();
    return undefined;
  }

  /**
   * Resolves once the backend is usable (schema version checked). Call it at start-up to fail
   * fast; otherwise the first read or write does.
   * @param operation the call waiting on it, named by {@link ThreadwiseClosedError}.
   * @throws ThreadwiseSchemaVersionError (PostgreSQL) when the schema is not the expected one;
   *   ThreadwiseClosedError after {@link close}.
   */
  ready(operation = "ready"): Promise<void> {
    if (this.#closed) return Promise.reject(new ThreadwiseClosedError(this.#options.label ?? "ThreadwiseSaver", operation));
    this.#ready ??= (this.#options.ready ?? (async () => {}))().then(() => {
      this.#isReady = !this.#closed;
    });
    return this.#ready;
  }

  /**
   * The checkpoint `configurable.checkpoint_id` names, or without one the thread's head as the
   * registry records it (spec R38): the newest checkpoint is the one the last write made the
   * head, not the one whose id sorts last (ids are time-based UUIDs from each writer's clock).
   */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    try {
      const threadId = threadIdOf(config);
      if (!this.#isReady) await this.ready("getTuple");
      const configurable = config.configurable ?? {};
      if (!configurable.checkpoint_id && !configurable.checkpoint_ns) {
        // A run of the thread stopped by its caller: its last checkpoint in flight and its lease's
        // release come first, so a turn sent once the caller saw the stop starts from that checkpoint
        // (was: from the one before, then refused `stale-parent` when the stopped run's put landed).
        const ending = this.#endingTurns.size === 0 ? undefined : this.#endingTurns.get(threadId);
        if (ending !== undefined) await ending.done;
        const head = await this.registry.head(threadId);
        if (head)
          // `checkpoint_ns` too: a saver given a `checkpoint_id` returns the config it was given, and
          // LangGraph's `updateState` writes with that config (MemorySaver refuses a write without
          // `checkpoint_ns`: "Invalid configurable value for key checkpoint_ns").
          return this.#archiveNewsIn(
            threadId,
            this.#refuseSealed(
              await this.inner.getTuple({
                ...config,
                configurable: { ...configurable, checkpoint_ns: "", checkpoint_id: head.checkpointId },
              }),
            ),
          );
      }
      return this.#archiveNewsIn(threadId, this.#refuseSealed(await this.inner.getTuple(config)));
    } catch (error) {
      throw connectionLostDuring("getTuple", error);
    }
  }

  /**
   * Resolves once the run identified by `run` was admitted: its first checkpoint stored under the
   * thread's lease. `run` is what LangGraph passes with each `put` of a run and shows its nodes:
   * the run's `control` (`getConfig().control`, one per run) and its abort signal
   * (`configurable.__pregel_abort_signals.externalAbortSignal`, absent in a run's first step), one
   * or both. `turnAdmission`'s hooks await it, so a refused turn fails before its first model call.
   * Resolves at once for a run that sent nothing yet (durability `exit`, a resume at the head) or
   * is unknown.
   * @throws ThreadwiseConcurrentTurnError (or any error of that first put) when the run was refused.
   */
  async admission(run: RunKeys): Promise<void> {
    try {
      let record = this.#findRun(run);
      // A run resumed from a checkpoint sends its first put (a `fork`) just before its first task;
      // LangGraph chains it on a few promise reactions, all done by the next macrotask.
      if (record?.first === undefined) {
        await new Promise((resolve) => setImmediate(resolve));
        record = this.#findRun(run);
      }
      if (record === undefined) return;
      record.tracked = true;
      if (record.first !== undefined) await record.first;
      if (record.commandCheck !== undefined) await record.commandCheck;
      if (record.operationCheck !== undefined) await record.operationCheck;
      if (record.refused !== undefined) throw record.refused;
    } catch (error) {
      throw connectionLostDuring("admission", error);
    }
  }

  /**
   * Runs one model or tool call of the run `run` (`turnAdmission`'s `wrapModelCall` and
   * `wrapToolCall`; see {@link admission} for `run`), after its admission: a run refused at its
   * first checkpoint (a resumed run, which skips `beforeAgent`, included) calls no model and runs
   * no tool. A resumed run that stored no checkpoint yet (a resume at the head, a HITL `Command`)
   * is checked against the archive first with `messages`, the state the call sees
   * (`archived-fork`, see {@link ThreadwiseArchivedMessageError}). While the call runs, the
   * heartbeat renews the run's turn lease; between calls only the run's checkpoints do, so a run
   * that ended without a last checkpoint, error or interrupt write (LangGraph failing outside a
   * node) holds its thread at most `turnLeaseMs` after its last checkpoint. A run stopped by its
   * `recursionLimit` releases it with its last checkpoint (see {@link RunRecord.lastStep}).
   * Such a run resumed at the thread's head (`checkpointId`) also takes the turn lease before its
   * first call ({@link ThreadRegistry.claimTurn}): a turn of another run in progress refuses it
   * (`turn-in-progress`) before any model call or tool run, and a turn started meanwhile is refused
   * (was: both ran, the resumed one failing `lease-lost` only after its call).
   * @param threadId `configurable.thread_id` of the run (no archive check without it).
   * @param messages the run's `messages` as the call sees them.
   * @param checkpointId the checkpoint the call's task runs from (`configurable.checkpoint_map[""]`); no lease claim without it.
   * @param stepSignal the step timeout signal of the call's task, a task of the root namespace
   *   (`configurable.__pregel_abort_signals.timeoutAbortSignal`, set when the graph has a
   *   `stepTimeout`): a step that times out ends the run's turn ({@link watchStepTimeout}).
   * @param operationId `configurable.operation_id` of the run: a run resumed with nothing stored
   *   yet stores it before its first call, under `checkpointId` (`duplicate-operation` when a run
   *   stored it already; a string of at most 256 UTF-8 bytes, else `ThreadwiseConfigError`).
   * @param fromHead `true` when the run resumed at the head it read (no `configurable.checkpoint_id`
   *   of the caller's, durability not `exit`): when another run moved the head from `checkpointId`
   *   before its first call, it is refused `stale-parent` there (a resume of a checkpoint the
   *   caller chose is a branch and runs).
   * @throws ThreadwiseConcurrentTurnError, ThreadwiseArchivedMessageError (or any error of the run's first put) when the run was refused.
   */
  async turnCall<T>(
    run: RunKeys,
    threadId: unknown,
    messages: readonly BaseMessage[] | undefined,
    call: () => Promise<T>,
    checkpointId?: unknown,
    stepSignal?: unknown,
    operationId?: unknown,
    fromHead?: boolean,
  ): Promise<T> {
    const keys = runKeys(run);
    if (keys.length === 0) {
      await this.admission(run);
      return call();
    }
    const record = this.#runRecord(keys, true);
    await this.#beforeCall(run, keys, record, threadId, messages, checkpointId, stepSignal, operationId, fromHead === true);
    record.calls += 1;
    try {
      return await call();
    } finally {
      record.calls -= 1;
      // Read as the call ends, inside its task: before the superstep boundary where LangGraph
      // checks for a drain (a drain requested later is not seen here, and its lease lapses).
      if (record.drainFrom === undefined && typeof checkpointId === "string" && drainRequested(keys)) record.drainFrom = checkpointId;
    }
  }

  /**
   * {@link turnCall}'s checks and claims before its call (admission, archive reach, turn lease,
   * operation id, lease renewal); a lost connection is reported typed
   * ({@link ThreadwiseConnectionLostError}, `operation` "turnCall"), before any model or tool call.
   */
  async #beforeCall(
    run: RunKeys,
    keys: readonly object[],
    record: RunRecord,
    threadId: unknown,
    messages: readonly BaseMessage[] | undefined,
    checkpointId: unknown,
    stepSignal: unknown,
    operationId: unknown,
    fromHead: boolean,
  ): Promise<void> {
    try {
      await this.admission(run);
      if (stepSignal instanceof AbortSignal && typeof threadId === "string" && typeof checkpointId === "string" && checkpointId !== "")
        this.#watchStepTimeout(threadId, record, stepSignal, checkpointId);
      if (record.first === undefined && typeof threadId === "string" && threadId !== "" && messages !== undefined) {
        try {
          const id = normalizeThreadId(threadId);
          if (!this.#isReady) await this.ready("turnCall");
          const from = typeof checkpointId === "string" && checkpointId !== "" ? await this.#branchPoint(id, checkpointId) : undefined;
          await this.#refuseArchivedReach(id, { channel_values: { messages } } as unknown as Checkpoint, true, from);
        } catch (thrown) {
          const error = connectionLostDuring("turnCall", thrown);
          record.refused ??= error;
          throw error;
        }
      }
      if (
        record.first === undefined &&
        this.#turnLeaseMs > 0 &&
        typeof threadId === "string" &&
        threadId !== "" &&
        typeof checkpointId === "string"
      ) {
        record.claim ??= this.#claimTurn(threadId, checkpointId, record, keys, fromHead);
        await record.claim;
      }
      // Its operation id too, before the call: with the lease off nothing else keeps a second resume
      // of the operation from running this call (was: both resumes ran their first task, a tool twice;
      // the loser was refused at its first writes, after the call).
      if (
        record.first === undefined &&
        record.operationAt === undefined &&
        operationId != null &&
        typeof threadId === "string" &&
        threadId !== "" &&
        typeof checkpointId === "string" &&
        checkpointId !== ""
      ) {
        record.operationClaim ??= this.#claimOperation(threadId, checkpointId, operationId, record);
        await record.operationClaim;
      }
      // Read only when the lease may have lapsed (a hook of the caller's own outlasting it): no await otherwise.
      if (
        record.lease !== undefined &&
        performance.now() - record.lease.renewedAt >= this.#turnLeaseMs * HEARTBEAT_FRACTION &&
        typeof threadId === "string" &&
        threadId !== ""
      )
        await this.#assertLeaseHeld(normalizeThreadId(threadId), record);
      // A call of a run that stored no checkpoint yet (a resume at the head, durability `exit`)
      // reads the archive as a fresh process would: what this saver knew of it came from an earlier
      // run, and another process may have archived since (before this run's head read, in a saver
      // that marks no checkpoint, or after it, its lease claim then finding the head moved). A
      // run's checkpoint reads the mark again under the thread's lock (`#archiveMarkCommitted`).
      if (record.first === undefined && typeof threadId === "string" && threadId !== "") this.#archiveMayHold(normalizeThreadId(threadId));
    } catch (error) {
      throw connectionLostDuring("turnCall", error);
    }
  }

  /**
   * Before a model or tool call of a run that stored its checkpoints under the turn lease: when the
   * lease may have lapsed since this process last renewed it (a third of `turnLeaseMs` or more
   * ago: between calls only checkpoints renew it, so a slow hook of the caller's own, outside any
   * call, lets it lapse), renews it, and refuses the call when another turn took the thread
   * meanwhile (`lease-lost`) or the thread was deleted (`ThreadwiseThreadDeletedError`). Was: the
   * call ran (a model paid for, a tool's side effect done) and only the run's next checkpoint was
   * refused. Within a third of the lease nothing is read: no other turn can have taken it.
   * @throws ThreadwiseConcurrentTurnError (`lease-lost`), ThreadwiseThreadDeletedError.
   */
  async #assertLeaseHeld(threadId: string, record: RunRecord): Promise<void> {
    // The run's checkpoint in flight (LangGraph's default durability starts the next step before
    // the previous checkpoint is stored) moves the head and renews the lease: it decides first.
    if (record.putting.size > 0) {
      await Promise.allSettled([...record.putting]);
      if (record.refused !== undefined) throw record.refused;
    }
    const lease = record.lease;
    if (lease === undefined) return;
    const sent = performance.now();
    if (sent - lease.renewedAt < this.#turnLeaseMs * HEARTBEAT_FRACTION) return;
    const { checkpointId } = lease;
    if (await this.registry.renewLease(threadId, checkpointId, this.#turnLeaseMs)) {
      lease.renewedAt = Math.max(lease.renewedAt, sent);
      return;
    }
    const head = await this.registry.head(threadId);
    if (head?.checkpointId === checkpointId) return;
    if (head === undefined) {
      const tombstone = await this.registry.tombstone(threadId);
      if (tombstone) throw new ThreadwiseThreadDeletedError(threadId, tombstone.deletedAt);
    }
    throw new ThreadwiseConcurrentTurnError(threadId, "lease-lost", {
      parentId: checkpointId,
      headId: head?.checkpointId,
      storedCheckpointId: checkpointId,
    });
  }

  /**
   * A stored root checkpoint of the thread as a branch point: its {@link ARCHIVE_MARK_METADATA_KEY}
   * and its hot part's message ids. `undefined` when the checkpoint is not found or was stored
   * without a mark (before the key existed).
   */
  async #branchPoint(threadId: string, checkpointId: string): Promise<BranchPoint | undefined> {
    const tuple = await this.inner.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } });
    const mark = markIn(tuple?.metadata);
    if (!tuple || !mark) return undefined;
    return { mark, hot: ((tuple.checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? []).map((m) => m.id) };
  }

  /**
   * Refuses a run (a turn, a replay, a fork, an `updateState`) that starts from a checkpoint the
   * caller named (`configurable.checkpoint_id`, `chosen`; `parentId`: the checkpoint its first put
   * follows) when the thread (root namespace) holds no checkpoint of that id: LangGraph then runs
   * from an empty state (its `getTuple` finds nothing and it starts as on a new thread), and that
   * checkpoint became the thread's head, so `getState` showed only the new turn. Called by the
   * run's first put, before the run's first node: `turnAdmission` rethrows the refusal before any
   * model call or tool run, and nothing is stored. A thread with no checkpoint at all is refused
   * too (nothing to branch from). One read of the named checkpoint per run start from a chosen one.
   * @throws ThreadwiseConfigError naming `configurable.checkpoint_id`.
   */
  async #refuseUnknownStart(threadId: string, parentId: string | undefined, chosen: unknown, chosenNs: string): Promise<void> {
    const isChosen = typeof chosen === "string" && chosen !== "";
    const named = isChosen ? chosen : parentId;
    if (named === undefined) return;
    // A caller that named a subgraph's namespace (a task's state config from `getState(config,
    // { subgraphs: true })`) named a checkpoint of that namespace: LangGraph's root run drops it
    // (and starts from the config's `checkpoint_map[""]`, or the head), so it is looked up where it was named.
    const ns = isChosen ? chosenNs : "";
    const found = await this.inner.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: named } });
    if (found !== undefined) return;
    throw new ThreadwiseConfigError(
      "configurable.checkpoint_id",
      `thread "${threadId}" has no checkpoint "${named}"${ns === "" ? "" : ` in namespace "${ns}"`} to start from; pass an id from getStateHistory (a fork or replay), or leave checkpoint_id out to continue from the thread's newest checkpoint (nothing was stored)`,
    );
  }

  /**
   * Refuses an `updateState` (`bulkUpdateState`) in a subgraph's namespace (`checkpointNs`, not
   * root) that holds no checkpoint to update: a `checkpoint_id` that namespace does not hold
   * (`parentId`, the id the caller named: LangGraph found nothing there), or a namespace with no
   * checkpoint at all (no task of the thread has it: `parentId` undefined, as LangGraph puts a found
   * checkpoint's own config). LangGraph starts such an update from an empty state and stores it as
   * the namespace's newest checkpoint: in a live task's namespace the subgraph's state became the
   * update alone, and a resume answering its interrupt (a review of a tool call) ran from it, the
   * call under review dropped from both states; in a namespace no task has, a checkpoint no run reads. Nothing is stored. One read per subgraph update.
   * Not refused: the namespace of a task its parent has not run yet ({@link #isPendingTask}), where
   * LangGraph stores the update and the task, when it runs, starts from it.
   * @throws ThreadwiseConfigError naming `configurable.checkpoint_id` (an id given) or `configurable.checkpoint_ns`.
   */
  async #refuseUnknownSubgraphUpdate(threadId: string, checkpointNs: string, parentId: string | undefined): Promise<void> {
    if (parentId !== undefined) {
      const found = await this.inner.getTuple({
        configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: parentId },
      });
      if (found !== undefined) return;
      throw new ThreadwiseConfigError(
        "configurable.checkpoint_id",
        `thread "${threadId}" has no checkpoint "${parentId}" in namespace "${checkpointNs}" to update; pass an id from getStateHistory of that namespace, or leave checkpoint_id out to update its newest checkpoint (nothing was stored)`,
      );
    }
    if (await this.#isPendingTask(threadId, checkpointNs)) return;
    throw new ThreadwiseConfigError(
      "configurable.checkpoint_ns",
      `thread "${threadId}" has no checkpoint in namespace "${checkpointNs}" to update (no task of the thread ran there, and none is next); pass the namespace of a task's state from getState(config, { subgraphs: true }) (nothing was stored)`,
    );
  }

  /**
   * Whether `checkpointNs` (`<node>:<task id>`, or `<parent namespace>|<node>:<task id>`) names a
   * task LangGraph runs next from its parent namespace's newest checkpoint: a node triggered there
   * (a channel newer than the node has seen) whose task id is the one LangGraph derives for it
   * (`uuid5([namespace, step, node, "__pregel_pull", [trigger]], checkpoint id)`, step the
   * checkpoint's `metadata.step` + 1, as `getState(config, { subgraphs: true })` lists it), or a
   * `Send` to the node pending there (`uuid5([namespace, step, node, "__pregel_push", index], checkpoint
   * id)`, index its packet's in `__pregel_tasks`), with no successful write yet. One read of the
   * parent's newest checkpoint.
   */
  async #isPendingTask(threadId: string, checkpointNs: string): Promise<boolean> {
    const cut = checkpointNs.lastIndexOf(CHECKPOINT_NAMESPACE_SEPARATOR);
    const parentNs = cut < 0 ? "" : checkpointNs.slice(0, cut);
    const task = checkpointNs.slice(cut + 1);
    const colon = task.indexOf(":");
    if (colon <= 0) return false;
    const name = task.slice(0, colon);
    const taskId = task.slice(colon + 1);
    const head = await this.inner.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: parentNs } });
    if (head === undefined) return false;
    if (head.pendingWrites?.some(([id, channel]) => id === taskId && channel !== ERROR)) return false;
    const step = (typeof head.metadata?.step === "number" ? head.metadata.step : -1) + 1;
    const namespace = parentNs === "" ? name : `${parentNs}${CHECKPOINT_NAMESPACE_SEPARATOR}${name}`;
    // A `Send` to the node: one task per packet of the checkpoint's `__pregel_tasks`, by its index.
    const sends: unknown = head.checkpoint.channel_values?.[TASKS];
    if (Array.isArray(sends))
      for (let index = 0; index < sends.length; index += 1) {
        if ((sends[index] as { node?: unknown } | undefined)?.node !== name) continue;
        if (uuid5(JSON.stringify([namespace, step.toString(), name, "__pregel_push", index.toString()]), head.checkpoint.id) === taskId)
          return true;
      }
    const seen: ChannelVersions = head.checkpoint.versions_seen?.[name] ?? {};
    for (const [channel, version] of Object.entries(head.checkpoint.channel_versions ?? {})) {
      const before = seen[channel];
      if (before !== undefined && !(version > before)) continue;
      if (uuid5(JSON.stringify([namespace, step.toString(), name, "__pregel_pull", [channel]]), head.checkpoint.id) === taskId) return true;
    }
    return false;
  }

  /**
   * Stores the operation id of `record`'s run, resumed at `checkpointId` with nothing stored yet,
   * under that checkpoint (as its first writes would, {@link WritesOperation.record}), before its
   * first model or tool call ({@link turnCall}): refused `duplicate-operation` when any run stored
   * it, this run having stored nothing. Its first writes and first checkpoint then store no id.
   */
  async #claimOperation(threadId: string, checkpointId: string, operationId: unknown, record: RunRecord): Promise<void> {
    let settled!: () => void;
    record.operationWrite = new Promise<void>((resolve) => {
      settled = resolve;
    });
    try {
      const id = normalizeThreadId(threadId);
      const operation = operationIdOf({ configurable: { [OPERATION_ID_KEY]: operationId } });
      if (operation === undefined) return;
      if (!this.#isReady) await this.ready("turnCall");
      if (this.#options.plaintext) await this.#refuseWriteOnSealedStore(id);
      const target: WritesTarget = {
        checkpointNs: "",
        checkpointId,
        endsTurn: false,
        operation: { operationId: operation, runStartedWith: () => undefined, record: true },
      };
      // Another process's or this one's first writes may have stored it meanwhile: refused then.
      if (record.operationAt !== undefined) return;
      if (await this.#commitCommandWrites(id, target, async () => {}, record)) record.operationAt = checkpointId;
    } catch (thrown) {
      const error = connectionLostDuring("turnCall", thrown);
      record.refused ??= error;
      throw error;
    } finally {
      settled();
    }
  }

  /**
   * Takes the turn lease for `record`'s run, resumed at `checkpointId` with no checkpoint stored yet
   * (see {@link turnCall}). `checkpointId` no longer the head: a run resumed at the head it read
   * (`fromHead`) is refused `stale-parent`, as an input turn that read a moved head is at its first
   * checkpoint (was: it ran its call, e.g. an interrupted tool a second resume had already run, and
   * only its next checkpoint was refused, `lease-lost`); a branch (a checkpoint the caller chose)
   * takes no lease and runs.
   */
  async #claimTurn(threadId: string, checkpointId: string, record: RunRecord, keys: readonly object[], fromHead: boolean): Promise<void> {
    try {
      const id = normalizeThreadId(threadId);
      if (!this.#isReady) await this.ready("turnCall");
      if (!(await this.registry.claimTurn(id, checkpointId, this.#turnLeaseMs))) {
        if (!fromHead) return;
        const head = await this.registry.head(id);
        if (head === undefined || head.checkpointId === checkpointId) return;
        throw new ThreadwiseConcurrentTurnError(id, "stale-parent", { parentId: checkpointId, headId: head.checkpointId });
      }
      // The lease is held at `checkpointId`: renewed while the run's calls run, ended by its
      // next checkpoint, its error or interrupt write, or a failure of its first put.
      record.stored ??= checkpointId;
      this.#heartbeat(id, checkpointId, record);
      this.#watchAbort(id, record, keys);
    } catch (thrown) {
      const error = connectionLostDuring("turnCall", thrown);
      record.refused ??= error;
      throw error;
    }
  }

  /** The record of the run `keys` identify (at least one key), made with `tracked` when this process has none yet. */
  #runRecord(keys: readonly object[], tracked: boolean): RunRecord {
    let record = this.#findRun(keys);
    if (record === undefined) {
      record = { tracked, calls: 0, putting: new Set() };
      for (const key of keys) this.#runs.set(key, record);
    }
    return record;
  }

  /** Records that a task of the root step that runs from the checkpoint `config` names settled ({@link RunRecord.stepsPast}); `owner`: the run's keys in `config`. */
  #stepPast(config: RunnableConfig, owner: RunKeys): void {
    const checkpointId: unknown = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== "string" || String(config.configurable?.checkpoint_ns ?? "") !== "") return;
    const run = this.#findRun(owner);
    if (run) stepsPastOf(run).add(checkpointId);
  }

  #findRun(run: RunKeys): RunRecord | undefined {
    for (const key of runKeys(run)) {
      const record = this.#runs.get(key);
      if (record) return record;
    }
    return undefined;
  }

  /**
   * The checkpoints of `config`'s thread (its namespace when `checkpoint_ns` is given), newest
   * first by store order: the insertion sequence the registry gives each checkpoint as it is
   * stored ({@link ThreadRegistry.storeOrder}), not the checkpoint id, a time-based UUID from its
   * writer's clock, which would list a writer whose clock is behind out of place (spec R38). Fork
   * siblings in the order they were stored. `before`: those stored before the checkpoint it names
   * (by id, as LangGraph's savers, when it names another thread's or one the thread does not hold);
   * `filter`: matched by the wrapped saver, as before; `limit`: at most that many (0 or less: none).
   * With `limit` and no `filter`, only the checkpoints listed are read (the sequence's index, then
   * each checkpoint); otherwise the thread's checkpoints (those `filter` matches) are read, then
   * ordered. Without a thread id: the wrapped saver's listing, by id.
   * @throws ThreadwiseThreadIdError (a malformed thread id); ThreadwiseSealedStoreError (a plaintext saver listing a sealed checkpoint).
   */
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    try {
      yield* this.#list(config, options);
    } catch (error) {
      throw connectionLostDuring("list", error);
    }
  }

  /** {@link list}'s listing. */
  async *#list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const configurable = config.configurable;
    if (configurable?.thread_id === undefined) {
      if (!this.#isReady) await this.ready("list");
      for await (const tuple of this.inner.list(config, options)) yield this.#refuseSealed(tuple) as CheckpointTuple;
      return;
    }
    const threadId = threadIdOf(config);
    if (!this.#isReady) await this.ready("list");
    const { before, limit, filter } = options ?? {};
    if (limit !== undefined && limit <= 0) return;
    const ns = configurable.checkpoint_ns;
    const query: StoreOrderQuery = { checkpointNs: ns === undefined || ns === null ? undefined : String(ns) };
    const named: unknown = before?.configurable?.checkpoint_id;
    if (typeof named === "string") {
      const otherThread =
        before?.configurable?.thread_id !== undefined && String(before.configurable.thread_id) !== String(configurable.thread_id);
      const namedNs: unknown = before?.configurable?.checkpoint_ns;
      if (otherThread) query.idBelow = named;
      else query.before = { checkpointId: named, checkpointNs: typeof namedNs === "string" ? namedNs : undefined };
    }
    const filtered = filter !== undefined && Object.values(filter).some((value) => value !== undefined);
    if (limit === undefined || filtered || configurable.checkpoint_id !== undefined) {
      // The whole listing (what `filter` matches) is read, as the wrapped saver reads it, then put in store order.
      const order = await this.registry.storeOrder(threadId, query);
      const tuples = new Map<string, CheckpointTuple>();
      for await (const tuple of this.inner.list(config, filtered ? { filter } : undefined))
        tuples.set(storedKey(tuple.config.configurable?.checkpoint_ns, tuple.config.configurable?.checkpoint_id), tuple);
      let listed = 0;
      for (const entry of order) {
        const tuple = tuples.get(storedKey(entry.checkpointNs, entry.checkpointId));
        if (tuple === undefined) continue;
        yield this.#refuseSealed(tuple) as CheckpointTuple;
        listed += 1;
        if (limit !== undefined && listed >= limit) return;
      }
      return;
    }
    // `limit` alone: the sequence's index names the checkpoints to read, and only those are read.
    let listed = 0;
    while (listed < limit) {
      const asked = limit - listed;
      const page = await this.registry.storeOrder(threadId, { ...query, limit: asked });
      for (const entry of page) {
        const tuple = await this.inner.getTuple({
          configurable: { thread_id: configurable.thread_id, checkpoint_ns: entry.checkpointNs, checkpoint_id: entry.checkpointId },
        });
        // A numbered checkpoint the wrapped saver no longer holds is skipped; the next page fills its place.
        if (tuple === undefined) continue;
        yield this.#refuseSealed(tuple) as CheckpointTuple;
        listed += 1;
      }
      if (page.length < asked) return;
      query.after = page.at(-1);
    }
  }

  /**
   * A plaintext saver on a store holding sealed records writes nothing, new threads included.
   * @throws ThreadwiseSealedStoreError (`scope: "store"`)
   */
  async #refuseWriteOnSealedStore(threadId: string): Promise<void> {
    // Callers call it only for a plaintext saver (no await per write otherwise); checked again here.
    if (!this.#options.plaintext) return;
    this.#sealedStore ??= this.registry.holdsSealedRecords();
    if (await this.#sealedStore) throw new ThreadwiseSealedStoreError(threadId, "store");
  }

  /**
   * A checkpoint read that records archived rows (its mark's stamp > 0: another saver or process
   * archived the thread, e.g. between two turns of this one): the thread's archive is not known
   * empty any more ({@link #archiveEmpty}). LangGraph reads the head this way at the start of every run.
   */
  #archiveNewsIn(threadId: string, tuple: CheckpointTuple | undefined): CheckpointTuple | undefined {
    if (tuple !== undefined && (markIn(tuple.metadata)?.stamp ?? 0) > 0) this.#archiveMayHold(threadId);
    return tuple;
  }

  #refuseSealed(tuple: CheckpointTuple | undefined): CheckpointTuple | undefined {
    if (tuple && this.#options.plaintext && holdsSealed(tuple))
      throw new ThreadwiseSealedStoreError(String(tuple.config.configurable?.thread_id ?? ""));
    return tuple;
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    refuseSealedInput(checkpoint);
    let settle!: (outcome: unknown) => void;
    const settled = new Promise<unknown>((resolve) => {
      settle = resolve;
    });
    // Registered before the first await, so the run's admission can be awaited as soon as the put is sent.
    const run = this.#runOf(config, settled, metadata?.step);
    if (run?.first === settled) run.firstId = checkpoint.id;
    run?.putting.add(settled);
    // The step that ran from the parent is done (see `#watchStepTimeout`).
    const parentId: unknown = config.configurable?.checkpoint_id;
    if (run && typeof parentId === "string") stepsPastOf(run).add(parentId);
    // From the put's first step (a rewrite prepares the archive's emptying before its write is in flight): archive reads wait for it.
    // The thread id normalized once (each call of it is inlined where this compiles).
    const threadKey = config.configurable?.thread_id === undefined ? undefined : threadIdOf(config);
    const threadPuts = this.#puts.get(threadKey ?? "") ?? new Set<Promise<unknown>>();
    if (threadKey !== undefined) this.#puts.set(threadKey, threadPuts);
    threadPuts.add(settled);
    try {
      const ending = threadKey === undefined || this.#endingTurns.size === 0 ? undefined : this.#endingTurns.get(threadKey);
      if (ending !== undefined && ending.run !== run) await ending.done;
      const result = await this.#put(config, checkpoint, metadata, newVersions, run);
      settle(undefined);
      // A put of a run stopped by its caller or its step timeout meanwhile: the lease it may have taken ends too.
      if (run?.abort?.fired || (run !== undefined && run.timedOutAt === checkpoint.id)) await this.#endAbortedTurn(threadIdOf(config), run);
      return result;
    } catch (thrown) {
      // A lost connection is reported typed, and as the run's refusal too (its next call rethrows that).
      const error = connectionLostDuring("put", thrown);
      if (run && run.refused === undefined) run.refused = error;
      settle(error);
      await this.#endFailedTurn(config, run);
      throw error;
    } finally {
      run?.putting.delete(settled);
      threadPuts.delete(settled);
      if (threadPuts.size === 0 && threadKey !== undefined && this.#puts.get(threadKey) === threadPuts) this.#puts.delete(threadKey);
    }
  }

  /**
   * Ends the turn of `run` on `threadId` when its caller stops it: an `AbortSignal` passed to
   * `invoke`/`stream`, or a client leaving a `stream` early (LangGraph aborts the run's signal).
   * LangGraph's runner then rejects with `Abort` and stores no error write, so nothing else ends
   * the turn: the lease was left to lapse, and the thread's next turn was refused
   * `turn-in-progress` for up to `turnLeaseMs` (was: 10 s after every stop button). The run's
   * signal is the one LangGraph makes for each run (its `config.signal`), so a listener is added
   * once per run, never to a signal the caller shares between runs.
   */
  #watchAbort(threadId: string, run: RunRecord, keys: readonly unknown[]): void {
    if (run.abort !== undefined || this.#turnLeaseMs === 0) return;
    const signal = keys.find((key): key is AbortSignal => key instanceof AbortSignal);
    if (signal === undefined) return;
    const abort = { fired: false };
    run.abort = abort;
    const onAbort = () => {
      abort.fired = true;
      void this.#endAbortedTurn(threadId, run);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }

  /**
   * Ends the turn of `run` on `threadId` when LangGraph's step timeout (`graph.stepTimeout`) stops
   * it: the runner rejects the run with `Abort` when the timeout signal of the step that runs from
   * `checkpointId` fires before any task of that step settled, and stores no error write, so the
   * lease was left to lapse and the thread's next turn was refused `turn-in-progress` for up to
   * `turnLeaseMs`. Once a task of the step settled (its writes came) or the run stored the
   * checkpoint after it ({@link RunRecord.stepsPast}), the runner no longer rejects for it: the
   * step's other tasks run to their end (a LangChain runnable fails with the timeout, an error
   * write that ends the turn; a task that ignores the signal finishes and the run goes on), so a
   * timeout firing then ends nothing here (each step's signal also fires at its time after the
   * step is done). A task that settles with no write at all is not seen: a timeout after only
   * such tasks settled ends the turn of a run that goes on, whose next checkpoint then takes the
   * lease again (the head's compare-and-set still holds meanwhile). The step's own checkpoint, when
   * its put comes after the timeout (it waits for the previous put), ends its lease once stored. The signal is the one
   * LangGraph makes for each step, seen by the step's model and tool calls ({@link turnCall}).
   */
  #watchStepTimeout(threadId: string, run: RunRecord, signal: AbortSignal, checkpointId: string): void {
    // A run that stores nothing until it ends (durability `exit`) holds no lease while it runs, but
    // its one checkpoint, stored as it stops, would take one (was: held until it lapsed): marked too.
    if (this.#turnLeaseMs === 0) return;
    run.stepSignals ??= new WeakSet();
    if (run.stepSignals.has(signal)) return;
    run.stepSignals.add(signal);
    const onTimeout = () => {
      if (run.stepsPast?.has(checkpointId)) return;
      run.timedOutAt = checkpointId;
      let id: string;
      try {
        id = normalizeThreadId(threadId);
      } catch {
        return;
      }
      void this.#endAbortedTurn(id, run);
    };
    if (signal.aborted) onTimeout();
    else signal.addEventListener("abort", onTimeout, { once: true });
  }

  /**
   * The turn of a run its caller stopped ({@link watchAbort}) ends at the run's newest checkpoint,
   * once the puts it still had in progress are done; only while that checkpoint holds the
   * thread's lease (`endTurn`), so a turn another run started since is left alone. A failed
   * release leaves the lease to lapse.
   */
  async #endAbortedTurn(threadId: string, run: RunRecord): Promise<void> {
    const ending = { run, done: this.#releaseAbortedTurn(threadId, run) };
    this.#endingTurns.set(threadId, ending);
    try {
      await ending.done;
    } finally {
      if (this.#endingTurns.get(threadId) === ending) this.#endingTurns.delete(threadId);
    }
  }

  /** {@link #endAbortedTurn}'s release, once the run's puts in progress are done. */
  async #releaseAbortedTurn(threadId: string, run: RunRecord): Promise<void> {
    await Promise.allSettled([...run.putting]);
    const at = run.stored;
    if (at === undefined) return;
    try {
      await this.#endTurnAt(threadId, at);
    } catch {
      // The lease lapses at most `turnLeaseMs` after the run's last checkpoint.
    }
  }

  /**
   * A put of a run that already stored a checkpoint failed (a later step refused, e.g.
   * `archived-fork`, or a storage error): the run ends with that error, and LangGraph sends its
   * error write to the checkpoint that was not stored, where it is refused too, so no write ends
   * the turn. The lease the run holds at its last checkpoint ends here, before the error reaches
   * the caller (was: held until it lapsed, up to `turnLeaseMs`). Only while that checkpoint is still
   * the head: a run that lost the thread (`lease-lost`) leaves the new holder's lease alone. A
   * failed release leaves the lease to lapse.
   */
  async #endFailedTurn(config: RunnableConfig, run: RunRecord | undefined): Promise<void> {
    const parentId = config.configurable?.checkpoint_id;
    if (run?.stored === undefined || parentId !== run.stored) return;
    try {
      await this.#endTurnAt(threadIdOf(config), parentId);
    } catch {
      // The lease lapses at most `turnLeaseMs` after the run's last checkpoint; the put's own error is the one to report.
    }
  }

  /**
   * Ends the turn lease a run of the thread holds at the checkpoint `config` names
   * (`configurable.thread_id` and `checkpoint_id`), for a run that ended without telling the saver
   * (spec R38): LangGraph's static breakpoints (`interruptBefore` / `interruptAfter` given with a
   * run, LangGraph Studio's breakpoints, the client-side tool pattern) and a drain the saver did
   * not see (`RunControl.requestDrain()` outside a model or tool call) stop a run after storing a
   * checkpoint with tasks left, and store no write, so its lease holds until it lapses
   * (`turnLeaseMs`) and the thread's `updateState`, resume and next turn are refused
   * `turn-in-progress` until then. {@link ThreadwiseTurnEndHandler} (`turnEndCallbacks`) calls it
   * for every static breakpoint of the runs it is passed to; call it yourself with the checkpoint
   * the run stopped at (`(await agent.graph.getState(config)).config`) once the run returned.
   * Ends the lease only while that checkpoint is the thread's head and a lease is held there
   * (another run's turn, at a later head, is left alone); a checkpoint this process is still
   * storing is stored without one. Call it only for a run that has ended: a run still going on
   * from that checkpoint loses its protection against a concurrent turn.
   * @throws ThreadwiseConfigError naming `configurable.checkpoint_id` when it is missing;
   *   ThreadwiseThreadIdError; the store's errors.
   */
  async endTurn(config: RunnableConfig): Promise<void> {
    const threadId = threadIdOf(config);
    const checkpointId: unknown = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== "string" || checkpointId === "")
      throw new ThreadwiseConfigError(
        "configurable.checkpoint_id",
        "expected the id of the checkpoint the run stopped at (the lease is ended only there), e.g. (await agent.graph.getState(config)).config",
      );
    if (!this.#isReady) await this.ready("endTurn");
    const key = writeKey(threadId, "", checkpointId);
    // LangGraph reports a static breakpoint before it sends the put of its checkpoint: that put,
    // when it comes, stores it without a lease; a put of it in progress is waited for.
    if (!this.#committed.has(key)) setBounded(this.#turnsEnded, key, true, REMEMBERED_KEYS);
    await this.#settled(threadId);
    if (this.#committed.has(key)) this.#turnsEnded.delete(key);
    // Stored (here, or by another process or long ago): its lease, if still held at the head, ends.
    await this.#endTurnAt(threadId, checkpointId);
  }

  /**
   * Ends the turn lease held at `checkpointId` (a run stopped or failed after storing it): stops
   * the heartbeat renewing it there, then clears the lease if that checkpoint is still the head
   * ({@link ThreadRegistry.endTurn}). The callers leave a failed release to lapse.
   */
  async #endTurnAt(threadId: string, checkpointId: string): Promise<void> {
    if (this.#heartbeats.get(threadId)?.checkpointId === checkpointId) this.#heartbeat(threadId, undefined);
    await this.registry.endTurn(threadId, checkpointId);
  }

  #runOf(config: RunnableConfig, settled: Promise<unknown>, step: unknown): RunRecord | undefined {
    const keys = runKeys([(config as { control?: object }).control, config.signal]);
    if (keys.length === 0 || String(config.configurable?.checkpoint_ns ?? "") !== "") return undefined;
    let run = this.#findRun(keys);
    if (!run) run = { tracked: false, calls: 0, putting: new Set() };
    for (const key of keys) this.#runs.set(key, run);
    if (run.first === undefined) {
      // LangGraph numbers a run's steps from its first checkpoint's (an input, a fork, or the first
      // step of a resumed run) and stops it once a stored step passes that + recursionLimit + 1.
      const limit = config.recursionLimit;
      if (typeof step === "number" && Number.isInteger(step) && typeof limit === "number" && Number.isInteger(limit))
        run.lastStep = step + limit + 1;
    }
    run.first ??= settled;
    return run;
  }

  /** What {@link #put} waits for before it starts, in this order; only called when one of them applies. */
  async #putWaits(threadId: string, run: RunRecord | undefined): Promise<void> {
    if (!this.#isReady) await this.ready("put");
    if (this.#options.plaintext) await this.#refuseWriteOnSealedStore(threadId);
    // A run whose `Command` wrote messages refused against the archive (`#checkCommandUpdate`)
    // stores nothing: LangGraph applied them to its channels before its first step.
    if (run?.commandCheck !== undefined) {
      await run.commandCheck;
      if (run.refused !== undefined) throw run.refused;
    }
    // A run's first checkpoint waits for the checks of its operation id in progress (its `Command`
    // writes', its first writes', its claim before its first call): one refused refuses it.
    if (run !== undefined && run.stored === undefined && (run.operationCheck !== undefined || run.operationWrite !== undefined)) {
      await run.operationCheck;
      await run.operationWrite;
      if (run.refused !== undefined) throw run.refused;
    }
  }

  /**
   * {@link #put}'s checks of a branch, a start from a chosen checkpoint or a rewrite, before its
   * transaction: returns the checkpoint branched from, with where the archive stood then (stored,
   * so read before the transaction), when `checkReach`.
   */
  async #branchChecks(
    config: RunnableConfig,
    threadId: string,
    commit: CheckpointCommit,
    chosen: unknown,
    checkStart: boolean,
    checkReach: boolean,
    rewrite: boolean,
  ): Promise<BranchPoint | undefined> {
    if (checkStart) await this.#refuseUnknownStart(threadId, commit.parentId, chosen, chosenNamespace(config));
    const from = checkReach && commit.parentId !== undefined ? await this.#branchPoint(threadId, commit.parentId) : undefined;
    // A rewrite empties the archive, keeping digests of what it held: decoded here, outside the
    // thread's lock; `clear` under the lock reuses them only if no archived row changed since.
    if (rewrite) await this.#archive.prepareClear(threadId);
    return from;
  }

  /** `run`: the put's run record ({@link #runOf}, `undefined` outside the root namespace or without run keys). */
  async #put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    run: RunRecord | undefined,
  ) {
    const threadId = threadIdOf(config);
    // A stamp 0 this put reads is kept only if no archive news came since it began (`#archiveMarkCommitted`).
    const archiveNews = this.#archiveNews;
    let committedMark: ArchiveMark | undefined;
    // What a put may wait for before it starts (see `#putWaits`), tested here so that a step's
    // usual put, which waits for none of it, compiles without those awaits (issue 27: the code
    // TurboFan compiles for every step's path).
    if (
      !this.#isReady ||
      this.#options.plaintext ||
      run?.commandCheck !== undefined ||
      (run !== undefined && run.stored === undefined && (run.operationCheck !== undefined || run.operationWrite !== undefined))
    )
      await this.#putWaits(threadId, run);
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const key = writeKey(threadId, checkpointNs, checkpoint.id);
    const source = metadata?.source;
    const startsRun = source === "input" || source === "fork" || source === "update";
    const parentId = config.configurable?.checkpoint_id || undefined;
    if (checkpointNs === "" && source === "input") refuseInheritedStart(threadId, config, parentId);
    // LangGraph copies the caller's configurable into the run's metadata: a `checkpoint_id` there
    // means the caller chose the checkpoint this run starts from (a fork or a replay).
    const chosen = (config.metadata as { checkpoint_id?: unknown } | undefined)?.checkpoint_id;
    // The first step of a run resumed (`Command({ resume })`, `invoke(null)`) from a checkpoint the
    // caller chose that was not the head, so no turn lease was claimed for it (`turnCall`): an
    // interrupt answered again from where it was raised. It starts a run on a branch, as a fork's
    // input does (was: refused `lease-lost` as a step whose parent is no longer the head).
    const resumesBranch =
      checkpointNs === "" &&
      !startsRun &&
      typeof chosen === "string" &&
      chosen === parentId &&
      run !== undefined &&
      run.stored === undefined;
    // The first checkpoint of a run that took no turn lease before it (a run under durability
    // `exit`, or resumed at the head without `turnAdmission`, whose claim takes it: `run.stored`)
    // starts a run too: refused `turn-in-progress` while another turn holds the lease (was: stored
    // as a step of that turn, its parent being the head; the running turn then failed `lease-lost`).
    // So does a run `turnAdmission` tracks that made no claim: resumed at a head whose tasks all
    // have their writes (a writer stopped after a tool's result write), its first put comes before
    // any call (was: stored as a step of the stopped writer's turn, inside its lease, and the
    // resume's model call ran; on PostgreSQL at once, elsewhere when `turnAdmission` saw the run first).
    const unclaimedStart =
      checkpointNs === "" &&
      !startsRun &&
      run !== undefined &&
      run.claim === undefined &&
      run.firstId === checkpoint.id &&
      run.stored === undefined;
    const turnEnded = this.#turnsEnded.delete(key);
    const commit: CheckpointCommit = {
      checkpointNs,
      parentId,
      checkpointId: checkpoint.id,
      startsRun: startsRun || resumesBranch || unclaimedStart,
      branch: source === "fork" || source === "update" || Boolean(chosen),
      // The run's last step (the recursion limit) ends the turn even with tasks left: LangGraph
      // throws GraphRecursionError after storing it and writes nothing more (was: the thread held
      // until the lease lapsed, up to `turnLeaseMs`).
      // An `updateState` is no run, even when it leaves tasks to run (an AI message with tool calls
      // written as the model node): nobody renews a lease taken for it, so the next turn, or the
      // `invoke(null)` that runs those tasks, was refused `turn-in-progress` until it lapsed.
      // Nor is any checkpoint stored by no run (no run control or signal in its config: an input
      // written as `__input__`, a checkpoint copied as `__copy__`, by `updateState` or
      // `bulkUpdateState`): it leaves tasks to run (was: its lease refused the next update and the
      // `invoke(null)` that runs them).
      // A drained run's last checkpoint (see `RunRecord.drainFrom`), and one whose turn `endTurn`
      // ended before it was stored (a static breakpoint's, reported before its put), end the turn too.
      leavesTurnOpen:
        this.#turnLeaseMs > 0 &&
        run !== undefined &&
        source !== "update" &&
        hasPendingTasks(checkpoint) &&
        !isLastStep(run, metadata) &&
        !(run.drainFrom !== undefined && run.drainFrom === parentId) &&
        !turnEnded,
      turnLeaseMs: this.#turnLeaseMs,
      // A run's first checkpoint records its operation id: a run start's, and a resumed run's
      // (`Command({ resume })`, `invoke(null)`), whose first checkpoint follows its first step.
      // Not when the run's first writes stored it (a resumed run's first step, `RunRecord.operationAt`).
      operationId:
        run?.operationAt === undefined && (startsRun || (run !== undefined && run.firstId === checkpoint.id))
          ? operationIdOf(config)
          : undefined,
      archiveTenantId: this.#archive.tenantId,
    };
    // A step whose parent got a write rewriting `messages` (REMOVE_ALL_MESSAGES, then the kept
    // messages: a rewrite by input, by updateState, LangChain's summarizationMiddleware,
    // persistTrim): the thread is now what that write kept, so the archive empties with this checkpoint.
    const rewrite = checkpointNs === "" && commit.parentId !== undefined && this.#rewrites.has(writeKey(threadId, "", commit.parentId));
    const checkReach = checkpointNs === "" && (commit.branch || source === "update");
    // A fork's input too: its input checkpoint is a branch put whose hot part holds the input not yet.
    const checkInput = checkpointNs === "" && source === "input";
    // What the input check looks up in the archive is read with the thread's lock where the registry can.
    const input = checkInput ? inputCheckOf(checkpoint) : undefined;
    if (input) commit.archiveLookupIds = input.lookupIds;
    // An update of a subgraph namespace holding no checkpoint to update: refused before anything is stored.
    if (checkpointNs !== "" && source === "update") await this.#refuseUnknownSubgraphUpdate(threadId, checkpointNs, parentId);
    const checkStart = checkpointNs === "" && commit.startsRun && commit.branch;
    // The checkpoint branched from, with where the archive stood then (`#branchChecks`; none on a step's usual put).
    const from =
      checkStart || checkReach || rewrite
        ? await this.#branchChecks(config, threadId, commit, chosen, checkStart, checkReach, rewrite)
        : undefined;
    // No await from here to `#inFlight.set`: a write deferred meanwhile would miss this put.
    const deferred = this.#deferred.get(key) ?? [];
    if (checkpointNs !== "" && parentId === undefined) this.#dropUnstoredDeferred(threadId, checkpointNs, checkpoint.id);
    // The run's `Command` writes held until its first checkpoint: stored in its transaction, or not at all.
    // Written on the checkpoint it follows (or on itself: durability `exit` sends them as the run
    // ends); any other (a `Command` on a new thread names a checkpoint never stored) is dropped,
    // as LangGraph applied them to this one's channels: no write of a checkpoint not stored.
    const held = run !== undefined && checkpointNs === "" && run.firstId === checkpoint.id ? run.held : undefined;
    if (run !== undefined && held !== undefined) run.held = undefined;
    const commandWrites = held !== undefined && (held.at === commit.parentId || held.at === checkpoint.id) ? held.writes : undefined;
    // Every root checkpoint records where the archive stands as it commits (after a rewrite's
    // clearing, and after the checks: the rows archived since the branch's parent are its own);
    // without the archive, only on a thread that has one (see `ThreadwiseSaverOptions.archive`).
    const putMarked = (mark: ArchiveMark | undefined) => {
      if (checkpointNs === "") committedMark = mark;
      const marked =
        mark && (mark.stamp > 0 || this.#archiveOn || ARCHIVE_WRITERS.has(this))
          ? { ...metadata, [ARCHIVE_MARK_METADATA_KEY]: mark }
          : metadata;
      return this.inner.put(config, checkpoint, marked, newVersions);
    };
    const write = async (locked: CommitLocked) => {
      // Inside the registry's transaction, which an archive write of the thread waits for (the
      // same lock): no archive write can slip in between this check and the checkpoint.
      if (checkReach) await this.#refuseArchivedReach(threadId, checkpoint, commit.branch, from, rewrite);
      const inputRefused = checkInput ? this.#refuseInput(threadId, input, locked) : undefined;
      if (inputRefused) await inputRefused;
      if (rewrite) {
        const first = ((checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? [])[0]?.id;
        await this.#archive.clear(threadId, typeof first === "string" ? first : "");
      }
      // The checks only read, so the mark read with the lock holds unless this commit cleared the archive.
      const mark =
        !rewrite && locked.archiveMark ? locked.archiveMark : checkpointNs === "" ? await this.#archive.mark(threadId) : undefined;
      const result = await putMarked(mark);
      // Writes that arrived before their checkpoint commit with it, in the same transaction.
      for (const commandWrite of commandWrites ?? []) await commandWrite();
      for (const early of deferred) await early.run();
      return result;
    };
    // An early write recording an error or an interrupt ends the turn this checkpoint stores with
    // it. Decided before the call: a registry may move the head as it takes the lock, before `write`.
    if (deferred.some((early) => early.endsTurn)) commit.leavesTurnOpen = false;
    const stored = this.registry.commitCheckpoint(threadId, commit, (locked) => {
      if (
        checkReach ||
        rewrite ||
        deferred.length > 0 ||
        commandWrites !== undefined ||
        (checkpointNs === "" && locked.archiveMark === undefined)
      )
        return write(locked);
      // A step's usual checkpoint (no branch, rewrite or early write; the mark read with the lock):
      // the input check, synchronous unless it must read the archive, then the wrapped saver's put,
      // without an async function around them (its promise and awaits are promises of every step).
      // A refusal thrown here rejects the registry's transaction as one thrown in `write` does.
      const inputRefused = checkInput ? this.#refuseInput(threadId, input, locked) : undefined;
      return inputRefused ? inputRefused.then(() => putMarked(locked.archiveMark)) : putMarked(locked.archiveMark);
    });
    this.#inFlight.set(key, stored);
    try {
      const result = await stored;
      this.#remember(this.#committed, key);
      if (committedMark !== undefined) this.#archiveMarkCommitted(threadId, committedMark, archiveNews);
      for (const write of deferred) write.resolve();
      if (checkpointNs === "") {
        if (run) {
          run.stored = checkpoint.id;
          if (!commit.leavesTurnOpen || this.#turnLeaseMs === 0) run.lease = undefined;
          else if (run.lease === undefined) run.lease = { checkpointId: checkpoint.id, renewedAt: performance.now() };
          else {
            run.lease.checkpointId = checkpoint.id;
            run.lease.renewedAt = performance.now();
          }
          this.#watchAbort(threadId, run, [config.signal]);
        }
        this.#heartbeat(threadId, commit.leavesTurnOpen ? checkpoint.id : undefined, run);
      }
      return result;
    } catch (thrown) {
      // Typed here, so the writes waiting for this checkpoint fail with the same error the put does.
      const error = connectionLostDuring("put", thrown);
      setBounded(this.#refused, key, error, REMEMBERED_KEYS);
      for (const write of deferred) write.reject(error);
      this.#dropLaterDeferred(threadId, checkpointNs, checkpoint.id, error, run);
      throw error;
    } finally {
      this.#deferred.delete(key);
      this.#inFlight.delete(key);
    }
  }

  /**
   * Keeps the lease of the turn this process runs on `threadId` (head `checkpointId`) alive while
   * its model or tools run: renews it every third of the lease until the turn stores a checkpoint
   * without tasks, an error or an interrupt (`checkpointId` undefined), or the head moves on. A
   * run whose calls `turnAdmission` reports (`run.tracked`) is renewed only while one of its model
   * or tool calls is in progress: LangGraph tells the saver nothing when a run fails outside a
   * node (a reducer error, the recursion limit), so a heartbeat between calls could keep a dead
   * run's thread for {@link HEARTBEAT_MAX_SILENCE_MS}. One timer serves every turn of the saver
   * (was: a `setInterval` made and cleared per turn), so a turn's first renewal comes at most a
   * third of the lease after it opens, as before, and the next ones every third of the lease.
   */
  #heartbeat(threadId: string, checkpointId: string | undefined, run?: RunRecord): void {
    if (checkpointId === undefined) {
      this.#heartbeats.delete(threadId);
      return;
    }
    const current = this.#heartbeats.get(threadId);
    if (current) {
      current.checkpointId = checkpointId;
      current.lastSeen = performance.now();
      current.run = run;
      return;
    }
    this.#heartbeats.set(threadId, { checkpointId, lastSeen: performance.now(), run });
    if (this.#beatTimer === undefined) {
      this.#beatTimer = setInterval(() => this.#beat(), Math.max(20, Math.floor(this.#turnLeaseMs * HEARTBEAT_FRACTION)));
      // A heartbeat never keeps the process alive on its own.
      this.#beatTimer.unref();
    }
  }

  /** One beat of {@link #heartbeat}: renews the lease of every turn in progress; stops the timer once no turn is. */
  #beat(): void {
    if (this.#heartbeats.size === 0) {
      clearInterval(this.#beatTimer);
      this.#beatTimer = undefined;
      return;
    }
    const now = performance.now();
    for (const [threadId, beat] of this.#heartbeats) {
      if (now - beat.lastSeen > HEARTBEAT_MAX_SILENCE_MS) {
        this.#heartbeats.delete(threadId);
        continue;
      }
      if (beat.run?.tracked && beat.run.calls === 0) continue;
      this.registry.renewLease(threadId, beat.checkpointId, this.#turnLeaseMs).then(
        (renewed) => {
          if (renewed && beat.run?.lease?.checkpointId === beat.checkpointId)
            beat.run.lease.renewedAt = Math.max(beat.run.lease.renewedAt, now);
          else if (!renewed && this.#heartbeats.get(threadId) === beat) this.#heartbeats.delete(threadId);
        },
        // A failed renewal (database unreachable) is retried at the next beat; the lease may lapse meanwhile.
        () => undefined,
      );
    }
  }

  /**
   * Stores pending writes in one transaction with the tombstone check (spec R24). In LangGraph's
   * default (`async`) durability a task's writes can be sent before the put of their checkpoint:
   * such writes wait in this process and commit in that put's transaction; if the put is refused
   * (or never comes because an earlier put of the run failed) they are refused with it. So no
   * write is ever stored for a checkpoint that is not (no orphans).
   *
   * A message written to `messages` without an id (a tool's `ToolMessage`, most often) gets one
   * here, on the message itself, as LangGraph's `messagesStateReducer` would give it when the step's
   * writes are applied: stored without one, every read that applies the write (`getState` of a
   * checkpoint whose next put failed or whose step was interrupted) made it a new random id, so an
   * id read there named no message (`RemoveMessage`, an edit by id).
   */
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    // Not `async` (each wrapper is promises of every step's writes): a synchronous throw is returned rejected.
    try {
      return this.#putWrites(config, writes, taskId, taskPath);
    } catch (error) {
      return Promise.reject(connectionLostDuring("putWrites", error));
    }
  }

  /** {@link putWrites} up to its first await. */
  #putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const owner: RunKeys = [(config as { control?: object }).control, config.signal];
    // A task of the step settled, before any await: its timeout stops the run no more (`#watchStepTimeout`).
    if (taskId !== NULL_TASK_ID) this.#stepPast(config, owner);
    const threadId = threadIdOf(config);
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const checkpointId = String(config.configurable?.checkpoint_id ?? "");
    const key = writeKey(threadId, checkpointNs, checkpointId);
    // Before any await, so the step's own reducer (run after this call) keeps the same ids.
    for (const [channel, value] of writes) if (channel === "messages") stampMessageIds(value);
    // Before any await: the put of the checkpoint that follows may be sent meanwhile.
    if (checkpointNs === "" && writes.some(([channel, value]) => channel === "messages" && rewritesMessages(value)))
      this.#remember(this.#rewrites, key);
    // A run's `Command` (update, goto, resume) writes of no task on the checkpoint it starts from,
    // before its first checkpoint. Its run record is made before any await: its admission waits
    // for what is recorded there.
    // Under durability `exit` any write a run of a graph without `turnAdmission` sends before its one checkpoint is held with them:
    // LangGraph anchors a `DeltaChannel`'s writes of the whole run on the checkpoint it started
    // from, sent just before that checkpoint (was: stored there even when the checkpoint was
    // refused, so `getState` there, a fork from there and the running turn's state applied them).
    const commandKeys =
      checkpointNs === "" && (taskId === NULL_TASK_ID || (exitDurability(config) && untrackedBeforeFirstPut(this.#findRun(owner))))
        ? runKeys(owner)
        : undefined;
    const commandRun = commandKeys?.length ? this.#runRecord(commandKeys, false) : undefined;
    const run = () => this.inner.putWrites(config, writes, taskId, taskPath);
    // Sent before the run's first put: held until the run stores something (`RunRecord.held`),
    // registered before any await, so that put finds them.
    const held = commandRun !== undefined && commandRun.first === undefined && checkpointId !== "";
    // Their operation id's check (below) is waited for by the run's admission: registered now.
    let checked: (() => void) | undefined;
    if (held) {
      commandRun.held ??= { at: checkpointId, writes: [] };
      commandRun.held.writes.push(run);
      if (config.configurable?.[OPERATION_ID_KEY] != null) {
        const before = commandRun.operationCheck;
        commandRun.operationCheck = new Promise<void>((resolve) => {
          checked = resolve;
        }).then(() => before);
      }
    }
    const written = this.#putWritesChecked(
      config,
      writes,
      owner,
      threadId,
      checkpointNs,
      checkpointId,
      key,
      commandKeys,
      commandRun,
      run,
      held,
    );
    return checked === undefined ? written : written.finally(checked);
  }

  /** What {@link #putWritesChecked} waits for before it starts, in this order; only called when one of them applies. */
  async #putWritesWaits(
    config: RunnableConfig,
    threadId: string,
    writes: PendingWrite[],
    commandRun: RunRecord | undefined,
    checkUpdate: boolean,
  ): Promise<void> {
    if (checkUpdate) await this.#checkCommandUpdate(config, threadId, writes, commandRun);
    if (!this.#isReady) await this.ready("putWrites");
    if (this.#options.plaintext) await this.#refuseWriteOnSealedStore(threadId);
  }

  /** {@link putWrites} from its first await: `held`, the writes are a run's `Command` writes held until it stores something. */
  async #putWritesChecked(
    config: RunnableConfig,
    writes: PendingWrite[],
    owner: RunKeys,
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
    key: string,
    commandKeys: object[] | undefined,
    commandRun: RunRecord | undefined,
    run: () => Promise<void>,
    held: boolean,
  ): Promise<void> {
    // A `Command({ update })` turn writes its messages there, not as an input checkpoint: checked
    // against the archive as an input is, and the run's admission waits for the check, so a
    // refused turn calls no model. Was: an archived message edited there was appended at the thread's end.
    const checkUpdate = commandKeys !== undefined && writes.some(([channel]) => channel === "messages");
    // Tested here, so that a step's usual write batch, which waits for none of it, compiles without those awaits (issue 27).
    if (checkUpdate || !this.#isReady || this.#options.plaintext)
      await this.#putWritesWaits(config, threadId, writes, commandRun, checkUpdate).catch((error: unknown) => {
        throw connectionLostDuring("putWrites", error);
      });
    // As the wrapped savers refuse it (was: the writes waited forever for a put of checkpoint "";
    // LangGraph's checkpoint-validation suite).
    if (checkpointId === "")
      throw new ThreadwiseConfigError("configurable.checkpoint_id", "putWrites needs the id of the checkpoint the writes belong to");
    const target: WritesTarget = {
      checkpointNs,
      checkpointId,
      endsTurn: writes.some(([channel]) => channel === ERROR || channel === INTERRUPT),
    };
    // Such writes of a run carrying an operation id are refused under the thread's lock when
    // another run stored that operation (`assertWrites`), as that run's first checkpoint will be:
    // a retried `Command` turn stores nothing (was: refused `duplicate-operation` at its first
    // checkpoint, its writes were left on the head, and `getState` and the next turn applied them).
    const operationId = commandRun === undefined ? undefined : operationIdOf(config);
    if (commandRun !== undefined && operationId !== undefined)
      target.operation = { operationId, runStartedWith: () => commandRun.operationAt ?? commandRun.firstId };
    // Checked now, so a retried operation is refused before its first model or tool call; stored
    // with the run's first checkpoint or first step's writes.
    if (held) return commandRun === undefined ? undefined : this.#checkHeld(threadId, target, commandRun);
    // A run with no record here sent neither a put nor a `Command` write: writes of its first step
    // (a run resumed with `invoke(null)` on a graph without `turnAdmission`, which records its
    // calls). With an operation id, it gets one, so these writes store the id (was: a plain
    // `StateGraph` interrupted again before its first checkpoint stored none, and its retry ran).
    const runRecord =
      commandRun ??
      this.#findRun(owner) ??
      (checkpointNs === "" && operationIdOf(config) !== undefined && runKeys(owner).length > 0
        ? this.#runRecord(runKeys(owner), false)
        : undefined);
    const refusedRun = runRecord?.refused;
    // A run refused before it stored anything (a resumed run refused in `turnCall`) stores nothing:
    // its error write would land on the checkpoint it resumed from and, at the head, end the turn
    // lease of the run it was refused for.
    if (refusedRun !== undefined && runRecord?.first === undefined && checkpointNs === "") throw refusedRun;
    // The first writes of a run resumed at the head (its first step's, an interrupt or error
    // included): they store the run's held `Command` writes, and its operation id, in their
    // transaction (was: a resume interrupted again before its first checkpoint stored no
    // operation id, and its retry ran again).
    let firstWrites: RunRecord | undefined;
    /** Settles {@link RunRecord.operationWrite} once the first attempt to store the id is over (its `operationAt` undone if it failed). */
    let operationSettled: (() => void) | undefined;
    let write = run;
    if (checkpointNs === "" && commandRun === undefined && runRecord !== undefined && runRecord.first === undefined) {
      const commandWrites = runRecord.held?.at === checkpointId ? runRecord.held.writes : undefined;
      runRecord.held = undefined;
      if (commandWrites !== undefined)
        write = async () => {
          for (const commandWrite of commandWrites) await commandWrite();
          await run();
        };
      const ownOperation = runRecord.operationAt === undefined ? operationIdOf(config) : undefined;
      if (ownOperation !== undefined) {
        firstWrites = runRecord;
        runRecord.operationAt = checkpointId;
        runRecord.operationWrite = new Promise<void>((resolve) => {
          operationSettled = resolve;
        });
        // Any run that stored the id is another: this run stored none yet (`operationAt` was unset).
        // Was: `operationAt`, just set to this checkpoint, so a retry resumed from the same
        // checkpoint (an `invoke(null)`, which sends no `Command` write checked before) took the
        // id stored there by the run it retries for its own, and ran again.
        target.operation = { operationId: ownOperation, runStartedWith: () => undefined, record: true };
      }
    }
    try {
      for (;;) {
        const inFlight = this.#inFlight.get(key);
        if (inFlight) await inFlight.catch(() => undefined);
        if (this.#refused.has(key)) throw this.#refused.get(key);
        // A step's writes go to the registry as they are (no promise around them, this is every step's path).
        const committed =
          target.operation === undefined || runRecord === undefined
            ? this.registry.commitWrites(threadId, target, write)
            : this.#commitCommandWrites(threadId, target, write, runRecord);
        let stored: boolean;
        try {
          stored = await committed;
        } catch (error) {
          if (firstWrites !== undefined && firstWrites.operationAt === checkpointId) firstWrites.operationAt = undefined;
          throw connectionLostDuring("putWrites", error);
        }
        if (stored) {
          if (target.endsTurn && checkpointNs === "") this.#heartbeat(threadId, undefined);
          return;
        }
        // Not stored: its operation id is not either (the put it waits for stores it).
        if (firstWrites !== undefined && firstWrites.operationAt === checkpointId) firstWrites.operationAt = undefined;
        operationSettled?.();
        target.operation = target.operation?.record ? undefined : target.operation;
        // A run refused earlier never sends the put this write waits for.
        if (refusedRun !== undefined && !this.#inFlight.has(key) && !this.#committed.has(key)) throw refusedRun;
        // The checkpoint's put started or finished meanwhile: try again once it is done.
        if (this.#inFlight.has(key) || this.#committed.has(key) || this.#refused.has(key)) continue;
        return new Promise<void>((resolve, reject) => {
          const queue = this.#deferred.get(key) ?? [];
          if (queue.length >= MAX_DEFERRED_WRITES)
            return reject(
              new ThreadwiseConfigError("putWrites", `more than ${MAX_DEFERRED_WRITES} writes wait for checkpoint ${checkpointId}`),
            );
          queue.push({ run: write, owner, endsTurn: target.endsTurn, resolve, reject });
          this.#deferred.set(key, queue);
        });
      }
    } finally {
      operationSettled?.();
    }
  }

  /** {@link #putWritesChecked} of a run's `Command` writes held until it stores something: their operation id checked now. */
  async #checkHeld(threadId: string, target: WritesTarget, commandRun: RunRecord): Promise<void> {
    if (target.operation !== undefined) await this.#commitCommandWrites(threadId, target, async () => {}, commandRun);
    if (commandRun.refused !== undefined) throw commandRun.refused;
  }

  /**
   * {@link ThreadRegistry.commitWrites} of a run's `Command` writes carrying its operation id
   * ({@link WritesTarget.operation}): a refusal is recorded as the run's (`commandRun`), so its
   * admission refuses its first model or tool call.
   */
  async #commitCommandWrites(threadId: string, target: WritesTarget, write: () => Promise<void>, commandRun: RunRecord): Promise<boolean> {
    try {
      return await this.registry.commitWrites(threadId, target, write);
    } catch (thrown) {
      const error = connectionLostDuring("putWrites", thrown);
      commandRun.refused ??= error;
      throw error;
    }
  }

  /**
   * Refuses (as {@link #refuseInput} refuses an input) messages a `Command({ update })` writes on
   * the checkpoint `config` names that edit or remove an archived message by id (R37,
   * `archived-edit`). The run (`record`: its `control` and `signal`, none without them) is recorded
   * as refused, so its admission refuses its first model or tool call.
   */
  #checkCommandUpdate(
    config: RunnableConfig,
    threadId: string,
    writes: readonly PendingWrite[],
    record: RunRecord | undefined,
  ): Promise<void> {
    const check = (async () => {
      if (!this.#isReady) await this.ready("putWrites");
      const given = writes.filter(([channel]) => channel === "messages").flatMap(([, value]) => (Array.isArray(value) ? value : [value]));
      const tuple = await this.inner.getTuple(config);
      if (!tuple) return;
      const input = inputCheckOf({
        ...tuple.checkpoint,
        channel_values: { ...tuple.checkpoint.channel_values, __start__: { messages: given } },
      });
      if (input === undefined) return;
      await this.#refuseFound(threadId, input, await this.#archive.having(threadId, input.lookupIds));
    })();
    if (record) {
      const run = record;
      run.commandCheck = check.catch((error: unknown) => {
        run.refused ??= connectionLostDuring("putWrites", error);
      });
    }
    return check;
  }

  /**
   * A subgraph namespace's first checkpoint (`checkpoint.id`, no parent) is being stored: writes
   * waiting for an older checkpoint of that namespace that is neither stored nor being stored
   * belong to the empty checkpoint LangGraph starts a namespace from in memory and never stores
   * (a resumed parent whose `updateState` replaced the interrupted subgraph task: LangGraph writes
   * the resume value, `__resume__`, on that empty checkpoint, then stores the new task's input
   * checkpoint). They are dropped (resolved, nothing stored), as LangGraph applied them to the new
   * checkpoint's channels in memory: no write of a checkpoint not stored. Was: they waited for a
   * put that never came, and the parent's `invoke` never settled.
   */
  #dropUnstoredDeferred(threadId: string, checkpointNs: string, firstId: string): void {
    for (const [key, queue] of this.#deferred) {
      const [thread, ns, id] = JSON.parse(key) as [string, string, string];
      if (thread !== threadId || ns !== checkpointNs || id >= firstId) continue;
      if (this.#inFlight.has(key) || this.#committed.has(key) || this.#refused.has(key)) continue;
      this.#deferred.delete(key);
      for (const write of queue) write.resolve();
    }
  }

  /**
   * After a failed put of run `run`, that run's writes waiting for its later checkpoints will never
   * be stored: they fail with the put's error. Writes of other runs of the thread wait on (was: a
   * turn refused `turn-in-progress` failed the writes the running turn had sent ahead of its next
   * checkpoint, so that turn's invoke rejected with the loser's error while it went on running
   * and holding the thread).
   */
  #dropLaterDeferred(threadId: string, checkpointNs: string, failedId: string, error: unknown, run: RunRecord | undefined): void {
    for (const [key, queue] of this.#deferred) {
      const [thread, ns, id] = JSON.parse(key) as [string, string, string];
      if (thread !== threadId || ns !== checkpointNs || id <= failedId) continue;
      // Outside the root namespace (no run record) the namespace names the task: all its later writes.
      const ownRun = (write: DeferredWrite) => run === undefined || this.#findRun(write.owner) === run;
      const dropped = queue.filter(ownRun);
      if (dropped.length === 0) continue;
      const kept = queue.filter((write) => !ownRun(write));
      if (kept.length > 0) this.#deferred.set(key, kept);
      else this.#deferred.delete(key);
      for (const write of dropped) write.reject(error);
    }
  }

  /**
   * Which of `threadIds` were deleted (have a tombstone, spec R24), in no particular order: one
   * registry query. `memoryStack` hands it to userMemory (`deletedThreads`), so a deleted thread's
   * words are recalled in none of the user's other threads, in any process.
   * @throws ThreadwiseThreadIdError for an id that breaks the thread-id rules; the store's errors.
   */
  async deletedThreads(threadIds: readonly string[]): Promise<string[]> {
    const ids = threadIds.map((id) => normalizeThreadId(id));
    await this.ready("deletedThreads");
    return this.registry.deletedAmong(ids);
  }

  /** Deletes the thread everywhere and leaves a tombstone (spec R24). */
  async deleteThread(threadId: string): Promise<void> {
    await this.deleteThreadWithOutcome(threadId);
  }

  /** {@link deleteThread} returning what was removed; `idleBefore` re-checks idleness under the thread's lock. */
  async deleteThreadWithOutcome(threadId: string, options?: ThreadDeleteOptions): Promise<ThreadDeleteOutcome> {
    const id = normalizeThreadId(threadId);
    if (!this.#isReady) await this.ready("deleteThreadWithOutcome");
    return this.registry.deleteThread(id, options);
  }

  /**
   * The next channel version. With `uniqueChannelVersions`: `floor(current) + 1` plus a random
   * fraction of ten decimal digits below 0.1, so versions stay numbers (LangGraph compares them
   * numerically, including the integer ones of older checkpoints) and two branches from one
   * checkpoint get different blob keys (langgraphjs #1812).
   */
  override getNextVersion(current: number | undefined): number {
    if (!this.#options.uniqueChannelVersions) return this.inner.getNextVersion(current);
    return Math.floor(typeof current === "number" ? current : 0) + 1 + randomInt(1, 1_000_000_000) / 1e10;
  }

  /**
   * Ends the pool or closes the file. The saver is unusable afterwards: every read or write (an
   * `invoke`, `getState`, `readThread`, `deleteThread`) fails with {@link ThreadwiseClosedError}
   * naming it and the operation. A second `close()` does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#isReady = false;
    this.#heartbeats.clear();
    clearInterval(this.#beatTimer);
    this.#beatTimer = undefined;
    await this.#options.close?.();
  }

  #remember(keys: Map<string, true>, key: string): void {
    setBounded(keys, key, true, REMEMBERED_KEYS);
  }
}

/**
 * What identifies a run of this process: its `control` (LangGraph's run-scoped `RunControl`, in
 * every put's config and in `getConfig()` inside its nodes) and/or its abort signal.
 */
export type RunKeys = object | ReadonlyArray<object | undefined> | undefined;

function runKeys(run: RunKeys): object[] {
  if (run === undefined) return [];
  return (Array.isArray(run) ? run : [run]).filter((key): key is object => typeof key === "object" && key !== null);
}

/** {@link RunRecord.stepsPast}, made on first use. */
function stepsPastOf(run: RunRecord): Set<string> {
  run.stepsPast ??= new Set();
  return run.stepsPast;
}

/** `true` when one of a run's keys is its LangGraph `RunControl` and a drain was requested (`requestDrain`). */
function drainRequested(keys: readonly object[]): boolean {
  return keys.some((key) => (key as { drainRequested?: unknown }).drainRequested === true);
}

/**
 * `true` for a run that sent no put yet and whose calls `turnAdmission` does not report (no
 * record yet, or not {@link RunRecord.tracked}): a graph without `turnAdmission` (a plain
 * `StateGraph`, where a `DeltaChannel` lives). An agent's run takes the turn lease before its
 * first call instead ({@link ThreadwiseSaver.turnCall}).
 */
function untrackedBeforeFirstPut(run: RunRecord | undefined): boolean {
  return run === undefined || (!run.tracked && run.first === undefined);
}

/**
 * `true` for a run under LangGraph's durability `exit` (nothing stored until the run ends), as its
 * config shows it: `durability: "exit"`, `checkpointDuring: false` or LangGraph's
 * `configurable.__pregel_durability`. A durability given to the compiled graph
 * (`graph.withConfig({ durability: "exit" })`) is in it too: LangGraph merges the graph's config
 * into each run's, and that is the config its checkpoint and write calls carry.
 */
export function exitDurability(config: RunnableConfig): boolean {
  const given = config as { durability?: unknown; checkpointDuring?: unknown };
  if (given.durability !== undefined && given.durability !== null) return given.durability === "exit";
  if (given.checkpointDuring === false) return true;
  return config.configurable?.__pregel_durability === "exit";
}

/** A checkpoint a branch starts from: where the archive stood when it was stored, and its hot part's message ids. */
interface BranchPoint {
  mark: ArchiveMark;
  hot: ReadonlyArray<string | undefined>;
}

/** The {@link ARCHIVE_MARK_METADATA_KEY} of a checkpoint's metadata: `undefined` when absent or not two whole numbers >= 0. */
function markIn(metadata: CheckpointMetadata | undefined): ArchiveMark | undefined {
  const mark = (metadata as Record<string, unknown> | undefined)?.[ARCHIVE_MARK_METADATA_KEY] as Partial<ArchiveMark> | undefined;
  const count = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
  return mark && count(mark.stamp) && count(mark.seq) ? { stamp: mark.stamp, seq: mark.seq } : undefined;
}

/** `true` for a root checkpoint at its run's last step ({@link RunRecord.lastStep}); `run` is the put's ({@link ThreadwiseSaver}'s `#runOf`: none outside the root namespace). */
function isLastStep(run: RunRecord | undefined, metadata: CheckpointMetadata): boolean {
  const lastStep = run?.lastStep;
  return lastStep !== undefined && typeof metadata?.step === "number" && metadata.step >= lastStep;
}

/**
 * The checkpoint namespace the caller named with its `checkpoint_id` (LangGraph copies both from
 * the caller's configurable into a run's metadata): `""` unless the caller passed a subgraph's
 * config (`agent:<task id>`) to the root graph.
 */
function chosenNamespace(config: RunnableConfig): string {
  const ns = (config.metadata as { checkpoint_ns?: unknown } | undefined)?.checkpoint_ns;
  return typeof ns === "string" ? ns : "";
}

/**
 * Refuses a run whose start LangGraph took from a parent graph's checkpoint: an agent invoked
 * inside a node of a parent graph, on this saver (`__pregel_checkpointer`) with `checkpoint_ns: ""`,
 * inherits the parent run's `checkpoint_map`, and LangGraph starts a root run from its `""` entry
 * when no `checkpoint_id` is given: the parent's checkpoint, which this thread does not hold, so
 * the run starts from nothing (`parentId` undefined) and every later run again. Plain LangGraph
 * stores each such run as a new start of the thread (its history never reaches the model); here
 * the head check refused it `stale-parent`, retryable, though no retry could read another start.
 * Not refused when the thread holds that checkpoint (the agent on its parent's own thread).
 * @throws {ThreadwiseConfigError} `configurable.checkpoint_map`, before anything is stored.
 */
function refuseInheritedStart(threadId: string, config: RunnableConfig, parentId: string | undefined): void {
  const map = config.configurable?.checkpoint_map as Record<string, unknown> | undefined;
  const inherited = map !== null && typeof map === "object" ? map[""] : undefined;
  if (typeof inherited !== "string" || inherited === "" || inherited === parentId) return;
  throw new ThreadwiseConfigError(
    "configurable.checkpoint_map",
    `thread "${threadId}": the run starts inside a node of a parent graph with checkpoint_ns "", and LangGraph starts it from the parent run's checkpoint "${inherited}" (the checkpoint_map it inherits), which this thread does not hold, so every run would start the thread over; invoke the agent with configurable: { thread_id, checkpoint_ns: "", checkpoint_map: {} } to continue the thread from its newest checkpoint, or add the agent to the parent as a node (nothing was stored; running it again gives this error again)`,
  );
}

function writeKey(threadId: string, checkpointNs: string, checkpointId: string): string {
  return JSON.stringify([threadId, checkpointNs, checkpointId]);
}

/**
 * `configurable.operation_id` of a run, if any: a non-empty string of at most 256 UTF-8 bytes.
 * @throws ThreadwiseConfigError naming `configurable.operation_id` for any other value.
 */
function operationIdOf(config: RunnableConfig): string | undefined {
  const value: unknown = config.configurable?.[OPERATION_ID_KEY];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.length === 0 || Buffer.byteLength(value, "utf8") > MAX_OPERATION_ID_BYTES)
    throw new ThreadwiseConfigError(
      `configurable.${OPERATION_ID_KEY}`,
      `expected a non-empty string of at most ${MAX_OPERATION_ID_BYTES} UTF-8 bytes, got ${typeof value === "string" ? `${Buffer.byteLength(value, "utf8")} bytes` : typeof value}`,
    );
  return value;
}

/** A checkpoint's place in its thread (namespace and id), as a map key of {@link ThreadwiseSaver.list}. */
function storedKey(checkpointNs: unknown, checkpointId: unknown): string {
  return JSON.stringify([String(checkpointNs ?? ""), String(checkpointId ?? "")]);
}

/**
 * The normalized `configurable.thread_id` of a call.
 * @throws ThreadwiseThreadIdError
 */
function threadIdOf(config: RunnableConfig): string {
  return normalizeThreadId(config.configurable?.thread_id);
}

/**
 * The archived messages before the first one `hot` (a checkpoint's messages) also holds, in
 * archive order; all of `archived` when `hot` holds none of them, none when `hot` is empty. The
 * archive is a prefix of the thread: for a checkpoint stored without an archive mark, what it had
 * of the archive. An empty checkpoint (the thread's input checkpoint, before any message) had none:
 * the archive keeps its newest groups hot, so a thread that had archived stores no empty
 * checkpoint but by a rewrite, which empties the archive. O(archived + hot).
 */
function archivedBefore(archived: readonly BaseMessage[], hot: readonly BaseMessage[]): BaseMessage[] {
  if (hot.length === 0) return [];
  const own = new Set<string>();
  for (const message of hot) if (typeof message.id === "string") own.add(message.id);
  const at = archived.findIndex((message) => typeof message.id === "string" && own.has(message.id));
  return at === -1 ? archived.slice() : archived.slice(0, at);
}
