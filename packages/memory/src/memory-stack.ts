import type { BaseStore, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import {
  checkEnvNames,
  optionsObject,
  parseOptions,
  resolveLogger,
  ThreadwiseConfigError,
  ThreadwiseUnknownOptionError,
} from "@threadwise/core";
import type { EncryptionOptions } from "@threadwise/encryption";
import { storeOptionSchema } from "@threadwise/user-memory";
import type { AgentMiddleware } from "langchain";
import type pg from "pg";
import { z } from "zod/v4";
import { assertEncryptionKeyring, createCheckpointer } from "./backends.js";
import {
  MEMORY_ENV,
  type MemoryConfig,
  type MemoryConfigInput,
  memoryConfigFromEnv,
  memoryConfigSchema,
  resolveMemoryConfig,
} from "./config.js";
import { type MemoryMiddlewareOptions, memoryMiddleware, memoryMiddlewareOptionsShape } from "./middleware-stack.js";
import { refuseAsMiddleware, refuseAsMiddlewareList } from "./not-a-middleware.js";
import { redactConfig, withRedactedView } from "./redact.js";
import type { ThreadwiseSaver } from "./threadwise-saver.js";
import { turnAdmission } from "./turn-admission.js";
import { ownedUserMemoryStore } from "./user-memory-store.js";

/** Options of {@link memoryStack}: a {@link MemoryConfigInput} plus code-only inputs. */
export interface MemoryStackOptions extends MemoryConfigInput, MemoryMiddlewareOptions {
  /**
   * Env to read the config's twins from, and every variable of the middlewares the stack builds
   * (`MEMORY_SUMMARIZE_MAX_PASSES`, `THREADWISE_LOG`, ...). When given it is the whole environment
   * of the stack: `process.env` is not read, nor merged in, so `memoryStack({ env: {} })` is the
   * defaults whatever the process sets (`THREADWISE_LOG` included). To add to the process's env,
   * pass `{ ...process.env, MEMORY_WINDOW_SIZE: "8" }`; to set the log level in code, `logger`.
   * Its names are checked first (core's `checkEnvNames`): an unknown `THREADWISE_*` name throws, a
   * near miss of a known name is reported to `logger` (by default at this env's `THREADWISE_LOG`).
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /** Serializer for the checkpointer (overrides the keyring's encrypting serializer). */
  serde?: SerializerProtocol;
  /** An existing pool for postgres; `close()` leaves it open. Refused (`memory.pool`) on another backend set in code or by default. */
  pool?: pg.Pool;
  /**
   * Encryption identity (`agentId`, `tenantId`, `principalId`) of the keyring's seals. Refused
   * (`memory.encryption`) with no keyring configured (`keyringPath`, `THREADWISE_MEMORY_KEYRING`)
   * unless `allowPlaintext` (code or `MEMORY_ALLOW_PLAINTEXT`) says plaintext is meant: without
   * one nothing is sealed.
   */
  encryption?: Omit<EncryptionOptions, "keyring">;
  /**
   * The store of user memory (any LangGraph `BaseStore`, with `batch`, `get`, `search`, `put`,
   * `delete` and `listNamespaces`); with `userMemory` on and none given, one is made (see
   * {@link MemoryStack.store}). Refused (`memory.store`) without user memory set in code or by default.
   */
  store?: BaseStore;
}

/** What `createAgent` takes: spread it, `createAgent({ model, ...memoryStack() })`. */
export interface MemoryStack {
  /** The configured middlewares, in the documented order. Empty for `off`. */
  middleware: AgentMiddleware[];
  /** The wrapped checkpointer; absent for `off`. */
  checkpointer?: ThreadwiseSaver;
  /**
   * With `userMemory` on: the store `createAgent({ store })` gets, from which user memory reads
   * (`store` when given, else PostgresStore on the memory database for `postgres`, tables from
   * `threadwise migrate`; else an InMemoryStore, lost on restart).
   */
  store?: BaseStore;
}

const isObject = (value: unknown): boolean => typeof value === "object" && value !== null;

/**
 * The code-only part of {@link MemoryStackOptions}, strict like every options schema: a misspelt
 * key (`models.summary`) throws `ThreadwiseUnknownOptionError` naming it. `memoryMiddleware`'s
 * options, plus the checkpointer's and store's.
 */
const codeOnlyOptionsSchema = z.strictObject({
  ...memoryMiddlewareOptionsShape,
  serde: z
    .custom((value) => isObject(value) && typeof (value as { dumpsTyped?: unknown }).dumpsTyped === "function", {
      message: "expected a SerializerProtocol (dumpsTyped, loadsTyped)",
    })
    .optional(),
  pool: z
    .custom((value) => isObject(value) && typeof (value as { connect?: unknown }).connect === "function", {
      message: "expected a pg.Pool",
    })
    .optional(),
  store: storeOptionSchema.optional(),
});
const CODE_ONLY: ReadonlySet<string> = new Set(Object.keys(codeOnlyOptionsSchema.shape));
/** Every key `memoryStack` takes: the config's, then the code-only ones. */
const ACCEPTED: readonly string[] = [...Object.keys(memoryConfigSchema.shape), ...CODE_ONLY];

/**
 * Splits options into the config part and the code-only part, and checks the code-only part.
 * @throws ThreadwiseUnknownOptionError naming `memory.<key>` for a key neither part takes, with the
 *   closest accepted key and all of them; ThreadwiseConfigError for a bad code-only value.
 */
function split(options: MemoryStackOptions): { config: MemoryConfigInput; rest: MemoryStackOptions } {
  const given = optionsObject<MemoryStackOptions>("memory", options);
  // Checked against both parts at once: the config's own check would neither list nor suggest the
  // code-only keys (`loger` named no `logger`).
  const unknown = Object.keys(given).find((key) => !ACCEPTED.includes(key));
  if (unknown !== undefined) throw new ThreadwiseUnknownOptionError(`memory.${unknown}`, unknown, ACCEPTED);
  const config: Record<string, unknown> = {};
  const codeOnly: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (CODE_ONLY.has(key)) codeOnly[key] = value;
    else config[key] = value;
  }
  parseOptions("memory", codeOnlyOptionsSchema, codeOnly);
  return { config: config as MemoryConfigInput, rest: given };
}

