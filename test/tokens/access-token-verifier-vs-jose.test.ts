import { constants, createHmac, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { errors, jwtVerify, type JWTHeaderParameters } from "jose";
import { SIGNING_ALGS, type SigningAlg } from "../../src/crypto/signing-alg.ts";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { KeySet } from "../../src/tokens/key-set.ts";
import { AccessTokenVerifier } from "../../src/tokens/access-token-verifier.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { ReferenceTokens } from "../../src/tokens/reference-tokens.ts";
import { ACCESS_TOKEN_TYPE, type AccessTokenClaims } from "../../src/tokens/access-token.ts";
import { invalidToken, joseErrorToOAuth } from "../../src/tokens/jose-errors.ts";
import type { Clock } from "../../src/time/clock.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";

/**
 * The verifier checks our access tokens with node:crypto (src/tokens/jws-verifier.ts). Its
 * reference is the jose implementation it replaced, kept here verbatim: for every token the two
 * must accept the same claims or reject with the same OAuth error. The one intended difference:
 * a segment that is not canonical base64url is malformed to us, while jose's forgiving decoder may
 * read it (and accept our own token with "==" after its signature).
 */
class JoseAccessTokenVerifier {
  private readonly keys: () => KeySet;
  private readonly issuer: string;
  private readonly clock: Clock;
  private readonly denylist: AccessTokenDenylist;

  constructor(keys: () => KeySet, issuer: string, clock: Clock, denylist: AccessTokenDenylist) {
    this.keys = keys;
    this.issuer = issuer;
    this.clock = clock;
    this.denylist = denylist;
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    let claims: AccessTokenClaims;
    try {
      const result = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        algorithms: [...SIGNING_ALGS],
        issuer: this.issuer,
        typ: ACCESS_TOKEN_TYPE,
        currentDate: new Date(this.clock()),
        requiredClaims: ["exp", "iat", "jti", "sub", "client_id", "scope"],
      });
      claims = result.payload as AccessTokenClaims;
    } catch (err) {
      throw joseErrorToOAuth(err);
    }
    if (await this.denylist.isRevoked(claims.jti)) throw invalidToken("the token has been revoked");
    return claims;
  }

  private keyFor(header: JWTHeaderParameters) {
    const key = header.kid === undefined ? undefined : this.keys().verificationKey(header.kid);
    if (!key) throw Object.assign(new Error("unknown kid"), { code: "ERR_JWKS_NO_MATCHING_KEY" });
    // Each key verifies the one alg it is published with (added with PS256 and ES256: jose alone would take any alg the key type fits).
    if (header.alg !== key.alg) throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
    return key.publicKey;
  }
}

const ISSUER = "https://op.example";
/** Not on a second boundary, so that both sides have to floor the clock the same way. */
const NOW = 1_800_000_000_400;
const T = Math.floor(NOW / 1000);
const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const privateKeys: Record<string, KeyObject> = {
  "k-next": rsa(),
  k1: rsa(),
  "k-old": rsa(),
  "k-ps": rsa(),
  "k-es": generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey,
};
const foreignKey = rsa();
/** The alg each of our kids is published with. */
const algOfKid: Record<string, SigningAlg> = { "k-next": "RS256", k1: "RS256", "k-old": "RS256", "k-ps": "PS256", "k-es": "ES256" };
const keys = new KeySet([
  { kid: "k-next", status: "next", privateKey: privateKeys["k-next"]! },
  { kid: "k1", status: "current", privateKey: privateKeys.k1! },
  { kid: "k-old", status: "retired", privateKey: privateKeys["k-old"]! },
  { kid: "k-ps", status: "current", alg: "PS256", privateKey: privateKeys["k-ps"]! },
  { kid: "k-es", status: "current", alg: "ES256", privateKey: privateKeys["k-es"]! },
]);
const REVOKED_JTI = "revoked-jti";

let store: Store;
let verifier: AccessTokenVerifier;
let reference: JoseAccessTokenVerifier;

beforeAll(async () => {
  store = await createStore("embedded", { dataDir: mkdtempSync(join(tmpdir(), "verifier-vs-jose-")), logger: pino({ level: "silent" }) });
  const denylist = new AccessTokenDenylist(store, () => NOW);
  await denylist.revoke(REVOKED_JTI, T + 3600);
  verifier = new AccessTokenVerifier(
    () => keys,
    ISSUER,
    () => NOW,
    denylist,
    new ReferenceTokens(store, () => NOW),
  );
  reference = new JoseAccessTokenVerifier(
    () => keys,
    ISSUER,
    () => NOW,
    denylist,
  );
});
afterAll(() => store.close());

type Outcome = { accepted: AccessTokenClaims } | { rejected: { status: number; error: string; description: string; headers: unknown } };

async function outcome(verify: Promise<AccessTokenClaims>): Promise<Outcome> {
  try {
    return { accepted: await verify };
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return { rejected: { status: err.status, error: err.error, description: err.description, headers: err.headers } };
  }
}

