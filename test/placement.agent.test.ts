/**
 * Placement (spec R8, R9) through `createAgent`, checked byte for byte on what the model received,
 * serialized as the OpenAI chat-completions provider sends it, across checkpointed turns.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  addContextBlocks,
  CONTEXT_MESSAGE_ID_PREFIX,
  isContextMessage,
  type PromptContextMode,
  STABLE_TAIL_HEADER,
  viewMessages,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { serializeInput, toOpenAIMessages } from "../bench/support/openai-wire.js";

const dir = mkdtempSync(join(tmpdir(), "tw-placement-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FACTS_LABEL = "Facts about the user";
const KNOWLEDGE_LABEL = "Retrieved knowledge";
const CACHED_BLOCK = { type: "text", text: "You are a travel agent.", cache_control: { type: "ephemeral" } };

type SystemKind = "string" | "blocks" | "absent";
type SaverKind = "memory" | "sqlite";

/** A threadwise-like producer: a `facts` block whose text changes on every turn. */
function factsMiddleware(mode: PromptContextMode) {
  return createMiddleware({
    name: "threadwise/fact-recall",
    wrapModelCall: (request, handler) => {
      const turn = viewMessages(request).filter((m) => m instanceof HumanMessage).length;
      return handler(
        addContextBlocks(
          request,
          [{ kind: "facts", producer: "threadwise/fact-recall", label: FACTS_LABEL, text: `fact of turn ${turn}` }],
          {
            mode,
          },
        ),
      );
    },
  });
}

/** A user's own middleware adding retrieved knowledge through the public API (R9); no mode given. */
function userKnowledgeMiddleware() {
  return createMiddleware({
    name: "user/rag",
    wrapModelCall: (request, handler) => {
      // viewMessages: the request without context rendered by an outer middleware.
      const question = String(
        viewMessages(request)
          .filter((m) => m instanceof HumanMessage)
          .at(-1)?.content ?? "",
      );
      return handler(
        addContextBlocks(request, [{ kind: "knowledge", producer: "user/rag", label: KNOWLEDGE_LABEL, text: `doc about ${question}` }]),
      );
    },
  });
}

function saver(kind: SaverKind, name: string): { checkpointer: BaseCheckpointSaver; path?: string } {
  if (kind === "memory") return { checkpointer: new MemorySaver() };
  const path = join(dir, `${name}.sqlite`);
  return { checkpointer: SqliteSaver.fromConnString(path), path };
}

function systemPromptFor(kind: SystemKind): string | SystemMessage | undefined {
  if (kind === "string") return "You are a travel agent.";
  if (kind === "blocks") return new SystemMessage({ content: [CACHED_BLOCK] });
  return undefined;
}

function rendered(turn: number): string {
  return `[${FACTS_LABEL}]\nfact of turn ${turn}\n\n[${KNOWLEDGE_LABEL}]\ndoc about q${turn}`;
}

/**
 * The wire `messages` expected for the call of turn `turn` (1-based), built by hand. createAgent
 * names the AI messages it stores `model`, and the provider sends that name.
 */
