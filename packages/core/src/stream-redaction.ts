import { LogStreamCallbackHandler } from "@langchain/core/tracers/log_stream";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import { Command } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "./errors.js";

/**
 * Where the private state fields (keys starting with `_`: `_threadwise_summary`,
 * `_threadwise_facts`, ...) still reach a caller once a graph's stream channels are its output
 * channels: the node inputs of `streamMode: "tasks"` (a task's `input`) and of `"debug"` (the
 * `payload.input` of a `task` event), and, in `streamEvents` v1/v2, each node run's
 * `on_chain_start` input and `on_chain_end` output (the state it read, the `Command`s it wrote).
 * {@link redactStreams} leaves those fields out of a copy of each such chunk or event.
 */

/** The methods of a compiled LangGraph graph (`Pregel`) that {@link redactStreams} wraps. */
export interface RedactableGraph {
  stream: (input: unknown, options?: unknown) => Promise<AsyncIterable<unknown> & { cancel?: (reason?: unknown) => Promise<void> }>;
  streamEvents: (input: unknown, options?: unknown, streamOptions?: unknown) => AsyncIterable<unknown>;
  /** The graph's nodes by name: a name holding "/" makes `streamEvents` v1 refused ({@link slashedNodes}). */
  nodes?: Record<string, unknown>;
  /** LangGraph's `Pregel.getSubgraphs`: the graphs nested in this one's nodes, `[namespace, graph]`, with `recurse` theirs too. */
  getSubgraphs?: (namespace?: string, recurse?: boolean) => Iterable<[string, { nodes?: Record<string, unknown> }]>;
}

/** Set on a graph whose methods {@link redactStreams} wrapped: a second call leaves them as they are. */
const REDACTED = Symbol.for("threadwise.redactedStreams");

const isPrivateKey = (key: string) => key.startsWith("_");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A state object (a node's input, a `Command`'s update) without its private fields; anything else as it is. */
function withoutPrivate(value: unknown): unknown {
  if (!isPlainObject(value) || !Object.keys(value).some(isPrivateKey)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !isPrivateKey(key)));
}

/** A node's output (a state update, a `Command`, a list of them) without private fields. */
function outputWithoutPrivate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(outputWithoutPrivate);
  if (value instanceof Command && isPlainObject(value.update) && Object.keys(value.update).some(isPrivateKey)) {
    return new Command({
      update: withoutPrivate(value.update) as Record<string, unknown>,
      goto: value.goto,
      graph: value.graph,
      resume: value.resume,
    });
  }
  return withoutPrivate(value);
}

/** A `"tasks"` payload (`{ id, name, input, triggers }` when a task starts) or a `"debug"` one (`{ type: "task", payload }`). */
function taskPayloadWithoutPrivate(payload: unknown): unknown {
  if (!isPlainObject(payload)) return payload;
  if ("input" in payload && "triggers" in payload) return { ...payload, input: withoutPrivate(payload.input) };
  if (payload.type === "task" && isPlainObject(payload.payload) && "input" in payload.payload) {
    return { ...payload, payload: { ...payload.payload, input: withoutPrivate(payload.payload.input) } };
  }
  return payload;
}

/**
 * One chunk of `graph.stream` without private fields in task inputs, whatever its shape: the
 * payload, `[mode, payload]`, `[namespace, payload]` or `[namespace, mode, payload]`.
 */
function chunkWithoutPrivate(chunk: unknown): unknown {
  if (!Array.isArray(chunk)) return taskPayloadWithoutPrivate(chunk);
  const last = chunk.length - 1;
  const payload = taskPayloadWithoutPrivate(chunk[last]);
  return payload === chunk[last] ? chunk : [...chunk.slice(0, last), payload];
}

/** A `streamEvents` v1/v2 event without private fields in its run's input, output or chunk. */
function eventWithoutPrivate(event: unknown): unknown {
  // Chain runs only (the graph, its nodes): a tool's or a model's input is its own, never the state.
  if (!isPlainObject(event) || !isPlainObject(event.data) || !String(event.event).startsWith("on_chain_")) return event;
  const data = { ...event.data };
  if ("input" in data) data.input = withoutPrivate(data.input);
  if ("output" in data) data.output = outputWithoutPrivate(data.output);
  if ("chunk" in data) data.chunk = chunkWithoutPrivate(data.chunk);
  return { ...event, data };
}

/** What LangGraph's streams offer besides iteration: `cancel` aborts the run, `signal` says whether it was. */
interface Cancellable {
  cancel?: (reason?: unknown) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * `source` as a stream of `map`ped items, cancelled as LangGraph's own stream is: `cancel()`
 * aborts the run even while the stream is being read (a plain ReadableStream refuses that), and
 * `signal` is the run's.
 */
class MappedStream extends IterableReadableStream<unknown> {
  readonly #source: Cancellable;

  constructor(source: AsyncIterable<unknown> & Cancellable, map: (item: unknown) => unknown) {
    const iterator = source[Symbol.asyncIterator]();
    super({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(map(next.value));
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    });
    this.#source = source;
  }

