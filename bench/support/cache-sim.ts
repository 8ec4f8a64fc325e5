/**
 * A prompt-cache simulator: applies each provider's documented caching rules to a sequence of
 * requests in their wire form (the JSON bodies the provider SDKs send) and returns, per request,
 * the tokens sent, read from the cache, written to it, and the cost in input-token units
 * (1 = one uncached input token). Used by `bench/cost.ts`; sources of every rule are in
 * `bench/README.md` ("Prompt-cache rules").
 *
 * - **OpenAI** (automatic prefix caching): a request of at least 1,024 tokens reuses the longest
 *   prefix it shares with a recent request, counted in steps of 128 tokens past the first 1,024;
 *   cached tokens cost `cachedPriceRatio` (default 0.5) of an input token. Every request's whole
 *   prompt becomes reusable; entries expire after `ttlMs` without use.
 * - **Anthropic** (explicit breakpoints): `cache_control` on a tool, a system block or a message
 *   content block, or at the top level of the request (automatic caching: the last block), marks a
 *   breakpoint; at most 4 per request (more is rejected). A breakpoint whose prefix holds at least
 *   the model family's minimum (1,024 tokens for Sonnet and Opus, 2,048 for Haiku) writes one
 *   entry: the prefix ending at that block. A read walks back from each breakpoint over at most 20
 *   block boundaries for an entry written earlier; the longest hit is read (0.1x), the rest up to
 *   the last writing breakpoint is written (1.25x for the 5-minute TTL, 2x for 1 hour), the rest is
 *   plain input. Entries live 5 minutes (or 1 hour), refreshed by each hit.
 * - **Gemini** (implicit caching): like OpenAI with a 2,048-token minimum (Gemini 2.5), no step,
 *   and cached tokens at 0.1x (a 90% discount). Google calls it best effort: the figure is what
 *   the rules allow at most.
 *
 * Token counts are o200k_base (js-tiktoken via core's counter) for every provider: Anthropic's and
 * Gemini's tokenizers are not available offline, so their counts are approximations of the same
 * size; the comparisons between configurations use one tokenizer throughout.
 */
import { createHash } from "node:crypto";
import { countO200k } from "./openai-wire.js";

/** Providers whose rules the simulator knows. */
export type CacheProvider = "openai" | "anthropic" | "gemini";

/** One request as sent: the provider's JSON body, when it was sent, and whether it is internal. */
export interface WireRequest {
  /** The request body (chat completions for OpenAI and Gemini, Messages API for Anthropic). */
  body: Record<string, unknown>;
  /** Send time in milliseconds (any epoch); requests must come in time order. */
  at: number;
  /** `internal` for calls the middleware makes itself (summarizer, extractor, condenser). @default "main" */
  kind?: "main" | "internal";
}

/** What the simulator found for one request. */
export interface CachedRequest {
  kind: "main" | "internal";
  /** Input tokens of the request (tools, system and messages). */
  tokens: number;
  /** Tokens served from the cache. */
  cachedTokens: number;
  /** Tokens written to the cache (Anthropic only; 0 otherwise). */
  writtenTokens: number;
  /** Cost in input-token units: uncached + ratio x cached (+ write multiplier x written). */
  cost: number;
}

/** Rules of automatic prefix caching (OpenAI, Gemini). */
export interface PrefixCacheRules {
  /** Shortest prompt, in tokens, that is cached at all. */
  minimumTokens: number;
  /** Past the minimum, cached tokens count in steps of this many tokens (1: every token). */
  stepTokens: number;
  /** Price of a cached token, as a share of an input token. */
  cachedPriceRatio: number;
  /** Time an unused entry stays, in milliseconds. */
  ttlMs: number;
}

/** Rules of explicit breakpoint caching (Anthropic). */
export interface BreakpointCacheRules {
  /** Shortest prefix, in tokens, a breakpoint caches. */
  minimumTokens: number;
  /** Most breakpoints in one request; more is rejected. */
  maxBreakpoints: number;
  /** Block boundaries a read walks back from a breakpoint. */
  lookbackBlocks: number;
  /** Price of a cache read, as a share of an input token. */
  readPriceRatio: number;
  /** Price of a cache write with the 5-minute TTL. */
  writePriceRatio: number;
  /** Price of a cache write with the 1-hour TTL. */
  writePriceRatio1h: number;
}

const MINUTE = 60_000;

