import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParams } from "../../src/http-kit/params.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";

const limits = { maxParameterLength: 64 };
const parse = (query: string) => collectParams(new URLSearchParams(query), limits);

describe("request parameter collection", () => {
  it("treats a parameter sent empty as omitted, also for the duplicate check (RFC 6749 §3.1)", () => {
    expect(parse("scope=&state=x").has("scope")).toBe(false);
    expect(parse("scope=a&scope=").get("scope")).toBe("a");
  });

  it("rejects a parameter sent twice with values as invalid_request", () => {
    expect(() => parse("scope=a&scope=b")).toThrow(expect.objectContaining({ error: "invalid_request" }));
  });

  it("rejects a parameter over the length limit, and accepts one at it", () => {
    expect(parse(`state=${"a".repeat(64)}`).get("state")).toHaveLength(64);
    expect(() => parse(`state=${"a".repeat(65)}`)).toThrow(expect.objectContaining({ error: "invalid_request" }));
  });

  it("never throws anything but invalid_request, whatever the input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (query) => {
        try {
          const params = parse(query);
          for (const [, value] of params) expect(value.length).toBeLessThanOrEqual(64);
        } catch (err) {
          expect(err).toBeInstanceOf(OAuthError);
          expect((err as OAuthError).error).toBe("invalid_request");
        }
      }),
      { numRuns: 500 },
    );
  });
});
