/**
 * Draws the benchmark charts from the results the benchmarks wrote, as SVG (vega-lite rendered in
 * Node), and prints a short summary of each result. Run by `pnpm bench` after the benchmarks, or
 * alone to redraw from existing results:
 *
 *   pnpm tsx bench/charts.ts
 *
 * Inputs (a missing or unreadable one is reported and its chart skipped):
 * - `bench/results/overhead.json` (bench/overhead.ts): per-call overhead vs thread length;
 * - `bench/results/placement.md` (bench/placement.ts): prefix reuse and tokens per call by configuration;
 * - `bench/results/summarize.md` (bench/summarize.ts): summarizer input vs evicted tokens;
 * - `bench/results/facts.md` (bench/facts.ts): fact recall hit@k by question category.
 *
 * Outputs: `bench/results/{overhead,placement-tokens,placement-reuse,summarize,facts}.svg`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { TopLevelSpec } from "vega-lite";
import { writeChart } from "./support/chart.js";
import { exitOnHelp } from "./support/cli.js";

const here = dirname(fileURLToPath(import.meta.url));
const results = resolve(here, "results");
const FONT = { config: { font: "Helvetica, Arial, sans-serif", view: { stroke: "transparent" } } };

/** One markdown table: its header cells and its body rows. */
export interface MarkdownTable {
  headers: string[];
  rows: string[][];
}

/** Every pipe table of a markdown document, in order. */
export function parseMarkdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  const lines = markdown.split("\n");
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((c) => c.trim());
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const head = lines[i] as string;
    const rule = lines[i + 1] as string;
    if (!head.trim().startsWith("|") || !/^\s*\|?\s*:?-{3,}/.test(rule)) continue;
    const table: MarkdownTable = { headers: cells(head), rows: [] };
    let j = i + 2;
    while (j < lines.length && (lines[j] as string).trim().startsWith("|")) {
      table.rows.push(cells(lines[j] as string));
      j += 1;
    }
    tables.push(table);
    i = j - 1;
  }
  return tables;
}