/** The options of `memoryStack` that `memoryMiddleware` takes (the rest are the config's and the checkpointer's). */
function middlewareOptions(options: MemoryStackOptions): MemoryMiddlewareOptions {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(memoryMiddlewareOptionsShape)) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked as MemoryMiddlewareOptions;
}

/**
 * Builds the whole memory stack from code and env in one call (spec R20, R31): the middlewares
 * the config turns on, in a fixed order (see `memoryMiddleware`), and the checkpointer of the
 * chosen backend. Values in code win over env; unset ones come from env
 * (`MEMORY_BACKEND`, `MEMORY_WINDOW_SIZE`, ...; see the README's table), then defaults.
 *
 * - With a checkpointer, `turnAdmission` comes first: a turn refused because another turn of the
 *   thread is running fails before its first model call (spec R38).
 * - `off`: no middleware and no checkpointer.
 * - `in_memory` (default): MemorySaver; **lost on restart**.
 * - `sqlite`: a SQLite file (`MEMORY_SQLITE_PATH`, default `./<project>_memory.sqlite`).
 * - `postgres`: PostgreSQL (`POSTGRES_MEMORY_DSN`); the schema must have been created by
 *   `threadwise migrate` (the runtime never runs DDL); the first use checks its version. Call
 *   `await stack.checkpointer?.ready()` at start-up to fail fast.
 *
 * @throws ThreadwiseConfigError naming the field or env variable (e.g. `memory.backend` for
 *   `"in-memory"`, which names `in_memory`), or the unmet strict-mode requirements (R30), or
 *   `memory.encryption` given with no keyring and without `allowPlaintext` (nothing would be sealed);
 *   ThreadwiseUnknownOptionError for a key it does not take, with the closest one (`loger` -> `logger`).
 * @example
 * const agent = createAgent({ model, tools, ...memoryStack() });
 * const agent2 = createAgent({ model, ...memoryStack({ backend: "sqlite", sqlitePath: "./memory.sqlite", summarize: true }) });
 */
export function memoryStack(options: MemoryStackOptions = {}): MemoryStack {
  const { config: input, rest } = split(options);
  const env = rest.env ?? process.env;
  // First, so a near miss is reported to the stack's own logger.
  checkEnvNames(env, rest.logger);
  const config = resolveMemoryConfig(input, env);
  assertCodeOnlyUsed(rest, input, env, config);
  return buildMemoryStack(config, rest);
}

/**
 * Code-only options read by one part of the stack only: the option, whether it was given, the
 * switch that turns that part on, the value it needs, and whether the resolved config has it. One
 * given for a part its switch keeps off would be ignored without a word.
 */
const CODE_ONLY_SWITCHES: readonly {
  option: string;
  given: (options: MemoryStackOptions) => boolean;
  setting: "summarize" | "workMemory" | "factsMode" | "userMemory" | "backend";
  needs: string;
  on: (config: MemoryConfig) => boolean;
}[] = [
  {
    option: "models.summarize",
    given: (o) => o.models?.summarize !== undefined,
    setting: "summarize",
    needs: "summarize: true",
    on: (c) => c.summarize,
  },
  {
    option: "models.workMemory",
    given: (o) => o.models?.workMemory !== undefined,
    setting: "workMemory",
    needs: "workMemory: true",
    on: (c) => c.workMemory,
  },
  {
    option: "models.facts",
    given: (o) => o.models?.facts !== undefined,
    setting: "factsMode",
    needs: 'factsMode: "llm"',
    on: (c) => c.factsMode === "llm",
  },
  { option: "store", given: (o) => o.store !== undefined, setting: "userMemory", needs: "userMemory: true", on: (c) => c.userMemory },
  {
    option: "pool",
    given: (o) => o.pool !== undefined,
    setting: "backend",
    needs: 'backend: "postgres"',
    on: (c) => c.backend === "postgres",
  },
];

