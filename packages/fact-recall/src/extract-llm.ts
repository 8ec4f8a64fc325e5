import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import {
  type InternalCallId,
  internalAnswerText,
  internalCallConfig,
  invokeInternal,
  ThreadwiseError,
  ThreadwiseTimeoutError,
  wellFormed,
  withoutThinking,
} from "@threadwise/core";
import { z } from "zod/v4";
import { detectLanguage } from "./extract-heuristic.js";
import type { CandidateFact } from "./fact-store.js";

/** Attributes that hold lists: their value is part of the fact's key. */
export const LIST_ATTRIBUTES: ReadonlySet<string> = new Set([
  "likes",
  "dislikes",
  "favorite",
  "plan",
  "event",
  "hobby",
  "pet",
  "family",
  "belonging",
  "health",
  "constraint",
]);

/**
 * The JSON an extraction model must answer with. Each string is trimmed (Unicode whitespace, the
 * ideographic space U+3000 included) before its length is checked, so a field of spaces alone is
 * refused like an empty one (`schema_mismatch`, naming e.g. `facts.0.value`) instead of becoming a
 * fact with an empty value. The JSON Schema a model is given is the same as without the trim.
 */
export const llmFactsSchema = z.object({
  facts: z.array(
    z.object({
      /** `user`, or `user's <relation>` for a relative the user talks about. */
      subject: z.string().trim().min(1),
      /** One of the attributes in the prompt, or a short snake_case word. */
      attribute: z.string().trim().min(1),
      value: z.string().trim().min(1),
      /** One self-contained sentence in the message's language. */
      text: z.string().trim().min(1),
      /** `true` when the user says it held before and holds no longer ("I don't live in Seoul anymore"). */
      ended: z.boolean().optional(),
    }),
  ),
});
export type LlmFacts = z.infer<typeof llmFactsSchema>;

/** The model an extraction needs: anything with a chat model's `invoke`. */
export interface FactExtractionModel {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
}

/** The LLM extraction failed (threw, timed out, answered bad JSON or JSON off the schema). */
export class FactExtractionError extends ThreadwiseError {
  /** `model_error`, `timeout`, `bad_json` or `schema_mismatch`. */
  readonly reason: string;
  constructor(reason: "model_error" | "timeout" | "bad_json" | "schema_mismatch", message: string, options?: { cause?: unknown }) {
    super("THREADWISE_FACT_EXTRACTION_FAILED", `fact extraction ${reason}: ${message}`, options);
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is FactExtractionError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_FACT_EXTRACTION_FAILED";
  }
}

/** Who the extraction call is: its run name is `threadwise/fact-recall:extract` (core's `internalCallName`). */
export const EXTRACT_CALL: InternalCallId = { middleware: "fact-recall", purpose: "extract" };

/** Tags of the internal extraction call: not streamed to the user, visible in traces (R13 style). */
export const INTERNAL_CALL_TAGS: readonly string[] = internalCallConfig(EXTRACT_CALL).tags;

const PROMPT = `You extract durable facts about the user from one message the user wrote.
Answer with JSON only, no prose: {"facts":[{"subject":"user","attribute":"residence","value":"Busan","text":"The user lives in Busan."}]}
- attribute is one of: name, age, residence, hometown, work, study, school, marital, family, pet, likes, dislikes, favorite, plan, event, hobby, belonging, health, constraint.
- Only facts the user states about themselves, or about a relative (subject "user's sister").
- Not questions, hypotheticals, wishes, or what other people did.
- text is one short sentence in the language of the message.
- When the user says something holds no longer ("I don't live in Seoul anymore", "I used to work at Google", "이제 서울에 살지 않아요"), give the fact as it held, with "ended": true.
- {"facts":[]} when there is none.`;

/**
 * Finds the facts JSON in a model's text answer, tolerantly: `<think>…</think>` blocks (and an
 * unclosed `<think>` before the JSON) are dropped, code fences are opened, and prose around the
 * JSON is skipped: the first balanced `{…}` (or `[…]`, read as the facts list) that parses wins.
 *
 * @returns the parsed JSON value.
 * @throws FactExtractionError (`bad_json`) when no JSON value is found.
 */