/** OpenAI's documented rules; `cachedPriceRatio` differs by model (0.5 for gpt-4o, 0.25 or 0.1 for later ones). */
export function openaiRules(overrides: Partial<PrefixCacheRules> = {}): PrefixCacheRules {
  return { minimumTokens: 1024, stepTokens: 128, cachedPriceRatio: 0.5, ttlMs: 5 * MINUTE, ...overrides };
}

/** Gemini 2.5's documented implicit-caching rules (2,048-token minimum, 90% discount). */
export function geminiRules(overrides: Partial<PrefixCacheRules> = {}): PrefixCacheRules {
  return { minimumTokens: 2048, stepTokens: 1, cachedPriceRatio: 0.1, ttlMs: 5 * MINUTE, ...overrides };
}

/** Minimum cacheable prefix per Claude family, in tokens (as documented for Sonnet, Opus and Haiku 3.x). */
export const ANTHROPIC_MINIMUM_TOKENS = { sonnet: 1024, opus: 1024, haiku: 2048 } as const;

/** Anthropic's documented rules for a model family. */
export function anthropicRules(
  family: keyof typeof ANTHROPIC_MINIMUM_TOKENS = "sonnet",
  overrides: Partial<BreakpointCacheRules> = {},
): BreakpointCacheRules {
  return {
    minimumTokens: ANTHROPIC_MINIMUM_TOKENS[family],
    maxBreakpoints: 4,
    lookbackBlocks: 20,
    readPriceRatio: 0.1,
    writePriceRatio: 1.25,
    writePriceRatio1h: 2,
    ...overrides,
  };
}

/** A request the provider would reject (e.g. more than 4 Anthropic breakpoints). */
export class CacheRuleError extends Error {
  readonly code = "too_many_breakpoints";
  constructor(message: string) {
    super(message);
    this.name = "CacheRuleError";
  }
}

/** One unit of a prompt in order: its identity (for prefix comparison) and its tokens. */
interface Segment {
  key: string;
  tokens: number;
  /** Anthropic: the block carries a breakpoint, with this TTL. */
  breakpoint?: "5m" | "1h";
}

const tokenMemo = new Map<string, number>();
function tokensOf(text: string): number {
  let n = tokenMemo.get(text);
  if (n === undefined) {
    n = countO200k(text);
    if (tokenMemo.size > 200_000) tokenMemo.clear();
    tokenMemo.set(text, n);
  }
  return n;
}

/**
 * Segments of a chat-completions body: the tools (one segment each, first: they are part of the
 * cached prefix), the response format, then each message as its JSON text.
 */
export function chatCompletionsSegments(body: Record<string, unknown>): Segment[] {
  const out: Segment[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) {
    const key = JSON.stringify(tool);
    out.push({ key: `tool:${key}`, tokens: tokensOf(key) });
  }
  if (body.response_format !== undefined) {
    const key = JSON.stringify(body.response_format);
    out.push({ key: `format:${key}`, tokens: tokensOf(key) });
  }
  for (const message of (body.messages as unknown[] | undefined) ?? []) {
    const key = JSON.stringify(message);
    out.push({ key, tokens: tokensOf(key) });
  }
  return out;
}

type Block = Record<string, unknown>;

/** TTL of the block's breakpoint, also when it sits on a block nested in a `tool_result`. */
function ttlOf(block: Block): "5m" | "1h" | undefined {
  const nested = Array.isArray(block.content) ? (block.content as Block[]).map(ttlOf).find((t) => t !== undefined) : undefined;
  const control = block.cache_control as { ttl?: string } | undefined;
  if (!control) return nested;
  return control.ttl === "1h" ? "1h" : "5m";
}

/** The block without `cache_control`, nested blocks included, and with string content as one text block. */
function withoutCacheControl(block: Block): Block {
  const { cache_control: _ignored, ...rest } = block;
  if (Array.isArray(rest.content)) rest.content = (rest.content as Block[]).map(withoutCacheControl);
  else if (rest.type === "tool_result" && typeof rest.content === "string") rest.content = [{ type: "text", text: rest.content }];
  return rest;
}

/**
 * Blocks of a Messages API body, in the order the cache sees them (tools, system, messages), each
 * keyed by its role, its position in its message, and its content without `cache_control` (the
 * marker is not part of the cached bytes). A top-level `cache_control` puts the breakpoint on the
 * last block (automatic caching).
 */
