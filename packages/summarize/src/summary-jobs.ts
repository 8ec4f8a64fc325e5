import type { BaseMessage } from "@langchain/core/messages";
import { type SummaryRecord, sameMessage } from "@threadwise/core";

/** A summary being prepared after an answer, for one thread (`summarize({ background: true })`). */
interface SummaryJob {
  /** The summary the thread held when the job started. */
  original: SummaryRecord | undefined;
  /** The summary the job builds on: `original`, or `undefined` when it summarizes the stored messages again. */
  base: SummaryRecord | undefined;
  /** The messages it summarizes, as the stored thread held them when it started. */
  span: readonly BaseMessage[];
  /** Id of the user message of the turn that started the job. */
  turnId: string;
  /** Settles when the summarizer answered, failed or timed out; never rejects. */
  done: Promise<void>;
  result?: SummaryRecord;
  error?: unknown;
  settled: boolean;
}

/** What {@link SummaryJobs.take} hands back: the new summary, or the failure, the turn and the span it belongs to. */
export interface SettledSummaryJob {
  result?: SummaryRecord;
  error?: unknown;
  turnId: string;
  /** The summary the job built on. */
  base: SummaryRecord | undefined;
  /** The messages it summarized. */
  span: readonly BaseMessage[];
}

/** Same summary record: same coverage and text (a record another process wrote differs). */
function sameRecord(a: SummaryRecord | undefined, b: SummaryRecord | undefined): boolean {
  return (
    (a?.coveredThroughId ?? null) === (b?.coveredThroughId ?? null) &&
    (a?.coveredCount ?? 0) === (b?.coveredCount ?? 0) &&
    (a?.text ?? "") === (b?.text ?? "") &&
    a?.coveredDigests === b?.coveredDigests
  );
}

/**
 * Summaries prepared in the background, at most one per thread, held in process memory until the
 * next model call of the thread adopts them (and writes them with its `Command`). Nothing is
 * stored before that: a crash or a restart loses only the prepared text, and the next call finds
 * the summary due again and prepares it anew. Bounded: past `maxThreads` threads the oldest job is
 * forgotten (its thread prepares again when due).
 *
 * A job is adopted only for the thread it was made from (spec R37): the thread must still hold
 * the same summary and, right after what that summary covers, the very messages the job
 * summarized, unedited (same ids and content, {@link sameMessage}). After an edit in place, a
 * `RemoveMessage`, a fork or replay from another checkpoint, or another process's summary, the
 * job is dropped unused, so no summary covers content it never saw; the call then sees what a
 * fresh process sees, and the summary is prepared again when due.
 */
export class SummaryJobs {
  private readonly jobs = new Map<string, SummaryJob>();

  constructor(private readonly maxThreads: number) {}

  /** `true` while a job of the thread is running or waiting to be adopted. */
  has(threadId: string): boolean {
    return this.jobs.has(threadId);
  }

  /** The summary a settled job of the thread built on (`{ base }`), or `undefined` while none has settled. */
  settledBase(threadId: string): { base: SummaryRecord | undefined } | undefined {
    const job = this.jobs.get(threadId);
    return job?.settled ? { base: job.base } : undefined;
  }

  /**
   * Starts preparing a summary of `span` on top of `base` for the thread, which holds `original`
   * (`base` is `original`, or `undefined` when the summary is made again from the stored
   * messages); `run` makes it (and may throw).
   */
  start(
    threadId: string,
    original: SummaryRecord | undefined,
    base: SummaryRecord | undefined,
    span: readonly BaseMessage[],
    turnId: string,
    run: () => Promise<SummaryRecord>,
  ): void {
    if (this.jobs.size >= this.maxThreads) this.jobs.delete(this.jobs.keys().next().value as string);
    const job: SummaryJob = { original, base, span, turnId, settled: false, done: Promise.resolve() };
    job.done = run().then(
      (result) => {
        job.result = result;
        job.settled = true;
      },
      (error: unknown) => {
        job.error = error;
        job.settled = true;
      },
    );
    this.jobs.set(threadId, job);
  }

  /** Waits for the thread's job to settle (no-op without one). */
  async wait(threadId: string): Promise<void> {
    await this.jobs.get(threadId)?.done;
  }

  /**
   * Removes and returns the thread's settled job when it was made from the thread as it is now:
   * started while the thread held `current` (the summary it holds now), its base's covered
   * messages unchanged and its span the first messages of `uncovered(base)` (the stored messages
   * after what the job's base covers, system messages left out; `undefined` when a message the
   * base covers was edited or removed since) with the same ids and content. Any other settled job
   * is dropped and `undefined` returned; so is nothing when the job is still running. O(span)
   * comparisons plus what `uncovered` costs.
   */
  take(
    threadId: string,
    current: SummaryRecord | undefined,
    uncovered: (base: SummaryRecord | undefined) => readonly BaseMessage[] | undefined,
  ): SettledSummaryJob | undefined {
    const job = this.jobs.get(threadId);
    if (!job?.settled) return undefined;
    this.jobs.delete(threadId);
    if (!sameRecord(job.original, current)) return undefined;
    const pending = uncovered(job.base);
    if (pending === undefined || pending.length < job.span.length) return undefined;
    for (let i = 0; i < job.span.length; i += 1) if (!sameMessage(job.span[i], pending[i])) return undefined;
    return { result: job.result, error: job.error, turnId: job.turnId, base: job.base, span: job.span };
  }
}