function expectedWire(mode: PromptContextMode, system: SystemKind, turn: number): unknown[] {
  const history: unknown[] = [];
  for (let t = 1; t < turn; t += 1)
    history.push({ role: "user", content: `q${t}` }, { role: "assistant", content: `answer ${t}`, name: "model" });
  const user = { role: "user", content: `q${turn}` };
  const base = system === "blocks" ? [CACHED_BLOCK] : system === "string" ? [{ type: "text", text: "You are a travel agent." }] : undefined;
  if (mode === "legacy_system") {
    const systemContent = base ? [...base, { type: "text", text: `\n\n${rendered(turn)}` }] : rendered(turn);
    return [{ role: "system", content: systemContent }, ...history, user];
  }
  // stable_tail: one more text block on the newest user message (one user turn, not two in a row).
  const head = base ? [{ role: "system", content: base }] : [];
  return [
    ...head,
    ...history,
    {
      role: "user",
      content: [
        { type: "text", text: `q${turn}` },
        { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n${rendered(turn)}` },
      ],
    },
  ];
}

const TURNS = 4;

describe.each(["memory", "sqlite"] as const)("placement through createAgent with %s checkpointer", (saverKind) => {
  describe.each(["legacy_system", "stable_tail"] as const)("%s", (mode) => {
    it.each(["string", "blocks", "absent"] as const)("system prompt %s: exact bytes on every turn, stored thread clean", async (system) => {
      const name = `${saverKind}-${mode}-${system}`;
      const { checkpointer, path } = saver(saverKind, name);
      const model = scriptedModel((_messages, call) => `answer ${call + 1}`);
      const agent = createAgent({
        model,
        systemPrompt: systemPromptFor(system),
        checkpointer,
        middleware: [factsMiddleware(mode), userKnowledgeMiddleware()],
      });
      const config = { configurable: { thread_id: name } };
      for (let turn = 1; turn <= TURNS; turn += 1) await agent.invoke({ messages: [new HumanMessage(`q${turn}`)] }, config);

      expect(model.calls).toHaveLength(TURNS);
      for (let turn = 1; turn <= TURNS; turn += 1) {
        const sent = model.calls[turn - 1]?.messages ?? [];
        expect(serializeInput(sent)).toBe(JSON.stringify(expectedWire(mode, system, turn)));
      }
      if (mode === "stable_tail" && system !== "absent") {
        // The system message is byte-identical on every turn: the cacheable prefix survives.
        const systems = model.calls.map((c) => JSON.stringify(toOpenAIMessages(c.messages)[0]));
        expect(new Set(systems).size).toBe(1);
      }

      const state = await agent.graph.getState(config);
      const stored = (state.values as { messages: BaseMessage[] }).messages;
      expect(stored.map((m) => [m.getType(), m.content])).toEqual(
        Array.from({ length: TURNS }, (_, i) => [
          ["human", `q${i + 1}`],
          ["ai", `answer ${i + 1}`],
        ]).flat(),
      );
      expect(stored.some(isContextMessage)).toBe(false);
      expect(JSON.stringify(stored)).not.toContain(FACTS_LABEL);
      if (path) {
        // Nothing placed reached the database file either (main file and write-ahead log).
        const bytes = [path, `${path}-wal`].filter(existsSync).map((p) => readFileSync(p).toString("latin1"));
        expect(bytes.join("").includes("q4")).toBe(true);
        expect(bytes.some((b) => b.includes(FACTS_LABEL) || b.includes(KNOWLEDGE_LABEL) || b.includes(CONTEXT_MESSAGE_ID_PREFIX))).toBe(
          false,
        );
      }
    });
  });
});

describe("a user's block gets the same placement as threadwise's", () => {
  it.each(["legacy_system", "stable_tail"] as const)("%s: middleware order does not change the bytes", async (mode) => {
    const wires: string[][] = [];
    for (const order of ["user-first", "threadwise-first"] as const) {
      const model = scriptedModel((_messages, call) => `answer ${call + 1}`);
      const middleware =
        order === "user-first" ? [userKnowledgeMiddleware(), factsMiddleware(mode)] : [factsMiddleware(mode), userKnowledgeMiddleware()];
      const agent = createAgent({ model, systemPrompt: "You are a travel agent.", checkpointer: new MemorySaver(), middleware });
      const config = { configurable: { thread_id: order } };
      for (let turn = 1; turn <= 3; turn += 1) await agent.invoke({ messages: [new HumanMessage(`q${turn}`)] }, config);
      wires.push(model.calls.map((c) => serializeInput(c.messages)));
    }
    expect(wires[0]).toEqual(wires[1]);
    // The mode given by the first producer applies to the user's block too.
    expect(wires[0]?.[2]).toBe(JSON.stringify(expectedWire(mode, "string", 3)));
  });

  it("stable_tail during a tool loop: the context stays on the newest user message, before the tool call", async () => {
    const lookup = tool(async ({ code }) => `fare for ${code}: 120 USD`, {
      name: "lookup_fare",
      description: "Fare of a flight.",
      schema: z.object({ code: z.string() }),
    });
    const model = scriptedModel((_messages, call) =>
      call === 1
        ? new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "lookup_fare", args: { code: "HAT001" }, type: "tool_call" }] })
        : `answer ${call + 1}`,
    );
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: "You are a travel agent.",
      checkpointer: new MemorySaver(),
      middleware: [factsMiddleware("stable_tail"), userKnowledgeMiddleware()],
    });
    const config = { configurable: { thread_id: "tool-loop" } };
    await agent.invoke({ messages: [new HumanMessage("q1")] }, config);
    await agent.invoke({ messages: [new HumanMessage("q2")] }, config);
    // Calls: turn 1 -> 0; turn 2 -> 1 (tool call), 2 (after the result).
    expect(model.calls).toHaveLength(3);
    expect(serializeInput(model.calls[2]?.messages ?? [])).toBe(
      JSON.stringify([
        { role: "system", content: [{ type: "text", text: "You are a travel agent." }] },
        { role: "user", content: "q1" },
        { role: "assistant", content: "answer 1", name: "model" },
        {
          role: "user",
          content: [
            { type: "text", text: "q2" },
            { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n${rendered(2)}` },
          ],
        },
        {
          role: "assistant",
          content: "",
          name: "model",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_fare", arguments: '{"code":"HAT001"}' } }],
        },
        { role: "tool", content: "fare for HAT001: 120 USD", name: "lookup_fare", tool_call_id: "call_1" },
      ]),
    );
    const state = await agent.graph.getState(config);
    const stored = (state.values as { messages: BaseMessage[] }).messages;
    expect(stored.map((m) => m.getType())).toEqual(["human", "ai", "human", "ai", "tool", "ai"]);
    expect(stored.some(isContextMessage)).toBe(false);
  });
});
