import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { countCharacters, threadwiseMessageId, truncateCharacters } from "@threadwise/core";
import { HistorySeedError, type HistorySeedErrorReason } from "./history-seed-error.js";

/** Limits and mode of {@link parseSeedHistory}. */
export interface SeedHistoryRules {
  /** Newest messages kept after validation. Unit: messages. */
  maxMessages: number;
  /** Longest text part accepted, in characters as a user counts them (graphemes, core's `countCharacters`). Unit: characters. */
  maxPartCharacters: number;
  /** Most items accepted in the history array; more is rejected. Unit: items. */
  maxItems: number;
  /** `true`: every rule that would drop something rejects the whole history instead. */
  strict: boolean;
}

/** Counts of what {@link parseSeedHistory} left out. */
export interface SeedHistoryDrops {
  /** Items whose role is not `user` or `agent`. */
  unknownRole: number;
  /** Parts that are not text (files, data, raw bytes, urls). */
  nonTextPart: number;
  /** Text parts longer than `maxPartCharacters`. */
  oversizedPart: number;
  /** Items left with no text. */
  emptyMessage: number;
  /** Valid messages older than the newest `maxMessages`. */
  truncated: number;
}

/** Result of {@link parseSeedHistory}. */
export interface ParsedSeedHistory {
  /** The seed, oldest first: `HumanMessage` for `user`, `AIMessage` for `agent`, ids `tw-seed-…`. */
  messages: Array<HumanMessage | AIMessage>;
  dropped: SeedHistoryDrops;
}

const USER_ROLES = new Set(["user", "ROLE_USER"]);
const AGENT_ROLES = new Set(["agent", "ROLE_AGENT"]);
/** Keys that make a part a file or data part, whatever else it holds. */
const NON_TEXT_KEYS = ["file", "data", "raw", "url", "bytes", "uri"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The text of an A2A part, or `undefined` when the part is not text. A text part is
 * `{ kind: "text", text }` (A2A 0.3), `{ type: "text", text }`, or `{ text }` with no file or data
 * field (A2A 1.0 JSON).
 */
export function textOfPart(part: unknown): string | undefined {
  if (!isObject(part) || typeof part.text !== "string") return undefined;
  const kind = part.kind ?? part.type;
  if (kind !== undefined) return kind === "text" ? part.text : undefined;
  return NON_TEXT_KEYS.some((key) => part[key] !== undefined) ? undefined : part.text;
}

/**
 * Validates outside history (A2A `metadata.history`) and turns it into seed messages (spec R19).
 *
 * Rules, in order:
 * - nothing (`undefined`/`null`) gives no seed;
 * - not an array: rejected (`not_an_array`); more than `maxItems` items: rejected
 *   (`too_many_items`), before anything else is read;
 * - an item that is not an object, or whose `parts` is not an array: rejected (`malformed_item`);
 * - role other than `user` / `agent` (A2A 1.0 `ROLE_USER` / `ROLE_AGENT` accepted): dropped, so a
 *   caller can never add a system message or a tool result;
 * - a part that is not text (file, data, raw bytes, url): dropped;
 * - a text part over `maxPartCharacters`: dropped (never cut, so no half sentence is seeded);
 * - an item with no text left: dropped;
 * - of the valid messages, the newest `maxMessages` are kept.
 * With `strict`, each "dropped" above rejects the whole history instead, with its reason.
 * Only the text goes into the seed: names, ids, metadata and extensions of the items are ignored.
 *
 * @throws HistorySeedError naming the rule, the item index and the limit.
 */
export function parseSeedHistory(raw: unknown, rules: SeedHistoryRules): ParsedSeedHistory {
  const dropped: SeedHistoryDrops = { unknownRole: 0, nonTextPart: 0, oversizedPart: 0, emptyMessage: 0, truncated: 0 };
  if (raw === undefined || raw === null) return { messages: [], dropped };
  if (!Array.isArray(raw)) throw new HistorySeedError("not_an_array", `expected an array of messages, got ${typeof raw}`);
  if (raw.length > rules.maxItems) {
    throw new HistorySeedError("too_many_items", `${raw.length} items sent, at most ${rules.maxItems} accepted`, {
      limit: rules.maxItems,
      actual: raw.length,
    });
  }
  const drop = (reason: HistorySeedErrorReason, message: string, index: number, key: keyof SeedHistoryDrops, extra = {}) => {
    if (rules.strict) throw new HistorySeedError(reason, message, { index, ...extra });
    dropped[key] += 1;
  };
  const valid: Array<{ role: "user" | "agent"; text: string }> = [];
  raw.forEach((item, index) => {
    if (!isObject(item) || !Array.isArray(item.parts)) {
      throw new HistorySeedError("malformed_item", `item ${index} must be an object with a parts array`, { index });
    }
    const role =
      typeof item.role === "string" && USER_ROLES.has(item.role)
        ? "user"
        : typeof item.role === "string" && AGENT_ROLES.has(item.role)
          ? "agent"
          : undefined;
    if (!role) {
      drop(
        "unknown_role",
        `item ${index} has role ${truncateCharacters(JSON.stringify(String(item.role)), 40)}; only user and agent are accepted`,
        index,
        "unknownRole",
      );
      return;
    }
    const texts: string[] = [];
    for (const part of item.parts as unknown[]) {
      const text = textOfPart(part);
      if (text === undefined) {
        drop("non_text_part", `item ${index} has a part that is not text`, index, "nonTextPart");
        continue;
      }
      const size = countCharacters(text);
      if (size > rules.maxPartCharacters) {
        drop(
          "oversized_part",
          `item ${index} has a text part of ${size} characters, at most ${rules.maxPartCharacters} accepted`,
          index,
          "oversizedPart",
          {
            limit: rules.maxPartCharacters,
            actual: size,
          },
        );
        continue;
      }
      texts.push(text);
    }
    const text = texts.join("\n");
    if (text.trim() === "") {
      drop("empty_message", `item ${index} has no text`, index, "emptyMessage");
      return;
    }
    valid.push({ role, text });
  });
  const kept = valid.slice(Math.max(0, valid.length - rules.maxMessages));
  dropped.truncated = valid.length - kept.length;
  const messages = kept.map(({ role, text }) =>
    role === "user"
      ? new HumanMessage({ content: text, id: threadwiseMessageId("seed") })
      : new AIMessage({ content: text, id: threadwiseMessageId("seed") }),
  );
  return { messages, dropped };
}
