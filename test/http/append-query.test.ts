/**
 * appendQuery: state (and front-channel iss/sid) reach the relying party exactly as given, and the
 * registered URI is kept byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendQuery } from "../../src/http-kit/append-query.ts";

const uris = fc.constantFrom(
  "https://rp.example/bye",
  "https://rp.example/bye?from=op",
  "http://127.0.0.1:3001/",
  "https://rp.example/a?x=1&",
  "https://rp.example/a?",
);

describe("appendQuery", () => {
  it("joins with ? or & as the URI needs", () => {
    expect(appendQuery("https://rp.example/bye", [["state", "s"]])).toBe("https://rp.example/bye?state=s");
    expect(appendQuery("https://rp.example/bye?from=op", [["state", "s"]])).toBe("https://rp.example/bye?from=op&state=s");
    expect(appendQuery("https://rp.example/a?", [["state", "s"]])).toBe("https://rp.example/a?state=s");
    expect(appendQuery("https://rp.example/a#f", [["state", "s"]])).toBe("https://rp.example/a?state=s#f");
    expect(appendQuery("https://rp.example/a", [])).toBe("https://rp.example/a");
  });

  it("keeps the registered URI as its prefix and returns every value exactly", () => {
    fc.assert(
      fc.property(uris, fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (uri, state, other) => {
        const out = appendQuery(uri, [
          ["state", state],
          ["sid", other],
        ]);
        expect(out.startsWith(uri)).toBe(true);
        const params = new URL(out).searchParams;
        expect(params.get("state")).toBe(state);
        expect(params.get("sid")).toBe(other);
      }),
    );
  });
});
