/**
 * Packaging check for every published package (issue: cherry-picking works):
 *   1. build it (tsdown, ESM + CJS + types) and run publint and @arethetypeswrong/cli on it;
 *   2. `pnpm pack` it (workspace ranges become real versions);
 *   3. install the tarball alone into a fresh temporary project, with only its declared
 *      dependencies (its @threadwise dependencies from their own tarballs) and its required peer
 *      dependencies, once per peer set: `floor` (the lowest version each declared range allows,
 *      zod included) and `latest` (the registry's `latest` tag of each);
 *   4. import it from ESM and from CJS, and run a one-turn agent with its middleware.
 * Then {@link checkQuickStart}: an app with only `@threadwise/window-trim` and
 * `@threadwise/summarize` (and `@threadwise/core`) from tarballs and the peers of a set runs the
 * README's quick start with node and must print the README's output.
 *
 * Usage: `pnpm tsx scripts/check-packages.ts [--peers floor|latest|both] [name ...]`
 * (default: both sets, all packages). Needs the npm registry. Exits non-zero on the first failure.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { readmeBlock } from "./readme-block.js";

const root = resolve(import.meta.dirname, "..");

/** `floor`: the lowest version every declared range allows; `latest`: the registry's newest. */
export type PeerSet = "floor" | "latest";
export const PEER_SETS: readonly PeerSet[] = ["floor", "latest"];

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (name: string): Manifest => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));

/** The lowest version a range allows: the first `x.y.z` in it (`^3.25.76 || ^4` gives 3.25.76). */
export function rangeFloor(range: string): string {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(range);
  if (!match) throw new Error(`no version in range ${JSON.stringify(range)}`);
  return `${match[1]}.${match[2]}.${match[3] ?? 0}`;
}

/**
 * The packages an app installs beside the tarballs of `names` for one peer set: every required
 * (not optional) peer dependency of them, and zod, which LangChain and threadwise share.
 */
export function peerSpecs(names: readonly string[], set: PeerSet): string[] {
  const ranges = new Map<string, string>();
  for (const name of names) {
    const m = manifest(name);
    for (const [peer, range] of Object.entries(m.peerDependencies ?? {})) {
      if (m.peerDependenciesMeta?.[peer]?.optional) continue;
      const known = ranges.get(peer);
      // Several packages may declare one peer: the floor is the highest of their floors.
      if (!known || compareVersions(rangeFloor(range), rangeFloor(known)) > 0) ranges.set(peer, range);
    }
    const zod = m.dependencies?.zod;
    if (zod && !ranges.has("zod")) ranges.set("zod", zod);
  }
  return [...ranges].map(([peer, range]) => `${peer}@${set === "floor" ? rangeFloor(range) : "latest"}`);
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i += 1) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** How to build a one-turn agent's middleware from each package, as code run in ESM and CJS. */
const SMOKE: Record<string, string> = {
  core: "[createMiddleware({ name: 'smoke', wrapModelCall: (r, h) => h(pkg.addContextBlocks(r, [{ kind: 'knowledge', producer: 'smoke', label: 'K', text: 'k' }])) })]",
  "window-trim": "[pkg.windowTrim({ maxMessages: 4 })]",
  "token-cap": "[pkg.tokenCap({ maxTokens: 2000 })]",
  "history-aware": "[pkg.historyAware()]",
  summarize: "[pkg.summarize()]",
  "persist-trim": "[pkg.persistTrim({ keepGroups: 4 })]",
  "fact-recall": "[pkg.factRecall()]",
  recall: "[pkg.recall()]",
  "work-memory": "[pkg.workMemory({ logger: false })]",
  "user-memory": "[pkg.userMemory({ logger: false })]",
  "history-seed": "[pkg.historySeed()]",
  encryption: "[]",
  memory: "pkg.memoryStack({ backend: 'in_memory' }).middleware",
};

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" },
  });
}

export function packageNames(): string[] {
  return readdirSync(join(root, "packages")).filter((name) => SMOKE[name] !== undefined);
}

function workspaceDeps(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
  const deps = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith("@threadwise/"));
  const all = new Set<string>();
  for (const dep of deps) {
    const short = dep.slice("@threadwise/".length);
    all.add(short);
    for (const inner of workspaceDeps(short)) all.add(inner);
  }
  return [...all];
}

export function smokeScript(name: string, kind: "esm" | "cjs"): string {
  const header =
    kind === "esm"
      ? `import * as pkg from "@threadwise/${name}";\nimport { createAgent, createMiddleware } from "langchain";\nimport { AIMessage, HumanMessage } from "@langchain/core/messages";\nimport { fakeModel } from "@langchain/core/testing";\nimport { MemorySaver } from "@langchain/langgraph";\n`
      : `const pkg = require("@threadwise/${name}");\nconst { createAgent, createMiddleware } = require("langchain");\nconst { AIMessage, HumanMessage } = require("@langchain/core/messages");\nconst { fakeModel } = require("@langchain/core/testing");\nconst { MemorySaver } = require("@langchain/langgraph");\n`;
  return `${header}
(async () => {
  if (Object.keys(pkg).length === 0) throw new Error("no exports");
  const model = fakeModel().respond(new AIMessage("ok"));
  const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: ${SMOKE[name]} });
  const out = await agent.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "smoke" } });
  const last = out.messages[out.messages.length - 1];
  if (last.content !== "ok") throw new Error("unexpected answer " + JSON.stringify(last.content));
  console.log("${kind} ok: " + Object.keys(pkg).length + " exports");
})().catch((e) => { console.error(e); process.exit(1); });
`;
}

