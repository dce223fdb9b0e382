import { generateKeyPairSync, hash, randomUUID, sign } from "node:crypto";
import { API_RESOURCE_OF_SCOPE, DEMO_ISSUER } from "../demo-accounts.ts";

/**
 * The ceilings' tokens: compact RS256 JWS signed with node:crypto `sign` and an RSA-2048 KeyObject (the
 * provider's key size and signing call), carrying the claims the provider's tokens carry (bench/preflight.ts
 * compares them on every run).
 */

/** config/provider.yaml's lifetimes: access token and ID token, 1 h each. */
export const LIFETIME_SECONDS = 3600;
const USERINFO_AUDIENCE = `${DEMO_ISSUER}/connect/userinfo`;

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
// The length of the provider's kids, so that the tokens are the same size.
const KID = "ceiling-key-0001";
const HEADERS = {
  "at+jwt": encode({ alg: "RS256", kid: KID, typ: "at+jwt" }),
  JWT: encode({ alg: "RS256", kid: KID, typ: "JWT" }),
};

/** What a user-bound token says about the login it comes from. */
export interface Authentication {
  sub: string;
  authTime: number;
  amr: string[];
  acr: string;
  sid: string;
}

/**
 * RFC 9068 access token: the audience is each API resource of the scopes, plus userinfo for openid (or when
 * there is none); a code's carries the authorize request's nonce too (SPEC), a refresh's none.
 */
export function issueAccessToken(sub: string, clientId: string, scopes: readonly string[], auth?: Authentication, nonce?: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const audiences = new Set<string>();
  for (const scope of scopes) {
    const resource = API_RESOURCE_OF_SCOPE[scope];
    if (resource !== undefined) audiences.add(resource);
  }
  if (audiences.size === 0 || scopes.includes("openid")) audiences.add(USERINFO_AUDIENCE);
  const aud = audiences.size === 1 ? [...audiences][0]! : [...audiences];
  const claims = {
    iss: DEMO_ISSUER,
    sub,
    aud,
    exp: iat + LIFETIME_SECONDS,
    iat,
    jti: randomUUID(),
    client_id: clientId,
    scope: scopes.join(" "),
  };
  return signJwt(
    auth
      ? { ...claims, ...(nonce !== undefined ? { nonce } : {}), auth_time: auth.authTime, amr: auth.amr, acr: auth.acr, sid: auth.sid }
      : claims,
    "at+jwt",
  );
}

/** OIDC Core §2 ID token, with at_hash (§3.1.3.6) for the access token issued with it. */
export function issueIdToken(auth: Authentication, clientId: string, nonce: string | undefined, accessToken: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const atHash = hash("sha256", accessToken, "buffer").subarray(0, 16).toString("base64url");
  const claims = {
    iss: DEMO_ISSUER,
    sub: auth.sub,
    aud: clientId,
    exp: iat + LIFETIME_SECONDS,
    iat,
    auth_time: auth.authTime,
    amr: auth.amr,
    acr: auth.acr,
  };
  return signJwt({ ...claims, ...(nonce !== undefined ? { nonce } : {}), sid: auth.sid, at_hash: atHash }, "JWT");
}

function signJwt(payload: object, typ: keyof typeof HEADERS): string {
  const signingInput = `${HEADERS[typ]}.${encode(payload)}`;
  return `${signingInput}.${sign("sha256", Buffer.from(signingInput), privateKey).toString("base64url")}`;
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
