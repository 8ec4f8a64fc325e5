/**
 * What a non-text content block costs, by the rule of the provider that reads it (spec R3):
 * images by their size where the provider documents a rule, documents by their pages or their
 * text, reasoning by its text. Used by the token counter's `messageParts`.
 */

/** Whose rule prices a LangChain standard block (`{ type: "image", data | url }`), which any provider may receive. */
export type BlockPricing = "openai" | "anthropic";

/**
 * OpenAI image tokens when the size is unknown: a 1024x1024 image in `high` detail, the worked
 * example of OpenAI's vision guide (85 + 4 tiles x 170 = 765).
 */
export const OPENAI_IMAGE_DEFAULT_TOKENS = 765;
/** OpenAI image tokens at `detail: "low"`, whatever the size (OpenAI vision guide). */
export const OPENAI_IMAGE_LOW_TOKENS = 85;
/**
 * Anthropic image tokens when the size is unknown, and at most: images are scaled down to about
 * 1.15 megapixels, about 1,600 tokens (Anthropic, "Vision": "Evaluate image size").
 */
export const ANTHROPIC_IMAGE_MAX_TOKENS = 1600;
/**
 * Tokens of one PDF page: Anthropic's upper figure ("each page typically uses 1,500-3,000
 * tokens", PDF support; text plus the page as an image), also used for OpenAI, which likewise
 * sends each page's text and an image of it (file inputs guide). An upper figure, so a cap holds.
 */
export const PDF_PAGE_TOKENS = 3000;
/** Audio and video blocks: a fixed cost, in tokens (neither provider prices them by bytes in a way known before the call). */
export const MEDIA_BLOCK_TOKENS = 255;

/** What one block sends: texts to tokenize and a fixed number of tokens. */
export interface BlockCost {
  texts: string[];
  fixed: number;
}

/** Most base64 characters decoded to find an image's size or a PDF's pages. */
const MAX_DECODED_CHARACTERS = 8 * 1024 * 1024;

function decodeBase64(data: string, maxCharacters = MAX_DECODED_CHARACTERS): Buffer | undefined {
  const body = data.startsWith("data:") ? data.slice(data.indexOf(",") + 1) : data;
  if (!/^[A-Za-z0-9+/=_-]*$/.test(body.slice(0, 64))) return undefined;
  const length = Math.min(body.length, maxCharacters) - (Math.min(body.length, maxCharacters) % 4);
  return Buffer.from(body.slice(0, length), "base64");
}

/**
 * Width and height of a PNG, GIF, JPEG or WebP image from its first bytes; `undefined` when the
 * format is not one of these or the header is cut.
 */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString("latin1", 0, 3) === "GIF") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    const chunk = b.toString("latin1", 12, 16);
    if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === "VP8L") {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X") return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1] as number;
      const length = b.readUInt16BE(at + 2);
      // Start-of-frame markers carry the size; DHT (C4), JPG (C8) and DAC (CC) share the range.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
      }
      at += 2 + length;
    }
  }
  return undefined;
}

/**
 * OpenAI's rule for an image (vision guide, GPT-4o family): `low` detail costs 85; otherwise the
 * image is scaled to fit 2048x2048, then its shortest side to 768 px, and costs 85 plus 170 per
 * 512 px tile. Unknown size: {@link OPENAI_IMAGE_DEFAULT_TOKENS}.
 */
