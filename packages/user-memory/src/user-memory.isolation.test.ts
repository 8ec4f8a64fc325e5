import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { userMemory } from "./user-memory.js";

const TENANTS = ["acme", "acme.eu"];
const USERS = Array.from({ length: 25 }, (_, i) => `u${i}`);
const THREADS = 3;
/** A word only one (tenant, user) ever says: its thread facts carry it. */
const secret = (tenant: number, user: number) => `zq${tenant}x${user}k`;
const requestText = (messages: BaseMessage[]) =>
  messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

describe("userMemory isolation", () => {
  it("50 users (25 ids x 2 tenants, u1 beside u10) x 3 threads: no request holds another user's or tenant's item", async () => {
    const store = new InMemoryStore();
    const model = scriptedModel(() => "ok");
    const agent = createAgent({ model, checkpointer: new MemorySaver(), store, middleware: [userMemory({ logger: false })] });
    // Which scope each model call was made for, in call order.
    const owners: string[] = [];
    const run = async (tenant: number, user: number, thread: string, content: string) => {
      owners.push(secret(tenant, user));
      await agent.invoke(
        { messages: [new HumanMessage(content)] },
        { configurable: { thread_id: `${TENANTS[tenant]}/${USERS[user]}/${thread}`, user_id: USERS[user], tenant_id: TENANTS[tenant] } },
      );
    };
    for (let thread = 0; thread < THREADS; thread += 1)
      for (const [t] of TENANTS.entries())
        for (const [u] of USERS.entries())
          await run(t, u, `t${thread}`, `My locker code is ${secret(t, u)} and note ${thread}: my favourite locker is number ${thread}.`);
    for (const [t] of TENANTS.entries()) for (const [u] of USERS.entries()) await run(t, u, "ask", "What is my locker code?");

    expect(model.calls).toHaveLength(owners.length);
    const all = new Set(owners);
    let foreign = 0;
    let ownRecalled = 0;
    model.calls.forEach((call, i) => {
      const text = requestText(call.messages as BaseMessage[]);
      const owner = owners[i] as string;
      for (const word of all) if (word !== owner && text.includes(word)) foreign += 1;
      if (
        i >= TENANTS.length * USERS.length * THREADS &&
        text.includes(`[Memory from this user's other conversations]`) &&
        text.includes(owner)
      )
        ownRecalled += 1;
    });
    expect(foreign).toBe(0);
    // Control: the same requests do carry the asking user's own code from their earlier threads.
    expect(ownRecalled).toBe(TENANTS.length * USERS.length);
  });
});
