/**
 * Packaging check for every published package (issue: cherry-picking works):
 *   1. build it (tsdown, ESM + CJS + types) and run publint and @arethetypeswrong/cli on it;
 *   2. `pnpm pack` it (workspace ranges become real versions);
 *   3. install the tarball alone into a fresh temporary project, with only its declared
 *      dependencies (its @threadwise dependencies from their own tarballs) and the peer
 *      dependencies a user installs (langchain, @langchain/core, @langchain/langgraph);
 *   4. import it from ESM and from CJS, and run a one-turn agent with its middleware.
 *
 * Usage: `pnpm tsx scripts/check-packages.ts [name ...]` (default: all packages).
 * Needs the npm registry for the peer dependencies. Exits non-zero on the first failure.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const PEERS = ["langchain@1.5.14", "@langchain/core@1.4.0", "@langchain/langgraph@1.7.3"];

/** How to build a one-turn agent's middleware from each package, as code run in ESM and CJS. */
const SMOKE: Record<string, string> = {
  core: "[createMiddleware({ name: 'smoke', wrapModelCall: (r, h) => h(pkg.addContextBlocks(r, [{ kind: 'knowledge', producer: 'smoke', label: 'K', text: 'k' }])) })]",
  "window-trim": "[pkg.windowTrim({ maxMessages: 4 })]",
  "token-cap": "[pkg.tokenCap({ maxTokens: 2000 })]",
  "history-aware": "[pkg.historyAware()]",
  summarize: "[pkg.summarize()]",
  "persist-trim": "[pkg.persistTrim({ keepGroups: 4 })]",
  "fact-recall": "[pkg.factRecall()]",
  "work-memory": "[pkg.workMemory({ logger: false })]",
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

function packageNames(): string[] {
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

function smokeScript(name: string, kind: "esm" | "cjs"): string {
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

export function checkPackages(names: string[] = packageNames()): string[] {
  const lines: string[] = [];
  const packDir = mkdtempSync(join(tmpdir(), "tw-pack-"));
  const built = new Set<string>();
  const tarballs = new Map<string, string>();
  const buildAndPack = (name: string) => {
    if (built.has(name)) return;
    built.add(name);
    const dir = join(root, "packages", name);
    run("pnpm", ["exec", "tsdown", "--log-level", "warn"], dir);
    run("pnpm", ["exec", "publint", "--strict"], dir);
    const before = new Set(readdirSync(packDir));
    run("pnpm", ["pack", "--pack-destination", packDir], dir);
    const tarball = readdirSync(packDir).find((f) => !before.has(f));
    if (!tarball) throw new Error(`pnpm pack wrote nothing for ${name}`);
    tarballs.set(name, join(packDir, tarball));
    run("pnpm", ["exec", "attw", "--profile", "node16", "--format", "table-flipped", join(packDir, tarball)], root);
  };
  try {
    for (const name of names) {
      for (const dep of workspaceDeps(name)) buildAndPack(dep);
      buildAndPack(name);
      const project = mkdtempSync(join(tmpdir(), `tw-use-${name}-`));
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "tw-smoke", private: true, version: "0.0.0" }));
      const local = [name, ...workspaceDeps(name)].map((n) => tarballs.get(n) as string);
      run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...local, ...PEERS], project);
      mkdirSync(join(project, "src"), { recursive: true });
      writeFileSync(join(project, "src", "smoke.mjs"), smokeScript(name, "esm"));
      writeFileSync(join(project, "src", "smoke.cjs"), smokeScript(name, "cjs"));
      const esm = run("node", ["src/smoke.mjs"], project).trim();
      const cjs = run("node", ["src/smoke.cjs"], project).trim();
      lines.push(`@threadwise/${name}: publint ok, attw ok, ${esm}; ${cjs}`);
      rmSync(project, { recursive: true, force: true });
    }
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  try {
    for (const line of checkPackages(names.length ? names : undefined)) console.log(line);
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    console.error(e.message, e.stdout ?? "", e.stderr ?? "");
    process.exit(1);
  }
}
