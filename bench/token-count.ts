/**
 * How close core's token counter comes to the provider-style count (issue 12), on every point
 * where a recorded tau-bench airline agent called its model (the stored run up to that point: the
 * airline policy as system message, user turns, tool calls and results), with the run's tools.
 *
 * The reference is stated in `bench/support/openai-reference.ts`: OpenAI's cookbook
 * `num_tokens_from_messages` over `@langchain/openai`'s wire messages, 3 tokens of reply priming,
 * and the tools rendered as OpenAI renders them (`openai-chat-tokens`), o200k_base (gpt-4o).
 * Core's estimate is `countMessages(request) + countTools(tools) + requestOverheadTokens(...)`.
 * Tools: one LangChain tool per tool name of the data, its schema inferred from the recorded
 * arguments (`examples/support/tau-replay.ts`; the data holds no schemas), the same for both.
 *
 *   pnpm tsx bench/token-count.ts                 # table on stdout
 *   pnpm tsx bench/token-count.ts --data <file> --json
 */
import type { BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, messageType, requestOverheadTokens } from "@threadwise/core";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { type RecordedRun, replayScript, replayTools, runMessages } from "../examples/support/tau-replay.js";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchDataError } from "./support/data-file.js";
import { referenceRequestTokens, referenceToolTokens } from "./support/openai-reference.js";
import { loadTauRuns, TAU_RUNS_KIND } from "./support/tau-runs.js";

const cli = benchArgs(TAU_AIRLINE_PATH);

/** One tool per name over all runs, the schema inferred from every recorded call of that name. */
function datasetTools(runs: readonly RecordedRun[]) {
  // Every call of every run, also of runs that end on a call (replayScript refuses those).
  const calls = runs.flatMap((run) => run.traj.flatMap((m) => m.tool_calls ?? []));
  const merged = replayScript({ task_id: -1, trial: -1, reward: 0, traj: [] });
  for (const call of calls) {
    const list = merged.toolArgs.get(call.function.name) ?? [];
    list.push(JSON.parse(call.function.arguments || "{}") as Record<string, unknown>);
    merged.toolArgs.set(call.function.name, list);
  }
  return replayTools(merged);
}

interface Point {
  run: number;
  end: number;
  reference: number;
  estimate: number;
}

function main() {
  const runs = loadTauRuns(cli.data);
  const tools = datasetTools(runs);
  const counter = createTokenCounter({ encoding: "o200k_base" });
  const points: Point[] = [];
  const noTools: Point[] = [];
  runs.forEach((run, r) => {
    const messages = runMessages(run, r);
    for (let end = 1; end < messages.length; end += 1) {
      if (messageType(messages[end] as BaseMessage) !== "ai") continue;
      const request = messages.slice(0, end);
      const system = request.some((m) => messageType(m) === "system");
      const estimate = (withTools: boolean) =>
        counter.countMessages(request) + (withTools ? counter.countTools(tools) : 0) + requestOverheadTokens({ system, tools: withTools });
      points.push({ run: r, end, reference: referenceRequestTokens(request, tools), estimate: estimate(true) });
      noTools.push({ run: r, end, reference: referenceRequestTokens(request), estimate: estimate(false) });
    }
  });
  if (points.length === 0)
    throw new BenchDataError(cli.data, TAU_RUNS_KIND, "(file)", "no assistant message in any run: no model call to compare counts at");
  const summary = (list: Point[]) => {
    const deviations = list.map((p) => (p.estimate - p.reference) / p.reference);
    let worst = 0;
    for (const d of deviations) if (Math.abs(d) > Math.abs(worst)) worst = d;
    const worstPoint = list[deviations.indexOf(worst)] as Point;
    return {
      points: list.length,
      meanAbsDeviationPct: (100 * deviations.reduce((a, d) => a + Math.abs(d), 0)) / list.length,
      meanSignedDeviationPct: (100 * deviations.reduce((a, d) => a + d, 0)) / list.length,
      worstDeviationPct: 100 * worst,
      worstPoint: { run: worstPoint.run, end: worstPoint.end, reference: worstPoint.reference, estimate: worstPoint.estimate },
      worstAbsTokens: Math.max(...list.map((p) => Math.abs(p.estimate - p.reference))),
      meanReferenceTokens: list.reduce((a, p) => a + p.reference, 0) / list.length,
    };
  };
  const toolsPart = { reference: referenceToolTokens(tools), estimate: counter.countTools(tools) };
  const figures = {
    data: cli.data,
    encoding: counter.encoding,
    tools: tools.length,
    // Runs that call no tool send no tool definitions: both parts are 0 tokens, a deviation of 0.
    toolsPart: {
      ...toolsPart,
      deviationTokens: toolsPart.estimate - toolsPart.reference,
      deviationPct: toolsPart.reference > 0 ? (100 * (toolsPart.estimate - toolsPart.reference)) / toolsPart.reference : 0,
    },
    withTools: summary(points),
    withoutTools: summary(noTools),
  };
  if (cli.json) {
    printJson(figures);
    return;
  }
  const row = (name: string, s: ReturnType<typeof summary>) =>
    `| ${name} | ${s.points} | ${s.meanReferenceTokens.toFixed(0)} | ${s.meanAbsDeviationPct.toFixed(3)}% | ${s.meanSignedDeviationPct.toFixed(3)}% | ${s.worstDeviationPct.toFixed(3)}% | ${s.worstAbsTokens} |`;
  console.log(`token count vs provider-style reference, ${runs.length} tau-bench runs of ${cli.data}, ${counter.encoding}\n`);
  console.log(
    "| request | model-call points | mean reference tokens | mean abs deviation | mean signed deviation | worst deviation | worst abs tokens |",
  );
  console.log("|---|---|---|---|---|---|---|");
  console.log(row(`with the ${tools.length} tools`, figures.withTools));
  console.log(row("messages only", figures.withoutTools));
  console.log(
    `\ntools part: reference ${toolsPart.reference}, estimate ${toolsPart.estimate} (${figures.toolsPart.deviationPct.toFixed(2)}%)`,
  );
}

main();
