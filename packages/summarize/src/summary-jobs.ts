import type { SummaryRecord } from "@threadwise/core";

/** A summary being prepared after an answer, for one thread (`summarize({ background: true })`). */
interface SummaryJob {
  /** `coveredThroughId` and `coveredCount` of the summary the job builds on (`null`/0: none). */
  baseId: string | null;
  baseCount: number;
  /** Id of the user message of the turn that started the job. */
  turnId: string;
  /** Settles when the summarizer answered, failed or timed out; never rejects. */
  done: Promise<void>;
  result?: SummaryRecord;
  error?: unknown;
  settled: boolean;
}

/** What {@link SummaryJobs.take} hands back: the new summary, or the failure and the turn it belongs to. */
export interface SettledSummaryJob {
  result?: SummaryRecord;
  error?: unknown;
  turnId: string;
}

/**
 * Summaries prepared in the background, at most one per thread, held in process memory until the
 * next model call of the thread adopts them (and writes them with its `Command`). Nothing is
 * stored before that: a crash or a restart loses only the prepared text, and the next call finds
 * the summary due again and prepares it anew. Bounded: past `maxThreads` threads the oldest job is
 * forgotten (its thread prepares again when due).
 */
export class SummaryJobs {
  private readonly jobs = new Map<string, SummaryJob>();

  constructor(private readonly maxThreads: number) {}

  /** `true` while a job of the thread is running or waiting to be adopted. */
  has(threadId: string): boolean {
    return this.jobs.has(threadId);
  }

  /** Starts preparing a summary on top of `base` for the thread; `run` makes it (and may throw). */
  start(threadId: string, base: SummaryRecord | undefined, turnId: string, run: () => Promise<SummaryRecord>): void {
    if (this.jobs.size >= this.maxThreads) this.jobs.delete(this.jobs.keys().next().value as string);
    const job: SummaryJob = {
      baseId: base?.coveredThroughId ?? null,
      baseCount: base?.coveredCount ?? 0,
      turnId,
      settled: false,
      done: Promise.resolve(),
    };
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
   * Removes and returns the thread's settled job when it was built on `base` (the summary the
   * thread holds now). A job built on another summary (another process wrote one meanwhile) is
   * dropped and `undefined` returned; so is nothing when the job is still running.
   */
  take(threadId: string, base: SummaryRecord | undefined): SettledSummaryJob | undefined {
    const job = this.jobs.get(threadId);
    if (!job?.settled) return undefined;
    this.jobs.delete(threadId);
    if (job.baseId !== (base?.coveredThroughId ?? null) || job.baseCount !== (base?.coveredCount ?? 0)) return undefined;
    return { result: job.result, error: job.error, turnId: job.turnId };
  }
}
