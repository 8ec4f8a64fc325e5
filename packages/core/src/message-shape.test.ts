import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { matchMessageShape, recordMessageShape } from "./message-shape.js";

function shapeOf(message: BaseMessage): unknown[] {
  const shape: unknown[] = [];
  recordMessageShape(message, shape);
  return shape;
}

/** The arguments of an AI message's first tool call. */
const argsOf = (m: AIMessage) => (m.tool_calls as NonNullable<AIMessage["tool_calls"]>)[0]?.args as Record<string, unknown>;

const unchanged = (message: BaseMessage, shape: unknown[]) => matchMessageShape(message, shape, 0) === shape.length;

describe("message shapes", () => {
  for (const [lang, text, other] of [
    ["en", "I moved to Busan last spring.", "I moved to Daegu last spring."],
    ["ko", "작년 봄에 부산으로 이사했어요.", "작년 봄에 대구로 이사했어요."],
  ] as const) {
    it(`tell an unchanged message from one edited in place, field by field (${lang})`, () => {
      const make = () =>
        new AIMessage({
          id: "a1",
          content: [{ type: "text", text }],
          tool_calls: [{ id: "c1", name: "note", args: { text, tags: ["home"] }, type: "tool_call" }],
          additional_kwargs: { reasoning: { summary: [{ type: "summary_text", text }] } },
          response_metadata: { model_name: "m" },
        });
      const edits: Array<(m: AIMessage) => void> = [
        (m) => {
          m.content = other;
        },
        (m) => {
          (m.content as Array<{ text: string }>)[0]!.text = other;
        },
        (m) => {
          (m.content as unknown[]).push({ type: "text", text: other });
        },
        (m) => {
          (argsOf(m) as { text: string }).text = other;
        },
        (m) => {
          (argsOf(m).tags as string[]).push("work");
        },
        (m) => {
          argsOf(m).when = "spring";
        },
        (m) => {
          delete argsOf(m).tags;
        },
        (m) => {
          m.tool_calls?.pop();
        },
        (m) => {
          (m.additional_kwargs.reasoning as { summary: Array<{ text: string }> }).summary[0]!.text = other;
        },
        (m) => {
          m.response_metadata.output_version = "v1";
        },
        (m) => {
          m.name = "assistant";
        },
        (m) => {
          m.id = "a2";
        },
      ];
      for (const edit of edits) {
        const message = make();
        const shape = shapeOf(message);
        expect(unchanged(message, shape)).toBe(true);
        edit(message);
        expect(unchanged(message, shape)).toBe(false);
        // Recorded again, it describes the message as it is now.
        expect(unchanged(message, shapeOf(message))).toBe(true);
      }
    });

    it(`reads shapes one after another, and a tool result's call id (${lang})`, () => {
      const messages = [new HumanMessage({ id: "u1", content: text }), new ToolMessage({ id: "t1", content: text, tool_call_id: "c1" })];
      const shape: unknown[] = [];
      for (const m of messages) recordMessageShape(m, shape);
      const after = matchMessageShape(messages[0] as BaseMessage, shape, 0);
      expect(matchMessageShape(messages[1] as BaseMessage, shape, after)).toBe(shape.length);
      (messages[1] as ToolMessage).tool_call_id = "c2";
      expect(matchMessageShape(messages[1] as BaseMessage, shape, after)).toBe(-1);
    });
  }

  for (const [lang, text] of [
    ["en", "The flight to Jeju leaves at nine."],
    ["ko", "제주 가는 비행기는 아홉 시에 떠나요."],
  ] as const) {
    it(`tell an unchanged message holding NaN from one edited in place (${lang})`, () => {
      // A provider's metadata may hold NaN (a logprob, a latency not measured): NaN !== NaN, so a
      // comparison by === called every such message edited, and each index and view copy was rebuilt.
      const message = new AIMessage({ id: "a1", content: text, response_metadata: { logprob: Number.NaN } });
      const shape = shapeOf(message);
      expect(unchanged(message, shape)).toBe(true);
      message.response_metadata.logprob = -1.5;
      expect(unchanged(message, shape)).toBe(false);
    });
  }

  it("keeps class instances by identity and walks an object that holds itself once per level", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const loop: Record<string, unknown> = { a: 1 };
    loop.left = loop;
    loop.right = loop;
    const message = new HumanMessage({ id: "u1", content: "x", additional_kwargs: { bytes, loop } });
    const shape = shapeOf(message);
    expect(unchanged(message, shape)).toBe(true);
    message.additional_kwargs.bytes = new Uint8Array([1, 2, 3]);
    expect(unchanged(message, shape)).toBe(false);
  });
});
