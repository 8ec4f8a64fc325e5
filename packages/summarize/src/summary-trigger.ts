import { ThreadwiseConfigError } from "@threadwise/core";
import { z } from "zod/v4";

/**
 * One trigger condition, in the shape of LangChain's `summarizationMiddleware` `trigger`
 * (`contextSizeSchema`, langchain 1.5): every field given must be reached (AND). Measured over
 * what the summary does not cover yet (see `summarize`'s `trigger`).
 */
export const summaryTriggerSchema = z
  .strictObject({
    /** Tokens of the messages the summary does not cover (js-tiktoken `o200k_base`, as core counts them), at least 1. */
    tokens: z.number().int().positive().optional(),
    /** Non-system messages the summary does not cover, at least 1. */
    messages: z.number().int().positive().optional(),
    /** Share of the model's context window (`profile.maxInputTokens`), in tokens: `0 < fraction <= 1`. */
    fraction: z.number().gt(0).max(1).optional(),
  })
  .refine((t) => t.tokens !== undefined || t.messages !== undefined || t.fraction !== undefined, {
    message: "give at least one of tokens, messages or fraction",
  });
/** One {@link summaryTriggerSchema} condition. */
export type SummaryTrigger = z.infer<typeof summaryTriggerSchema>;

/**
 * A `trigger` option (summarize's `trigger`, memoryStack's `summarizeTrigger`): one condition or
 * a non-empty list of them, any one of which suffices. Its error names both shapes and what was given.
 */
export const summaryTriggerOptionSchema = z.union([summaryTriggerSchema, z.array(summaryTriggerSchema).min(1)], {
  error: (issue) => `expected { tokens?, messages?, fraction? } or a list of them, got ${JSON.stringify(issue.input)}`,
});

/**
 * What stays out of the summary (the window), in the shape of LangChain's `summarizationMiddleware`
 * `keep` (`keepSchema`): exactly one of `messages`, `tokens` or `fraction`. The newest user turn
 * always stays, whatever the size.
 */
export const summaryKeepSchema = z
  .strictObject({
    /** The newest whole groups holding at most this many messages. */
    messages: z.number().int().nonnegative().optional(),
    /** The newest whole groups holding at most this many tokens. */
    tokens: z.number().int().nonnegative().optional(),
    /** The newest whole groups holding at most this share of the model's context window, in tokens: `0 <= fraction <= 1`. */
    fraction: z.number().min(0).max(1).optional(),
  })
  .refine((k) => [k.messages, k.tokens, k.fraction].filter((v) => v !== undefined).length === 1, {
    message: "give exactly one of messages, tokens or fraction",
  });
/** A {@link summaryKeepSchema} value. */
export type SummaryKeep = z.infer<typeof summaryKeepSchema>;

/** A trigger condition with `fraction` turned into tokens: the parts given must all be reached. */
export interface ResolvedTrigger {
  messages?: number;
  tokens?: number;
}

/** The window with `fraction` turned into tokens: exactly one field. */
export type ResolvedKeep = { messages: number; tokens?: undefined } | { tokens: number; messages?: undefined };

/**
 * The model's context window, in tokens, from its LangChain profile (`model.profile.maxInputTokens`,
 * `@langchain/core` 1.x `ModelProfile`): `undefined` when the model has no profile or the profile
 * has no such number (most fakes, custom models, models whose package ships no profile).
 */
export function profileMaxInputTokens(model: unknown): number | undefined {
  if (typeof model !== "object" || model === null) return undefined;
  let profile: unknown;
  try {
    profile = (model as { profile?: unknown }).profile;
  } catch {
    return undefined;
  }
  const value = (profile as { maxInputTokens?: unknown } | undefined)?.maxInputTokens;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Thrown (as {@link ThreadwiseConfigError}) when `fraction` is used and no context window is known. */
function noContextWindow(option: string): ThreadwiseConfigError {
  return new ThreadwiseConfigError(
    option,
    "`fraction` needs the model's context window, and the model has no `profile.maxInputTokens`; " +
      "set `summarize.modelMaxInputTokens` (env MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS) or give `tokens` instead",
  );
}

/**
 * Turns `fraction` into tokens: `floor(maxInputTokens * fraction)`, at least 1 (LangChain's rule).
 * @throws ThreadwiseConfigError naming `summarize.trigger` when a condition has `fraction` and
 *   `maxInputTokens` is `undefined`.
 */
export function resolveTriggers(triggers: readonly SummaryTrigger[], maxInputTokens: number | undefined): ResolvedTrigger[] {
  return triggers.map((trigger) => {
    let tokens = trigger.tokens;
    if (trigger.fraction !== undefined) {
      if (maxInputTokens === undefined) throw noContextWindow("summarize.trigger");
      const share = Math.max(1, Math.floor(maxInputTokens * trigger.fraction));
      // `tokens` and `fraction` in one condition must both be reached: the larger one.
      tokens = tokens === undefined ? share : Math.max(tokens, share);
    }
    return { ...(trigger.messages === undefined ? {} : { messages: trigger.messages }), ...(tokens === undefined ? {} : { tokens }) };
  });
}

/**
 * Turns a `fraction` keep into tokens: `floor(maxInputTokens * fraction)`.
 * @throws ThreadwiseConfigError naming `summarize.keep` when `keep.fraction` is set and
 *   `maxInputTokens` is `undefined`.
 */
export function resolveKeep(keep: SummaryKeep, maxInputTokens: number | undefined): ResolvedKeep {
  if (keep.messages !== undefined) return { messages: keep.messages };
  if (keep.tokens !== undefined) return { tokens: keep.tokens };
  if (maxInputTokens === undefined) throw noContextWindow("summarize.keep");
  return { tokens: Math.floor(maxInputTokens * (keep.fraction ?? 0)) };
}
