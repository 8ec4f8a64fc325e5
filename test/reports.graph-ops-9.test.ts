/**
 * LangChain's own middlewares, structured output and tool `Command`s stacked with ours, from public
 * reports, on a thread the stack windows, summarizes and (archive on) archives. `memoryStack`
 * (window 4, summary at 6), English and Korean, archive off and on; oracle: plain `createAgent` on
 * a `MemorySaver` with the same middleware (a fresh instance each), and report-agent's
 * `expectAccepted` (strict validator for the four providers, no prefill, and the wire check) on
 * every request the stack sent.
 *
 * - https://github.com/langchain-ai/langchainjs/pull/9761 (`todoListMiddleware` answers parallel
 *   `write_todos` calls with error results) and https://github.com/langchain-ai/langchainjs/issues/10705
 *   (those results had no `name`, which Gemini refuses): two `write_todos` calls beside a `lookup`;
 * - https://github.com/langchain-ai/langchainjs/issues/10175 "jumpTo UntrackedValue(guard=true)
 *   throws InvalidUpdateError with multiple middleware afterModel nodes": two user `afterModel`
 *   hooks returning `{ ...state }` after the stack's (not reproduced on langchain 1.5.14: every turn
 *   completes, on plain and on the stack);
 * - https://github.com/langchain-ai/langchain/issues/37659 "PIIMiddleware state hooks miss tool-call
 *   args" and https://github.com/langchain-ai/langchain/issues/40767 (`apply_to_output` and tool
 *   calls): `piiMiddleware("email", redact, input/output/tool results)`;
 * - https://github.com/langchain-ai/langchain/pull/32980 (structured output with an interrupted
 *   tool call in the same answer): `responseFormat: toolStrategy(...)` with
 *   `humanInTheLoopMiddleware` on `book`, the model calling `book` and the structured-output tool
 *   at once. LangChain.js ends the turn on the structured response: `book` is neither reviewed nor
 *   run and its call is left unanswered (plain's next requests are refused); the stack's are not;
 * - https://github.com/langchain-ai/langchainjs/issues/9497 "DynamicSystemPromptMiddleware: 400 An
 *   assistant message with 'tool_calls' must be followed by tool messages": a tool answering with
 *   a `Command` (its `ToolMessage` and a state key) beside a parallel `lookup`, under
 *   `dynamicSystemPromptMiddleware`;
 * - and the middlewares of the first three listed before the stack's instead of after.
 */
