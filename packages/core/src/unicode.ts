/**
 * UTF-16 well-formedness: JavaScript strings are UTF-16 code units, and a cut by `length` or
 * `slice` can split a surrogate pair (an emoji, a CJK extension character), leaving a lone
 * surrogate. `JSON.stringify` writes it as a bare `\ud83d` escape, which strict parsers refuse:
 * Anthropic answers 400 `The request body is not valid JSON: no low surrogate in string`
 * (https://github.com/anthropics/claude-code/issues/56064), Vertex/Gemini `The input data is not
 * valid json` (https://github.com/vertesia/llumiverse/pull/462), and PostgreSQL stores U+FFFD.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Index of the first lone UTF-16 surrogate of `text`, or -1 when `text` is well-formed. */
export function loneSurrogateAt(text: string): number {
  return LONE_SURROGATE.exec(text)?.index ?? -1;
}

/**
 * The first `length` UTF-16 code units of `text`, one fewer when the cut would split a surrogate
 * pair: a head of a well-formed text is well-formed. `length` is clamped to [0, text.length].
 * @example
 * codePointHead("ab😀", 3); // "ab"
 */
export function codePointHead(text: string, length: number): string {
  let end = Math.max(0, Math.min(text.length, Math.floor(length)));
  const last = text.charCodeAt(end - 1);
  if (end > 0 && end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
