import type { BaseMessage } from "@langchain/core/messages";
import { characterHead, countCharacters, messageText } from "@threadwise/core";
import { nonTextBlocks, type ToolResult } from "./tool-results.js";

/** Keys whose value is inline file content in LangChain, OpenAI, Anthropic and A2A shapes. */
const INLINE_DATA_KEYS = new Set(["data", "base64", "bytes", "b64_json", "raw", "file_data", "image_data", "audio_data"]);

/** Longest projection sent to the condensation call, in characters; the rest is cut with a marker. */
export const MAX_PROJECTION_CHARACTERS = 16_000;

const BASE64_RUN = /^[A-Za-z0-9+/_-]+={0,2}$/;
const MAX_DEPTH = 8;

/** What {@link projectResponse} condenses: the final answer and what came with it. */
export interface ResponseParts {
  /** The final AI message of the run. */
  message: BaseMessage;
  /** The run's structured response (`responseFormat`), if any. */
  structuredResponse?: unknown;
  /**
   * Tool results of the run (ToolMessages and Anthropic-native `tool_result` blocks alike:
   * `toolResultsOf`), for their artifacts.
   */
  toolResults?: readonly ToolResult[];
}

/**
 * `true` for a string that is inline binary: a `data:` URL, or a long run of the base64 alphabet
 * (at least 100 characters and not plain hex, so digests and ids stay).
 */
export function isInlineData(value: string): boolean {
  if (value.startsWith("data:")) return true;
  return value.length >= 100 && BASE64_RUN.test(value) && !/^[0-9a-f]+$/i.test(value);
}

/**
 * A JSON-safe copy of `value` with every inline byte and base64 payload replaced by a short
 * marker that keeps its size, so file and artifact entries keep only their metadata (name, media
 * type, url, size). Never mutates `value`.
 */
export function stripInlineData(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === "string") return isInlineData(value) ? `[inline data omitted: ${value.length} characters]` : value;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (value instanceof ArrayBuffer) return `[inline bytes omitted: ${value.byteLength} bytes]`;
  if (ArrayBuffer.isView(value)) return `[inline bytes omitted: ${value.byteLength} bytes]`;
  if (typeof value !== "object" || depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => stripInlineData(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (INLINE_DATA_KEYS.has(key) && (typeof item === "string" || item instanceof ArrayBuffer || ArrayBuffer.isView(item))) {
      const size = typeof item === "string" ? `${item.length} characters` : `${(item as ArrayBuffer).byteLength} bytes`;
      out[key] = `[inline data omitted: ${size}]`;
      continue;
    }
    const stripped = stripInlineData(item, depth + 1);
    if (stripped !== undefined) out[key] = stripped;
  }
  return out;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "[unserializable]";
  }
}

/**
 * The text the condensation call sees (spec R18): the answer's text, its structured output as
 * JSON, and its file and artifact entries (non-text content blocks of the answer, the artifacts
 * of the run's tool results: a ToolMessage's `artifact`, the non-text blocks of a `tool_result`
 * block's content) reduced to metadata by {@link stripInlineData}. Sections without
 * content are left out; `""` means there is nothing to condense. Cut at
 * {@link MAX_PROJECTION_CHARACTERS} characters (core `countCharacters`: whole grapheme clusters,
 * so no decomposed Korean syllable or emoji sequence is split).
 */
export function projectResponse(parts: ResponseParts): string {
  const sections: string[] = [];
  const text = messageText(parts.message).trim();
  if (text !== "") sections.push(`Response text:\n${text}`);
  if (parts.structuredResponse !== undefined && parts.structuredResponse !== null) {
    sections.push(`Structured output:\n${json(stripInlineData(parts.structuredResponse))}`);
  }
  const files = [
    ...nonTextBlocks((parts.message as { content?: unknown }).content).map((block) => json(stripInlineData(block))),
    ...(parts.toolResults ?? [])
      .filter((result) => result.artifact !== undefined)
      .map((result) => `${result.name ?? "tool"}: ${json(stripInlineData(result.artifact))}`),
  ];
  if (files.length > 0) sections.push(`Files and artifacts (metadata only):\n${files.map((f) => `- ${f}`).join("\n")}`);
  const all = sections.join("\n\n");
  return countCharacters(all) > MAX_PROJECTION_CHARACTERS ? `${characterHead(all, MAX_PROJECTION_CHARACTERS)}\n[cut]` : all;
}
