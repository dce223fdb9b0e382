import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAppEvidence, NO_APP_EVIDENCE } from "../../src/trusted-app/app-evidence.ts";

const NOW = 1_800_000_000;
const BOTH = { gps: true, faceid: true };
const gps = { lat: 25.03, lnt: 121.56, time: NOW - 5 };
const faceid = { result: "pass", key: "face-7f3a", time: NOW - 2 };
const refusal = (payload: unknown, wanted = BOTH) => {
  const check = checkAppEvidence(payload, wanted, NOW);
  return check.ok ? "accepted" : `${check.problem}: ${check.description}`;
};

describe("checkAppEvidence", () => {
  it("accepts good gps and faceid and returns them in the ID token's shapes", () => {
    expect(checkAppEvidence({ gps, faceid, sub: "E10001" }, BOTH, NOW)).toEqual({ ok: true, evidence: { gps, faceid } });
  });

  it("keeps only what was wanted, and wants nothing by default", () => {
    expect(checkAppEvidence({ gps, faceid }, { gps: true, faceid: false }, NOW)).toEqual({ ok: true, evidence: { gps } });
    expect(checkAppEvidence({}, NO_APP_EVIDENCE, NOW)).toEqual({ ok: true, evidence: {} });
  });

  it("refuses missing evidence", () => {
    expect(refusal({ faceid })).toBe("gps: the location (gps) is required");
    expect(refusal({ gps })).toBe("faceid: the face recognition result (faceid) is required");
  });

  it("refuses coordinates out of range or not numbers, and accepts the edges", () => {
    expect(refusal({ gps: { ...gps, lat: 90.0001 }, faceid })).toBe("gps: gps.lat must be a number from -90 to 90");
    expect(refusal({ gps: { ...gps, lat: "25.03" }, faceid })).toBe("gps: gps.lat must be a number from -90 to 90");
    expect(refusal({ gps: { ...gps, lnt: -180.5 }, faceid })).toBe("gps: gps.lnt must be a number from -180 to 180");
    expect(refusal({ gps: { lat: -90, lnt: 180, time: NOW }, faceid })).toBe("accepted");
  });

  it("refuses a time that is stale, in the future beyond the skew, or not integer seconds", () => {
    expect(refusal({ gps: { ...gps, time: NOW - 61 }, faceid })).toBe("gps: gps.time is not fresh: measure again");
    expect(refusal({ gps: { ...gps, time: NOW + 61 }, faceid })).toBe("gps: gps.time is in the future");
    expect(refusal({ gps: { ...gps, time: NOW * 1000 }, faceid })).toBe("gps: gps.time is in the future");
    expect(refusal({ gps: { ...gps, time: NOW + 0.5 }, faceid })).toBe("gps: gps.time must be Unix seconds");
    expect(refusal({ gps, faceid: { ...faceid, time: NOW - 600 } })).toBe("faceid: faceid.time is not fresh: measure again");
    expect(refusal({ gps: { ...gps, time: NOW - 60 }, faceid: { ...faceid, time: NOW + 60 } })).toBe("accepted");
  });

  it("refuses a face check that did not pass or has no key", () => {
    expect(refusal({ gps, faceid: { ...faceid, result: "fail" } })).toBe("faceid: face recognition did not pass");
    expect(refusal({ gps, faceid: { ...faceid, result: "PASS" } })).toBe("faceid: face recognition did not pass");
    expect(refusal({ gps, faceid: { ...faceid, key: "" } })).toBe("faceid: faceid.key must be 1 to 128 characters");
    expect(refusal({ gps, faceid: { result: "pass", time: NOW } })).toBe("faceid: faceid.key must be 1 to 128 characters");
  });

  it("never throws, and never accepts what it was not given (any payload, any wanted set)", () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.record({ gps: fc.boolean(), faceid: fc.boolean() }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (payload, wanted, now) => {
          const check = checkAppEvidence(payload, wanted, now);
          if (!check.ok) {
            expect(check.description.length).toBeGreaterThan(0);
            return;
          }
          expect(Object.keys(check.evidence).sort()).toEqual(
            Object.keys(wanted)
              .filter((k) => wanted[k as keyof typeof wanted])
              .sort(),
          );
          if (check.evidence.faceid) expect(check.evidence.faceid.result).toBe("pass");
          if (check.evidence.gps) expect(Math.abs(check.evidence.gps.time - now)).toBeLessThanOrEqual(60);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("accepts every well-formed fresh measurement (property)", () => {
    const fresh = fc.integer({ min: NOW - 60, max: NOW + 60 });
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fresh,
        fresh,
        fc.string({ minLength: 1, maxLength: 128 }),
        (lat, lnt, t1, t2, key) => {
          const check = checkAppEvidence({ gps: { lat, lnt, time: t1 }, faceid: { result: "pass", key, time: t2 } }, BOTH, NOW);
          expect(check).toEqual({ ok: true, evidence: { gps: { lat, lnt, time: t1 }, faceid: { result: "pass", key, time: t2 } } });
        },
      ),
    );
  });
});
