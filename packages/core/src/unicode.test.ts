import { describe, expect, it } from "vitest";
import { codePointHead, loneSurrogateAt } from "./unicode.js";

describe("codePointHead", () => {
  it("never ends on half a surrogate pair, at every cut of a mixed text", () => {
    const text = "a😀한국🇰🇷b😀";
    for (let length = 0; length <= text.length + 1; length += 1) {
      const head = codePointHead(text, length);
      expect(loneSurrogateAt(head), `length ${length}`).toBe(-1);
      expect(text.startsWith(head)).toBe(true);
      expect(head.length === Math.min(length, text.length) || head.length === length - 1).toBe(true);
    }
  });

  it("cuts where asked when no pair is split, and clamps the length", () => {
    expect(codePointHead("ab😀", 3)).toBe("ab");
    expect(codePointHead("ab😀", 4)).toBe("ab😀");
    expect(codePointHead("abc", 2)).toBe("ab");
    expect(codePointHead("abc", -1)).toBe("");
    expect(codePointHead("abc", 10)).toBe("abc");
  });
});

describe("loneSurrogateAt", () => {
  it("finds a lone high or low surrogate, and none in well-formed text", () => {
    expect(loneSurrogateAt("ok 😀")).toBe(-1);
    expect(loneSurrogateAt(`x${"😀".slice(0, 1)}`)).toBe(1);
    expect(loneSurrogateAt(`${"😀".slice(1)}x`)).toBe(0);
  });
});