import { type AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import {
  createMiddleware,
  dynamicSystemPromptMiddleware,
  humanInTheLoopMiddleware,
  piiMiddleware,
  todoListMiddleware,
  tool,
  toolStrategy,
} from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  callsOnWord,
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  outcome,
  requests,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

const toolResults = (messages: readonly BaseMessage[]) => messages.filter((m) => m.getType() === "tool") as ToolMessage[];

/** Every tool result in every request `model` received is named (Gemini's functionResponse needs one; langchainjs#10705). */
const expectNamedResults = (model: Parameters<typeof requests>[0]) =>
  expect(requests(model).flatMap((request) => toolResults(request).filter((m) => !m.name))).toEqual([]);

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 9 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`langchainjs#9761, langchainjs#10705: todoListMiddleware rejects two parallel write_todos calls beside a lookup: named error results, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({
      ...c,
      more: callsOnWord("PLAN", (rest, n) => [
        { id: `todo_${n}_0`, name: "write_todos", args: { todos: [{ content: rest, status: "pending" }] } },
        { id: `todo_${n}_1`, name: "write_todos", args: { todos: [{ content: `${rest} (2)`, status: "in_progress" }] } },
        { id: `lookup_${n}_2`, name: "lookup", args: { n: 7 } },
      ]),
      middleware: () => [todoListMiddleware()],
    });
    const cfg = { configurable: { thread_id: `todo-parallel-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`PLAN ${t.note}`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    const todos = toolResults(stored).filter((m) => m.tool_call_id.startsWith("todo_"));
    expect(todos.map((m) => [m.name, m.status])).toEqual([
      ["write_todos", "error"],
      ["write_todos", "error"],
    ]);
    expect(
      toolResults(stored)
        .filter((m) => m.tool_call_id.startsWith("lookup_"))
        .map((m) => messageText(m)),
    ).toEqual(["result 7"]);
    expect(requests(a.m).some((request) => toolResults(request).some((m) => m.name === "write_todos"))).toBe(true);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
  });

  it(`langchainjs#10175: two user afterModel hooks returning { ...state } after the stack's: the turn runs as on plain (${graphOpsLabel(c)})`, async () => {
    const echo = (name: string) => createMiddleware({ name, afterModel: async (state) => ({ ...state }) });
    const a = graphOpsAgents({ ...c, middleware: () => [echo("Middleware1"), echo("Middleware2")] });
    const cfg = { configurable: { thread_id: `after-model-${c.lang}-${c.archive}` } };
    const outcomes: Record<string, string[]> = {};
    for (const [name, target] of both(a)) {
      outcomes[name] = [];
      for (let i = 1; i <= 8; i += 1) {
        const text = i === 4 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i);
        outcomes[name].push(await outcome(target.invoke({ messages: [new HumanMessage(text)] }, cfg)));
      }
    }
    // Not reproduced on langchain 1.5.14: every turn completes on plain, and on the stack.
    expect(outcomes.plain).toEqual(Array(8).fill("ok"));
    expect(outcomes.agent).toEqual(outcomes.plain);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
  });

  it(`langchain#37659, langchain#40767: piiMiddleware redacting emails in input, output and tool results: the thread is plain's, no request holds an address plain's do not (${graphOpsLabel(c)})`, async () => {
    const sent: string[] = [];
    const mail = tool(
      async ({ to }: { to: string }) => {
        sent.push(to);
        return c.lang === "ko" ? `${to} 에게 보냄; 회신 주소 desk@example.org` : `sent to ${to}; reply to desk@example.org`;
      },
      { name: "mail", description: "Sends a mail.", schema: z.object({ to: z.string() }) },
    );
    const address = "minsu.kim@example.com";
    const a = graphOpsAgents({
      ...c,
      tools: [mail],
      more: callsOnWord(
        "MAIL",
        (_rest, n) => [
          { id: `mail_${n}_0`, name: "mail", args: { to: address } },
          { id: `mail_${n}_1`, name: "lookup", args: { n: 3 } },
        ],
        c.lang === "ko" ? `${address} 에게 보내겠습니다.` : `Writing to ${address}.`,
      ),
      middleware: () => [piiMiddleware("email", { strategy: "redact", applyToInput: true, applyToOutput: true, applyToToolResults: true })],
    });
    const cfg = { configurable: { thread_id: `pii-${c.lang}-${c.archive}` } };
    const ask = c.lang === "ko" ? `MAIL 제 주소는 ${address} 입니다` : `MAIL my address is ${address}`;
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(ask)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    // The tool got the real address on both: LangChain.js leaves tool-call args as the model wrote them.
    expect(sent).toEqual([address, address]);
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
    // Where an address reaches the model: in message text never (redacted), in tool-call args as on plain.
    const leaks = (all: BaseMessage[][]) =>
      all.map((request) => ({
        text: request.filter((m) => /@example\.(com|org)/.test(messageText(m))).length,
        args: request.filter((m) => JSON.stringify((m as AIMessage).tool_calls ?? []).includes(address)).length > 0,
      }));
    expect(leaks(requests(a.m)).every((l) => l.text === 0)).toBe(true);
    expect(leaks(requests(a.plainModel)).every((l) => l.text === 0)).toBe(true);
    // Plain keeps the call (args included) in every later request; the stack no more than plain.
    const argsSent = (all: BaseMessage[][]) => all.filter((r) => leaks([r])[0]?.args).length;
    expect(argsSent(requests(a.m))).toBeLessThanOrEqual(argsSent(requests(a.plainModel)));
    // The stack's summarizer reads the stored thread: the redacted texts as redacted, and the address
    // only where the thread holds it (the one call's args LangChain.js leaves as written).
    const summarized = a.summarizerInputs.flatMap((input) => input.map((m) => messageText(m))).join("\n");
    expect(summarized).toContain("[REDACTED_EMAIL]");
    expect(summarized).not.toContain("desk@example.org");
    const storedArgs = stored.filter((m) => JSON.stringify((m as AIMessage).tool_calls ?? []).includes(address)).length;
    expect(storedArgs).toBe(1);
    expect(summarized.split(address).length - 1).toBeLessThanOrEqual(storedArgs);
  });

  it(`langchain#32980: responseFormat (tool strategy) with humanInTheLoopMiddleware on book, the model calling book and the structured-output tool at once: the structured response is plain's, book never runs, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const runs: string[] = [];
    const book = tool(
      async ({ seat }: { seat: string }) => {
        runs.push(seat);
        return `booked seat ${seat}`;
      },
      { name: "book", description: "Books a seat.", schema: z.object({ seat: z.string() }) },
    );
    const schema = z.object({ seat: z.string(), confirmed: z.boolean() }).meta({ title: "booking" });
    const a = graphOpsAgents({
      ...c,
      tools: [book],
      responseFormat: toolStrategy(schema),
      more: callsOnWord("BOOK", (seat, n) => [
        { id: `book_${n}_0`, name: "book", args: { seat } },
        { id: `booking_${n}_1`, name: "booking", args: { seat, confirmed: true } },
      ]),
      middleware: () => [humanInTheLoopMiddleware({ interruptOn: { book: true } })],
    });
    const cfg = { configurable: { thread_id: `hitl-structured-${c.lang}-${c.archive}` } };
    const results: Record<string, unknown> = {};
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      const done = (await target.invoke({ messages: [new HumanMessage("BOOK 12A")] }, cfg)) as {
        structuredResponse?: unknown;
        __interrupt__?: unknown[];
      };
      results[name] = { structured: done.structuredResponse, interrupts: done.__interrupt__?.length ?? 0 };
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    // LangChain.js takes the structured response and ends the turn at once (Python's #32980 runs the
    // deferred call first): book is neither reviewed nor run, its call stays in the answer unanswered,
    // and plain's next requests carry it, which every provider refuses. The stack's are accepted.
    expect(results).toEqual({
      agent: { structured: { seat: "12A", confirmed: true }, interrupts: 0 },
      plain: { structured: { seat: "12A", confirmed: true }, interrupts: 0 },
    });
    expect(runs).toEqual([]);
    expect(a.plainModel.providerLog.rejected.map((r) => r.violations[0]?.rule)).toContain("unanswered_tool_call");
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
  });

  it(`langchainjs#9497: a tool answering with a Command (its ToolMessage and a state key) beside a parallel lookup, under dynamicSystemPromptMiddleware: each call one result, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const remember = tool(
      async ({ fact }: { fact: string }, config) =>
        new Command({
          update: {
            remembered: fact,
            messages: [
              new ToolMessage({
                content: `remembered: ${fact}`,
                tool_call_id: (config as { toolCall?: { id: string } }).toolCall?.id as string,
                name: "remember",
              }),
            ],
          },
        }),
      { name: "remember", description: "Remembers a fact.", schema: z.object({ fact: z.string() }) },
    );
    const stateKey = () => createMiddleware({ name: "remembered-key", stateSchema: z.object({ remembered: z.string().default("") }) });
    const a = graphOpsAgents({
      ...c,
      tools: [remember],
      more: callsOnWord("REMEMBER", (fact, n) => [
        { id: `remember_${n}_0`, name: "remember", args: { fact } },
        { id: `remember_${n}_1`, name: "lookup", args: { n: 9 } },
      ]),
      middleware: () => [stateKey(), dynamicSystemPromptMiddleware(() => "Today is Monday.")],
    });
    const cfg = { configurable: { thread_id: `tool-command-${c.lang}-${c.archive}` } };
    const remembered: Record<string, unknown> = {};
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`REMEMBER ${t.note}`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
      remembered[name] = ((await target.getState(cfg)).values as { remembered?: string }).remembered;
    }
    expect(remembered).toEqual({ agent: t.note, plain: t.note });
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    const ids = toolResults(stored).map((m) => m.tool_call_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.startsWith("remember_"))).toHaveLength(2);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
  });

  it(`the middlewares of the reports above listed before the stack's (todoList, piiMiddleware, a { ...state } afterModel hook): the thread is plain's, every request accepted (${graphOpsLabel(c)})`, async () => {
    const address = "minsu.kim@example.com";
    const a = graphOpsAgents({
      ...c,
      middlewareFirst: true,
      more: callsOnWord(
        "PLAN",
        (rest, n) => [
          { id: `todo_${n}_0`, name: "write_todos", args: { todos: [{ content: rest, status: "pending" }] } },
          { id: `todo_${n}_1`, name: "write_todos", args: { todos: [{ content: `${rest} (2)`, status: "pending" }] } },
          { id: `lookup_${n}_2`, name: "lookup", args: { n: 2 } },
        ],
        `${t.note} → ${address}`,
      ),
      middleware: () => [
        piiMiddleware("email", { strategy: "redact", applyToInput: true, applyToOutput: true, applyToToolResults: true }),
        todoListMiddleware(),
        createMiddleware({ name: "echo", afterModel: async (state) => ({ ...state }) }),
      ],
    });
    const cfg = { configurable: { thread_id: `user-first-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`PLAN ${t.fixed} ${address}`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 4, 6);
    }
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    expect(
      toolResults(stored)
        .filter((m) => m.tool_call_id.startsWith("todo_"))
        .map((m) => m.status),
    ).toEqual(["error", "error"]);
    expect(stored.some((m) => messageText(m).includes(address))).toBe(false);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    expectNamedResults(a.m);
  });
});
