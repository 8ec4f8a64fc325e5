import { ThreadwiseConfigError } from "./errors.js";
import { type RedactableGraph, redactStreams } from "./stream-redaction.js";

/** The part of a compiled LangGraph graph (`Pregel`) that decides what its streams carry. */
interface StreamChannels {
  outputChannels: string | string[];
  streamChannels?: string | string[];
  /** The graph's nodes by name (LangGraph's `PregelNode`): their `tags` go into each task's config. */
  nodes?: Record<string, { tags?: string[] } | undefined>;
}

/**
 * Nodes a threadwise middleware adds that never write state: `memoryStack`'s turn admission
 * (`turnAdmission`'s `beforeAgent`, which only waits for the run's admission or throws). Their
 * `"updates"` chunk is always empty (`{ "threadwise/turn-admission.before_agent": {} }`), a node
 * the user did not add; {@link hideMemoryState} tags them {@link HIDDEN_TAG}.
 */
const NODES_WITHOUT_UPDATES = ["threadwise/turn-admission.before_agent"];

/**
 * LangGraph's `TAG_HIDDEN`: a task whose config has it is left out of `"updates"` chunks (LangGraph
 * tags its own start node and branch writers with it; LangSmith reads it as "hide this run").
 */
const HIDDEN_TAG = "langsmith:hidden";

const isChannelList = (value: unknown): value is string | string[] =>
  typeof value === "string" || (Array.isArray(value) && value.every((key) => typeof key === "string"));

function compiledGraph(target: unknown): StreamChannels | undefined {
  for (const candidate of [(target as { graph?: unknown } | null)?.graph, target]) {
    if (typeof candidate === "object" && candidate !== null && isChannelList((candidate as StreamChannels).outputChannels)) {
      return candidate as StreamChannels;
    }
  }
  return undefined;
}

/**
 * Keeps threadwise's private thread state (`_threadwise_summary`, `_threadwise_facts`: summary
 * text, facts, work memory) and every other private state field (a key starting with `_`) out of
 * what the agent hands to its callers (spec R41), and returns the same agent.
 *
 * Why it is needed: `createAgent` already leaves `_`-prefixed fields out of its output schema, so
 * `invoke` returns only `messages` (and `structuredResponse` and public fields of your own
 * `stateSchema`). LangGraph's streams, though, read every state channel by default: the chunks of
 * `streamMode: "values"`, `"updates"`, `"checkpoints"` and `"debug"` and `getState().values`
 * hold the summary and the facts (LangGraph's docs: "private channels are not redacted when
 * streaming"). This sets the compiled graph's stream channels to its output channels, so those
 * read what `invoke` returns. The middlewares still read and write their state inside the graph,
 * and the checkpointer still stores it, so a new agent on the same checkpointer (a restart)
 * continues the thread with its summary and facts.
 *
 * `streamMode: "tasks"` and the task events of `"debug"` carry each node's input, and
 * `streamEvents` (v1, v2) each node run's input and output: the memory middlewares' nodes read and
 * write the memory state there. It wraps the graph's `stream` and `streamEvents` so that those
 * private fields are left out of a copy of each such chunk and event (every stream mode, combined
 * modes, `subgraphs`, `streamEvents` v2 and v3: what LangGraph's API server forwards, as it calls
 * the graph's `streamEvents`). What it cannot hide: the memory the model is sent (the summary,
 * facts and recalled messages in its prompt) is the model run's input, so `streamEvents`'
 * `on_chat_model_start` shows it, and the memory middlewares' own model calls (runs tagged
 * `threadwise:internal`) show their input and output (a summary): leave them out with
 * `excludeTags: ["threadwise:internal"]`, or do not forward model runs' events. A stream asked
 * with `encoding: "text/event-stream"` is encoded inside LangGraph and returned as it is (tasks
 * and debug chunks unredacted). `"messages"` and `"custom"` carry no state. The checkpointer holds
 * the state (read it with `checkpointer.getTuple(config)`; encryption at rest is
 * `@threadwise/encryption`). `streamEvents` v1 on a graph with a threadwise node (a node name with
 * "/", such as `memoryStack`'s turn admission) never ends in LangChain core, so it is refused at the
 * call (ThreadwiseConfigError, `streamEvents.version`): use v2. The check also walks the graphs
 * nested in this one's nodes that LangGraph finds (`getSubgraphs`: a graph added as a node, or named
 * in a node's `subgraphs` option). A parent that embeds the agent without its own call, or invokes
 * it from inside a function node, gets the same error when the agent's run starts (the agent's
 * `stream`, which `invoke` calls, finds the v1 log handler in its callbacks): the parent's v1 stream
 * ends with it, unless the v1 call's name/type/tag filters leave the threadwise nodes out.
 *
 * It also leaves out of `"updates"` the chunk of `memoryStack`'s turn admission node
 * (`threadwise/turn-admission.before_agent`), which never writes state: the node still runs and
 * still refuses a concurrent turn, and `"tasks"`, `"debug"` and `getGraph()` still show it (it
 * carries LangGraph's `langsmith:hidden` tag, the one on LangGraph's own internal nodes).
 *
 * Instead of this, a single call can pass LangGraph's `outputKeys` (`agent.stream(input, { ...config,
 * outputKeys: ["messages"] })`), which covers `"values"` and `"updates"` only.
 *
 * @param agent - what `createAgent` returned (or a compiled LangGraph graph); changed in place.
 * @returns the same agent.
 * @throws ThreadwiseConfigError (`hideMemoryState.agent`) when `agent` is neither an agent from
 *   `createAgent` nor a compiled graph; later, from the agent's `streamEvents`, (`streamEvents.version`)
 *   for `version: "v1"` on a graph with a threadwise node, and from its `stream`/`invoke` when run
 *   inside an enclosing graph's `streamEvents` v1 that would log such a node.
 * @example
 * const agent = hideMemoryState(createAgent({ model, tools: [], checkpointer, middleware: [windowTrim(), summarize()] }));
 */
export function hideMemoryState<Agent>(agent: Agent): Agent {
  const graph = compiledGraph(agent);
  if (!graph) {
    throw new ThreadwiseConfigError(
      "hideMemoryState.agent",
      "expected the agent createAgent returned (or a compiled LangGraph graph); it has no graph with outputChannels",
    );
  }
  const output = graph.outputChannels;
  graph.streamChannels = Array.isArray(output) ? [...output] : output;
  // Node inputs (`"tasks"`, `"debug"`) and run events (`streamEvents`) read the state itself, not the stream channels.
  if (
    typeof (graph as Partial<RedactableGraph>).stream === "function" &&
    typeof (graph as Partial<RedactableGraph>).streamEvents === "function"
  )
    redactStreams(graph as unknown as RedactableGraph);
  for (const name of NODES_WITHOUT_UPDATES) {
    const node = graph.nodes?.[name];
    if (node && !node.tags?.includes(HIDDEN_TAG)) node.tags = [...(node.tags ?? []), HIDDEN_TAG];
  }
  return agent;
}
