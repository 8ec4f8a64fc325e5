import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  checkEnvNames,
  DEFAULT_PROMPT_LANGUAGE,
  envBoolean,
  envChoice,
  envCountOrOff,
  envPositiveInt,
  envString,
  envWholeNumber,
  PROMPT_CONTEXT_MODES,
  PROMPT_LANGUAGES,
  parseOptions,
  promptContextModeSchema,
  promptLanguageSchema,
  THREADWISE_ENV,
  ThreadwiseConfigError,
} from "@threadwise/core";
import { type StrictModeRequirement, ThreadwiseStrictModeError } from "@threadwise/encryption";
import { KEEP_ENV, summarizeKeepFromEnv, summarizeTriggerFromEnv, summaryTriggerOptionSchema } from "@threadwise/summarize";
import { z } from "zod/v4";
import { redactConfig, withRedactedView } from "./redact.js";

/** Where threads are kept (spec R20). `in_memory` is lost when the process exits. */
export const MEMORY_BACKENDS = ["off", "in_memory", "sqlite", "postgres"] as const;
/** A {@link MEMORY_BACKENDS} value. */
export type MemoryBackend = (typeof MEMORY_BACKENDS)[number];

/** Connection profiles for PostgreSQL (spec R22); see `createMemoryPool`. */
export const PG_POOL_MODES = ["direct", "session", "transaction"] as const;
/** A {@link PG_POOL_MODES} value. */
export type PgPoolMode = (typeof PG_POOL_MODES)[number];

/** Fact extraction modes of `factRecall` (spec R15). */
export const FACTS_MODES = ["off", "heuristic", "llm"] as const;

/** Default connections per process (spec R22). */
export const DEFAULT_PG_POOL_MAX = 5;
/** Token budget of the preset's `recall` block when none is configured (`recallMaxTokens`). */
export const DEFAULT_RECALL_MAX_TOKENS = 300;

/** Names of the env twins of every {@link MemoryConfig} field. */
export const MEMORY_ENV = {
  backend: THREADWISE_ENV.backend,
  project: THREADWISE_ENV.project,
  windowSize: THREADWISE_ENV.windowSize,
  startOn: THREADWISE_ENV.startOn,
  maxHistoryTokens: THREADWISE_ENV.maxHistoryTokens,
  maxHistoryTokensOverflow: THREADWISE_ENV.maxHistoryTokensOverflow,
  summarize: THREADWISE_ENV.summarize,
  summarizeThreshold: THREADWISE_ENV.summarizeThreshold,
  factsMode: THREADWISE_ENV.factsMode,
  factRecallMaxItems: THREADWISE_ENV.factRecallMaxItems,
  recallMaxTokens: THREADWISE_ENV.recallMaxTokens,
  promptContextMode: THREADWISE_ENV.promptContextMode,
  promptLanguage: THREADWISE_ENV.promptLanguage,
  historyAware: THREADWISE_ENV.historyAware,
  persistTrimKeepGroups: THREADWISE_ENV.persistTrimKeepGroups,
  archive: THREADWISE_ENV.archive,
  workMemory: THREADWISE_ENV.workMemory,
  userMemory: THREADWISE_ENV.userMemory,
  userMemoryMaxTokens: THREADWISE_ENV.userMemoryMaxTokens,
  historySeedMaxMessages: THREADWISE_ENV.historySeedMaxMessages,
  sqlitePath: THREADWISE_ENV.sqlitePath,
  postgresDsn: THREADWISE_ENV.postgresDsn,
  postgresSchema: THREADWISE_ENV.postgresSchema,
  pgPoolMode: THREADWISE_ENV.pgPoolMode,
  pgPoolMax: THREADWISE_ENV.pgPoolMax,
  retentionDays: THREADWISE_ENV.retentionDays,
  strictMode: THREADWISE_ENV.strictMode,
  keyringPath: THREADWISE_ENV.keyring,
  allowPlaintext: THREADWISE_ENV.allowPlaintext,
  turnLeaseMs: THREADWISE_ENV.turnLeaseMs,
} as const;

/** Env variable of the DSN `threadwise migrate` uses (a role with DDL rights, spec R21). */
export const MIGRATION_DSN_ENV = THREADWISE_ENV.migrationDsn;

