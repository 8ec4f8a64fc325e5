/**
 * Random threads for the stack-wide property tests (issue 9): a stored part (parallel tool calls,
 * repeated call ids, stored orphans, system messages, content blocks, Korean and English text) and
 * a script of later turns (user messages, tool rounds the agent's model asks for, final answers).
 * Every message gets an explicit, unique id so two fresh agents given the same case store the same
 * thread.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";

/** Sentences that the fact rules pick up, mixed with questions and chatter, in both languages. */
const SENTENCES = [
  "I live in Seoul.",
  "I moved to Busan last month.",
  "My name is Mina.",
  "I work as a nurse at a hospital.",
  "I have a dog named Coco.",
  "I love hiking in the mountains.",
  "I'm allergic to peanuts.",
  "Where do I live?",
  "What's my job again?",
  "Can you check seat 12A for tomorrow?",
  "That sounds good, thanks.",
  "저는 서울에 살아요.",
  "부산으로 이사했어요.",
  "제 이름은 민지예요.",
  "저는 간호사예요.",
  "고양이를 키워요.",
  "등산을 좋아해요.",
  "땅콩 알레르기가 있어요.",
  "제가 어디에 살죠?",
  "내일 좌석 좀 확인해 주세요.",
  "좋아요, 고마워요.",
];

/** Short text: one to three sentences, sometimes with random characters appended. */
export const textArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.constantFrom(...SENTENCES), { minLength: 1, maxLength: 3 }),
    fc.option(fc.string({ maxLength: 24 }), { nil: undefined }),
  )
  .map(([parts, noise]) => (noise === undefined ? parts.join(" ") : `${parts.join(" ")} ${noise}`));

/** A tool result: short, or long enough to press a token cap (repeated sentences). */
const resultArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: textArb },
  {
    weight: 1,
    arbitrary: fc.tuple(textArb, fc.integer({ min: 5, max: 40 })).map(([t, n]) => Array.from({ length: n }, () => t).join(" ")),
  },
);

/** Message content: a string, or text blocks (sometimes with an image block). */
export type ContentSpec = { text: string; blocks: boolean; image: boolean };
const contentArb: fc.Arbitrary<ContentSpec> = fc.record({
  text: textArb,
  blocks: fc.boolean(),
  image: fc.boolean(),
});

/** One step of the stored part of a thread. */
export type SeedStep =
  | { kind: "user"; content: ContentSpec }
  | { kind: "assistant"; content: ContentSpec }
  | { kind: "system"; text: string }
  | {
      kind: "tools";
      calls: string[];
      /** Sort keys of the results: parallel results come back in any order. */
      order: number[];
      /** 0: complete; n > 0: the n-th result is missing (a stored call without all results). */
      missing: number;
      duplicate: boolean;
      stray: boolean;
      result: string;
    }
  | { kind: "stray" }
  | { kind: "dangling"; call: string }
  /** A call a human rejected (humanInTheLoop): its result is an error ToolMessage. */
  | { kind: "rejected"; calls: string[] }
  /** An empty user message OpenAI answered ({@link EMPTY_USER_CONTENTS}; langchain-ai/langchain#35081). */
  | { kind: "empty_user"; form: number };

/** Content of an empty user message as clients store it: OpenAI answers it; Anthropic, Gemini and Bedrock refuse it. */
export const EMPTY_USER_CONTENTS: readonly unknown[] = ["", [], " \n", [{ type: "text", text: "" }], [{ type: "text", text: "\u3000" }]];

/** An empty user message step followed by the AI answer OpenAI gave it. */
export const emptyUserArb: fc.Arbitrary<SeedStep> = fc.record({
  kind: fc.constant("empty_user" as const),
  form: fc.nat({ max: EMPTY_USER_CONTENTS.length - 1 }),
});

/** A small id pool, so tool_call_ids repeat across rounds, as in the tau-bench airline data. */
const callIdArb = fc.constantFrom("call_1", "call_2", "call_3", "call_4");

export const seedStepArb: fc.Arbitrary<SeedStep> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("user" as const), content: contentArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("assistant" as const), content: contentArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("system" as const), text: fc.constantFrom("Stored rule: be brief.", "저장된 규칙: 짧게.") }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.uniqueArray(callIdArb, { minLength: 1, maxLength: 4 }),
      order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      missing: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
      duplicate: fc.boolean(),
      stray: fc.boolean(),
      result: resultArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("stray" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dangling" as const), call: callIdArb }) },
);

/** One later turn: the user's message, the tool rounds the model asks for, then its answer. */
export interface TurnSpec {
  user: ContentSpec;
  /** Each round is one AI message with these parallel tool calls (ids from the shared pool). */
  rounds: Array<{ calls: string[]; queries: string[] }>;
  answer: string;
}

export const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  user: contentArb,
  rounds: fc.array(
    fc.record({
      calls: fc.uniqueArray(callIdArb, { minLength: 1, maxLength: 3 }),
      queries: fc.array(fc.constantFrom("short", "long", "서울"), { minLength: 3, maxLength: 3 }),
    }),
    { maxLength: 2 },
  ),
  answer: textArb,
});

/** A whole case: the stored part and the later turns (the first turn's user message ends the seed). */
export interface ThreadCase {
  seed: SeedStep[];
  turns: TurnSpec[];
}

export const threadCaseArb: fc.Arbitrary<ThreadCase> = fc.record({
  seed: fc.array(seedStepArb, { maxLength: 24 }),
  turns: fc.array(turnArb, { minLength: 2, maxLength: 4 }),
});

