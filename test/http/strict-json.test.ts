import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBodyError, parseStrictJson } from "../../src/http-kit/strict-json.ts";

/** Any JSON value; fc.json's objects never repeat a member, as JSON.stringify cannot. */
const jsonText = fc.json({ maxDepth: 4 });

describe("strict JSON parsing", () => {
  it("reads exactly what JSON.parse reads when no object repeats a member", () => {
    fc.assert(
      fc.property(jsonText, fc.constantFrom("", " ", "\n\t "), (text, space) => {
        const spaced = JSON.stringify(JSON.parse(text), null, space);
        expect(parseStrictJson(text)).toStrictEqual(JSON.parse(text));
        expect(parseStrictJson(spaced)).toStrictEqual(JSON.parse(spaced));
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses an object with a member twice, at any depth, with any values", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), jsonText, jsonText, fc.integer({ min: 0, max: 3 }), (name, first, second, depth) => {
        const quoted = JSON.stringify(name);
        let text = `{${quoted}:${first},${quoted}:${second}}`;
        for (let level = 0; level < depth; level++) text = level % 2 ? `[1,${text}]` : `{"x":[],"y":${text}}`;
        expect(() => parseStrictJson(text)).toThrow(JsonBodyError);
      }),
      { numRuns: 500 },
    );
  });

  it("compares members after unescaping, and names the repeated one", () => {
    expect(() => parseStrictJson('{"status":-10,"st\\u0061tus":10}')).toThrow("the body has the member 'status' twice in one object");
  });

  it("keeps members apart by object: the same name in sibling and nested objects is fine", () => {
    const text = '{"a":{"a":1,"b":[{"a":2},{"a":3}]},"b":"a","c":{"a":"\\"a\\""}}';
    expect(parseStrictJson(text)).toStrictEqual(JSON.parse(text));
  });

  it("refuses what JSON.parse refuses, as JsonBodyError", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        fc.pre(!valid);
        expect(() => parseStrictJson(text)).toThrow(new JsonBodyError("the body is not valid JSON"));
      }),
      { numRuns: 500 },
    );
  });

  it("quotes at most 64 characters of a repeated name", () => {
    const name = "n".repeat(1000);
    expect(() => parseStrictJson(`{"${name}":1,"${name}":2}`)).toThrow(`the body has the member '${"n".repeat(64)}' twice in one object`);
  });
});