const positiveInt = z.number().int().positive();
/** Smallest `recallMaxTokens` but `false` (recall's own floor: a label line and one short message). */
const MIN_RECALL_MAX_TOKENS = 16;
// On each check of the number too, not only on the union: zod reports a number out of range with
// the member's own issue ("Too small"), which would leave out that `false` turns the part off.
const windowSizeError = {
  error: (issue: { input?: unknown }) =>
    `expected a positive integer (messages), or false for no window; got ${JSON.stringify(issue.input)}`,
};
const recallMaxTokensError = {
  error: (issue: { input?: unknown }) =>
    `expected an integer (tokens) from ${MIN_RECALL_MAX_TOKENS}, or false for no recall; got ${JSON.stringify(issue.input)}`,
};

/**
 * Everything `memoryStack` builds from (spec R20, R31). Every field is optional and has an env
 * twin ({@link MEMORY_ENV}); a value given in code wins over env.
 */
export const memoryConfigSchema = z.strictObject({
  /** Where threads are kept. `in_memory` is lost on restart; `off` adds no middleware and no checkpointer. @default "in_memory" */
  backend: z.enum(MEMORY_BACKENDS, {
    error: (issue) =>
      issue.input === "in-memory"
        ? `"in-memory" is not accepted here; write "in_memory"`
        : `expected one of ${MEMORY_BACKENDS.join(" | ")}, got ${JSON.stringify(issue.input)}`,
  }),
  /** Project name; the default database (and SQLite file) is `<project>_memory`. @default the `name` in ./package.json, else "threadwise" */
  project: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only")
    .optional(),
  /** Window of recent messages sent to the model (`windowTrim.maxMessages`), in messages; `false` for no window. @default 20 */
  windowSize: z.union([z.number().int(windowSizeError).positive(windowSizeError), z.literal(false)], windowSizeError),
  /**
   * Where every view starts (spec R4, R33), for the whole stack: `human` starts on a user message,
   * which Bedrock Converse, Gemini and Anthropic require; `any` keeps a few more messages when the
   * provider accepts any first role (OpenAI). @default "human"
   */
  startOn: z.enum(["human", "any"]),
  /** Token cap of the view (`tokenCap.maxTokens`), in tokens; unset means no cap. @default undefined */
  maxHistoryTokens: positiveInt.optional(),
  /**
   * What the token cap does when the newest turn and the run in progress alone are over
   * `maxHistoryTokens` (`tokenCap.overflow`): `truncate` shortens tool results inside it, oldest
   * first, and sends anyway with a warning if still over; `throw` sends nothing and fails with
   * `ThreadwiseTokenBudgetError` before the model call. @default "truncate"
   */
  maxHistoryTokensOverflow: z.enum(["truncate", "throw"]),
  /**
   * Summarize history that left the window (`summarize`, with the agent's own model unless
   * `models.summarize` is given): one summarizer call each time `summarizeThreshold - windowSize`
   * more messages have left the window. On by default so that what leaves the window is kept;
   * `false` for agents whose turns stand alone (classifiers, one-shot tools). @default true
   */
  summarize: z.boolean(),
  /**
   * Messages in the thread before the first summary (`summarize.threshold`); not used when
   * `summarizeTrigger` is set. Given in code with `summarize: false` in code, it is refused
   * (`ThreadwiseConfigError` naming `memory.summarizeThreshold`), as is `summarizeTrigger`;
   * `MEMORY_SUMMARIZE=false` in env is left alone. @default 40
   */
  summarizeThreshold: positiveInt,
  /**
   * When a summary is made, as summarize's `trigger` (LangChain's `summarizationMiddleware`
   * shape): one condition `{ tokens?, messages?, fraction? }` whose given fields must all be
   * reached, or a list of them of which any one suffices. It takes the place of
   * `summarizeThreshold` (give one of them in code, not both). Env twins
   * `MEMORY_SUMMARIZE_TRIGGER_TOKENS`, `_MESSAGES`, `_FRACTION` (one condition of the variables
   * set), which take the place of `MEMORY_SUMMARIZE_THRESHOLD`, as for standalone `summarize()`;
   * a `summarizeThreshold` given in code wins over them. `fraction` needs the model's context
   * window: its profile, else `MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS`.
   * @default undefined (the threshold decides)
   */
  summarizeTrigger: summaryTriggerOptionSchema.optional(),
  /** Fact extraction mode (`factRecall.mode`); `off` adds no fact middleware. @default "off" */
  factsMode: z.enum(FACTS_MODES),
  /** Facts recalled per model call (`factRecall.maxItems`). @default 3 */
  factRecallMaxItems: positiveInt,
  /**
   * Token budget of the `recall` block (`recall.maxTokens`, spec R35): messages that left the view
   * and facts, searched offline (BM25, no model call) for the newest user message, so exact
   * details a summary shortens (names, dates, numbers) come back when asked about. `false` for no
   * recall middleware (env `MEMORY_RECALL_MAX_TOKENS=0`). @default 300
   */
  recallMaxTokens: z.union(
    [z.number().int(recallMaxTokensError).min(MIN_RECALL_MAX_TOKENS, recallMaxTokensError), z.literal(false)],
    recallMaxTokensError,
  ),
  /** Where memory goes in the prompt (spec R8). @default "legacy_system" */
  promptContextMode: promptContextModeSchema,
  /**
   * Language of the labels and notes the middlewares add to prompts (`[Previous conversation
   * summary]` or `[이전 대화 요약]`, historyAware's note): `auto` (per model call, the newest user
   * messages' language), `en` or `ko`. @default "en" (core's `DEFAULT_PROMPT_LANGUAGE`)
   */
  promptLanguage: promptLanguageSchema,
  /** Note asking the model to use the earlier conversation (spec R7). @default true */
  historyAware: z.boolean(),
  /** Destructive trim of the stored thread to this many groups (spec R5); unset means off. Irreversible. @default undefined */
  persistTrimKeepGroups: positiveInt.optional(),
  /**
   * Keep every message while the checkpoint holds only a bounded hot part (issue 27,
   * `messageArchive`): summarized messages older than the window plus 4 groups move to an
   * archive in the same backend, so each step's cost stops growing with the thread. Recall,
   * summaries and `checkpointer.readThread()` read the archive. Edits by id of archived messages
   * and forks from before the last archiving are refused (`ThreadwiseArchivedMessageError`).
   * Off: nothing more moves and the checkpoint keeps what comes, as before; a thread archived
   * while it was on keeps its archived part, which recall, summaries, the window's count and
   * `readThread` still read. @default false
   */
  archive: z.boolean(),
  /** Work memory of completed responses (spec R18). @default false */
  workMemory: z.boolean(),
  /**
   * Memory across a user's threads (`@threadwise/user-memory`, spec R40): runs that name
   * `configurable.user_id` (or `context.user_id`) recall what the user's other threads learned.
   * Opt-in; the stack then also returns a `store` (PostgresStore on `postgres`, else InMemoryStore).
   * @default false
   */
  userMemory: z.boolean(),
  /** Token budget of the user-memory block (`userMemory.maxTokens`), in tokens. @default 300 */
  userMemoryMaxTokens: z.number().int().min(16),
  /** Seed empty threads from A2A `metadata.history`, newest N messages (spec R19); unset means off. @default undefined */
  historySeedMaxMessages: positiveInt.optional(),
  /** SQLite file for `backend: "sqlite"`. @default "./<project>_memory.sqlite" */
  sqlitePath: z.string().min(1).optional(),
  /** PostgreSQL DSN of the runtime role (no DDL rights). A DSN without a database gets `<project>_memory`. @default "postgresql://localhost:5432/<project>_memory" */
  postgresDsn: z.string().min(1).optional(),
  /** PostgreSQL schema holding the tables. @default "public" */
  postgresSchema: z.string().regex(/^[a-z_][a-z0-9_]*$/, "a lower-case SQL identifier"),
  /** Pool profile (spec R22): `direct` server, PgBouncer `session` or `transaction` pooling. @default "direct" */
  pgPoolMode: z.enum(PG_POOL_MODES),
  /** Connections per process, at most. The minimum is always 0. @default 5 */
  pgPoolMax: positiveInt,
  /** Threads idle this many days may be deleted by `retention`; required in strict mode. @default undefined */
  retentionDays: positiveInt.optional(),
  /** Strict mode (spec R30): postgres, a keyring and `retentionDays` all required. @default false */
  strictMode: z.boolean(),
  /** Keyring file for encryption at rest (spec R26). @default undefined */
  keyringPath: z.string().min(1).optional(),
  /**
   * Lets `backend: "postgres"` run without a keyring, storing plaintext (spec R30 requires a
   * keyring for postgres otherwise). Refused in strict mode. For local development and tests only.
   * @default false
   */
  allowPlaintext: z.boolean(),
  /**
   * Concurrent turns of one thread (spec R34, R38): the turn lease in milliseconds, renewed by a
   * heartbeat while the turn runs, so a writer killed mid-turn blocks its thread at most this long
   * (0: no lease; only the compare-and-set on the head). See `ThreadwiseSaverOptions.turnLeaseMs`.
   * @default 10000
   */
  turnLeaseMs: z.number().int().min(0).max(2_147_483_647),
});

