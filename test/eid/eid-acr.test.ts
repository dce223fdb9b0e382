import { describe, expect, it } from "vitest";
import { meetsAsked, performedAcr, upstreamAcrValues } from "../../src/eid/eid-acr.ts";

/** An upstream that knows levels of assurance by URI, as national eID schemes do. */
const MAPPING = {
  forward: { "2fa": "urn:eid:loa:high urn:eid:loa:substantial", req_chnl: "urn:eid:loa:high" },
  performed: { "urn:eid:loa:high": "2fa", "urn:eid:loa:substantial": "2fa", "urn:eid:loa:low": "1fa" },
};

describe("upstreamAcrValues", () => {
  it("sends each asked value's forward values, in the order asked, each once", () => {
    expect(upstreamAcrValues(MAPPING, ["req_chnl", "2fa"])).toEqual(["urn:eid:loa:high", "urn:eid:loa:substantial"]);
    expect(upstreamAcrValues(MAPPING, ["2fa"])).toEqual(["urn:eid:loa:high", "urn:eid:loa:substantial"]);
  });
  it("sends nothing for nothing asked, a value the mapping does not forward, or no mapping", () => {
    expect(upstreamAcrValues(MAPPING, [])).toEqual([]);
    expect(upstreamAcrValues(MAPPING, ["chnl_info"])).toEqual([]);
    expect(upstreamAcrValues(undefined, ["2fa"])).toEqual([]);
  });
});

describe("performedAcr", () => {
  it("maps the upstream's acr back to this provider's", () => {
    expect(performedAcr(MAPPING, "urn:eid:loa:high")).toBe("2fa");
    expect(performedAcr(MAPPING, "urn:eid:loa:low")).toBe("1fa");
  });
  it("counts an unlisted, absent or non-string acr as 1fa, never as what was asked", () => {
    for (const acr of [
      "urn:eid:loa:HIGH",
      "2fa",
      undefined,
      null,
      2,
      ["urn:eid:loa:high"],
      { "urn:eid:loa:high": true },
      "toString",
      "__proto__",
    ])
      expect(performedAcr(MAPPING, acr)).toBe("1fa");
    expect(performedAcr(undefined, "urn:eid:loa:high")).toBe("1fa");
  });
});

describe("meetsAsked", () => {
  it("is met by one of the asked values, or when nothing was asked", () => {
    expect(meetsAsked("2fa", ["2fa"])).toBe(true);
    expect(meetsAsked("1fa", [])).toBe(true);
    expect(meetsAsked("1fa", ["2fa"])).toBe(false);
  });
});
