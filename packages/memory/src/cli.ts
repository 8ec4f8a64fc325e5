import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { envChoice, envString, parseWholeNumber, ThreadwiseConfigError, ThreadwiseError } from "@threadwise/core";
import { loadKeyring, PRINCIPAL_ID_ENV, TENANT_ENV } from "@threadwise/encryption";
import { Command, CommanderError, Option } from "commander";
import {
  defaultProjectName,
  dsnNamesDatabase,
  MEMORY_ENV,
  type MemoryConfigInput,
  MIGRATION_DSN_ENV,
  PG_POOL_MODES,
  resolveMemoryConfig,
} from "./config.js";
import { DEFAULT_ERASE_BATCH_SIZE, type EraseTenantReport, eraseTenant } from "./erase-tenant.js";
import { eraseUser, userMemoryRetention } from "./erase-user.js";
import { exportThread } from "./export-thread.js";
import { addKeyringCommands } from "./keyring-commands.js";
import { migrate } from "./pg-migrations.js";
import { assertSchemaName } from "./pg-thread-registry.js";
import { progressBar } from "./progress-bar.js";
import { type PruneReport, prune, retention } from "./prune.js";
import { dsnSecrets, redactConfig, redactSecrets } from "./redact.js";
import { normalizeThreadId } from "./thread-id.js";

/** This package's version (`threadwise --version`), from its package.json one folder above `src/` and `dist/`. */
const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Exit code of a command line the CLI refuses before doing anything (a bad flag value). */
export const CLI_USAGE_EXIT_CODE = 2;

/** Where the CLI writes; defaults to the process streams. */
export interface CliIo {
  env?: NodeJS.ProcessEnv;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Show progress bars (default: when stderr is a TTY). */
  progress?: boolean;
}

/** A flag taking a whole number >= 1 in decimal digits (`""`, `0x10`, `1e3`, `-1`, `0` refused). */
function positiveWhole(flag: string) {
  return (value: string) => parseWholeNumber(value, flag, { min: 1, max: 1_000_000 });
}

/** `--schema`: a plain SQL identifier, checked before any connection is opened. */
function schemaName(flag: string) {
  return (value: string) => assertSchemaName(value, flag);
}

/** `--thread-id`: the one thread-id rule of every backend. */
function threadIdFlag(value: string): string {
  return normalizeThreadId(value, "--thread-id");
}

