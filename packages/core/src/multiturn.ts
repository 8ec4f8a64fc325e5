import type { BaseMessage } from "@langchain/core/messages";
import type { SummaryProvenance } from "./assemble-view.js";
import { formatMultiturnLine, logsInfo, type ThreadwiseLogger } from "./logger.js";
import { messageType } from "./message-kinds.js";
import { type PlacementRequest, viewReport } from "./view-request.js";

const TRACE = Symbol.for("threadwise.multiturn");

interface MultiturnTrace {
  window: number | string;
  sentToLlm: number;
  /**
   * The request of the innermost middleware that reported its view: the unsummarized drops and the
   * summary's provenance are read from it when the line is written, so a stack whose line nobody
   * reads (info off) never reads them.
   */
  view: object;
  userMemory?: string;
}

/** Provenance of the summary placed in the request's view, when there is one. */
function summaryOf(request: object): SummaryProvenance | undefined {
  const r = request as Partial<PlacementRequest>;
  if (!Array.isArray(r.messages) || !r.systemMessage) return undefined;
  return viewReport(r as PlacementRequest).summary;
}

/** The unsummarized drops of the request's view, when it is a model request with a view. */
function unsummarizedOf(request: object): number | undefined {
  const r = request as Partial<PlacementRequest>;
  if (!Array.isArray(r.messages) || !r.systemMessage) return undefined;
  return viewReport(r as PlacementRequest).unsummarizedDropped;
}

/** `true` when the list holds an AI message: the thread has an earlier answer (R6, R7). */
export function hasPriorAnswer(messages: readonly BaseMessage[]): boolean {
  return messages.some((m) => messageType(m) === "ai");
}

/**
 * Adds user memory's state (`on`, `no_user_id`, ...; see `MultiturnFields.userMemory`) to the
 * multiturn line of this model call. Returns `false` when no view-shaping middleware outside the
 * caller writes a line for the call (then the caller reports the state itself).
 */
export function annotateMultiturn(request: object, fields: { userMemory: string }): boolean {
  const existing = (request as Record<symbol, MultiturnTrace | undefined>)[TRACE];
  if (!existing) return false;
  existing.userMemory = fields.userMemory;
  return true;
}

/**
 * Runs `next` with a request that carries the multiturn trace, and writes the R6 line once per
 * model call through `logger`.
 *
 * Several view-shaping middlewares can sit in one stack (windowTrim outside tokenCap); only the
 * outermost writes, and it writes the view size the innermost chose, once the inner chain has
 * run. Each middleware reports its view with `window` and `sentToLlm`; the windows of a stack are
 * joined outermost first with `+`, so `windowTrim({ maxMessages: 20 })` outside
 * `tokenCap({ maxTokens: 4000 })` logs `window=20+4000tok` (20 messages, then 4,000 tokens). The
 * unsummarized drops (R33) are read from the innermost request's view.
 */
export async function withMultiturnLog<R extends object, T>(
  request: R & { state?: { messages?: BaseMessage[] } },
  fields: { window: number | string; sentToLlm: number },
  logger: ThreadwiseLogger,
  next: (request: R) => T | Promise<T>,
): Promise<T> {
  const existing = (request as Record<symbol, MultiturnTrace | undefined>)[TRACE];
  if (existing) {
    existing.window = `${existing.window}+${fields.window}`;
    existing.sentToLlm = fields.sentToLlm;
    existing.view = request;
    return next(request);
  }
  const trace: MultiturnTrace = { window: fields.window, sentToLlm: fields.sentToLlm, view: request };
  const stored = request.state?.messages ?? [];
  try {
    return await next({ ...request, [TRACE]: trace });
  } finally {
    if (logsInfo(logger)) {
      // Read from the innermost request now: requests are not changed once handed on, so these are
      // the figures that request's view had when its middleware reported it.
      const unsummarizedDropped = unsummarizedOf(trace.view);
      const summary = summaryOf(trace.view);
      logger.info(
        formatMultiturnLine({
          threadMessages: stored.length,
          window: trace.window,
          sentToLlm: trace.sentToLlm,
          hasPrior: hasPriorAnswer(stored),
          unsummarizedDropped,
          userMemory: trace.userMemory,
          summary,
        }),
        {
          thread_msgs: stored.length,
          window: trace.window,
          sent_to_llm: trace.sentToLlm,
          ...(unsummarizedDropped === undefined ? {} : { unsummarized_dropped: unsummarizedDropped }),
          ...(trace.userMemory === undefined ? {} : { user_memory: trace.userMemory }),
          ...(summary === undefined
            ? {}
            : {
                summary_covers: summary.count,
                summary_from: summary.firstId,
                summary_through: summary.lastId,
                summary_passes: summary.passes,
              }),
        },
      );
    }
  }
}