export function parseFactsAnswer(answer: string): unknown {
  let text = withoutThinking(answer);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) text = fenced[1] as string;
  text = text.trim();
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? { facts: value } : value;
  } catch {
    // Prose around the JSON: try each balanced candidate in order.
  }
  for (let start = 0; start < text.length; start += 1) {
    const open = text[start];
    if (open !== "{" && open !== "[") continue;
    const close = open === "{" ? "}" : "]";
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i += 1) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i += 1;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === open) depth += 1;
      else if (c === close && --depth === 0) {
        try {
          const value = JSON.parse(text.slice(start, i + 1));
          return Array.isArray(value) ? { facts: value } : value;
        } catch {
          break;
        }
      }
    }
  }
  throw new FactExtractionError("bad_json", `answer holds no JSON (${answer.length} characters)`);
}

/** Models whose `withStructuredOutput` failed once: they get the text prompt and the tolerant parser. */
const noStructuredOutput = new WeakSet<object>();

/** The structured-output runnable of `model`, when it has one that can be built. */
function structuredOf(model: FactExtractionModel): FactExtractionModel | undefined {
  const withStructuredOutput = (model as { withStructuredOutput?: unknown }).withStructuredOutput;
  if (typeof withStructuredOutput !== "function" || noStructuredOutput.has(model)) return undefined;
  try {
    return withStructuredOutput.call(model, llmFactsSchema, { name: "extract_facts" }) as FactExtractionModel;
  } catch {
    noStructuredOutput.add(model);
    return undefined;
  }
}

function failure(error: unknown, timeoutMs: number): FactExtractionError {
  if (ThreadwiseTimeoutError.isInstance(error))
    return new FactExtractionError("timeout", `no answer within ${timeoutMs} ms`, { cause: error });
  return new FactExtractionError("model_error", error instanceof Error ? error.message : String(error), { cause: error });
}

/**
 * Extracts facts from one user message with a chat model (spec R15 `llm`). When the model offers
 * `withStructuredOutput` (tool calling or a JSON mode), the answer is asked for in the shape of
 * {@link llmFactsSchema} directly; otherwise (or when that fails once for this model, e.g. a model
 * without tool calling) the model gets a text prompt and its answer goes through
 * {@link parseFactsAnswer}, which accepts `<think>` blocks, code fences and prose around the JSON.
 * The call carries core's internal-call config (run name `threadwise/fact-recall:extract`,
 * {@link INTERNAL_CALL_TAGS}, metadata `threadwise_internal`) and is aborted after `timeoutMs` or
 * when `signal` aborts.
 *
 * @returns candidates in the order the model gave them.
 * @throws FactExtractionError on any failure; the middleware catches it and uses the rules.
 */
export async function extractFactsWithModel(
  model: FactExtractionModel,
  text: string,
  options: { timeoutMs: number; language?: "en" | "ko"; signal?: AbortSignal },
): Promise<CandidateFact[]> {
  const language = options.language ?? detectLanguage(text);
  const messages = [new SystemMessage(PROMPT), new HumanMessage(text)];
  const call = { ...EXTRACT_CALL, timeoutMs: options.timeoutMs, signal: options.signal };
  let json: unknown;
  const structured = structuredOf(model);
  if (structured) {
    try {
      json = await invokeInternal(structured, messages, call);
    } catch (error) {
      if (ThreadwiseTimeoutError.isInstance(error) || options.signal?.aborted) throw failure(error, options.timeoutMs);
      // Built but not usable (no tool calling behind it): text from now on, for this model.
      noStructuredOutput.add(model);
    }
  }
  if (json === undefined) {
    let answer: unknown;
    try {
      answer = await invokeInternal(model, messages, call);
    } catch (error) {
      throw failure(error, options.timeoutMs);
    }
    json = parseFactsAnswer(internalAnswerText(answer));
  }
  const parsed = llmFactsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FactExtractionError("schema_mismatch", `${issue?.path.join(".") || "answer"}: ${issue?.message ?? "invalid"}`, {
      cause: parsed.error,
    });
  }
  // Well-formed: a model's answer can hold a lone surrogate (cut mid-character, or a `\ud83c` JSON
  // escape), which Anthropic and Gemini refuse in every later request the fact is placed in.
  return parsed.data.facts.map((fact) => {
    const attribute = wellFormed(fact.attribute).trim().toLowerCase();
    const preference = attribute === "likes" || attribute === "dislikes";
    const subject = wellFormed(fact.subject).trim();
    return {
      subject: subject.toLowerCase() === "the user" ? "user" : subject,
      attribute,
      value: wellFormed(fact.value).trim(),
      text: wellFormed(fact.text).trim(),
      language,
      multi: LIST_ATTRIBUTES.has(attribute),
      ...(preference ? { keyAttribute: "preference" } : {}),
      ...(fact.ended ? { ended: true } : {}),
    };
  });
}