function printReport(report: PruneReport, out: (text: string) => void, json: boolean): void {
  if (json) {
    out(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const rows = report.dryRun
    ? report.candidates.map((c) => `${c.threadId}\t${c.updatedAt.toISOString()}\t${c.checkpoints}\t${c.blobs}\t${c.writes}\t${c.archived}`)
    : report.outcomes.map(
        (o) => `${o.threadId}\t${o.status}\t${o.counts.checkpoints}\t${o.counts.blobs}\t${o.counts.writes}\t${o.counts.archived}`,
      );
  out(`${report.dryRun ? "thread_id\tupdated_at" : "thread_id\tstatus"}\tcheckpoints\tblobs\twrites\tarchived\n`);
  for (const row of rows) out(`${row}\n`);
  const { threads, checkpoints, blobs, writes, archived } = report.totals;
  if (report.thread) {
    const { threadId, status, deletedAt } = report.thread;
    const why =
      status === "already_deleted"
        ? `was already deleted${deletedAt ? ` at ${deletedAt.toISOString()}` : ""} (its tombstone stays)`
        : status === "not_found"
          ? "was not found (no checkpoint and no tombstone under that id)"
          : `was written after the --older-than-days cutoff (${report.idleBefore?.toISOString()})`;
    out(`thread ${JSON.stringify(threadId)} ${why}; nothing ${report.dryRun ? "would be" : "was"} deleted.\n`);
    return;
  }
  if (!report.dryRun && report.candidates.length === 0) {
    out("deleted 0 thread(s): no thread matched, nothing was deleted.\n");
    return;
  }
  out(
    report.dryRun
      ? `dry run: ${threads} thread(s) would be deleted (${checkpoints} checkpoints, ${blobs} blobs, ${writes} writes, ${archived} archived messages). Nothing was deleted; re-run with --apply to delete (irreversible).\n`
      : `deleted ${threads} thread(s) (${checkpoints} checkpoints, ${blobs} blobs, ${writes} writes, ${archived} archived messages); ${report.outcomes.length - threads} skipped (written meanwhile or already deleted); tombstones written.\n`,
  );
}

/**
 * The `threadwise` command line (spec R21-R25, R40): `migrate`, `prune`, `retention`,
 * `erase-user`, `export`, `erase-tenant`, `user-memory-retention`, `config`, `keyring create|reencrypt`. No option shows a default taken from env, so `--help` never prints
 * a DSN; every error is printed with DSN passwords replaced by `***`.
 */
export function createCli(io: CliIo = {}): Command {
  const env = io.env ?? process.env;
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  /**
   * The DSN of `--dsn`, else of env `variable`, refused when it names no database: the CLI uses a
   * DSN as given (PostgreSQL would connect to the role's default database, not the stack's, where
   * `memoryStack` adds `<project>_memory`), so a migrate or prune would act on another database.
   * @throws ThreadwiseConfigError naming `--dsn` or the variable, before any connection.
   */
  const namedDsn = (flag: string | undefined, variable: string): string | undefined => {
    const dsn = flag ?? envString(variable, env);
    if (dsn === undefined || dsnNamesDatabase(dsn)) return dsn;
    const project = envString(MEMORY_ENV.project, env) ?? defaultProjectName();
    throw new ThreadwiseConfigError(
      flag !== undefined ? "--dsn" : variable,
      `names no database; the CLI uses a DSN as given, and PostgreSQL would connect to the role's default database, not the one memoryStack uses (it adds ${project}_memory to such a DSN): name the database in the DSN, e.g. .../${project}_memory`,
    );
  };
  const program = new Command("threadwise")
    .description("Operations for threadwise memory: migrations, pruning, retention, keyrings, config.")
    .version(VERSION, "-V, --version", "print the version of @threadwise/memory")
    .configureOutput({ writeOut: out, writeErr: err })
    .exitOverride();

  program
    .command("migrate")
    .description(
      `Create or upgrade the PostgreSQL memory schema (all DDL). Uses a role with DDL rights: --dsn or env ${MIGRATION_DSN_ENV}. A SQLite file needs no migrate: memoryStack (its saver) creates and upgrades its tables when it opens the file.`,
    )
    .option("--dsn <dsn>", `migration DSN (default: env ${MIGRATION_DSN_ENV})`)
    .option("--schema <name>", "schema for the tables (default: env MEMORY_PG_SCHEMA, else public)", schemaName("--schema"))
    .option("--grant-to <role...>", "runtime role(s) to grant SELECT/INSERT/UPDATE/DELETE (no DDL)")
    // Accepted only to say why: the other commands take --sqlite, so a SQLite user tries it here too.
    .addOption(new Option("--sqlite <path>").hideHelp())
    .action(async (opts: { dsn?: string; schema?: string; grantTo?: string[]; sqlite?: string }) => {
      if (opts.sqlite !== undefined)
        throw new ThreadwiseConfigError(
          "--sqlite",
          'migrate is for PostgreSQL only; a SQLite file needs none: memoryStack({ backend: "sqlite", sqlitePath }) (its saver) creates and upgrades the file\'s tables when it opens it, so nothing was changed',
        );
      const dsn = namedDsn(opts.dsn, MIGRATION_DSN_ENV);
      if (!dsn) throw new ThreadwiseConfigError("--dsn", `give --dsn DSN (a role with DDL rights) or set ${MIGRATION_DSN_ENV}`);
      const result = await migrate({ dsn, schema: opts.schema ?? envString(MEMORY_ENV.postgresSchema, env), grantTo: opts.grantTo });
      out(
        `${result.applied.length === 0 ? "schema already current" : `applied ${result.applied.join(", ")}`}; checkpoint v${result.checkpoint}, store v${result.store}, threadwise v${result.threadwise}\n`,
      );
    });

  /** The store flags (`--dsn`, `--sqlite`, `--schema`), read by {@link targetOf}. */
  const store = (command: Command) =>
    command
      .option("--dsn <dsn>", `PostgreSQL DSN (default: env ${MEMORY_ENV.postgresDsn} when --sqlite is not given)`)
      .option("--sqlite <path>", "SQLite memory file instead of PostgreSQL")
      .option("--schema <name>", "PostgreSQL schema (default: env MEMORY_PG_SCHEMA, else public)", schemaName("--schema"));
  const target = (command: Command) => store(command).option("--json", "print the report as JSON");
  type TargetOpts = { dsn?: string; sqlite?: string; schema?: string; json?: boolean };
  const targetOf = (opts: TargetOpts) =>
    opts.sqlite
      ? { sqlitePath: opts.sqlite }
      : {
          dsn: namedDsn(opts.dsn, MEMORY_ENV.postgresDsn),
          schema: opts.schema ?? envString(MEMORY_ENV.postgresSchema, env),
          poolMode: envChoice(MEMORY_ENV.pgPoolMode, PG_POOL_MODES, env),
        };

  /** `--keyring`, `--agent-id`, `--principal-id`: the keyring and identity `what` sealed with and for. */
  const sealedFor = (command: Command, what: string, why = "") =>
    command
      .option("--keyring <path>", `keyring ${what} sealed with (default: env ${MEMORY_ENV.keyringPath})${why}`)
      .option("--agent-id <id>", `agent id ${what} sealed for (the stack's encryption.agentId; default: default)`)
      .option("--principal-id <id>", `principal id ${what} sealed for (default: env THREADWISE_MEMORY_PRINCIPAL_ID, else default)`);

  /** Runs a deleting command with its progress bar (stopped before the report prints, and on failure). */
  const withProgress = async (
    label: string,
    opts: TargetOpts,
    run: (onProgress: (done: number, total: number) => void) => Promise<PruneReport>,
  ): Promise<void> => {
    const bar = progressBar(io, label);
    try {
      const report = await run(bar.update);
      bar.stop();
      printReport(report, out, Boolean(opts.json));
    } finally {
      bar.stop();
    }
  };

  target(
    program
      .command("prune")
      .description("List threads to delete (dry run), or delete them with --apply. Deletion is irreversible and leaves tombstones.")
      .option("--older-than-days <n>", "threads idle at least N days (a whole number >= 1)", positiveWhole("--older-than-days"))
      .option("--thread-id <id>", "one thread", threadIdFlag)
      .option("--apply", "delete for real (default: dry run)"),
  ).action((opts: TargetOpts & { olderThanDays?: number; threadId?: string; apply?: boolean }) =>
    withProgress("prune", opts, (onProgress) =>
      prune({ ...targetOf(opts), olderThanDays: opts.olderThanDays, threadId: opts.threadId, apply: opts.apply, onProgress }),
    ),
  );

  target(
    program
      .command("retention")
      .description(`Delete threads idle for N days (env ${MEMORY_ENV.retentionDays}), re-checking each under a lock. Irreversible.`)
      .option("--days <n>", "idle days (a whole number >= 1)", positiveWhole("--days")),
  ).action(async (opts: TargetOpts & { days?: number }) => {
    const fromEnv = envString(MEMORY_ENV.retentionDays, env);
    if (opts.days === undefined && fromEnv === undefined)
      throw new ThreadwiseConfigError("--days", `give --days N or set ${MEMORY_ENV.retentionDays}`);
    const days = opts.days ?? parseWholeNumber(fromEnv as string, MEMORY_ENV.retentionDays, { min: 1, max: 1_000_000 });
    await withProgress("retention", opts, (onProgress) => retention({ ...targetOf(opts), days, onProgress }));
  });

  target(
    sealedFor(
      program
        .command("erase-user")
        .description(
          "Erase one user's cross-thread memory (user-memory store items; PostgreSQL: its PostgresStore) and, with --threads, the user's threads. Dry run unless --apply. Irreversible.",
        )
        .requiredOption("--user-id <id>", "the user (the user_id runs named)")
        .option("--tenant-id <id>", "the user's tenant (default: env THREADWISE_MEMORY_TENANT_ID, else default)")
        .option("--threads", "also delete the threads the user's items name, and those given with --thread-id")
        .option("--thread-id <id...>", "more threads of the user to delete with --threads", (value: string, previous: string[] = []) => [
          ...previous,
          threadIdFlag(value),
        ]),
      "the items were",
      ", to read their thread ids",
    ).option("--apply", "erase for real (default: dry run)"),
  ).action(
    async (
      opts: TargetOpts & {
        userId: string;
        tenantId?: string;
        threads?: boolean;
        threadId?: string[];
        keyring?: string;
        agentId?: string;
        principalId?: string;
        apply?: boolean;
      },
    ) => {
      const keyring =
        opts.keyring !== undefined
          ? loadKeyring(opts.keyring, env, "--keyring")
          : envString(MEMORY_ENV.keyringPath, env) !== undefined
            ? loadKeyring(undefined, env)
            : undefined;
      const principalId = opts.principalId ?? envString(PRINCIPAL_ID_ENV, env);
      const report = await eraseUser({
        ...targetOf(opts),
        userId: opts.userId,
        tenantId: opts.tenantId ?? envString(TENANT_ENV, env),
        threads: opts.threads,
        threadIds: opts.threadId,
        ...(keyring ? { keyring } : {}),
        ...(opts.agentId !== undefined ? { agentId: opts.agentId } : {}),
        ...(principalId !== undefined ? { principalId } : {}),
        apply: opts.apply,
      });
      if (opts.json) out(`${JSON.stringify(report, null, 2)}\n`);
      else {
        // A SQLite target has no store of user memory: say so rather than "0 item(s)", and that its
        // threads are then only the --thread-id ones (the items, which name the others, were not read).
        const noStore = report.storeSearched
          ? ""
          : " (no store of user memory searched: --sqlite holds threads only, so the user's items and the threads they name are not known; give the threads with --thread-id, or call eraseUser({ sqlitePath, store, userId }) with the application's store)";
        // Why a known thread was not deleted, as prune says it for --thread-id.
        const notDeleted = report.threads
          .filter((t) => t.status !== "deleted")
          .map(
            (t) =>
              `${JSON.stringify(t.threadId)} ${t.status === "not_found" ? "not found" : t.status === "already_deleted" ? "already deleted" : "written meanwhile"}`,
          );
        const whyNot = notDeleted.length > 0 ? ` (not deleted: ${notDeleted.join(", ")})` : "";
        out(
          report.dryRun
            ? `dry run: user ${JSON.stringify(report.userId)} of tenant ${JSON.stringify(report.tenantId)} has ${report.items} user-memory item(s) and ${report.threadIds.length} known thread(s)${noStore}${report.unreadableItems > 0 ? ` (${report.unreadableItems} item(s) sealed and unreadable without their keyring: --keyring; their threads are not known)` : ""}. Nothing was erased; re-run with --apply (irreversible).\n`
            : `erased ${report.items} user-memory item(s) of user ${JSON.stringify(report.userId)} (tenant ${JSON.stringify(report.tenantId)})${noStore}; threads deleted: ${report.threads.filter((t) => t.status === "deleted").length} of ${report.threadIds.length} known${whyNot}${opts.threads ? "" : " (not asked: --threads)"}.\n`,
        );
      }
    },
  );

  store(
    sealedFor(
      program
        .command("export")
        .description(
          "Print one whole thread (archived and hot messages, in order: readThread) as JSON in LangChain's stored-message shape. Reads only.",
        )
        .requiredOption("--thread-id <id>", "the thread", threadIdFlag)
        .option("--checkpoint-id <id>", "export the thread as of this checkpoint (default: its head)")
        .option("--out <file>", "write the JSON to this new file (mode 600; an existing file is refused) instead of stdout")
        .option("--tenant-id <id>", "tenant the thread was written as (default: env THREADWISE_MEMORY_TENANT_ID, else default)"),
      "the thread was",
    ),
  ).action(
    async (
      opts: TargetOpts & {
        threadId: string;
        checkpointId?: string;
        out?: string;
        tenantId?: string;
        keyring?: string;
        agentId?: string;
        principalId?: string;
      },
    ) => {
      if (opts.out !== undefined && existsSync(opts.out))
        throw new ThreadwiseConfigError("--out", `${opts.out} exists; give a new file (an export is never written over a file)`);
      const exported = await exportThread({
        ...targetOf(opts),
        threadId: opts.threadId,
        checkpointId: opts.checkpointId,
        keyring: opts.keyring ?? envString(MEMORY_ENV.keyringPath, env),
        tenantId: opts.tenantId,
        agentId: opts.agentId,
        principalId: opts.principalId,
        env,
      });
      const json = `${JSON.stringify(exported, null, 2)}\n`;
      if (opts.out === undefined) {
        out(json);
        return;
      }
      writeFileSync(opts.out, json, { flag: "wx", mode: 0o600 });
      out(
        `exported ${exported.messages.length} message(s) of thread ${JSON.stringify(exported.threadId)} (checkpoint ${exported.checkpointId}) to ${opts.out}\n`,
      );
    },
  );

  target(
    program
      .command("erase-tenant")
      .description(
        "Erase everything threadwise stored for one tenant (offboarding): its threads (tombstones left), its archived messages, its user-memory items (PostgreSQL: the PostgresStore). Batched and resumable: run it again after a failure. Dry run unless --apply. Irreversible.",
      )
      .requiredOption("--tenant-id <id>", "the tenant (the stacks' THREADWISE_MEMORY_TENANT_ID / encryption.tenantId)")
      .option(
        "--thread-id <id...>",
        "more threads of the tenant, written before the tenant was recorded (the report's unattributed threads)",
        (value: string, previous: string[] = []) => [...previous, threadIdFlag(value)],
      )
      .option("--batch-size <n>", `threads, archive rows or items per batch (default ${DEFAULT_ERASE_BATCH_SIZE})`, (value: string) =>
        parseWholeNumber(value, "--batch-size", { min: 1, max: 10_000 }),
      )
      .option("--apply", "erase for real (default: dry run)"),
  ).action(async (opts: TargetOpts & { tenantId: string; threadId?: string[]; batchSize?: number; apply?: boolean }) => {
    // No bar (the total is not known before the end): one line per batch on stderr when progress shows.
    const progress = io.progress ?? Boolean(process.stderr.isTTY);
    const report: EraseTenantReport = await eraseTenant({
      ...targetOf(opts),
      tenantId: opts.tenantId,
      threadIds: opts.threadId,
      batchSize: opts.batchSize,
      apply: opts.apply,
      onBatch: (done) => {
        if (progress) err(`erase-tenant: batch ${done.batches}: ${done.threads} thread(s), ${done.userMemoryItems} item(s) so far\n`);
      },
    });
    if (opts.json) {
      out(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    const { checkpoints, blobs, writes, archived } = report.rows;
    const kinds = `${report.threads} thread(s) (${checkpoints} checkpoints, ${blobs} blobs, ${writes} writes, ${archived} archived messages), ${report.strayArchived} archived message(s) on other threads, ${report.userMemoryItems} user-memory item(s)${report.storeSearched ? "" : " (no store of user memory searched: give --dsn, or erase them with userMemory's store in code)"}`;
    const unattributed =
      report.unattributedThreads > 0
        ? ` ${report.unattributedThreads} thread(s) of the store have no recorded tenant (written before it was recorded); give the tenant's with --thread-id.`
        : "";
    out(
      report.dryRun
        ? `dry run: tenant ${JSON.stringify(report.tenantId)} has ${kinds}. Nothing was erased; re-run with --apply (irreversible).${unattributed}\n`
        : `erased for tenant ${JSON.stringify(report.tenantId)}: ${kinds} in ${report.batches} batch(es); tombstones written.${unattributed}\n`,
    );
  });

  // PostgreSQL only: beside SQLite, user memory lives in the app's own store (userMemoryRetention({ store })).
  program
    .command("user-memory-retention")
    .description(
      "Delete user-memory items last written N days ago or earlier (every user, or one tenant's), in the PostgresStore of the memory database. Irreversible.",
    )
    .requiredOption("--days <n>", "days (a whole number >= 1)", positiveWhole("--days"))
    .option("--tenant-id <id>", "only this tenant's users")
    .option("--dsn <dsn>", `PostgreSQL DSN (default: env ${MEMORY_ENV.postgresDsn})`)
    .option("--schema <name>", "PostgreSQL schema (default: env MEMORY_PG_SCHEMA, else public)", schemaName("--schema"))
    .option("--json", "print the report as JSON")
    .action(async (opts: TargetOpts & { days: number; tenantId?: string }) => {
      const { deleted, before } = await userMemoryRetention({ ...targetOf(opts), days: opts.days, tenantId: opts.tenantId });
      out(
        opts.json
          ? `${JSON.stringify({ deleted, before }, null, 2)}\n`
          : `deleted ${deleted} user-memory item(s) last written before ${before.toISOString()}\n`,
      );
    });

  program
    .command("config")
    .description("Print the resolved memory config (code defaults + env), secrets redacted.")
    .addOption(new Option("--backend <backend>", "override MEMORY_BACKEND (accepts in-memory)"))
    .action((opts: { backend?: string }) => {
      const input: MemoryConfigInput = {};
      if (opts.backend) input.backend = opts.backend.replace(/-/g, "_") as MemoryConfigInput["backend"];
      const config = resolveMemoryConfig(input, env);
      out(`${JSON.stringify(redactConfig(config), null, 2)}\n`);
    });

  addKeyringCommands(program, { ...io, env, stdout: out });
  return program;
}

/** Every secret the CLI might see: DSNs from env and argv. */
function secretsOf(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const dsns = [env[MIGRATION_DSN_ENV], env[MEMORY_ENV.postgresDsn], ...argv.filter((arg) => /:\/\/|password=/i.test(arg))];
  return dsns.flatMap((dsn) => dsnSecrets(dsn));
}

/** Commands with a `--keyring` flag that read sealed records: a `THREADWISE_KEYRING_REQUIRED` from them names the flag. */
const KEYRING_FLAG_COMMANDS = new Set(["export", "erase-user"]);

/**
 * Runs the CLI on `argv` (without `node` and the script path) and returns the exit code; errors
 * are printed redacted, never thrown, as `threadwise: <code>: <message>` for threadwise errors.
 * Exit codes: 0 done (also `--help`, `--version`); {@link CLI_USAGE_EXIT_CODE} (2) a command line
 * refused: a flag value (`THREADWISE_INVALID_OPTION`, `THREADWISE_INVALID_THREAD_ID`,
 * `THREADWISE_INVALID_USER_ID`), an unknown command or flag, a missing value or required flag, or
 * no command (commander's message; was commander's 1); 1 for any failure while running.
 */
export async function runCli(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  const secrets = secretsOf(argv, env);
  const safeErr = (text: string) => err(redactSecrets(text, secrets));
  const program = createCli({ ...io, stderr: safeErr });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    // Commander's refusals (unknown command or flag, a missing value) are usage errors like a bad value.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : CLI_USAGE_EXIT_CODE;
    if (ThreadwiseError.isInstance(error)) {
      // The error names the env variable (the stack reads only env); the commands that read a
      // sealed store take the keyring as a flag too.
      const hint =
        error.code === "THREADWISE_KEYRING_REQUIRED" && KEYRING_FLAG_COMMANDS.has(argv[0] ?? "") ? " (or pass --keyring FILE)" : "";
      safeErr(`threadwise: ${error.code}: ${error.message}${hint}\n`);
      return error.code === "THREADWISE_INVALID_OPTION" ||
        error.code === "THREADWISE_INVALID_THREAD_ID" ||
        error.code === "THREADWISE_INVALID_USER_ID"
        ? CLI_USAGE_EXIT_CODE
        : 1;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    safeErr(`threadwise: ${message}\n`);
    return 1;
  }
}
