import { z } from "zod/v4";
import { THREADWISE_ENV } from "./env-names.js";

/**
 * Where threadwise writes its log lines. Any object with `info` and `warn` works (console, pino,
 * winston). Fields are plain JSON-safe values and never hold message text, DSNs or key material.
 * Most lines also give their fields in the text (`multiturn: thread_msgs=3 ...` with
 * `{ thread_msgs: 3, ... }`), so a structured logger can index them; `console` itself is
 * written through {@link resolveLogger}'s one-line form, which prints each value once.
 */
export interface ThreadwiseLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** The `info` of {@link silentLogger} and of the default logger when info lines are off. */
const noInfo = (): void => {};

/** A logger that writes nothing. */
export const silentLogger: ThreadwiseLogger = { info: noInfo, warn() {} };

/**
 * `false` when `logger` is one of threadwise's own loggers with info lines off (`false`, or the
 * default without `THREADWISE_LOG=info`), so a caller can skip building an info line nobody
 * reads. `true` for any logger given by the application.
 */
export function logsInfo(logger: ThreadwiseLogger): boolean {
  return logger.info !== noInfo;
}

/**
 * One console line for a log call: the message, then as JSON the fields its text does not already
 * give as `key=value` (`-` standing for `null`), e.g. `user_memory: on {"thread_id":"t1"}`.
 */
export function consoleLine(message: string, fields?: Record<string, unknown>): string {
  if (!fields) return message;
  // Whole words only: `thread_id=t12` gives neither `id=t12` nor `thread_id=t1`.
  const words = new Set(message.split(/\s+/));
  const inText = (key: string, value: unknown) => words.has(`${key}=${String(value)}`) || (value === null && words.has(`${key}=-`));
  const rest = Object.entries(fields).filter(([key, value]) => !inText(key, value));
  return rest.length === 0 ? message : `${message} ${JSON.stringify(Object.fromEntries(rest))}`;
}

// The console is read at each call (not bound once), so a test's spy or a replaced console sees it.
const consoleLogger: ThreadwiseLogger = {
  info: (message, fields) => console.info(consoleLine(message, fields)),
  warn: (message, fields) => console.warn(consoleLine(message, fields)),
};

/**
 * The logger to use: the given one, or the default. `console` is written one line per call
 * ({@link consoleLine}), as the default writes. The default is silent for info lines unless
 * env `THREADWISE_LOG` is `info` or `debug`, and prints warnings unless `THREADWISE_LOG` is
 * `silent` or `off`. Pass `false` for fully silent.
 *
 * @param env where `THREADWISE_LOG` is read (a middleware's `env` option, `memoryStack({ env })`).
 *   @default process.env
 */
export function resolveLogger(logger?: ThreadwiseLogger | false, env: NodeJS.ProcessEnv = process.env): ThreadwiseLogger {
  if (logger === false) return silentLogger;
  // `logger: console` printed every value twice, once in the text and once in the fields object
  // (which Node spreads over several lines past 72 characters): one line each instead.
  if (logger === console) return consoleLogger;
  if (logger) return logger;
  // Its value is checked with every other variable's name (`checkEnvNames`, env.ts).
  const level = (env[THREADWISE_ENV.log]?.trim() || "warn").toLowerCase();
  if (level === "silent" || level === "off") return silentLogger;
  if (level === "info" || level === "debug") return consoleLogger;
  return { info: noInfo, warn: consoleLogger.warn };
}

/** Fields of the multiturn line (spec R6). */
export interface MultiturnFields {
  /** Messages in the stored thread. */
  threadMessages: number;
  /**
   * The configured window: a count of messages (`20`), a token cap (`4000tok`), or both joined
   * outermost first when several middlewares shape the view (`20+4000tok`).
   */
  window: number | string;
  /** Messages in the view sent to the model. */
  sentToLlm: number;
  /** Whether the thread holds an earlier AI message. */
  hasPrior: boolean;
  /**
   * Messages neither in the view nor covered by the summary (dropped by a hard cap past the
   * summary's coverage, spec R33). Only when summarize is in the stack; then the line ends with
   * `unsummarized_dropped=<n>`.
   */
  unsummarizedDropped?: number;
  /**
   * State of cross-thread user memory for this call (spec R40), when `userMemory` is in the stack:
   * `on` (the user's memory was read), `no_user_id` (the run named no user: no cross-thread memory),
   * `no_store` or `store_error` (the turn went on without it). Then the line ends with `user_memory=<v>`.
   */
  userMemory?: string;
  /**
   * Provenance of the summary in the prompt (issue 23): then the line ends with
   * `summary_covers=<count> summary_from=<first id> summary_through=<last id> summary_passes=<n>`.
   */
  summary?: { firstId: string | null; lastId: string | null; count: number; passes: number };
}

/**
 * Formats the R6 line: `multiturn: thread_msgs=<stored> window=<w> sent_to_llm=<n> has_prior=<bool>`,
 * plus ` unsummarized_dropped=<n>` when summarize is in the stack, ` user_memory=<state>` when
 * user memory is, and the summary's provenance (`summary_covers=...`) when a summary is placed.
 */
export function formatMultiturnLine(fields: MultiturnFields): string {
  let line = `multiturn: thread_msgs=${fields.threadMessages} window=${fields.window} sent_to_llm=${fields.sentToLlm} has_prior=${fields.hasPrior}`;
  if (fields.unsummarizedDropped !== undefined) line += ` unsummarized_dropped=${fields.unsummarizedDropped}`;
  if (fields.userMemory !== undefined) line += ` user_memory=${fields.userMemory}`;
  const summary = fields.summary;
  if (summary)
    line += ` summary_covers=${summary.count} summary_from=${summary.firstId ?? "-"} summary_through=${summary.lastId ?? "-"} summary_passes=${summary.passes}`;
  return line;
}

/** `true` for `false` or an object with `info()` and `warn()` functions: what a `logger` option accepts. */
export function isLoggerOption(value: unknown): value is ThreadwiseLogger | false {
  return (
    value === false ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as { info?: unknown }).info === "function" &&
      typeof (value as { warn?: unknown }).warn === "function")
  );
}

/**
 * The zod schema of every middleware's `logger` option: any `{ info, warn }` object, or `false`
 * for none. Optional; the error names the option through `parseOptions`.
 */
export const loggerOptionSchema = z
  .custom<ThreadwiseLogger | false>(isLoggerOption, { message: "expected a logger with info() and warn(), or false" })
  .optional();