/** Content of a message from its spec: a string, or text blocks (an image block when asked). */
export function content(spec: ContentSpec): string | Array<Record<string, unknown>> {
  if (!spec.blocks) return spec.text;
  const blocks: Array<Record<string, unknown>> = [{ type: "text", text: spec.text }];
  if (spec.image) blocks.push({ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" } });
  return blocks;
}

/** The stored part as messages, ids `s1`, `s2`, ... */
export function seedMessages(steps: readonly SeedStep[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let n = 0;
  const id = () => {
    n += 1;
    return `s${n}`;
  };
  for (const s of steps) {
    if (s.kind === "user") out.push(new HumanMessage({ id: id(), content: content(s.content) as never }));
    else if (s.kind === "assistant") out.push(new AIMessage({ id: id(), content: content({ ...s.content, image: false }) as never }));
    else if (s.kind === "system") out.push(new SystemMessage({ id: id(), content: s.text }));
    else if (s.kind === "stray") out.push(new ToolMessage({ id: id(), content: "stray result", tool_call_id: "call_9" }));
    else if (s.kind === "empty_user") {
      out.push(new HumanMessage({ id: id(), content: EMPTY_USER_CONTENTS[s.form] as never }));
      out.push(new AIMessage({ id: id(), content: "It looks like your message was empty. 메시지가 비어 있어요." }));
    } else if (s.kind === "rejected") {
      out.push(
        callMessage(
          id(),
          s.calls.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const })),
        ),
      );
      for (const c of s.calls) {
        out.push(new ToolMessage({ id: id(), content: "The user rejected this call.", tool_call_id: c, name: "lookup", status: "error" }));
      }
    } else if (s.kind === "dangling") {
      out.push(callMessage(id(), [{ id: s.call, name: "lookup", args: { q: "x" }, type: "tool_call" }]));
    } else {
      out.push(
        callMessage(
          id(),
          s.calls.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const })),
        ),
      );
      const results = s.calls.filter((_, i) => i + 1 !== s.missing);
      const ordered = results.map((c, i) => ({ c, k: s.order[i] ?? 0 })).sort((a, b) => a.k - b.k);
      for (const { c } of ordered) out.push(new ToolMessage({ id: id(), content: s.result, tool_call_id: c, name: "lookup" }));
      if (s.duplicate && results[0]) out.push(new ToolMessage({ id: id(), content: "again", tool_call_id: results[0], name: "lookup" }));
      if (s.stray) out.push(new ToolMessage({ id: id(), content: "other", tool_call_id: "call_8", name: "lookup" }));
    }
  }
  return out;
}

/**
 * `response_metadata` of an AI message calling `calls` as `@langchain/openai` stores a Responses
 * API answer: the raw output items (a reasoning item, then one `function_call` item per call),
 * which its converter sends in place of `tool_calls` (core's `responses-output.ts`); item ids carry
 * `messageId` when given. Every AI
 * message with calls the fuzz stores or scripts carries them, so the strict validator's
 * `responses_items` rule checks that a view never sends a call item whose call it left out.
 */
export function responsesMetadata(calls: ReadonlyArray<{ id?: string; name: string; args: Record<string, unknown> }>, messageId = "") {
  // Item ids are unique per answer, as OpenAI's are (`Duplicate item found with id` otherwise): the
  // fuzz reuses call ids across turns, so the answer's message id is part of them.
  const first = `${messageId ? `${messageId}_` : ""}${calls[0]?.id ?? "none"}`;
  const items = calls.map((c) => ({
    type: "function_call",
    id: `fc_${messageId ? `${messageId}_` : ""}${c.id}`,
    call_id: c.id,
    name: c.name,
    arguments: JSON.stringify(c.args),
    status: "completed",
  }));
  return { model_provider: "openai", output: [{ type: "reasoning", id: `rs_${first}`, summary: [] }, ...items] };
}

/** An AI message with tool calls, as a Responses API answer stores them ({@link responsesMetadata}). */
export function callMessage(id: string, calls: NonNullable<AIMessage["tool_calls"]>): AIMessage {
  return new AIMessage({ id, content: "", tool_calls: calls, response_metadata: responsesMetadata(calls, id) });
}

/** The user message of turn `t` (0-based), id `u<t>`. */
export function userMessage(turn: TurnSpec, t: number): HumanMessage {
  return new HumanMessage({ id: `u${t}`, content: content(turn.user) as never });
}

/**
 * What the agent's model answers, in call order over all turns: per turn, one AI message per tool
 * round, then the final answer. Ids are `a<t>-<k>`, so two agents replaying the case agree; `t`
 * counts from `firstTurn` (a script made one turn at a time).
 */
export function modelScript(turns: readonly TurnSpec[], firstTurn = 0): Array<() => AIMessage> {
  const script: Array<() => AIMessage> = [];
  turns.forEach((turn, i) => {
    const t = firstTurn + i;
    turn.rounds.forEach((round, k) => {
      script.push(() =>
        callMessage(
          `a${t}-${k}`,
          round.calls.map((c, i) => ({ id: c, name: "lookup", args: { q: round.queries[i] ?? "short" }, type: "tool_call" as const })),
        ),
      );
    });
    script.push(() => new AIMessage({ id: `a${t}-final`, content: turn.answer }));
  });
  return script;
}

/** The text the `lookup` tool returns: `long` is long enough to press the token cap. */
export function lookupResult(q: string): string {
  if (q === "long") return Array.from({ length: 60 }, (_, i) => `Row ${i}: seat ${i}A is free, 좌석 ${i}A 비어 있음.`).join("\n");
  return `lookup ${q}: ok`;
}