/** Written apart from the implementation's round trip: the alphabet, a possible length, and zero unused bits. */
function canonicalBase64url(segment: string): boolean {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  if (![...segment].every((c) => alphabet.includes(c)) || segment.length % 4 === 1) return false;
  const unusedBits = [0, 0, 0x0f, 0x03][segment.length % 4]!;
  return segment === "" || (alphabet.indexOf(segment.at(-1)!) & unusedBits) === 0;
}

const isCanonicalToken = (token: string) => token.split(".").every(canonicalBase64url);

// --- Token generators. Most choices are weighted towards what we issue, so that many tokens get past
// the signature to the claim rules; every other choice hits one rule.

/** The first value 9 times in 10, else any of the others. */
const usually = (value: unknown, ...others: unknown[]) =>
  fc.oneof({ arbitrary: fc.constant(value), weight: 9 }, { arbitrary: fc.constantFrom(...others), weight: 1 });

/** "its key's": the alg the header's kid is published with (RS256 for a kid we do not publish); the rest name one outright. */
const ITS_KEYS = "<its key's alg>";
const headerArb = fc.record({
  alg: usually(ITS_KEYS, "RS256", "PS256", "ES256", "RS384", "ES384", "HS256", "none", "", "rs256", 256, null, undefined),
  kid: fc.oneof(
    { arbitrary: fc.constantFrom("k1", "k-ps", "k-es"), weight: 9 },
    fc.constantFrom("k-next", "k-old", "k9", "", 1, null, undefined, ["k1"]),
  ),
  typ: usually(
    "at+jwt",
    "AT+JWT",
    "application/at+jwt",
    "Application/At+JWT",
    "at+jwt ",
    "jwt",
    "JWT",
    "application/jwt",
    "logout+jwt",
    "+jwt",
    "",
    null,
    1,
    undefined,
  ),
  crit: usually(undefined, [], ["b64"], ["b64", "b64"], ["exp"], ["b64", "x"], ["x", "b64"], [""], "b64", null, [1]),
  b64: usually(undefined, true, false, "false", null),
  extra: usually(undefined, { x5u: "https://evil.example/keys" }, { jwk: { kty: "RSA" } }, { zip: "DEF" }),
});

const INFINITY = "<1e400>";
const MINUS_INFINITY = "<-1e400>";
const claimsArb = fc.record({
  extra: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  iss: usually(ISSUER, "https://evil.example", `${ISSUER}/`, [ISSUER], "", undefined),
  sub: usually("E10001", 7, null, undefined),
  aud: usually("acme-api", ["acme-api", `${ISSUER}/connect/userinfo`], undefined),
  iat: usually(T - 10, T + 10_000, T + 0.5, "now", null, INFINITY, undefined),
  nbf: usually(undefined, T, T + 1, T - 1, T + 0.5, "T", null, MINUS_INFINITY),
  exp: usually(T + 3600, T, T + 1, T - 1, T + 0.5, T - 0.5, `${T + 3600}`, null, INFINITY, undefined),
  jti: fc.oneof({ arbitrary: fc.constantFrom("j-1", REVOKED_JTI), weight: 9 }, fc.constantFrom(5, { id: 1 }, undefined)),
  client_id: usually("acme-portal", 5, undefined),
  scope: usually("openid acme", "", undefined),
});

/** JSON text, with the infinity markers turned into number literals that JSON.parse reads as ±Infinity. */
function json(value: Record<string, unknown>): string {
  const { extra, ...rest } = value;
  return JSON.stringify({ ...(extra as object), ...rest })
    .replaceAll(`"${INFINITY}"`, "1e400")
    .replaceAll(`"${MINUS_INFINITY}"`, "-1e400");
}

/** Sometimes bytes that are no JSON object at all, or a JSON object behind a BOM, or not UTF-8. */
const segmentBytesArb = (objects: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    { arbitrary: objects.map((o) => Buffer.from(json(o))), weight: 30 },
    objects.map((o) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json(o))])),
    objects.map((o) => Buffer.concat([Buffer.from(json(o)), Buffer.from([0xff])])),
    objects.map((o) => Buffer.from(json(o).replace(/^\{/, '{"alg":"none",'))),
    fc.constantFrom("[]", "null", '"RS256"', "{", "", "{}", '{"__proto__":{"alg":"RS256"}}').map((s) => Buffer.from(s)),
  );

const signerArb = usually("its kid", "k1", "k-old", "k-es", "k-ps", "foreign", "HS256", "none", "random") as fc.Arbitrary<string>;

/**
 * What `key` signs: under the header's alg when the key's type can (so a PS256 header on an RS256 kid
 * carries a real PSS signature by that key: only the alg rule refuses it), else under the key's own.
 */
function signWith(key: KeyObject, header: Record<string, unknown>, input: Buffer): string {
  const ec = key.asymmetricKeyType === "ec";
  const alg = header.alg === "PS256" && !ec ? "PS256" : ec ? "ES256" : "RS256";
  if (alg === "PS256")
    return sign("sha256", input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }).toString("base64url");
  if (alg === "ES256") return sign("sha256", input, { key, dsaEncoding: "ieee-p1363" }).toString("base64url");
  return sign("sha256", input, key).toString("base64url");
}

