/**
 * Fault injection for the stack-wide tests (issue 9): a chat-model stand-in whose every call, by a
 * seeded schedule, answers normally, throws, hangs past the caller's timeout, answers empty, or
 * answers malformed output. Every fault carries {@link FAULT_SENTINEL} where it has text, so a test
 * can prove that no fault ever reaches a prompt or the stored state.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/** What one call does. */
export const FAULT_KINDS = ["ok", "throw", "hang", "empty", "malformed"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Marker inside every error message, late answer and malformed answer. */
export const FAULT_SENTINEL = "INJECTED-FAULT";

/** mulberry32: a small seeded PRNG, the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One recorded call. */
export interface FaultCall {
  kind: FaultKind;
  /** Text of the call's last input message. */
  input: string;
  /** Tags the caller attached (config or withConfig). */
  tags: string[];
}

/** Options of {@link FaultyModel}. */
export interface FaultyModelOptions {
  /** Seed of the schedule. */
  seed: number;
  /** Probability of a fault on a call (spread evenly over the four fault kinds). */
  faultRate: number;
  /** Normal answer, from the input messages and the number of normal answers so far. */
  ok: (messages: BaseMessage[], n: number) => string;
  /** Malformed answers, cycled through. */
  malformed: ReadonlyArray<() => unknown>;
  /** How long a hang lasts before a (late) answer comes, in milliseconds; far past the caller's timeout. */
  hangMs: number;
}

interface SharedState {
  random: () => number;
  counts: Record<FaultKind, number>;
  calls: FaultCall[];
  okAnswers: number;
  malformedAnswers: number;
}

/**
 * A stand-in for an internal chat model (summarizer, fact extractor, condenser). Has `invoke` and
 * `withConfig` (which keeps the tags), counts calls per kind, and records every call.
 */
export class FaultyModel {
  readonly calls: FaultCall[];
  readonly counts: Record<FaultKind, number>;
  /** Schedule and counters, shared with the copies `withConfig` makes. */
  private readonly shared: SharedState;
  private readonly configTags: string[];

  constructor(
    private readonly options: FaultyModelOptions,
    shared?: SharedState,
    tags: string[] = [],
  ) {
    this.shared = shared ?? {
      random: seededRandom(options.seed),
      counts: { ok: 0, throw: 0, hang: 0, empty: 0, malformed: 0 },
      calls: [],
      okAnswers: 0,
      malformedAnswers: 0,
    };
    this.counts = this.shared.counts;
    this.calls = this.shared.calls;
    this.configTags = tags;
  }

  /** The next kind on the schedule. */
  private nextKind(): FaultKind {
    const r = this.shared.random();
    if (r >= this.options.faultRate) return "ok";
    const faults = FAULT_KINDS.slice(1);
    return faults[Math.min(faults.length - 1, Math.floor((r / this.options.faultRate) * faults.length))] as FaultKind;
  }

  withConfig(config: { tags?: string[] }): FaultyModel {
    return new FaultyModel(this.options, this.shared, [...(config.tags ?? [])]);
  }

  async invoke(input: unknown, config?: { tags?: string[] }): Promise<unknown> {
    const messages = (Array.isArray(input) ? input : []) as BaseMessage[];
    const last = messages[messages.length - 1];
    const text = typeof last?.content === "string" ? last.content : "";
    const kind = this.nextKind();
    this.counts[kind] += 1;
    this.calls.push({ kind, input: text, tags: [...this.configTags, ...(config?.tags ?? [])] });
    switch (kind) {
      case "ok": {
        this.shared.okAnswers += 1;
        return new AIMessage(this.options.ok(messages, this.shared.okAnswers));
      }
      case "throw":
        throw new Error(`${FAULT_SENTINEL}: provider error 503`);
      case "hang":
        // Ignores the abort signal, like a provider that keeps the connection open: the caller's
        // timeout must win, and this late answer must never be used.
        await new Promise((resolve) => setTimeout(resolve, this.options.hangMs));
        return new AIMessage(`${FAULT_SENTINEL}: late answer`);
      case "empty":
        return new AIMessage("");
      case "malformed": {
        const make = this.options.malformed[this.shared.malformedAnswers % this.options.malformed.length] as () => unknown;
        this.shared.malformedAnswers += 1;
        return make();
      }
    }
  }
}

/** Malformed summarizer answers: no text to use (an object without content, null, an image only). */
export const MALFORMED_SUMMARIES: ReadonlyArray<() => unknown> = [
  () => ({ note: `${FAULT_SENTINEL}: not a message` }),
  () => null,
  () => new AIMessage({ content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${FAULT_SENTINEL}` } }] }),
  () => new AIMessage("   \n  "),
];

/** Malformed extraction answers: not JSON, JSON off the schema, a wrong type. */
export const MALFORMED_FACTS: ReadonlyArray<() => unknown> = [
  () => new AIMessage(`${FAULT_SENTINEL}: here are the facts you asked for`),
  () => new AIMessage(`{"facts":[{"subject":"user","attribute":"name"}],"note":"${FAULT_SENTINEL}"}`),
  () => new AIMessage(`{"facts":"${FAULT_SENTINEL}"}`),
  () => new AIMessage('```json\n{"facts": [\n```'),
];

/** Malformed condensation answers. */
export const MALFORMED_NOTES: ReadonlyArray<() => unknown> = [() => ({ note: FAULT_SENTINEL }), () => null, () => new AIMessage("NONE.")];