/** A number out of a table cell: `1,463` -> 1463, `90.7%` -> 90.7, `1.26x` -> 1.26; `undefined` when none. */
export function cellNumber(cell: string | undefined): number | undefined {
  if (cell === undefined) return undefined;
  const m = /-?\d[\d,]*(\.\d+)?/.exec(cell.replace(/`/g, ""));
  return m ? Number(m[0].replace(/,/g, "")) : undefined;
}

function column(table: MarkdownTable, test: (header: string) => boolean): number {
  return table.headers.findIndex((h) => test(h.toLowerCase()));
}

function read(name: string): string | undefined {
  const path = resolve(results, name);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/** What one chart step produced: the files written and the summary lines. */
interface ChartResult {
  files: string[];
  summary: string[];
}

async function overheadChart(): Promise<ChartResult> {
  const text = read("overhead.json");
  if (!text) return { files: [], summary: ["overhead: no bench/results/overhead.json (run bench/overhead.ts)"] };
  const data = JSON.parse(text) as {
    machine: string;
    rows: Array<{ name: string; config: string; size: number; medianMs: number; p90Ms: number }>;
    growth: Record<string, number | null>;
  };
  const path = await writeChart(resolve(results, "overhead.svg"), {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: "Per-call overhead of the memory middlewares vs thread length",
      subtitle: `median CPU ms per model call; ${data.machine}`,
    },
    width: 560,
    height: 320,
    layer: [
      {
        data: { values: data.rows },
        mark: { type: "line", point: true },
        encoding: {
          x: { field: "size", type: "quantitative", scale: { type: "log" }, title: "messages in the thread" },
          y: { field: "medianMs", type: "quantitative", scale: { type: "log" }, title: "ms per call (log)" },
          color: { field: "name", type: "nominal", title: null, legend: { orient: "bottom", columns: 1, labelLimit: 600 } },
        },
      },
      {
        data: { values: [{ y: 1, label: "target: 1 ms at 10k messages" }] },
        layer: [
          { mark: { type: "rule", strokeDash: [4, 4], color: "#888" }, encoding: { y: { field: "y", type: "quantitative" } } },
          {
            mark: { type: "text", align: "left", dx: 4, dy: -6, color: "#666" },
            encoding: { y: { field: "y", type: "quantitative" }, x: { datum: 100, type: "quantitative" }, text: { field: "label" } },
          },
        ],
      },
    ],
    ...FONT,
  } as TopLevelSpec);
  const summary = Object.entries(data.growth).map(([config, ratio]) => {
    const row = data.rows.find((r) => r.config === config && r.size === 10000);
    return `overhead: ${row?.name ?? config}: ${row ? `${row.medianMs.toFixed(2)} ms/call at 10k messages` : "no 10k run"}, growth t(10k)/t(1k) ${ratio === null ? "n/a" : ratio.toFixed(2)}`;
  });
  return { files: [path], summary };
}

async function placementCharts(): Promise<ChartResult> {
  const text = read("placement.md");
  const table = text ? parseMarkdownTables(text)[0] : undefined;
  if (!table) return { files: [], summary: ["placement: no table in bench/results/placement.md (run bench/placement.ts)"] };
  const c = {
    config: column(table, (h) => h.startsWith("configuration")),
    placement: column(table, (h) => h === "placement"),
    strict: column(table, (h) => h.startsWith("prefix reuse")),
    tail: column(table, (h) => h.startsWith("reuse without tail")),
    sent: column(table, (h) => h.startsWith("tokens sent")),
    cacheable: column(table, (h) => h.startsWith("cacheable")),
  };
  if (Object.values(c).some((i) => i < 0))
    return { files: [], summary: ["placement: unexpected table columns in placement.md; chart skipped"] };
  const label = (row: string[]) => `${row[c.config]}${row[c.placement] && row[c.placement] !== "—" ? ` [${row[c.placement]}]` : ""}`;
  const tokens = table.rows.flatMap((row) => [
    { configuration: label(row), measure: "tokens sent / call", value: cellNumber(row[c.sent]) },
    { configuration: label(row), measure: "cacheable prefix tokens / call", value: cellNumber(row[c.cacheable]) },
  ]);
  const reuse = table.rows.flatMap((row) => [
    { configuration: label(row), measure: "strict prefix reuse (provider cache)", value: cellNumber(row[c.strict]) },
    { configuration: label(row), measure: "reuse without tail context (stable_tail only)", value: cellNumber(row[c.tail]) },
  ]);
  const bars = (title: string, subtitle: string, values: unknown[], xTitle: string): TopLevelSpec =>
    ({
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: { text: title, subtitle },
      data: { values: (values as Array<{ value?: number }>).filter((v) => v.value !== undefined) },
      width: 420,
      mark: "bar",
      encoding: {
        y: { field: "configuration", type: "nominal", sort: null, title: null, axis: { labelLimit: 760 } },
        yOffset: { field: "measure" },
        x: { field: "value", type: "quantitative", title: xTitle },
        color: { field: "measure", type: "nominal", title: null, legend: { orient: "bottom", labelLimit: 400 } },
      },
      ...FONT,
    }) as TopLevelSpec;
  const files = [
    await writeChart(
      resolve(results, "placement-tokens.svg"),
      bars(
        "Tokens per model call by configuration",
        "LoCoMo replay, o200k_base tokens of the serialized input (bench/placement.ts)",
        tokens,
        "tokens per call",
      ),
    ),
    await writeChart(
      resolve(results, "placement-reuse.svg"),
      bars(
        "Prompt-prefix reuse by configuration",
        "share of calls 2..N starting with the previous input, % (bench/placement.ts)",
        reuse,
        "% of calls",
      ),
    ),
  ];
  const best = [...table.rows].sort((a, b) => (cellNumber(b[c.cacheable]) ?? 0) - (cellNumber(a[c.cacheable]) ?? 0))[0];
  return {
    files,
    summary: [
      `placement: ${table.rows.length} configurations; most cacheable tokens/call: ${best ? `${label(best)} (${best[c.cacheable]} of ${best[c.sent]} sent)` : "n/a"}`,
    ],
  };
}

async function summarizeChart(): Promise<ChartResult> {
  const text = read("summarize.md");
  const tables = text ? parseMarkdownTables(text).filter((t) => t.headers.some((h) => h.toLowerCase().startsWith("summarizer input"))) : [];
  if (tables.length === 0) return { files: [], summary: ["summarize: no table in bench/results/summarize.md (run bench/summarize.ts)"] };
  const rows = tables.flatMap((t) => {
    const stack = column(t, (h) => h === "stack");
    const shape = column(t, (h) => h.startsWith("fake summary"));
    const input = column(t, (h) => h.startsWith("summarizer input"));
    const evicted = column(t, (h) => h.startsWith("evicted"));
    const ratio = column(t, (h) => h.startsWith("input / evicted"));
    return t.rows.map((r) => ({
      stack: (r[stack] ?? "").replace(/`/g, ""),
      shape: r[shape] ?? "",
      input: cellNumber(r[input]),
      evicted: cellNumber(r[evicted]),
      ratio: cellNumber(r[ratio]),
    }));
  });
  const values = rows.flatMap((r) => [
    { case: r.shape, stack: r.stack, measure: "summarizer input tokens", value: r.input },
    { case: r.shape, stack: r.stack, measure: "evicted tokens", value: r.evicted },
  ]);
  const path = await writeChart(resolve(results, "summarize.svg"), {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: "Summarizer input vs evicted tokens", subtitle: "LoCoMo replay, window 20, first summary at 40 (bench/summarize.ts)" },
    data: { values: values.filter((v) => v.value !== undefined) },
    mark: "bar",
    encoding: {
      row: { field: "case", type: "nominal", title: "fake summary", sort: null, header: { labelAngle: 0, labelAlign: "left" } },
      y: { field: "stack", type: "nominal", title: null, axis: { labelLimit: 320 } },
      yOffset: { field: "measure" },
      x: { field: "value", type: "quantitative", title: "tokens over the replay" },
      color: { field: "measure", type: "nominal", title: null, legend: { orient: "bottom", labelLimit: 400 } },
    },
    width: 380,
    ...FONT,
  } as TopLevelSpec);
  return {
    files: [path],
    summary: rows
      .filter((r) => r.shape === rows[0]?.shape)
      .map((r) => `summarize: ${r.stack} (${r.shape}): input / evicted ${r.ratio?.toFixed(2) ?? "n/a"}x`),
  };
}