function signature(signer: string, header: Record<string, unknown>, input: Buffer, random: Uint8Array): string {
  const ours = typeof header.kid === "string" ? privateKeys[header.kid] : undefined;
  const key = signer === "its kid" ? (ours ?? privateKeys.k1!) : signer === "foreign" ? foreignKey : privateKeys[signer];
  if (key) return signWith(key, header, input);
  if (signer === "HS256") return createHmac("sha256", keys.jwksJson).update(input).digest("base64url");
  return signer === "none" ? "" : Buffer.from(random).toString("base64url");
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Damage after signing: most tokens are left whole; the rest lose, gain or change characters. */
const tamperArb = fc.oneof(
  { arbitrary: fc.constant((t: string) => t), weight: 28 },
  fc.tuple(fc.nat(), fc.constantFrom(...B64URL)).map(([i, c]) => (t: string) => {
    const at = i % t.length;
    return t.slice(0, at) + c + t.slice(at + 1);
  }),
  fc.constantFrom("=", "==", " ", "\n", "+", "/", ".", ".x", "é", "%3D").map((s) => (t: string) => t + s),
  fc.tuple(fc.nat(), fc.constantFrom("=", " ", "+", "é", ".")).map(([i, c]) => (t: string) => {
    const at = i % t.length;
    return t.slice(0, at) + c + t.slice(at);
  }),
  // The signature's last character carries 4 unused bits: its neighbours decode to the same bytes.
  fc.constant((t: string) => t.slice(0, -1) + B64URL[B64URL.indexOf(t.at(-1)!) ^ 1]!),
  fc.constant((t: string) => t.slice(0, -1)),
  fc.constant((t: string) => t.split(".").slice(0, 2).join(".")),
  fc.constant((t: string) => {
    const [h, p, s] = t.split(".");
    return `${p}.${h}.${s}`;
  }),
);

const tokenArb = fc
  .record({
    header: headerArb,
    claims: claimsArb,
    signer: signerArb,
    random: fc.uint8Array({ minLength: 0, maxLength: 300 }),
    tamper: tamperArb,
  })
  .chain(({ header, claims, signer, random, tamper }) => {
    const { extra, ...fields } = header;
    if (fields.alg === ITS_KEYS) fields.alg = algOfKid[String(fields.kid)] ?? "RS256";
    const headerObject = { ...(extra as object), ...fields };
    return fc.tuple(segmentBytesArb(fc.constant(headerObject)), segmentBytesArb(fc.constant(claims))).map(([h, p]) => {
      const input = `${h.toString("base64url")}.${p.toString("base64url")}`;
      return tamper(`${input}.${signature(signer, headerObject, Buffer.from(input), random)}`);
    });
  });

const garbageArb = fc.oneof(
  fc.string(),
  fc.tuple(fc.string(), fc.string(), fc.string()).map((parts) => parts.join(".")),
  fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((parts) => parts.join(".")),
);

describe("access token verification: node:crypto against the jose implementation it replaced", () => {
  it("accepts a token exactly when jose did, with the same claims, and rejects it with the same error", async () => {
    const seen = new Map<string, number>();
    const acceptedAlgs = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.oneof({ arbitrary: tokenArb, weight: 9 }, garbageArb), async (token) => {
        const expected = await outcome(reference.verify(token));
        const actual = await outcome(verifier.verify(token));
        const kind = "accepted" in actual ? "accepted" : actual.rejected.description;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        if ("accepted" in actual) {
          // Whatever else varies, an accepted token names exactly the alg its kid is published with.
          const header = JSON.parse(new TextDecoder().decode(Buffer.from(token.split(".")[0]!, "base64url"))); // drops a BOM, as both verifiers do as { alg: string; kid: string };
          expect(header.alg).toBe(algOfKid[header.kid]);
          acceptedAlgs.add(header.alg);
        }
        if (isCanonicalToken(token) || token.split(".").length !== 3) {
          expect(actual).toEqual(expected);
        } else {
          expect(actual).toMatchObject({ rejected: { status: 401, error: "invalid_token", description: "the token is malformed" } });
          if ("accepted" in expected) seen.set("jose accepted, not canonical", (seen.get("jose accepted, not canonical") ?? 0) + 1);
        }
      }),
      { numRuns: 2000 },
    );
    // The generators must reach every rule, or agreement would prove little.
    expect([...seen.keys()].sort()).toEqual([
      "a token claim is not acceptable",
      "accepted",
      "jose accepted, not canonical",
      "the token algorithm is not accepted",
      "the token has been revoked",
      "the token has expired",
      "the token is malformed",
      "the token signature is invalid",
      "the token uses an unsupported feature",
      "the token was not signed by this issuer",
    ]);
    expect([...acceptedAlgs].sort()).toEqual(["ES256", "PS256", "RS256"]);
  });
});
