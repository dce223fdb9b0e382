/** A private_key_jwt assertion's checks on their own (src/oauth/verify-client-assertion.ts), on a frozen clock. */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { AssertionRejected, ASSERTION_TIME_RULES, verifyClientAssertion } from "../../src/oauth/verify-client-assertion.ts";
import { extractClientCredentials } from "../../src/oauth/client-credentials-extract.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";
import { parsePublicKeys } from "../../src/crypto/client-public-keys.ts";
import type { ClientPublicKey } from "../../src/crypto/client-public-keys.ts";
import { clientKeyPair, JWT_BEARER, signAssertion, type ClientKeyPair } from "../support/client-assertions.ts";

const ISSUER = "https://login.example.com";
const NOW = 1_900_000_000;
const clock = () => NOW * 1000;
let key: ClientKeyPair;
let keys: ClientPublicKey[];

beforeAll(async () => {
  key = await clientKeyPair("ES256", "k1");
  keys = parsePublicKeys({ keys: [key.publicJwk] });
});

const verify = (assertion: string) => verifyClientAssertion(assertion, "app", ISSUER, async () => keys, clock);
const reason = (assertion: string) =>
  verify(assertion).then(
    () => "accepted",
    (err: unknown) => (err instanceof AssertionRejected ? err.reason : `threw ${String(err)}`),
  );

describe("verifyClientAssertion", () => {
  it("accepts a correct assertion and says which key signed it, its jti and its exp", async () => {
    const assertion = await signAssertion(key, "app", ISSUER, { now: NOW, claims: { jti: "one" } });
    expect(await verify(assertion)).toEqual({ kid: "k1", jti: "one", exp: NOW + 60 });
  });

  it("puts exp's limit at five minutes plus the skew, to the second", async () => {
    const { maxLifetimeSeconds, skewSeconds } = ASSERTION_TIME_RULES;
    const at = (exp: number) => signAssertion(key, "app", ISSUER, { now: NOW, claims: { exp } });
    expect(await reason(await at(NOW + maxLifetimeSeconds + skewSeconds))).toBe("accepted");
    expect(await reason(await at(NOW + maxLifetimeSeconds + skewSeconds + 1))).toBe("exp_too_far");
  });

  it("accepts an exp up to the skew in the past, and not a second more", async () => {
    const { skewSeconds } = ASSERTION_TIME_RULES;
    const at = (exp: number) => signAssertion(key, "app", ISSUER, { now: NOW - 60, claims: { exp } });
    expect(await reason(await at(NOW - skewSeconds + 1))).toBe("accepted");
    expect(await reason(await at(NOW - skewSeconds - 1))).toBe("expired");
  });

  it("refuses anything that is not a correct assertion with a reason, never with another error", async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc
            .tuple(fc.jsonValue(), fc.jsonValue(), fc.string())
            .map(([header, payload, signature]) => `${part(header)}.${part(payload)}.${signature}`),
          fc
            .record({
              alg: fc.constantFrom("ES256", "RS256", "none", "HS256"),
              kid: fc.oneof(fc.constant("k1"), fc.jsonValue()),
              typ: fc.jsonValue(),
            })
            .map((header) => `${part(header)}.${part({ iss: "app", sub: "app", aud: ISSUER, exp: NOW + 60, jti: "x" })}.c2ln`),
        ),
        async (assertion) => {
          expect(await reason(assertion)).toMatch(/^[a-z_]+$/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("extractClientCredentials", () => {
  it("throws nothing but OAuthErrors, whatever the form and Authorization header", () => {
    const name = fc.constantFrom("client_id", "client_secret", "client_assertion", "client_assertion_type", "grant_type");
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.oneof(fc.string(), fc.constant(JWT_BEARER))),
        fc.option(
          fc.oneof(
            fc.string(),
            fc.string().map((s) => `Basic ${Buffer.from(s).toString("base64")}`),
          ),
        ),
        (form, authorization) => {
          try {
            extractClientCredentials(authorization ?? undefined, new Map(Object.entries(form)));
          } catch (err) {
            expect(err).toBeInstanceOf(OAuthError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
