/**
 * Every ```ts block of every README (the root one and each package's) runs as pasted, offline.
 * The code is not rewritten: a model string (`"openai:gpt-4o-mini"`) or `new ChatOpenAI(...)`
 * reaches a local fake OpenAI/Anthropic server through `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`,
 * which the providers' SDKs read, exactly as they would reach an OpenAI-compatible endpoint. Each
 * block runs as a module in its own empty working directory (files such as `./threads.db` land
 * there). A block that is a fragment by design carries
 * `<!-- readme-test: fragment: <reason> -->`; those are listed and kept few.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ReadmeCodeBlock, readmeCodeBlocks, readmePaths } from "../scripts/readme-block.js";
import { type FakeProviderServer, startFakeProviderServer } from "./support/fake-provider-server.js";

const here = import.meta.dirname;
const blocks: ReadmeCodeBlock[] = readmePaths().flatMap((readme) => readmeCodeBlocks(readme));
const runnable = blocks.filter((block) => block.fragment === undefined);

let server: FakeProviderServer;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = await startFakeProviderServer();
  // A user's shell: no threadwise or memory settings, an API key and the provider's endpoint.
  for (const key of Object.keys(process.env)) {
    if (/^(MEMORY_|THREADWISE_(?!TEST_)|POSTGRES_|OPENAI_|ANTHROPIC_)/.test(key)) delete process.env[key];
  }
  Object.assign(process.env, {
    OPENAI_API_KEY: "sk-readme-test",
    OPENAI_BASE_URL: server.openaiBaseUrl,
    ANTHROPIC_API_KEY: "sk-ant-readme-test",
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
  });
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await server?.close();
});

const usesProvider = (code: string) => /"(openai|anthropic):|new Chat(OpenAI|Anthropic)\(/.test(code.replace(/\/\/.*$/gm, ""));
const totalRequests = () => [...server.requests.values()].reduce((sum, n) => sum + n, 0);

describe("README code blocks run as pasted", () => {
  it("finds the blocks of the root README and of every package README", () => {
    expect(new Set(blocks.map((b) => b.readme)).size).toBe(readmePaths().length);
    expect(runnable.length).toBeGreaterThan(20);
  });

  it("checks the output a README shows under a block (<!-- readme-test: output -->)", () => {
    const shown = runnable.filter((b) => b.output !== undefined).map((b) => b.readme);
    expect(shown).toEqual(expect.arrayContaining(["README.md"]));
    expect(shown.length).toBeGreaterThanOrEqual(2);
  });

  it("keeps fragments few, each with its reason", () => {
    const fragments = blocks.filter((b) => b.fragment !== undefined);
    expect(fragments.length).toBeLessThanOrEqual(3);
    for (const block of fragments) expect(block.fragment?.length, `${block.readme}:${block.line}`).toBeGreaterThan(20);
  });

  // A block the runner does not pick up is never run nor typechecked: it takes ```ts at the start of
  // a line in the READMEs only, so a ```typescript or ```js block, a fence indented under a list
  // item, or a ```ts block in docs/ or an ARCHITECTURE.md would go unchecked without a word.
  it("leaves no code a user would paste unchecked: every fence of the Markdown users read is ts in a README or a non-code language", () => {
    const root = resolve(here, "..");
    const packages = readdirSync(resolve(root, "packages")).sort();
    const otherDocs = [
      ...readdirSync(resolve(root, "docs"))
        .filter((file) => file.endsWith(".md"))
        .map((file) => `docs/${file}`),
      ...packages.flatMap((name) =>
        readdirSync(resolve(root, "packages", name))
          .filter((file) => file.endsWith(".md") && file !== "README.md" && file !== "CHANGELOG.md")
          .map((file) => `packages/${name}/${file}`),
      ),
    ];
    const nonCode = new Set(["", "text", "bash", "sh", "json"]);
    const unchecked: string[] = [];
    for (const file of [...readmePaths(), ...otherDocs]) {
      const isReadme = readmePaths().includes(file);
      let open = false;
      for (const [index, line] of readFileSync(resolve(root, file), "utf8").split("\n").entries()) {
        const fence = /^(\s*)```(.*)$/.exec(line);
        if (!fence) continue;
        const language = (fence[2] ?? "").trim();
        if (open) {
          if (language === "") open = false;
          continue;
        }
        open = true;
        const runs = isReadme && language === "ts" && fence[1] === "";
        if (!runs && !nonCode.has(language)) unchecked.push(`${file}:${index + 1}: \`\`\`${language}${fence[1] ? " (indented)" : ""}`);
      }
    }
    expect(otherDocs).toContain("docs/MEMORY-SPEC.md");
    expect(unchecked).toEqual([]);
  });

  // Was: packages/memory/README.md's idempotent-turns block read `getState`/`getStateHistory` (what a
  // retrying client is told to read) of an agent not wrapped, so the summary and facts went along.
  it("a block whose agent has threadwise middleware and hands state to a caller (stream, getState) wraps it in hideMemoryState", () => {
    const code = (block: ReadmeCodeBlock) => block.code.replace(/\/\/.*$/gm, "");
    const withMemory = (text: string) =>
      /\bcreateAgent\(/.test(text) && [...text.matchAll(/from "@threadwise\/([a-z-]+)"/g)].some((m) => m[1] !== "encryption");
    const handsState = (text: string) => /\.(stream|streamEvents|getState|getStateHistory)\(/.test(text);
    const unwrapped = blocks
      .filter((block) => withMemory(code(block)) && handsState(code(block)) && !/\bhideMemoryState\(/.test(code(block)))
      .map((block) => `${block.readme}:${block.line}`);
    expect(blocks.filter((block) => withMemory(code(block)) && handsState(code(block))).length).toBeGreaterThanOrEqual(2);
    expect(unwrapped).toEqual([]);
  });

  for (const [index, block] of runnable.entries()) {
    // The first block pays for loading the whole stack: over the 60 s default at load 20+, and a
    // block that timed out went on running and changed the directory under the next one.
    it(`${block.readme}:${block.line}`, { timeout: 300_000 }, async () => {
      const cwd = process.cwd();
      const dir = mkdtempSync(join(tmpdir(), "tw-readme-block-"));
      // Beside the tests, so the workspace aliases apply; removed after.
      const file = resolve(here, `.readme-block-${process.pid}-${index}.ts`);
      writeFileSync(file, block.code);
      const before = totalRequests();
      const printed: string[] = [];
      // A block with a shown output is compared with it; the others print as they would.
      const log =
        block.output === undefined
          ? undefined
          : vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
              printed.push(args.map((arg) => (typeof arg === "string" ? arg : inspect(arg))).join(" "));
            });
      try {
        process.chdir(dir);
        await import(/* @vite-ignore */ file);
      } finally {
        log?.mockRestore();
        process.chdir(cwd);
        rmSync(file, { force: true });
        rmSync(dir, { recursive: true, force: true });
      }
      if (block.output !== undefined) expect(printed.join("\n")).toBe(block.output.trim());
      // A block that calls an agent on a provider's model reached the (fake) endpoint over HTTP.
      if (/\.invoke\(/.test(block.code) && usesProvider(block.code)) expect(totalRequests()).toBeGreaterThan(before);
    });
  }
});