/** A resolved memory configuration: {@link memoryConfigSchema}'s output with defaults applied. */
export type MemoryConfig = z.output<typeof memoryConfigSchema>;
/** What `memoryStack(config)` accepts: any subset of {@link MemoryConfig}. */
export type MemoryConfigInput = Partial<z.input<typeof memoryConfigSchema>>;

const DEFAULTS: Omit<MemoryConfig, "project"> = {
  backend: "in_memory",
  windowSize: 20,
  startOn: "human",
  maxHistoryTokensOverflow: "truncate",
  summarize: true,
  summarizeThreshold: 40,
  recallMaxTokens: DEFAULT_RECALL_MAX_TOKENS,
  factsMode: "off",
  factRecallMaxItems: 3,
  promptContextMode: "legacy_system",
  promptLanguage: DEFAULT_PROMPT_LANGUAGE,
  historyAware: true,
  workMemory: false,
  userMemory: false,
  userMemoryMaxTokens: 300,
  archive: false,
  postgresSchema: "public",
  pgPoolMode: "direct",
  pgPoolMax: DEFAULT_PG_POOL_MAX,
  strictMode: false,
  allowPlaintext: false,
  turnLeaseMs: 10_000,
};

/** A set but blank keyring path is refused: read as "unset" it would silently store plaintext (R26). */
function envKeyringPath(env: NodeJS.ProcessEnv): string | undefined {
  checkEnvNames(env);
  const raw = env[MEMORY_ENV.keyringPath];
  if (raw !== undefined && raw.trim() === "")
    throw new ThreadwiseConfigError(
      MEMORY_ENV.keyringPath,
      "is set but blank; give the keyring file's path, or unset it to store plaintext",
    );
  return raw;
}

