import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { renderToolDefinitions } from "./tool-definitions.js";

// The oracle of a rendering is the rendering of a tool object this process has never seen, built
// with the fields the tool holds now.
describe("renderToolDefinitions: a tool changed after it was rendered", () => {
  const cases = [
    { lang: "en", before: "Find a booking", after: "Find a booking by its id", field: "Booking id" },
    { lang: "ko", before: "예약을 찾아요", after: "예약 번호로 예약을 찾아요", field: "예약 번호" },
  ];

  for (const { lang, before, after, field } of cases) {
    it(`renders the description and schema the tool holds now, not the first ones (${lang})`, () => {
      const schema = z.object({ id: z.string().describe(field) });
      const lookup = tool(async () => "ok", { name: "lookup", description: before, schema });
      expect(renderToolDefinitions([lookup])).toContain(`// ${before}\n`);

      lookup.description = after;
      const fresh = tool(async () => "ok", { name: "lookup", description: after, schema });
      expect(renderToolDefinitions([lookup])).toBe(renderToolDefinitions([fresh]));
      expect(renderToolDefinitions([lookup])).toContain(`// ${after}\n`);

      const wider = z.object({ id: z.string().describe(field), cabin: z.enum(["economy", "business"]).optional() });
      (lookup as unknown as { schema: unknown }).schema = wider;
      const freshWider = tool(async () => "ok", { name: "lookup", description: after, schema: wider });
      expect(renderToolDefinitions([lookup])).toBe(renderToolDefinitions([freshWider]));
      expect(renderToolDefinitions([lookup])).toContain('cabin?: "economy" | "business"');
    });

    it(`renders an OpenAI tool object whose JSON schema was edited in place as it reads now (${lang})`, () => {
      const parameters = {
        type: "object",
        properties: { id: { type: "string", description: field } } as Record<string, unknown>,
        required: ["id"],
      };
      const openaiTool = { type: "function", function: { name: "lookup", description: before, parameters } };
      renderToolDefinitions([openaiTool]);
      openaiTool.function.description = after;
      parameters.properties.nights = { type: "integer" };
      const fresh = structuredClone(openaiTool);
      expect(renderToolDefinitions([openaiTool])).toBe(renderToolDefinitions([fresh]));
      expect(renderToolDefinitions([openaiTool])).toContain("nights?: number");
    });
  }
});