describe("README tables", () => {
  const root = resolve(here, "..");
  // Cells of one table row; an escaped pipe (`a \\| b`) stays inside its cell.
  const cells = (row: string) =>
    row
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split(/(?<!\\)\|/).length;

  it.each(readmePaths())("%s: every row of a table has the header's number of cells", (readme) => {
    const lines = readFileSync(resolve(root, readme), "utf8").split("\n");
    const wrong: string[] = [];
    let header: number | undefined;
    let fenced = false;
    for (const [index, line] of lines.entries()) {
      if (line.startsWith("```")) fenced = !fenced;
      if (fenced || !line.trimStart().startsWith("|")) {
        header = undefined;
        continue;
      }
      if (header === undefined) header = cells(line);
      else if (cells(line) !== header) wrong.push(`${readme}:${index + 1}: ${cells(line)} cells, the header has ${header}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the root README's Examples section names every example the examples test runs", () => {
    const readme = readFileSync(resolve(root, "README.md"), "utf8");
    const start = readme.indexOf("\n## Examples\n");
    const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
    const examples = readdirSync(resolve(root, "examples")).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("_"),
    );
    expect(start).toBeGreaterThan(0);
    expect(examples.filter((file) => !section.includes(`\`examples/${file}\``))).toEqual([]);
  });
});