export function anthropicSegments(body: Record<string, unknown>): Segment[] {
  const out: Segment[] = [];
  const push = (prefix: string, block: Block) => {
    const text = JSON.stringify(withoutCacheControl(block));
    const ttl = ttlOf(block);
    out.push({ key: `${prefix}:${text}`, tokens: tokensOf(text), ...(ttl ? { breakpoint: ttl } : {}) });
  };
  for (const tool of (body.tools as Block[] | undefined) ?? []) push("tool", tool);
  const system = body.system;
  if (typeof system === "string" && system !== "") push("system", { type: "text", text: system });
  else if (Array.isArray(system)) for (const block of system as Block[]) push("system", block);
  for (const message of (body.messages as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    const blocks: Block[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content as Block[]);
    // The message index is not part of the key (a prefix is a prefix wherever it starts); the block's
    // position in its message is, so two messages never hash like one.
    for (const [b, block] of blocks.entries()) push(`${message.role}#${b === 0 ? "start" : "cont"}`, block);
  }
  const top = body.cache_control as { ttl?: string } | undefined;
  const last = out.at(-1);
  if (top && last && !last.breakpoint) last.breakpoint = top.ttl === "1h" ? "1h" : "5m";
  return out;
}

/** Tokens `current` shares at its start with `previous`: whole equal segments, then the common text of the first that differs. */
function sharedPrefixTokens(previous: readonly Segment[], current: readonly Segment[], rawText: (s: Segment) => string): number {
  let total = 0;
  const n = Math.min(previous.length, current.length);
  for (let i = 0; i < n; i += 1) {
    const a = previous[i] as Segment;
    const b = current[i] as Segment;
    if (a.key === b.key) {
      total += b.tokens;
      continue;
    }
    const ta = rawText(a);
    const tb = rawText(b);
    let k = 0;
    const max = Math.min(ta.length, tb.length);
    while (k < max && ta.charCodeAt(k) === tb.charCodeAt(k)) k += 1;
    return total + (k > 0 ? tokensOf(tb.slice(0, k)) : 0);
  }
  return total;
}

/** Simulates automatic prefix caching (OpenAI, Gemini) over requests in time order. */
export class PrefixCache {
  private entries: Array<{ segments: Segment[]; lastUsed: number }> = [];
  constructor(readonly rules: PrefixCacheRules) {}

  /** Applies the rules to one request and remembers it. */
  send(request: WireRequest): CachedRequest {
    const { rules } = this;
    const segments = chatCompletionsSegments(request.body);
    const tokens = segments.reduce((sum, s) => sum + s.tokens, 0);
    this.entries = this.entries.filter((e) => request.at - e.lastUsed <= rules.ttlMs);
    let best = 0;
    let bestEntry: (typeof this.entries)[number] | undefined;
    for (const entry of this.entries) {
      const shared = sharedPrefixTokens(entry.segments, segments, (s) => s.key);
      if (shared > best) {
        best = shared;
        bestEntry = entry;
      }
    }
    let cachedTokens = 0;
    if (tokens >= rules.minimumTokens && best >= rules.minimumTokens) {
      cachedTokens = rules.minimumTokens + Math.floor((best - rules.minimumTokens) / rules.stepTokens) * rules.stepTokens;
      cachedTokens = Math.min(cachedTokens, tokens);
    }
    if (bestEntry && cachedTokens > 0) bestEntry.lastUsed = request.at;
    if (tokens >= rules.minimumTokens) this.entries.push({ segments, lastUsed: request.at });
    return {
      kind: request.kind ?? "main",
      tokens,
      cachedTokens,
      writtenTokens: 0,
      cost: tokens - cachedTokens + rules.cachedPriceRatio * cachedTokens,
    };
  }
}

/** Simulates Anthropic's explicit-breakpoint caching over requests in time order. */
export class BreakpointCache {
  /** Prefix hash -> expiry time (ms). */
  private readonly entries = new Map<string, number>();
  constructor(readonly rules: BreakpointCacheRules) {}

  /**
   * Applies the rules to one request and records what it writes.
   * @throws CacheRuleError when the request has more breakpoints than `maxBreakpoints`.
   */
  send(request: WireRequest): CachedRequest {
    const { rules } = this;
    const segments = anthropicSegments(request.body);
    const breakpoints = segments.flatMap((s, i) => (s.breakpoint ? [i] : []));
    if (breakpoints.length > rules.maxBreakpoints)
      throw new CacheRuleError(`${breakpoints.length} cache breakpoints in one request; at most ${rules.maxBreakpoints} are accepted`);
    // Cumulative prefix keys (a hash chain over the blocks) and token counts at every block boundary.
    const prefixKeys: string[] = [];
    const cumulative: number[] = [];
    let key = "";
    let sum = 0;
    for (const segment of segments) {
      key = createHash("sha256").update(key).update("\u0000").update(segment.key).digest("base64");
      sum += segment.tokens;
      prefixKeys.push(key);
      cumulative.push(sum);
    }
    const tokens = sum;
    const live = (k: string) => {
      const expiry = this.entries.get(k);
      return expiry !== undefined && expiry >= request.at;
    };
    // Read: from each breakpoint, walk back over at most `lookbackBlocks` boundaries for an entry.
    let readEnd = -1;
    for (const b of breakpoints) {
      for (let i = b; i >= 0 && i > b - rules.lookbackBlocks; i -= 1) {
        if (live(prefixKeys[i] as string)) {
          if (i > readEnd) readEnd = i;
          break;
        }
      }
    }
    const ttlMs = (ttl: "5m" | "1h") => (ttl === "1h" ? 60 : 5) * MINUTE;
    if (readEnd >= 0) {
      const k = prefixKeys[readEnd] as string;
      const ttl = segments[readEnd]?.breakpoint ?? "5m";
      this.entries.set(k, Math.max(this.entries.get(k) ?? 0, request.at + ttlMs(ttl)));
    }
    // Write: every breakpoint past the read whose prefix reaches the minimum.
    let writeEnd = readEnd;
    let writeCost = 0;
    let written = 0;
    for (const b of breakpoints) {
      if ((cumulative[b] as number) < rules.minimumTokens) continue;
      const ttl = (segments[b] as Segment).breakpoint as "5m" | "1h";
      this.entries.set(prefixKeys[b] as string, request.at + ttlMs(ttl));
      if (b > writeEnd) {
        const from = writeEnd >= 0 ? (cumulative[writeEnd] as number) : 0;
        const span = (cumulative[b] as number) - from;
        written += span;
        writeCost += span * (ttl === "1h" ? rules.writePriceRatio1h : rules.writePriceRatio);
        writeEnd = b;
      }
    }
    const cachedTokens = readEnd >= 0 ? (cumulative[readEnd] as number) : 0;
    const plain = tokens - cachedTokens - written;
    return {
      kind: request.kind ?? "main",
      tokens,
      cachedTokens,
      writtenTokens: written,
      cost: plain + rules.readPriceRatio * cachedTokens + writeCost,
    };
  }
}

/** Runs a request sequence through a fresh cache of the provider and returns each request's figures. */
export function simulate(
  provider: CacheProvider,
  requests: readonly WireRequest[],
  rules?: Partial<PrefixCacheRules> | Partial<BreakpointCacheRules>,
): CachedRequest[] {
  const cache =
    provider === "anthropic"
      ? new BreakpointCache(anthropicRules("sonnet", rules as Partial<BreakpointCacheRules>))
      : new PrefixCache(
          provider === "openai" ? openaiRules(rules as Partial<PrefixCacheRules>) : geminiRules(rules as Partial<PrefixCacheRules>),
        );
  return requests.map((request) => cache.send(request));
}

/** Totals of a simulated sequence, per main call (internal calls' cost counts in the per-call figures). */
export interface CostSummary {
  mainCalls: number;
  internalCalls: number;
  /** Mean input tokens per main call, internal calls' tokens included. */
  tokensPerCall: number;
  /** Mean cached tokens per main call, internal calls included. */
  cachedPerCall: number;
  /** Mean cost per main call in input-token units, internal calls included. */
  costPerCall: number;
}

/** Sums a simulated sequence into per-call means over the main calls. */
export function summarizeCost(results: readonly CachedRequest[]): CostSummary {
  const main = results.filter((r) => r.kind === "main").length;
  const per = (f: (r: CachedRequest) => number) => results.reduce((sum, r) => sum + f(r), 0) / Math.max(1, main);
  return {
    mainCalls: main,
    internalCalls: results.length - main,
    tokensPerCall: per((r) => r.tokens),
    cachedPerCall: per((r) => r.cachedTokens),
    costPerCall: per((r) => r.cost),
  };
}
