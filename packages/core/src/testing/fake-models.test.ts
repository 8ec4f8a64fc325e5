import { type BaseMessage, HumanMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { withUniqueCallIds } from "../portable-call-ids.js";
import { requestTokens } from "../request-tokens.js";
import { createTokenCounter } from "../token-counter.js";
import { receivedRequestTokens, repeatedCallIdModel } from "./fake-models.js";

const lookup = tool(async ({ q }: { q: string }) => `Result for ${q}.`, {
  name: "lookup",
  description: "Look up a booking.",
  schema: z.object({ q: z.string() }),
});

describe("repeatedCallIdModel", () => {
  it("calls the tool as call_0 on every turn, so a thread repeats the id (core renames the repeat in a request)", async () => {
    const model = repeatedCallIdModel({ tool: "lookup", args: (n) => ({ q: `booking ${n}` }), answer: (n) => `Booking ${n} checked.` });
    const agent = createAgent({ model, tools: [lookup], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "call-0" } };
    for (const text of ["Check booking A.", "예약 B도 확인해 주세요."]) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(stored.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
    expect(stored.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id)).toEqual(["call_0", "call_0"]);
    expect(stored.at(-1)?.content).toBe("Booking 3 checked.");
    // Without a threadwise middleware the request repeats the id (core's view renames it: withUniqueCallIds).
    const sent = model.calls.at(-1)?.messages ?? [];
    expect(sent.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id)).toEqual(["call_0", "call_0"]);
    expect(
      withUniqueCallIds(sent)
        .filter((m) => m.getType() === "tool")
        .map((m) => (m as ToolMessage).tool_call_id),
    ).toEqual(["call_0", expect.stringMatching(/^call_0_r[0-9a-f]{12}$/)]);
  });
});

describe("receivedRequestTokens", () => {
  it("counts a received request as requestTokens does, its leading system message as the system message", () => {
    const system = new SystemMessage("You are a careful airline agent.");
    const messages = [new HumanMessage("Check booking 1."), new HumanMessage("서울행 좌석도요.")];
    const counter = () => createTokenCounter({ encoding: "o200k_base" });
    expect(receivedRequestTokens([system, ...messages], { tools: [lookup], encoding: "o200k_base" })).toBe(
      requestTokens(counter(), { messages, systemMessage: system, tools: [lookup] }),
    );
    expect(receivedRequestTokens(messages, { encoding: "o200k_base" })).toBe(requestTokens(counter(), { messages }));
  });
});