/** Builds, lints and packs packages into one folder; returns the tarball of each. */
function packer() {
  const packDir = mkdtempSync(join(tmpdir(), "tw-pack-"));
  const tarballs = new Map<string, string>();
  const pack = (name: string): string => {
    const known = tarballs.get(name);
    if (known) return known;
    const dir = join(root, "packages", name);
    run("pnpm", ["exec", "tsdown", "--log-level", "warn"], dir);
    run("pnpm", ["exec", "publint", "--strict"], dir);
    const before = new Set(readdirSync(packDir));
    run("pnpm", ["pack", "--pack-destination", packDir], dir);
    const tarball = readdirSync(packDir).find((f) => !before.has(f));
    if (!tarball) throw new Error(`pnpm pack wrote nothing for ${name}`);
    const path = join(packDir, tarball);
    run("pnpm", ["exec", "attw", "--profile", "node16", "--format", "table-flipped", path], root);
    tarballs.set(name, path);
    return path;
  };
  return { pack, dispose: () => rmSync(packDir, { recursive: true, force: true }) };
}

/** A fresh project with the tarballs of `names` (and their @threadwise dependencies) and the peers of `set`. */
function installApp(names: readonly string[], set: PeerSet, pack: (name: string) => string): { project: string; peers: string[] } {
  const all = [...new Set(names.flatMap((name) => [name, ...workspaceDeps(name)]))];
  const local = all.map(pack);
  const peers = peerSpecs(all, set);
  const project = mkdtempSync(join(tmpdir(), `tw-use-${names.join("+")}-${set}-`));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "tw-smoke", private: true, version: "0.0.0" }));
  // No --legacy-peer-deps and no --force: a peer range that excludes the set fails here (ERESOLVE).
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...local, ...peers], project);
  return { project, peers };
}

/** Versions npm actually installed, e.g. `langchain@1.4.0`. */
function installed(project: string, specs: readonly string[]): string {
  return specs
    .map((spec) => spec.slice(0, spec.lastIndexOf("@")))
    .map((name) => `${name}@${JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")).version}`)
    .join(" ");
}

/**
 * Checks `names` under each peer set; returns one line per package and set (also given to `log`
 * as soon as it is known).
 */
export function checkPackages(
  names: string[] = packageNames(),
  sets: readonly PeerSet[] = PEER_SETS,
  log?: (line: string) => void,
): string[] {
  const lines: string[] = [];
  const { pack, dispose } = packer();
  try {
    for (const name of names) {
      for (const set of sets) {
        const { project, peers } = installApp([name], set, pack);
        mkdirSync(join(project, "src"), { recursive: true });
        writeFileSync(join(project, "src", "smoke.mjs"), smokeScript(name, "esm"));
        writeFileSync(join(project, "src", "smoke.cjs"), smokeScript(name, "cjs"));
        const esm = run("node", ["src/smoke.mjs"], project).trim();
        const cjs = run("node", ["src/smoke.cjs"], project).trim();
        lines.push(`@threadwise/${name} [${set}: ${installed(project, peers)}]: publint ok, attw ok, ${esm}; ${cjs}`);
        log?.(lines.at(-1) as string);
        rmSync(project, { recursive: true, force: true });
      }
    }
  } finally {
    dispose();
  }
  return lines;
}

/**
 * The "done when": an app outside the repository installs the packed
 * `@threadwise/window-trim` and `@threadwise/summarize` with the peers of `set`, saves the
 * README's quick start as `quick-start.mjs`, runs it with node (offline: the model is
 * `scriptedModel`), and must print exactly the README's output block.
 *
 * @returns one line per set, naming the versions installed
 * @throws Error when the install fails or the output differs
 */
export function checkQuickStart(sets: readonly PeerSet[] = PEER_SETS): string[] {
  const code = readmeBlock("quick-start:");
  const expected = readmeBlock("quick-start output").trim();
  const lines: string[] = [];
  const { pack, dispose } = packer();
  try {
    for (const set of sets) {
      const { project, peers } = installApp(["window-trim", "summarize"], set, pack);
      writeFileSync(join(project, "quick-start.mjs"), code);
      const printed = run("node", ["quick-start.mjs"], project).trim();
      if (printed !== expected) throw new Error(`README quick start printed\n${printed}\ninstead of\n${expected}`);
      lines.push(`README quick start [${set}: ${installed(project, peers)}]: output as in the README`);
      rmSync(project, { recursive: true, force: true });
    }
  } finally {
    dispose();
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { peers: { type: "string", default: "both" } }, allowPositionals: true });
  const sets = values.peers === "both" ? PEER_SETS : [values.peers as PeerSet];
  try {
    checkPackages(positionals.length ? positionals : undefined, sets, console.log);
    for (const line of checkQuickStart(sets)) console.log(line);
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    console.error(e.message, e.stdout ?? "", e.stderr ?? "");
    process.exit(1);
  }
}
