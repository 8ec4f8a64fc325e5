/**
 * One test per content-block shape, against the rule its provider documents:
 * - OpenAI, "Images and vision" guide (GPT-4o family, "Calculating costs"): `detail: "low"` costs
 *   85 tokens; otherwise the image is scaled to fit 2048x2048, then its shortest side to 768 px,
 *   and costs 85 + 170 per 512 px tile. Worked examples: 1024x1024 high = 765; 2048x4096 high = 1105.
 * - OpenAI, "File inputs" guide: a PDF is sent as the text and an image of each page.
 * - Anthropic, "Vision" guide ("Evaluate image size"): tokens = width * height / 750, after the
 *   long edge is scaled to 1568 px; about 1,600 at most (1092x1092 = 1590; 200x200 = 54).
 * - Anthropic, "PDF support": each page typically uses 1,500-3,000 tokens (text plus the page
 *   as an image); plain-text and custom-content documents are their text.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_IMAGE_MAX_TOKENS,
  anthropicImageTokens,
  imageSize,
  MEDIA_BLOCK_TOKENS,
  OPENAI_IMAGE_DEFAULT_TOKENS,
  openaiImageTokens,
  PDF_PAGE_TOKENS,
  pdfPages,
} from "./content-block-tokens.js";
import { createTokenCounter, MESSAGE_OVERHEAD_TOKENS } from "./token-counter.js";

const counter = createTokenCounter();
const claude = createTokenCounter({ model: "claude-sonnet-4-5" });

function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}
function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof.writeUInt8(8, 4);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}
function gif(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write("GIF89a", 0, "latin1");
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}
function webp(width: number, height: number): Buffer {
  const b = Buffer.alloc(30);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(22, 4);
  b.write("WEBPVP8X", 8, "latin1");
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(width - 1, 24, 3);
  b.writeUIntLE(height - 1, 27, 3);
  return b;
}
function pdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`).join("\n");
  return Buffer.from(
    `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Count ${pages} >> endobj\n${kids}\n%%EOF`,
  );
}
const b64 = (bytes: Buffer) => bytes.toString("base64");
const dataUrl = (mime: string, bytes: Buffer) => `data:${mime};base64,${b64(bytes)}`;
/** Tokens of one block alone in a user message (the message's framing taken off). */
const cost = (block: unknown, c = counter) => c.countMessage(new HumanMessage({ content: [block] as never })) - MESSAGE_OVERHEAD_TOKENS;