/**
 * Reads every {@link MEMORY_ENV} variable that is set and returns the config it describes
 * (unset variables are left out, so defaults or code values apply). `MEMORY_WINDOW_SIZE=0`
 * turns the window off. Prints redacted, like {@link resolveMemoryConfig}'s result.
 *
 * @throws ThreadwiseConfigError naming the variable when a value is malformed
 *   (`MEMORY_BACKEND=in-memory` names `in_memory`).
 * @example
 * memoryConfigFromEnv({ MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: "/var/lib/app/memory.sqlite" })
 */
export function memoryConfigFromEnv(env: NodeJS.ProcessEnv = process.env): MemoryConfigInput {
  const backendRaw = envString(MEMORY_ENV.backend, env);
  if (backendRaw === "in-memory") throw new ThreadwiseConfigError(MEMORY_ENV.backend, `"in-memory" is not accepted; write "in_memory"`);
  const config: MemoryConfigInput = {
    backend: envChoice(MEMORY_ENV.backend, MEMORY_BACKENDS, env),
    project: envString(MEMORY_ENV.project, env),
    windowSize: envCountOrOff(MEMORY_ENV.windowSize, env, { unit: "messages", off: "no window" }),
    startOn: envChoice(MEMORY_ENV.startOn, ["human", "any"] as const, env),
    maxHistoryTokens: envPositiveInt(MEMORY_ENV.maxHistoryTokens, env),
    maxHistoryTokensOverflow: envChoice(MEMORY_ENV.maxHistoryTokensOverflow, ["truncate", "throw"] as const, env),
    summarize: envBoolean(MEMORY_ENV.summarize, env),
    summarizeThreshold: envPositiveInt(MEMORY_ENV.summarizeThreshold, env),
    summarizeTrigger: summarizeTriggerFromEnv(env),
    factsMode: envChoice(MEMORY_ENV.factsMode, FACTS_MODES, env),
    factRecallMaxItems: envPositiveInt(MEMORY_ENV.factRecallMaxItems, env),
    recallMaxTokens: envCountOrOff(MEMORY_ENV.recallMaxTokens, env, { unit: "tokens", off: "no recall", min: MIN_RECALL_MAX_TOKENS }),
    promptContextMode: envChoice(MEMORY_ENV.promptContextMode, PROMPT_CONTEXT_MODES, env),
    promptLanguage: envChoice(MEMORY_ENV.promptLanguage, PROMPT_LANGUAGES, env),
    historyAware: envBoolean(MEMORY_ENV.historyAware, env),
    persistTrimKeepGroups: envPositiveInt(MEMORY_ENV.persistTrimKeepGroups, env),
    archive: envBoolean(MEMORY_ENV.archive, env),
    workMemory: envBoolean(MEMORY_ENV.workMemory, env),
    userMemory: envBoolean(MEMORY_ENV.userMemory, env),
    userMemoryMaxTokens: envPositiveInt(MEMORY_ENV.userMemoryMaxTokens, env),
    historySeedMaxMessages: envPositiveInt(MEMORY_ENV.historySeedMaxMessages, env),
    sqlitePath: envString(MEMORY_ENV.sqlitePath, env),
    postgresDsn: envString(MEMORY_ENV.postgresDsn, env),
    postgresSchema: envString(MEMORY_ENV.postgresSchema, env),
    pgPoolMode: envChoice(MEMORY_ENV.pgPoolMode, PG_POOL_MODES, env),
    pgPoolMax: envPositiveInt(MEMORY_ENV.pgPoolMax, env),
    retentionDays: envPositiveInt(MEMORY_ENV.retentionDays, env),
    strictMode: envBoolean(MEMORY_ENV.strictMode, env),
    keyringPath: envKeyringPath(env),
    allowPlaintext: envBoolean(MEMORY_ENV.allowPlaintext, env),
    turnLeaseMs: envWholeNumber(MEMORY_ENV.turnLeaseMs, env, 2_147_483_647),
  };
  const set = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined)) as MemoryConfigInput;
  return withRedactedView(set, () => redactConfig(set));
}

