import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { setBounded } from "@threadwise/core";
import type { ThreadwiseSaver } from "./threadwise-saver.js";

/**
 * The brand LangGraph's `GraphCallbackHandler.isInstance` reads (`Symbol.for`, LangGraph >= 1.7):
 * set here rather than extending the class, which older LangGraph versions in the peer range do
 * not export (a static import of it would fail the package's import there).
 */
const GRAPH_CALLBACK_HANDLER = Symbol.for("langgraph.graph_callback_handler");

/** Runs whose thread a handler remembers at once (a run that never reports its end is forgotten, oldest first). */
const REMEMBERED_RUNS = 10_000;

/** What LangGraph reports of a root interrupt (its `GraphInterruptEvent`, LangGraph >= 1.7). */
export interface TurnEndInterruptEvent {
  readonly runId: string | undefined;
  readonly status: string;
  readonly checkpointId: string;
  readonly checkpointNs: readonly string[];
  readonly interrupts: readonly unknown[];
}

/**
 * Ends the turn lease of a run stopped at a static breakpoint (spec R38): `interruptBefore` /
 * `interruptAfter` given with a run (LangGraph Studio's breakpoints, the client-side tool pattern:
 * stop before the tools, run them on the client, write their results with `updateState`, resume
 * with `invoke(null)`). Such a run ends after storing a checkpoint with tasks left and stores no
 * write, so the saver cannot tell it ended: without this handler its lease holds for
 * `turnLeaseMs` and the `updateState`, the resume and a new turn are refused `turn-in-progress`
 * until then. A LangGraph graph callback handler (LangGraph >= 1.7 reports root interrupts to
 * them; with an older LangGraph it does nothing): pass it with the run's callbacks, where LangGraph
 * builds the run's callback manager (a middleware cannot add it). On each static breakpoint of a
 * root run it calls {@link ThreadwiseSaver.endTurn} at the breakpoint's checkpoint, on the run's
 * thread (`configurable.thread_id`, read from the run's start): the lease ends only while that
 * checkpoint is the thread's head. A dynamic interrupt (`interrupt()` in a node) stores its
 * interrupt write, which already ends the turn: left alone.
 * @example
 * const stack = memoryStack();
 * const agent = createAgent({ model, tools, ...stack });
 * await agent.invoke(input, { configurable: { thread_id }, interruptBefore: ["tools"], callbacks: turnEndCallbacks(stack.checkpointer!) });
 */
export class ThreadwiseTurnEndHandler extends BaseCallbackHandler {
  name = "threadwise/turn-end";
  readonly [GRAPH_CALLBACK_HANDLER] = true;
  /** The thread of each run started and not ended yet, by run id (LangGraph reports an interrupt with the run's id only). */
  readonly #threads = new Map<string, string>();
  readonly checkpointer: ThreadwiseSaver;

  constructor(checkpointer: ThreadwiseSaver) {
    super();
    this.checkpointer = checkpointer;
    // Awaited where the run starts: the run's thread is known before its interrupt is reported.
    this.awaitHandlers = true;
  }

  override handleChainStart(
    _chain: unknown,
    _inputs: unknown,
    runId: string,
    _runType?: string,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    // LangGraph copies the run's `configurable` (thread_id included) into its callbacks' metadata.
    const threadId = metadata?.thread_id;
    if (typeof threadId === "string") setBounded(this.#threads, runId, threadId, REMEMBERED_RUNS);
  }

  override handleChainEnd(_outputs: unknown, runId: string): void {
    this.#threads.delete(runId);
  }

  override handleChainError(_error: unknown, runId: string): void {
    this.#threads.delete(runId);
  }

  /** Called by LangGraph for each interrupt of a root run, before the run's end. */
  async handleInterrupt(event: TurnEndInterruptEvent): Promise<void> {
    // A static breakpoint has no interrupt payload; a dynamic one's interrupt write ends the turn.
    if (event.interrupts.length > 0 || event.checkpointNs.length > 0 || event.runId === undefined) return;
    const threadId = this.#threads.get(event.runId);
    if (threadId === undefined) return;
    await this.checkpointer.endTurn({ configurable: { thread_id: threadId, checkpoint_id: event.checkpointId } });
  }
}

/**
 * The callbacks to pass with a run that may stop at a static breakpoint (`interruptBefore` /
 * `interruptAfter`), so it ends its turn lease there ({@link ThreadwiseTurnEndHandler}):
 * `agent.invoke(input, { ...config, interruptBefore: ["tools"], callbacks: turnEndCallbacks(checkpointer) })`,
 * or once for every run, `agent.graph.withConfig({ callbacks: turnEndCallbacks(checkpointer) })`.
 * Add your own callbacks after them.
 */
export function turnEndCallbacks(checkpointer: ThreadwiseSaver): [ThreadwiseTurnEndHandler] {
  return [new ThreadwiseTurnEndHandler(checkpointer)];
}