async function factsChart(): Promise<ChartResult> {
  const text = read("facts.md");
  const table = text ? parseMarkdownTables(text)[0] : undefined;
  if (!table?.headers[2]?.toLowerCase().startsWith("facts hit@")) {
    return { files: [], summary: ["facts: no hit@k table in bench/results/facts.md (run bench/facts.ts)"] };
  }
  // Columns: category, items, then three methods x (hit@3, hit@5, hit@10).
  const methods = ["facts", "BM25 over turns", "recent turns"];
  const ks = ["hit@3", "hit@5", "hit@10"];
  const values = table.rows.flatMap((row) =>
    methods.flatMap((method, m) => ks.map((k, i) => ({ category: row[0], method, k, value: cellNumber(row[2 + 3 * m + i]) }))),
  );
  const path = await writeChart(resolve(results, "facts.svg"), {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: "Fact recall on LoCoMo: hit@k by question category",
      subtitle: "heuristic facts vs BM25 over raw turns vs most recent turns, % (bench/facts.ts)",
    },
    data: { values: values.filter((v) => v.value !== undefined) },
    mark: "bar",
    encoding: {
      column: { field: "k", type: "ordinal", sort: ks, title: null },
      x: { field: "category", type: "nominal", sort: null, title: null, axis: { labelAngle: -40, labelLimit: 120 } },
      xOffset: { field: "method", sort: methods },
      y: { field: "value", type: "quantitative", title: "% of questions" },
      color: { field: "method", type: "nominal", sort: methods, title: null, legend: { orient: "bottom" } },
    },
    width: 240,
    height: 220,
    ...FONT,
  } as TopLevelSpec);
  const all = table.rows.find((r) => r[0]?.startsWith("1-4"));
  return {
    files: [path],
    summary: [
      all
        ? `facts: categories 1-4 (${all[1]} questions): facts hit@3/5/10 ${all.slice(2, 5).join("/")}%, BM25 over turns ${all.slice(5, 8).join("/")}%`
        : "facts: chart drawn; no 1-4 row",
    ],
  };
}

/** Draws every chart it has data for and returns the summary lines. */
export async function drawCharts(): Promise<{ files: string[]; summary: string[] }> {
  const out = { files: [] as string[], summary: [] as string[] };
  for (const step of [overheadChart, placementCharts, summarizeChart, factsChart]) {
    try {
      const r = await step();
      out.files.push(...r.files);
      out.summary.push(...r.summary);
    } catch (error) {
      out.summary.push(`${step.name}: failed: ${(error as Error).message}`);
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  exitOnHelp();
  const { files, summary } = await drawCharts();
  for (const file of files) console.log(`chart: ${relative(process.cwd(), file)}`);
  console.log(`\n${summary.join("\n")}`);
}