describe("image sizes from the first bytes", () => {
  it("reads PNG, JPEG, GIF and WebP headers; anything else is unknown", () => {
    expect(imageSize(png(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(imageSize(jpeg(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageSize(gif(20, 10))).toEqual({ width: 20, height: 10 });
    expect(imageSize(webp(300, 200))).toEqual({ width: 300, height: 200 });
    expect(imageSize(Buffer.from("not an image"))).toBeUndefined();
  });
});

describe("OpenAI images (tiles)", () => {
  it("the guide's worked examples, and low detail", () => {
    expect(openaiImageTokens({ width: 1024, height: 1024 })).toBe(765);
    expect(openaiImageTokens({ width: 2048, height: 4096 })).toBe(1105);
    expect(openaiImageTokens({ width: 4096, height: 8192 }, "low")).toBe(85);
    expect(openaiImageTokens({ width: 100, height: 100 })).toBe(85 + 170);
  });

  it("Chat Completions image_url: data URL by its size, detail honoured, a remote URL the default", () => {
    expect(cost({ type: "image_url", image_url: { url: dataUrl("image/png", png(2048, 4096)) } })).toBe(1105);
    expect(cost({ type: "image_url", image_url: { url: dataUrl("image/jpeg", jpeg(1024, 1024)), detail: "low" } })).toBe(85);
    expect(cost({ type: "image_url", image_url: { url: "https://example.com/cat.png" } })).toBe(OPENAI_IMAGE_DEFAULT_TOKENS);
  });

  it("Responses input_image (was 10 tokens of JSON): by size and detail", () => {
    expect(cost({ type: "input_image", image_url: dataUrl("image/png", png(1024, 1024)), detail: "auto" })).toBe(765);
    expect(cost({ type: "input_image", image_url: dataUrl("image/png", png(1024, 1024)), detail: "low" })).toBe(85);
    expect(cost({ type: "input_image", file_id: "file-abc" })).toBe(OPENAI_IMAGE_DEFAULT_TOKENS);
  });
});

describe("Anthropic images (width * height / 750)", () => {
  it("the guide's table: 200x200 = 54, 1092x1092 = 1590; long edge scaled to 1568; capped", () => {
    expect(anthropicImageTokens({ width: 200, height: 200 })).toBe(54);
    expect(anthropicImageTokens({ width: 1092, height: 1092 })).toBe(1590);
    expect(anthropicImageTokens({ width: 3136, height: 400 })).toBe(Math.ceil((1568 * 200) / 750));
    expect(anthropicImageTokens({ width: 4000, height: 4000 })).toBe(ANTHROPIC_IMAGE_MAX_TOKENS);
  });

  it("native image blocks: base64 by size, url the maximum", () => {
    expect(cost({ type: "image", source: { type: "base64", media_type: "image/png", data: b64(png(200, 200)) } })).toBe(54);
    expect(cost({ type: "image", source: { type: "url", url: "https://example.com/a.jpg" } })).toBe(ANTHROPIC_IMAGE_MAX_TOKENS);
  });
});

describe("LangChain standard blocks", () => {
  it("image (v1 data/url, v0 source_type): priced by the counter's model, OpenAI by default, Anthropic for claude", () => {
    const v1 = { type: "image", data: b64(png(1024, 1024)), mimeType: "image/png" };
    const v0 = { type: "image", source_type: "base64", data: b64(png(200, 200)), mime_type: "image/png" };
    expect(cost(v1)).toBe(765);
    expect(cost(v1, claude)).toBe(Math.ceil((1024 * 1024) / 750));
    expect(cost(v0, claude)).toBe(54);
    expect(cost({ type: "image", url: "https://example.com/a.png" })).toBe(OPENAI_IMAGE_DEFAULT_TOKENS);
    expect(cost({ type: "image", url: "https://example.com/a.png" }, claude)).toBe(ANTHROPIC_IMAGE_MAX_TOKENS);
  });

  it("file: a PDF by its pages, a text file by its text", () => {
    expect(pdfPages(pdf(3))).toBe(3);
    expect(cost({ type: "file", data: b64(pdf(3)), mimeType: "application/pdf" })).toBe(3 * PDF_PAGE_TOKENS);
    const text = "Checked bags: 2 x 23 kg.";
    expect(cost({ type: "file", source_type: "base64", data: Buffer.from(text).toString("base64"), mime_type: "text/plain" })).toBe(
      counter.countText(text),
    );
  });

  it("audio and video: a fixed cost", () => {
    expect(cost({ type: "audio", data: "UklGR".repeat(500), mimeType: "audio/wav" })).toBe(MEDIA_BLOCK_TOKENS);
    expect(cost({ type: "input_audio", input_audio: { data: "UklGR", format: "wav" } })).toBe(MEDIA_BLOCK_TOKENS);
  });
});

describe("documents and files (pages or text)", () => {
  it("Anthropic document (was 18 tokens of JSON): PDF by pages, text by its text, url one page, title and context as text", () => {
    expect(cost({ type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(pdf(2)) } })).toBe(
      2 * PDF_PAGE_TOKENS,
    );
    const body = "The fare rules allow one free change.";
    expect(cost({ type: "document", source: { type: "text", media_type: "text/plain", data: body }, title: "Fare rules" })).toBe(
      counter.countText("Fare rules") + counter.countText(body),
    );
    expect(cost({ type: "document", source: { type: "content", content: [{ type: "text", text: body }] } })).toBe(counter.countText(body));
    expect(cost({ type: "document", source: { type: "url", url: "https://example.com/a.pdf" } })).toBe(PDF_PAGE_TOKENS);
  });

  it("OpenAI input_file (was 11 tokens of JSON) and Chat Completions file: PDF by pages", () => {
    expect(cost({ type: "input_file", filename: "a.pdf", file_data: dataUrl("application/pdf", pdf(4)) })).toBe(4 * PDF_PAGE_TOKENS);
    expect(cost({ type: "input_file", file_id: "file-abc" })).toBe(PDF_PAGE_TOKENS);
    expect(cost({ type: "file", file: { filename: "a.pdf", file_data: dataUrl("application/pdf", pdf(2)) } })).toBe(2 * PDF_PAGE_TOKENS);
  });
});

describe("reasoning", () => {
  const summary = "The user wants the earliest flight; check availability first.";
  it("additional_kwargs.reasoning (Responses summaries; was 0) and reasoning blocks count their text", () => {
    const plain = counter.countMessage(new AIMessage("Booked."));
    const withKwargs = new AIMessage({
      content: "Booked.",
      additional_kwargs: { reasoning: { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: summary }] } },
    });
    expect(counter.countMessage(withKwargs) - plain).toBe(counter.countText(summary));
    expect(cost({ type: "reasoning", summary: [{ type: "summary_text", text: summary }] })).toBe(counter.countText(summary));
    expect(cost({ type: "reasoning", reasoning: summary })).toBe(counter.countText(summary));
    expect(cost({ type: "thinking", thinking: summary, signature: "sig" })).toBe(counter.countText(summary));
  });

  it("a Responses answer's reasoning counts once (it is in content, additional_kwargs and output; was counted twice)", () => {
    // The shape @langchain/openai 1.5 stores (convertResponsesMessageToAIMessage): the reasoning
    // item in additional_kwargs.reasoning and in response_metadata.output, and a `reasoning`
    // content block made from its summary; the converter sends it back once (the output items).
    const item = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: summary }] };
    const message = new AIMessage({
      id: "resp_1",
      content: [
        { type: "reasoning", reasoning: summary },
        { type: "text", text: "Booked.", annotations: [] },
      ],
      additional_kwargs: { reasoning: item },
      response_metadata: {
        model_provider: "openai",
        output: [
          item,
          {
            id: "msg_1",
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "Booked.", annotations: [] }],
          },
        ],
      },
    });
    const plain = counter.countMessage(new AIMessage("Booked."));
    expect(counter.countMessage(message) - plain).toBe(counter.countText(summary));
    expect(counter.boundMessage?.(message)).toBeGreaterThanOrEqual(counter.countMessage(message));
    // Without output items (zero data retention, a message rebuilt from fields): the kwargs item is sent, once.
    const noOutput = new AIMessage({ content: message.content, additional_kwargs: { reasoning: item } });
    expect(counter.countMessage(noOutput) - plain).toBe(counter.countText(summary));
    // Two reasoning items in the output (the kwargs keep the last): both are sent, each counted once.
    const second = { id: "rs_2", type: "reasoning", summary: [{ type: "summary_text", text: "Then confirm the seat." }] };
    const two = new AIMessage({
      content: [
        { type: "reasoning", reasoning: summary },
        { type: "reasoning", reasoning: "Then confirm the seat." },
        { type: "text", text: "Booked." },
      ],
      additional_kwargs: { reasoning: second },
      response_metadata: {
        output: [item, second, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Booked." }] }],
      },
    });
    expect(counter.countMessage(two) - plain).toBe(counter.countText(summary) + counter.countText("Then confirm the seat."));
    // A reasoning block alone (another provider's, or a v1 message) still counts.
    const blockOnly = new AIMessage({
      content: [
        { type: "reasoning", reasoning: summary },
        { type: "text", text: "Booked." },
      ],
    });
    expect(counter.countMessage(blockOnly) - plain).toBe(counter.countText(summary));
  });
});
