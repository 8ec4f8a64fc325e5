import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";

/**
 * A message as the archive tests compare requests and threads read back: role, id (a tool
 * result's call id instead: ToolNode draws its ids), text, tool calls; one string.
 */
export const comparedMessage = (m: BaseMessage): string =>
  [
    m.getType(),
    ToolMessage.isInstance(m) ? `tool:${m.tool_call_id}` : m.id,
    messageText(m),
    JSON.stringify(AIMessage.isInstance(m) ? m.tool_calls : []),
  ].join("|");

/** Turn k's user message, Korean at even turns and English at odd ones. */
export const lockerTurnText = (k: number): string =>
  k % 2 === 0 ? `질문 ${k}: 제 사물함 번호가 뭐였죠?` : `question ${k}: what did I say about the trip?`;
