import { convertToOpenAITool } from "@langchain/core/utils/function_calling";

/** A JSON schema node, as far as the rendering reads it. */
interface SchemaNode {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
}

/** The `function` part of a tool as `ChatOpenAI` sends it: name, description, JSON-schema parameters. */
interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: SchemaNode;
}

/** The function definition of a LangChain tool (or an OpenAI tool object), as LangChain converts it for OpenAI. */
export function functionDefinition(tool: unknown): FunctionDefinition {
  try {
    const converted = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]) as { function?: FunctionDefinition };
    if (converted.function) return converted.function;
  } catch {
    // Not a tool LangChain can convert: fall back to its name and description below.
  }
  const t = (tool ?? {}) as { name?: unknown; description?: unknown };
  return { name: String(t.name ?? ""), ...(typeof t.description === "string" ? { description: t.description } : {}) };
}

function typeText(node: SchemaNode, indent: number): string {
  const union = node.anyOf ?? node.oneOf;
  if (Array.isArray(union)) return union.map((n) => typeText(n, indent)).join(" | ");
  if (Array.isArray(node.type)) return node.type.map((type) => typeText({ ...node, type }, indent)).join(" | ");
  switch (node.type) {
    case "string":
      return node.enum ? node.enum.map((v) => `"${String(v)}"`).join(" | ") : "string";
    case "number":
    case "integer":
      return node.enum ? node.enum.map(String).join(" | ") : "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "object":
      return `{\n${propertiesText(node, indent + 2)}\n}`;
    case "array":
      return node.items ? `${typeText(node.items, indent)}[]` : "any[]";
    default:
      return "any";
  }
}

function propertiesText(node: SchemaNode, indent: number): string {
  const pad = " ".repeat(indent);
  const lines: string[] = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    // Descriptions of properties nested deeper than one level are left out of the prompt.
    if (child.description && indent < 2) lines.push(`${pad}// ${child.description}`);
    lines.push(`${pad}${key}${node.required?.includes(key) ? "" : "?"}: ${typeText(child, indent)},`);
  }
  return lines.join("\n");
}

/** One tool's definition as text, without the surrounding namespace. */
function definitionText(fn: FunctionDefinition): string {
  const lines: string[] = [];
  if (fn.description) lines.push(`// ${fn.description}`);
  if (Object.keys(fn.parameters?.properties ?? {}).length > 0) {
    lines.push(`type ${fn.name} = (_: {`, propertiesText(fn.parameters as SchemaNode, 0), "}) => any;");
  } else lines.push(`type ${fn.name} = () => any;`);
  return lines.join("\n");
}

/**
 * Tool definitions as OpenAI puts them into the prompt: TypeScript types in a `namespace
 * functions` block, one `type name = (_: { ... }) => any;` per tool with `//` description lines
 * (as reverse-engineered against the API's `prompt_tokens` by `openai-chat-tokens`). JSON schema
 * costs about 6% more tokens than this rendering. Each call renders the tools as they are now (a
 * tool's description or schema changed after an earlier call is read anew); the costly part, a
 * zod schema's conversion to JSON schema, is cached by `@langchain/core` per schema object, and a
 * zod schema cannot change in place.
 */
export function renderToolDefinitions(tools: readonly unknown[]): string {
  let out = "namespace functions {\n\n";
  for (const tool of tools) out += `${definitionText(functionDefinition(tool))}\n\n`;
  return `${out}} // namespace functions`;
}
