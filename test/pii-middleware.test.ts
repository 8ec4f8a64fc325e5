/**
 * LangChain's piiMiddleware with memoryStack (newuser62): what a user of both expects is that a
 * redacted value reaches no memory of ours. Listed before or after the stack, en/ko; the one known
 * path (tool-call arguments, which piiMiddleware never redacts) is documented in the memory README.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, piiMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

const EMAIL = "mina.kim@example.com";
const SYSTEM = "You are Mina's assistant.";
const turns = {
  en: [
    `My email is ${EMAIL}, please remember it.`,
    "Thanks.",
    "Nice weather today.",
    "Yes.",
    "ok",
    "What is my email?",
    "More.",
    "And again.",
  ],
  ko: [
    `제 이메일은 ${EMAIL}이에요. 기억해 주세요.`,
    "고마워요.",
    "오늘 날씨 좋네요.",
    "네.",
    "ㅇㅋ",
    "제 이메일이 뭐였죠?",
    "더요.",
    "한 번 더요.",
  ],
};

/** Enough turns that the first ones leave the hot part for the archive. */
const said = (language: "en" | "ko") => [...turns[language], ...turns[language].slice(1).map((words, i) => `${words} ${i}`)];

async function run(language: "en" | "ko", position: "before" | "after", condenser?: ReturnType<typeof scriptedModel>) {
  const internal: string[] = [];
  const model = scriptedModel((messages: BaseMessage[]) => {
    const all = messages.map((m) => contentText(m.content)).join("\n");
    // The agent's calls answer with the address (piiMiddleware redacts it after the call); internal
    // calls (summarizer, condenser) answer with a fixed text and are recorded.
    if (contentText(messages[0]?.content).startsWith(SYSTEM))
      return language === "ko" ? `네, ${EMAIL} 로 보낼게요.` : `Sure, I will write to ${EMAIL}.`;
    internal.push(all);
    return "noted";
  });
  const stack = memoryStack({
    env: {},
    windowSize: 4,
    summarizeThreshold: 6,
    factsMode: "heuristic",
    userMemory: true,
    workMemory: true,
    archive: true,
    ...(condenser ? { models: { workMemory: condenser } } : {}),
  });
  const pii = piiMiddleware("email", { strategy: "redact", applyToOutput: true, applyToToolResults: true });
  const agent = createAgent({
    model,
    systemPrompt: SYSTEM,
    ...stack,
    middleware: position === "before" ? [pii, ...stack.middleware] : [...stack.middleware, pii],
  });
  const config = { configurable: { thread_id: `pii-${language}-${position}`, user_id: "u1" } };
  for (const content of said(language)) await agent.invoke({ messages: [{ role: "user", content }] }, config);
  const state = (await agent.graph.getState(config)).values as Record<string, unknown>;
  const userItems: unknown[] = [];
  for (const namespace of await stack.store!.listNamespaces({}))
    userItems.push(...(await stack.store!.search(namespace, { limit: 100 })).map((i) => i.value));
  const archived = await stack.checkpointer!.archivedMessages(config.configurable.thread_id);
  return { state, internal, userItems, archived, model };
}

describe.each(["en", "ko"] as const)("piiMiddleware with memoryStack (%s)", (language) => {
  it("workMemory with a model of its own: its condensation calls never see the unredacted answer", async () => {
    const condenser = scriptedModel(() => "noted");
    const { state, internal } = await run(language, "after", condenser);
    expect(JSON.stringify(state)).not.toContain(EMAIL);
    // The condensation is no longer in the agent model's calls.
    expect(internal.some((text) => text.startsWith("You keep the work memory"))).toBe(false);
    for (const call of condenser.calls) expect(call.messages.map((m) => contentText(m.content)).join("\n")).not.toContain(EMAIL);
  });

  it.each(["before", "after"] as const)("listed %s the stack: no memory of ours holds the redacted address", async (position) => {
    const { state, internal, userItems, archived, model } = await run(language, position);
    expect(JSON.stringify(state.messages)).not.toContain(EMAIL);
    expect(JSON.stringify(state.messages)).toContain("[REDACTED_EMAIL]");
    // Summary, facts, work memory: the private slots.
    for (const [key, value] of Object.entries(state)) if (key !== "messages") expect(JSON.stringify(value), key).not.toContain(EMAIL);
    // The summarizer's calls. Left open (memory README): workMemory without a model of its own
    // condenses the answer inside the model call, before piiMiddleware's afterModel redacts it, so
    // the condensation call (the agent's own model) is sent the unredacted answer; the note is then
    // dropped as replaced (asserted above: no slot holds it).
    const summarizer = internal.filter((text) => !text.startsWith("You keep the work memory"));
    expect(summarizer.length).toBeGreaterThan(0);
    for (const text of summarizer) expect(text).not.toContain(EMAIL);
    expect(JSON.stringify(userItems)).not.toContain(EMAIL);
    expect(archived.length).toBeGreaterThan(0);
    expect(JSON.stringify(archived)).not.toContain(EMAIL);
    // No later agent call is sent the address (the answer that said it was redacted after it).
    const agentCalls = model.calls.filter((call) => contentText(call.messages[0]?.content).startsWith(SYSTEM));
    expect(agentCalls.length).toBeGreaterThan(said(language).length - 1);
    for (const call of agentCalls) expect(call.messages.map((m) => contentText(m.content)).join("\n")).not.toContain(EMAIL);
  });
});
