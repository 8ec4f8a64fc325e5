/**
 * memoryStack passes tokenCap's `overflow` through (`maxHistoryTokensOverflow`, env
 * `MAX_HISTORY_TOKENS_OVERFLOW`): with `"throw"` a tiny `maxHistoryTokens` the newest turn alone
 * exceeds fails with ThreadwiseTokenBudgetError before the model call (was: no such option, the
 * request was sent with a warning). The default stays `"truncate"`. English and Korean turns.
 */
import { ThreadwiseConfigError, ThreadwiseError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { ThreadwiseTokenBudgetError } from "@threadwise/token-cap";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const turns = {
  English: "Please plan my whole trip to Busan next Friday, hotel and trains. ".repeat(20),
  Korean: "다음 주 금요일 부산 여행 전체를 계획해 주세요, 호텔과 기차. ".repeat(20),
};

describe("memoryStack maxHistoryTokensOverflow", () => {
  for (const [language, text] of Object.entries(turns)) {
    for (const [how, options] of [
      ["option", { maxHistoryTokensOverflow: "throw" as const }],
      ["env", { env: { MAX_HISTORY_TOKENS_OVERFLOW: "throw" } }],
    ] as const)
      it(`${language}, ${how}: "throw" fails with ThreadwiseTokenBudgetError before the model call`, async () => {
        let calls = 0;
        const model = scriptedModel(() => {
          calls += 1;
          return "ok";
        });
        const stack = memoryStack({ env: {}, logger: false, maxHistoryTokens: 40, ...options });
        const agent = createAgent({ model, tools: [], ...stack });
        const error = await agent
          .invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: `o-${language}-${how}` } })
          .catch((e: unknown) => e);
        const budget = ThreadwiseError.find(error);
        expect(ThreadwiseTokenBudgetError.isInstance(budget), String(error)).toBe(true);
        expect(calls).toBe(0);
      });

    it(`${language}: the default still sends the request`, async () => {
      let calls = 0;
      const model = scriptedModel(() => {
        calls += 1;
        return "ok";
      });
      const agent = createAgent({ model, tools: [], ...memoryStack({ env: {}, logger: false, maxHistoryTokens: 40 }) });
      await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: `d-${language}` } });
      expect(calls).toBe(1);
    });
  }

  it("a bad value names the option or the variable", () => {
    const bad = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return ThreadwiseConfigError.isInstance(error) ? error.option : String(error);
      }
      return "no error";
    };
    expect(bad(() => memoryStack({ env: {}, maxHistoryTokensOverflow: "drop" as never }))).toContain("maxHistoryTokensOverflow");
    expect(bad(() => memoryStack({ env: { MAX_HISTORY_TOKENS_OVERFLOW: "drop" } }))).toBe("MAX_HISTORY_TOKENS_OVERFLOW");
  });
});