  override async cancel(reason?: unknown): Promise<void> {
    if (this.#source.cancel) await this.#source.cancel(reason);
    else await super.cancel(reason);
  }

  get signal(): AbortSignal | undefined {
    return this.#source.signal;
  }
}

function mapped<T extends AsyncIterable<unknown>>(source: T & Cancellable, map: (item: unknown) => unknown): T {
  return new MappedStream(source, map) as unknown as T;
}

/**
 * Nodes of `graph` whose name holds "/" (threadwise's middlewares with a node hook:
 * `threadwise/turn-admission.before_agent`, `threadwise/work-memory.after_agent`, ...), its own and
 * those of the graphs nested in its nodes (named `parent|node`). LangChain
 * core builds `streamEvents` v1 from its log stream, whose JSON-patch paths are `/logs/<run name>`,
 * unescaped, read back with `path.split("/")[2]`: a run so named is looked up under the part before
 * its "/", the lookup throws inside the stream, and the stream never ends (no event after
 * `__start__`, no error; @langchain/core 1.4.0). v2 and v3 do not use the log stream.
 */
function slashedNodes(graph: RedactableGraph): string[] {
  const slashed = Object.keys(graph.nodes ?? {}).filter((name) => name.includes("/"));
  // A graph added as a node (`addNode("agent", agent.graph)`), or named in a node's `subgraphs`, runs its
  // nodes inside this graph's runs: their names reach the same log stream. LangGraph finds them for
  // `getState({ subgraphs: true })` with `getSubgraphs(namespace, recurse)`; its names are `parent|child`.
  if (typeof graph.getSubgraphs === "function") {
    for (const [namespace, subgraph] of graph.getSubgraphs(undefined, true)) {
      for (const name of Object.keys(subgraph.nodes ?? {})) if (name.includes("/")) slashed.push(`${namespace}|${name}`);
    }
  }
  return slashed;
}

/** LangChain core's `LogStreamCallbackHandler` (`name` "log_stream_tracer"), the fields read here. */
interface LogStreamHandler {
  name?: unknown;
  _schemaFormat?: unknown;
  _includeRun?: (run: { name: string; run_type: string; tags: string[] }) => boolean;
}

/** The handlers of a run's `callbacks` option: a list of handlers or a `CallbackManager` (its `handlers`). */
function callbackHandlers(callbacks: unknown): unknown[] {
  if (Array.isArray(callbacks)) return callbacks;
  const handlers = (callbacks as { handlers?: unknown } | null | undefined)?.handlers;
  return Array.isArray(handlers) ? handlers : [];
}

/**
 * The nodes of {@link slashedNodes} that a `streamEvents` v1 call of an enclosing graph would log:
 * `streamEvents` v1 runs its graph with a `LogStreamCallbackHandler` in `"streaming_events"` format,
 * and a graph invoked from inside one of that graph's nodes (`addNode("agent", (state, config) =>
 * agent.invoke(state, config))`, or a graph added as a node) receives it in its `callbacks`. Its
 * `includeNames`/`excludeNames` (and types, tags) filters are applied to each node as the handler does.
 */
function slashedNodesLoggedByV1(graph: RedactableGraph, options: unknown): string[] {
  const handlers = callbackHandlers((options as { callbacks?: unknown } | null | undefined)?.callbacks).filter(
    (handler): handler is LogStreamHandler =>
      typeof handler === "object" &&
      handler !== null &&
      (handler as LogStreamHandler).name === "log_stream_tracer" &&
      (handler as LogStreamHandler)._schemaFormat === "streaming_events",
  );
  if (handlers.length === 0) return [];
  const tags = ((options as { tags?: unknown } | null | undefined)?.tags as string[] | undefined) ?? [];
  return slashedNodes(graph).filter((path) => {
    const name = path.slice(path.lastIndexOf("|") + 1);
    const run = { name, run_type: "chain", tags };
    return handlers.some((handler) => typeof handler._includeRun !== "function" || handler._includeRun(run));
  });
}

/** Set on LangChain core's `LogStreamCallbackHandler.prototype` once {@link refuseSlashedRunsInV1Log} patched it. */
const V1_LOG_GUARDED = Symbol.for("threadwise.v1LogGuarded");

/** The fields of a `LogStreamCallbackHandler` (and of the run it is given) read by the guard. */
interface GuardedLogHandler {
  _schemaFormat?: unknown;
  rootId?: unknown;
  raiseError?: boolean;
  _includeRun(run: unknown): boolean;
}

/**
 * Makes LangChain core's `streamEvents` v1 refuse, at the start of the run, a run named with "/"
 * that it would log (a threadwise middleware's node: `threadwise/work-memory.before_agent`, ...),
 * instead of never ending. v1 events are built from the log stream, whose entries are keyed
 * `/logs/<run name>` and read back with `path.split("/")[2]` (@langchain/core 1.4.0): the reader
 * fails on such an entry and the run then waits forever on the log handler's next write. That
 * happens before any hook of the node runs, so the check sits where the entry is made: the log
 * handler's `onRunCreate` (patched once on `LogStreamCallbackHandler.prototype`; a handler in
 * `"streaming_events"` format only, so `streamLog` is untouched) throws ThreadwiseConfigError, raised
 * by LangChain's callback manager (the handler's `raiseError` set for it): the node's run fails
 * before it starts and the v1 stream ends with the error. A run the v1 call's
 * `includeNames`/`excludeNames` (types, tags) filters leave out is not logged, so not refused.
 * Called by every threadwise middleware factory (`threadwiseMiddleware`, `memoryStack`'s turn
 * admission): it covers an agent not wrapped in hideMemoryState, run at the top or nested.
 */
export function refuseSlashedRunsInV1Log(): void {
  const proto = LogStreamCallbackHandler.prototype as unknown as Record<PropertyKey, unknown>;
  if (proto[V1_LOG_GUARDED] === true) return;
  const onRunCreate = proto.onRunCreate as (this: GuardedLogHandler, run: { id?: unknown; name?: unknown }) => Promise<void>;
  proto.onRunCreate = async function guardedOnRunCreate(this: GuardedLogHandler, run: { id?: unknown; name?: unknown }) {
    if (
      this._schemaFormat === "streaming_events" &&
      this.rootId !== undefined &&
      run.id !== this.rootId &&
      typeof run.name === "string" &&
      run.name.includes("/") &&
      this._includeRun(run)
    ) {
      this.raiseError = true;
      throw new ThreadwiseConfigError(
        "streamEvents.version",
        `streamEvents version "v1" would never end on this run: LangChain core builds v1 events from its log stream, whose paths split run names on "/", and the run ${run.name} (a threadwise middleware's nodes are named threadwise/<name>.<hook>) is named with one; call streamEvents with version "v2" (the same events) or "v3", or leave the node out with the v1 call's includeNames/excludeNames`,
      );
    }
    return onRunCreate.call(this, run);
  };
  proto[V1_LOG_GUARDED] = true;
}

/**
 * Wraps `graph.stream` and `graph.streamEvents` (on the instance; the graph's code is untouched) so
 * that the private state fields never reach a caller through task inputs or run events. `stream`
 * covers every stream mode, `subgraphs`, and `streamEvents` v3 (built on `stream`); `streamEvents`
 * v1/v2 events are redacted one by one. With `encoding: "text/event-stream"` LangGraph encodes the
 * chunks inside `stream`, before they can be read: that stream is returned as it is.
 * `streamEvents` v1 on a graph with a node named with "/" (any threadwise middleware with a node
 * hook, `memoryStack`'s turn admission among them), its own or a nested graph's, would never end
 * (see {@link slashedNodes}): it is refused at the call. Run inside an enclosing graph's v1 call (a
 * function node that invokes it, or the graph added as a node), the wrapped `stream` (which `invoke`
 * calls) throws the same error before the run starts ({@link slashedNodesLoggedByV1}), so that
 * call's stream ends with it.
 *
 * @param graph - a compiled LangGraph graph; changed in place, once.
 * @throws ThreadwiseConfigError (from the wrapped `streamEvents`, option `streamEvents.version`)
 *   for `version: "v1"` on a graph with such a node; from the wrapped `stream` (same option) when
 *   its `callbacks` hold an enclosing v1 call's log handler that would log such a node.
 */
export function redactStreams(graph: RedactableGraph): void {
  const marked = graph as RedactableGraph & { [REDACTED]?: true };
  if (marked[REDACTED]) return;
  marked[REDACTED] = true;
  const stream = graph.stream.bind(graph);
  const streamEvents = graph.streamEvents.bind(graph);
  graph.stream = async (input, options) => {
    const logged = slashedNodesLoggedByV1(graph, options);
    if (logged.length > 0) {
      throw new ThreadwiseConfigError(
        "streamEvents.version",
        `this agent runs inside a streamEvents version "v1" call of an enclosing graph, which never ends: LangChain core builds v1 events from its log stream, whose paths split run names on "/", and these nodes of the agent are named with one: ${logged.join(", ")}; call streamEvents with version "v2" (the same events) or "v3"`,
      );
    }
    const source = await stream(input, options);
    if ((options as { encoding?: unknown } | undefined)?.encoding === "text/event-stream") return source;
    return mapped(source, chunkWithoutPrivate);
  };
  graph.streamEvents = (input, options, streamOptions) => {
    const version = (options as { version?: unknown } | undefined)?.version;
    const slashed = version === "v1" ? slashedNodes(graph) : [];
    if (slashed.length > 0) {
      throw new ThreadwiseConfigError(
        "streamEvents.version",
        `version "v1" never ends on this agent: LangChain core builds v1 events from its log stream, whose paths split run names on "/", and these nodes are named with one: ${slashed.join(", ")}; use version "v2" (the same events) or "v3"`,
      );
    }
    const source = streamEvents(input, options, streamOptions);
    if (version === "v3" || (options as { encoding?: unknown } | undefined)?.encoding === "text/event-stream") return source;
    return mapped(source, eventWithoutPrivate);
  };
}
