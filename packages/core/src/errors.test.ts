import { MemorySaver } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { ThreadwiseConfigError, ThreadwiseError } from "./errors.js";
import { scriptedModel } from "./testing/index.js";

class ThreadwiseExampleError extends ThreadwiseError {
  constructor() {
    super("THREADWISE_EXAMPLE", "example: over by 3");
  }
  static override isInstance(error: unknown): error is ThreadwiseExampleError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_EXAMPLE";
  }
}

describe("ThreadwiseError.find", () => {
  // LangChain wraps an error thrown in wrapModelCall in a MiddlewareError once per middleware it
  // passes (name and message copied, code not): `isInstance` on what invoke rejects with is false.
  it("finds the threadwise error under the MiddlewareErrors of a dozen wrapModelCall middlewares", async () => {
    const passThrough = (i: number) => createMiddleware({ name: `pass-${i}`, wrapModelCall: (request, handler) => handler(request) });
    const thrower = createMiddleware({
      name: "thrower",
      wrapModelCall: () => {
        throw new ThreadwiseExampleError();
      },
    });
    const middleware: AgentMiddleware[] = [...Array.from({ length: 11 }, (_, i) => passThrough(i)), thrower];
    const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], checkpointer: new MemorySaver(), middleware });
    const error = await agent.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "t" } }).catch((e) => e);
    expect((error as Error).name).toBe("ThreadwiseExampleError");
    expect(ThreadwiseExampleError.isInstance(error)).toBe(false);
    const found = ThreadwiseExampleError.find(error);
    expect(found).toBeInstanceOf(ThreadwiseExampleError);
    expect(found?.code).toBe("THREADWISE_EXAMPLE");
    expect(ThreadwiseError.find(error)).toBe(found);
    expect(ThreadwiseConfigError.find(error)).toBeUndefined();
  });

  it("finds it inside an AggregateError (LangGraph's, when parallel tasks of a step fail), wrapped or not", () => {
    const inner = new ThreadwiseExampleError();
    const wrapped = new Error("wrapped", { cause: inner });
    const aggregate = new AggregateError([new Error("other"), wrapped], "Multiple errors occurred during superstep 3");
    expect(ThreadwiseExampleError.find(aggregate)).toBe(inner);
    expect(ThreadwiseExampleError.find(new AggregateError([new Error("x")], "none"))).toBeUndefined();
  });

  it("returns undefined for non-errors and stops on a cause cycle", () => {
    expect(ThreadwiseError.find(undefined)).toBeUndefined();
    expect(ThreadwiseError.find("THREADWISE_X")).toBeUndefined();
    const a = new Error("a") as Error & { cause?: unknown };
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect(ThreadwiseError.find(a)).toBeUndefined();
    const config = new ThreadwiseConfigError("windowTrim.maxMessages", "too small");
    expect(ThreadwiseConfigError.find(new Error("outer", { cause: config }))).toBe(config);
  });
});