/**
 * @throws ThreadwiseConfigError naming `memory.<option>` when a code-only option is given for a
 *   part that does not read it (`models.summarize` with `summarize: false`, `models.workMemory`
 *   with work memory off, `models.facts` without `factsMode: "llm"`, `store` without user memory,
 *   `pool` on a backend other than `postgres`) and that switch was set in code or left at its
 *   default. A switch set by env (`MEMORY_SUMMARIZE=false`, `MEMORY_BACKEND`) is the deployment's
 *   choice (one code for several deployments), and is left alone, as for `summarizeThreshold`.
 */
function assertCodeOnlyUsed(options: MemoryStackOptions, code: MemoryConfigInput, env: NodeJS.ProcessEnv, config: MemoryConfig): void {
  const given = CODE_ONLY_SWITCHES.filter((entry) => entry.given(options) && !entry.on(config));
  if (given.length === 0) return;
  const fromEnv = memoryConfigFromEnv(env);
  for (const { option, setting, needs } of given) {
    const inCode = code[setting] !== undefined;
    if (!inCode && fromEnv[setting] !== undefined) continue;
    throw new ThreadwiseConfigError(
      `memory.${option}`,
      `applies only with ${needs} (got ${setting}: ${JSON.stringify(config[setting])}${inCode ? "" : ", the default"}, which does not read it, so it would be ignored): add ${needs} (or env ${MEMORY_ENV[setting]}), or remove it`,
    );
  }
}

/**
 * {@link memoryStack} for an already resolved config. The stack prints redacted: `toJSON` and
 * `util.inspect.custom` (both non-enumerable, so spreading it into `createAgent` is unchanged)
 * show the middleware names, the redacted config and a description of the checkpointer, never
 * the DSN password or key material.
 */
export function buildMemoryStack(config: MemoryConfig, options: MemoryStackOptions = {}): MemoryStack {
  // Before the checkpointer or the store opens anything (a file, a pool), naming the stack's option.
  if (config.backend !== "off") assertEncryptionKeyring(config, options.encryption);
  // A store made here is closed with the checkpointer (a run on it afterwards fails with
  // ThreadwiseClosedError naming it); a store you pass is yours to close.
  const owned =
    config.userMemory && config.backend !== "off" && !options.store
      ? ownedUserMemoryStore(config, { pool: options.pool, logger: options.logger, env: options.env })
      : undefined;
  const checkpointer = createCheckpointer(config, {
    closeAlso: owned?.close,
    serde: options.serde,
    pool: options.pool,
    encryption: options.encryption,
    env: options.env,
    logger: options.logger,
  });
  // First, so a refused turn stops before any other hook or model call runs (spec R38).
  const middleware = refuseAsMiddleware(
    [...(checkpointer ? [turnAdmission(checkpointer)] : []), ...memoryMiddleware(config, middlewareOptions(options), checkpointer)],
    "memoryStack().middleware (an array of middlewares)",
    "spread it, middleware: [...stack.middleware, ...yours], and pass checkpointer: stack.checkpointer (or spread the whole stack, createAgent({ model, ...stack }))",
  );
  const store = config.userMemory && config.backend !== "off" ? (options.store ?? owned?.store) : undefined;
  // The threads survive a restart on SQLite; user memory in the InMemoryStore made here does not.
  if (config.userMemory && config.backend === "sqlite" && !options.store)
    resolveLogger(options.logger, options.env).warn(
      'memoryStack: userMemory on sqlite keeps user memory in an InMemoryStore, lost on restart (the threads are not); pass `store` for a durable one (LangGraph.js has no SQLite store: a PostgresStore, see "Durable user memory beside a SQLite file" in @threadwise/memory\'s README)',
      { backend: "sqlite", store: "InMemoryStore" },
    );
  const stack: MemoryStack = { middleware, ...(checkpointer ? { checkpointer } : {}), ...(store ? { store } : {}) };
  // `middleware: [memoryStack()]` (no type check in JavaScript) would build an agent without memory, silently.
  const what = "memoryStack() (an object of createAgent options: middleware, checkpointer, store)";
  const fix =
    "spread it into createAgent's options, createAgent({ model, ...memoryStack() }), and add your own middlewares after its own: createAgent({ ...stack, model, middleware: [...stack.middleware, ...yours] })";
  refuseAsMiddleware(stack, what, fix);
  // `middleware: memoryStack()` failed in LangChain with a TypeError naming nothing of ours.
  refuseAsMiddlewareList(stack, what, fix);
  return withRedactedView(stack, () => ({
    middleware: middleware.map((m) => m.name),
    checkpointer: checkpointer?.toJSON(),
    ...(store ? { store: store.constructor?.name ?? "BaseStore" } : {}),
    config: redactConfig(config),
  }));
}