/**
 * @throws ThreadwiseConfigError naming `option` (`memoryMiddleware.config`) when `config` is not an
 *   object, as a resolved config is (undefined, null, an array: `config.backend` failed as a
 *   TypeError naming nothing).
 */
export function assertResolvedConfig(config: unknown, option: string): asserts config is MemoryConfig {
  if (config === null || typeof config !== "object" || Array.isArray(config))
    throw new ThreadwiseConfigError(
      option,
      `expected a resolved MemoryConfig (resolveMemoryConfig()), received ${config === null ? "null" : Array.isArray(config) ? "an array" : typeof config}`,
    );
}

/** The project name: the `name` in `<cwd>/package.json` (scope and punctuation turned into `_`), else `threadwise`. */
export function defaultProjectName(cwd: string = process.cwd()): string {
  const file = join(cwd, "package.json");
  if (existsSync(file)) {
    try {
      const name = (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name;
      if (typeof name === "string" && name !== "") return name.replace(/^@/, "").replace(/[^A-Za-z0-9_]+/g, "_");
    } catch {
      // An unreadable package.json only costs the default name.
    }
  }
  return "threadwise";
}

/**
 * Resolves a config: `config` (code) over `env` over defaults, validated. Fills `project`,
 * `sqlitePath` and `postgresDsn` defaults (`<project>_memory`). The result prints redacted:
 * its `toJSON` and `util.inspect.custom` mask the DSN password (the fields themselves hold the
 * real values, for the driver).
 *
 * @throws ThreadwiseConfigError naming the field (`memory.backend`) or env variable.
 */
export function resolveMemoryConfig(config: MemoryConfigInput = {}, env: NodeJS.ProcessEnv = process.env): MemoryConfig {
  const code = stripUndefined(config);
  if (code.summarizeTrigger !== undefined && code.summarizeThreshold !== undefined)
    throw new ThreadwiseConfigError(
      "memory.summarizeTrigger",
      `give summarizeTrigger or summarizeThreshold, not both (summarizeThreshold: ${code.summarizeThreshold} is summarizeTrigger: { messages: ${code.summarizeThreshold} })`,
    );
  // The summary's schedule with the summary turned off, both in code: one of them is a mistake. A
  // `summarize` set by env is the deployment's choice (one config, summaries off here) and is left alone.
  for (const option of ["summarizeThreshold", "summarizeTrigger"] as const)
    if (code.summarize === false && code[option] !== undefined)
      throw new ThreadwiseConfigError(
        `memory.${option}`,
        "applies only with summarize on (got summarize: false, which makes no summary, so nothing reads it): remove it, or remove summarize: false",
      );
  const fromEnv = memoryConfigFromEnv(env);
  const merged: Record<string, unknown> = { ...DEFAULTS, ...fromEnv, ...code };
  // An option wins over its env twin: a threshold in code over MEMORY_SUMMARIZE_TRIGGER_*.
  if (code.summarizeThreshold !== undefined) delete merged.summarizeTrigger;
  // A value read from env that the schema refuses (MEMORY_RECALL_MAX_TOKENS=10) names the variable, not the option.
  const variables = Object.fromEntries(Object.entries(MEMORY_ENV).filter(([field]) => field in fromEnv && !(field in code)));
  const parsed = parseOptions("memory", memoryConfigSchema, merged, variables);
  assertSwitchedOn(code, fromEnv, parsed);
  assertKeepEnv(parsed, env);
  const project = parsed.project ?? defaultProjectName();
  assertStrictMode(parsed);
  const resolved: MemoryConfig = {
    ...parsed,
    project,
    sqlitePath: parsed.sqlitePath ?? `./${project}_memory.sqlite`,
    postgresDsn: withDefaultDatabase(parsed.postgresDsn ?? "postgresql://localhost:5432/", `${project}_memory`),
  };
  // JSON.stringify and console.log of the config show `postgresql://app:***@db/...` (spec R25).
  return withRedactedView(resolved, () => redactConfig(resolved));
}

/**
 * Settings of a part of the stack that is off unless turned on: `[option, the setting that turns
 * it on, its value then]`. An option given in code while that setting was given nowhere (neither
 * in code nor in env: its default leaves the part off) would be ignored without a word:
 * `memoryStack({ sqlitePath: "./chat.sqlite" })` kept every thread in memory, lost on restart.
 */
const SWITCHED_ON: readonly [keyof MemoryConfigInput, "backend" | "factsMode" | "userMemory", string][] = [
  ["sqlitePath", "backend", "sqlite"],
  ["postgresDsn", "backend", "postgres"],
  ["factRecallMaxItems", "factsMode", "heuristic"],
  ["userMemoryMaxTokens", "userMemory", "true"],
];

/**
 * @throws ThreadwiseConfigError naming the option (`memory.sqlitePath`) when it is given in code
 *   for a part that its switch, left at its default, keeps off ({@link SWITCHED_ON}). A switch set
 *   in code or env is the user's choice (one config for several backends), and is left alone.
 */
function assertSwitchedOn(
  code: Partial<MemoryConfigInput>,
  fromEnv: MemoryConfigInput,
  parsed: { backend: string; factsMode: string; userMemory: boolean },
): void {
  for (const [option, setting, on] of SWITCHED_ON) {
    if (code[option] === undefined || setting in code || setting in fromEnv) continue;
    const value = setting === "userMemory" ? "true" : JSON.stringify(on);
    throw new ThreadwiseConfigError(
      `memory.${option}`,
      `applies only with ${setting}: ${value} (got ${setting} ${JSON.stringify(parsed[setting])}, the default, which ignores it): add ${setting}: ${value} (or env ${MEMORY_ENV[setting]}), or remove it`,
    );
  }
}

/**
 * `MEMORY_SUMMARIZE_KEEP_*` set summarize's own window (its `keep`). With a window
 * (`windowSize`, `MEMORY_WINDOW_SIZE`) the stack's summary covers exactly what windowTrim leaves
 * out, so a keep would be silently ignored: refused instead, naming the variable. With
 * `windowSize: false` (`MEMORY_WINDOW_SIZE=0`) summarize keeps its own window and reads them.
 * @throws ThreadwiseConfigError naming the variable set.
 */
function assertKeepEnv(config: { summarize: boolean; windowSize: number | false }, env: NodeJS.ProcessEnv): void {
  if (!config.summarize || config.windowSize === false || summarizeKeepFromEnv(env) === undefined) return;
  const name = Object.values(KEEP_ENV).find((variable) => env[variable] !== undefined && env[variable] !== "") ?? KEEP_ENV.messages;
  throw new ThreadwiseConfigError(
    name,
    `is summarize's own window, which memoryStack does not use: its summary covers what its window (windowSize, ${MEMORY_ENV.windowSize}=${config.windowSize}) leaves out. Set the window with ${MEMORY_ENV.windowSize} (messages), or ${MEMORY_ENV.windowSize}=0 for no window, so that summarize keeps its own by ${name}`,
  );
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `dsn` as a URL, or `undefined` when it is not one (a socket path, key/value text: passed through untouched). */
function dsnUrl(dsn: string): URL | undefined {
  try {
    return new URL(dsn);
  } catch {
    return undefined;
  }
}

/**
 * Whether a PostgreSQL DSN names its database: a URL DSN does by its path
 * (`postgresql://app@db:5432/app_memory`; node-postgres reads the database from the path only).
 * `true` for a DSN that is not a URL (threadwise does not look into those).
 */
export function dsnNamesDatabase(dsn: string): boolean {
  const url = dsnUrl(dsn);
  return url === undefined || (url.pathname !== "" && url.pathname !== "/");
}

/** Returns `dsn` with `database` as its database when it names none ({@link dsnNamesDatabase}). */
export function withDefaultDatabase(dsn: string, database: string): string {
  const url = dsnUrl(dsn);
  if (url === undefined || dsnNamesDatabase(dsn)) return dsn;
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Spec R30. Strict mode needs postgres, a keyring and a positive retention; outside strict mode
 * postgres still needs a keyring unless `allowPlaintext` says otherwise.
 * @throws ThreadwiseStrictModeError (`@threadwise/encryption`) in strict mode, with `missing`
 *   listing every unmet requirement; the message names each option (`memory.backend`, ...), its env
 *   variable and the fix.
 * @throws ThreadwiseConfigError (`option` = `THREADWISE_MEMORY_KEYRING`) outside strict mode, for
 *   postgres without a keyring and without `allowPlaintext`: a setting to give, not strict mode's.
 */
export function assertStrictMode(config: Omit<MemoryConfig, "project"> & { project?: string }): void {
  if (config.strictMode) {
    const missing: StrictModeRequirement[] = [];
    const fixes: string[] = [];
    if (config.backend !== "postgres") {
      missing.push("postgres");
      fixes.push(`backend "postgres" (memory.backend or ${MEMORY_ENV.backend}=postgres, got ${JSON.stringify(config.backend)})`);
    }
    if (!config.keyringPath || config.allowPlaintext) {
      missing.push("keyring");
      fixes.push(
        config.allowPlaintext
          ? `encryption (memory.allowPlaintext and ${MEMORY_ENV.allowPlaintext} must be unset)`
          : `a keyring (memory.keyringPath or ${MEMORY_ENV.keyringPath}; create one with \`threadwise keyring create <path>\`)`,
      );
    }
    if (!config.retentionDays) {
      missing.push("retention");
      fixes.push(`a positive retention (memory.retentionDays or ${MEMORY_ENV.retentionDays})`);
    }
    // Named as the user set it: the code option and its env twin (a stack configured in code read
    // only env names).
    if (missing.length > 0)
      throw new ThreadwiseStrictModeError(
        missing,
        `strict mode (memory.strictMode or ${MEMORY_ENV.strictMode}=true) requires ${fixes.join(", ")}`,
      );
  }
  if (config.backend === "postgres" && !config.keyringPath && !config.allowPlaintext)
    throw new ThreadwiseConfigError(
      MEMORY_ENV.keyringPath,
      `backend "postgres" requires a keyring (memory.keyringPath or ${MEMORY_ENV.keyringPath}); create one with \`threadwise keyring create <path>\`, or set ${MEMORY_ENV.allowPlaintext}=true for local development`,
    );
}