export function openaiImageTokens(size: { width: number; height: number } | undefined, detail?: unknown): number {
  if (detail === "low") return OPENAI_IMAGE_LOW_TOKENS;
  if (!size || size.width <= 0 || size.height <= 0) return OPENAI_IMAGE_DEFAULT_TOKENS;
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shortest = Math.min(1, 768 / Math.min(width, height));
  width *= shortest;
  height *= shortest;
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/**
 * Anthropic's rule for an image (Vision guide): about `width * height / 750` tokens after the long
 * edge is scaled to at most 1568 px, and at most {@link ANTHROPIC_IMAGE_MAX_TOKENS}. Unknown size:
 * that maximum.
 */
export function anthropicImageTokens(size: { width: number; height: number } | undefined): number {
  if (!size || size.width <= 0 || size.height <= 0) return ANTHROPIC_IMAGE_MAX_TOKENS;
  const scale = Math.min(1, 1568 / Math.max(size.width, size.height));
  return Math.min(ANTHROPIC_IMAGE_MAX_TOKENS, Math.ceil((size.width * scale * (size.height * scale)) / 750));
}

/** Pages of a PDF: its `/Type /Page` objects (not `/Pages`); `undefined` when there are none. */
export function pdfPages(bytes: Uint8Array): number | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return pages > 0 ? pages : undefined;
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const mimeOf = (value: string | undefined): string | undefined =>
  value?.startsWith("data:") ? value.slice(5, value.search(/[;,]/)) : undefined;

function sizeOf(data: string | undefined): { width: number; height: number } | undefined {
  if (!data || /^https?:/.test(data)) return undefined;
  const bytes = decodeBase64(data, 256 * 1024);
  return bytes ? imageSize(bytes) : undefined;
}

/** A file: text files by their text, PDFs by their pages (one page when unknown), others one page. */
function fileCost(data: string | undefined, mime: string | undefined): BlockCost {
  const type = mime ?? mimeOf(data);
  if (data && !/^https?:/.test(data)) {
    const bytes = decodeBase64(data);
    if (bytes && type?.startsWith("text/")) return { texts: [bytes.toString("utf8")], fixed: 0 };
    if (bytes) return { texts: [], fixed: PDF_PAGE_TOKENS * (pdfPages(bytes) ?? 1) };
  }
  return { texts: [], fixed: PDF_PAGE_TOKENS };
}

/**
 * The cost of one non-text content block, or `undefined` when it is not an image, file, document,
 * media or reasoning block (the caller then counts it otherwise).
 *
 * - OpenAI: `image_url` (Chat Completions), `input_image` (Responses) by {@link openaiImageTokens};
 *   `file` (`file.file_data`) and `input_file` (`file_data`) by {@link fileCost} rules.
 * - Anthropic: `image` with `source` by {@link anthropicImageTokens}; `document` with a `text`
 *   source by its text, a `content` source by its blocks' text, a PDF by its pages; `title` and
 *   `context` as text.
 * - LangChain standard blocks: `image` (`data`/`url`, v0 `source_type`), priced by `pricing`;
 *   `file` by pages or text; `audio`, `video`, `input_audio` a fixed {@link MEDIA_BLOCK_TOKENS}.
 * - Reasoning: `reasoning` (text, or a Responses `summary` list), Anthropic `thinking`.
 * - Anthropic `compaction` (the provider's summary of what precedes it): its `content` text.
 */
export function contentBlockCost(b: Record<string, unknown>, pricing: BlockPricing): BlockCost | undefined {
  const type = String(b.type ?? "");
  const source = (b.source && typeof b.source === "object" ? b.source : undefined) as Record<string, unknown> | undefined;
  if (type === "image_url" || type === "input_image") {
    const image = b.image_url as { url?: unknown; detail?: unknown } | string | undefined;
    const url = typeof image === "string" ? image : str(image?.url);
    return { texts: [], fixed: openaiImageTokens(sizeOf(url), typeof image === "object" ? (image?.detail ?? b.detail) : b.detail) };
  }
  if (type === "image") {
    // Anthropic's native block has `source`; a standard block carries its data itself.
    const data = source ? (source.type === "base64" ? str(source.data) : undefined) : str(b.data);
    const size = sizeOf(data);
    if (source || pricing === "anthropic") return { texts: [], fixed: anthropicImageTokens(size) };
    return { texts: [], fixed: openaiImageTokens(size, (b.metadata as { detail?: unknown } | undefined)?.detail ?? b.detail) };
  }
  if (type === "document") {
    const extra = [str(b.title), str(b.context)].filter((t): t is string => t !== undefined);
    if (source?.type === "text") return { texts: [...extra, str(source.data) ?? ""], fixed: 0 };
    if (source?.type === "content" && Array.isArray(source.content)) {
      const texts = source.content.map((c) => (typeof c === "string" ? c : (str((c as { text?: unknown }).text) ?? "")));
      return { texts: [...extra, ...texts], fixed: 0 };
    }
    const cost = fileCost(source?.type === "base64" ? str(source.data) : undefined, str(source?.media_type));
    return { texts: [...extra, ...cost.texts], fixed: cost.fixed };
  }
  if (type === "input_file") return fileCost(str(b.file_data), undefined);
  if (type === "file") {
    const file = b.file as { file_data?: unknown } | undefined;
    return fileCost(str(file?.file_data) ?? str(b.data), str(b.mimeType) ?? str(b.mime_type));
  }
  if (type === "audio" || type === "input_audio" || type === "video") return { texts: [], fixed: MEDIA_BLOCK_TOKENS };
  if (type === "reasoning") {
    if (typeof b.reasoning === "string") return { texts: [b.reasoning], fixed: 0 };
    if (Array.isArray(b.summary)) return { texts: b.summary.map((s) => str((s as { text?: unknown }).text) ?? ""), fixed: 0 };
    return { texts: [], fixed: 0 };
  }
  // Anthropic's compaction block: the provider's summary, sent back as its text.
  if (type === "compaction") return { texts: [str(b.content) ?? ""], fixed: 0 };
  if (typeof b.thinking === "string") return { texts: [b.thinking], fixed: 0 };
  if (typeof b.reasoning === "string") return { texts: [b.reasoning], fixed: 0 };
  return undefined;
}

/** Reasoning kept beside the content (`additional_kwargs.reasoning`: a string, or a Responses item with a `summary` list). */
export function additionalReasoningTexts(additional: unknown): string[] {
  const reasoning = (additional as { reasoning?: unknown } | undefined)?.reasoning;
  if (typeof reasoning === "string") return [reasoning];
  if (reasoning && typeof reasoning === "object") {
    const summary = (reasoning as { summary?: unknown }).summary;
    if (Array.isArray(summary)) return summary.map((s) => (typeof s === "string" ? s : (str((s as { text?: unknown }).text) ?? "")));
  }
  return [];
}

/**
 * The reasoning summaries of OpenAI Responses output items (`response_metadata.output`, see
 * `responses-output.ts`): the `summary` texts of each `reasoning` item, in order. What the
 * Responses converter sends back for an AI message that carries the items.
 */
export function responsesReasoningTexts(items: readonly { type: string; summary?: unknown }[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (item.type !== "reasoning" || !Array.isArray(item.summary)) continue;
    for (const s of item.summary) out.push(typeof s === "string" ? s : (str((s as { text?: unknown }).text) ?? ""));
  }
  return out;
}

/** Whose rule prices standard blocks for a model name: Anthropic for `claude*`, else OpenAI. */
export function blockPricingFor(model: string | undefined): BlockPricing {
  return model && /claude|anthropic/i.test(model) ? "anthropic" : "openai";
}
