import type { AccessTokenFormat } from "./load-protocol.ts";

/**
 * Whether a ceiling's token response carries what the provider's does: the same response members, the
 * same token headers, the same claims, and for the claims that do not vary per token the same values.
 * The ceilings are written by hand after the provider; this keeps them honest as the provider changes.
 */

const TOKENS = ["access_token", "id_token"] as const;
/** Claims whose values must match between two tokens issued for the same client, user and request. */
const SAME_VALUE = ["iss", "sub", "aud", "client_id", "scope", "amr", "acr", "nonce"];

/** The differences, one line each; empty when the ceiling's response is like the provider's. */
export function tokenDifferences(provider: Record<string, unknown>, ceiling: Record<string, unknown>): string[] {
  const found: string[] = [];
  const members = keyDifference(provider, ceiling);
  if (members) found.push(`response members: ${members}`);
  for (const token of TOKENS) {
    const ours = provider[token];
    const theirs = ceiling[token];
    if (typeof ours !== "string" || typeof theirs !== "string") continue;
    // A reference (opaque) token has no claims to compare, only its kind.
    const [ourFormat, theirFormat] = [tokenFormatOf(ours), tokenFormatOf(theirs)];
    if (ourFormat !== theirFormat) found.push(`${token}: ${describeFormat(theirFormat)}, the provider's ${describeFormat(ourFormat)}`);
    if (ourFormat !== "jwt" || theirFormat !== "jwt") continue;
    const [ourHeader, ourClaims] = decodeJwt(ours);
    const [theirHeader, theirClaims] = decodeJwt(theirs);
    for (const name of ["alg", "typ"]) {
      if (ourHeader[name] !== theirHeader[name])
        found.push(`${token} header ${name}: ${String(theirHeader[name])}, the provider's ${String(ourHeader[name])}`);
    }
    const claims = keyDifference(ourClaims, theirClaims);
    if (claims) found.push(`${token} claims: ${claims}`);
    for (const name of SAME_VALUE) {
      if (name in ourClaims && name in theirClaims && JSON.stringify(ourClaims[name]) !== JSON.stringify(theirClaims[name])) {
        found.push(`${token} ${name}: ${JSON.stringify(theirClaims[name])}, the provider's ${JSON.stringify(ourClaims[name])}`);
      }
    }
    const lifetime = (claims: Record<string, unknown>) => Number(claims.exp) - Number(claims.iat);
    if (lifetime(ourClaims) !== lifetime(theirClaims))
      found.push(`${token} lifetime: ${lifetime(theirClaims)} s, the provider's ${lifetime(ourClaims)} s`);
  }
  return found;
}

/** A JWS compact serialisation (three parts, the first a JSON header with an alg) is a JWT; anything else a reference handle. */
export function tokenFormatOf(token: string): AccessTokenFormat {
  const parts = token.split(".");
  return parts.length === 3 && typeof decodeJwt(token)[0].alg === "string" ? "jwt" : "reference";
}

function describeFormat(format: AccessTokenFormat): string {
  return format === "jwt" ? "a JWT" : "an opaque handle";
}

function keyDifference(expected: Record<string, unknown>, actual: Record<string, unknown>): string | undefined {
  const missing = Object.keys(expected).filter((k) => !(k in actual));
  const extra = Object.keys(actual).filter((k) => !(k in expected));
  const parts = [...(missing.length > 0 ? [`lacks ${missing.join(", ")}`] : []), ...(extra.length > 0 ? [`adds ${extra.join(", ")}`] : [])];
  return parts.length > 0 ? parts.join("; ") : undefined;
}

function decodeJwt(token: string): [Record<string, unknown>, Record<string, unknown>] {
  const [header = "", payload = ""] = token.split(".");
  const decode = (part: string) => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
      return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  return [decode(header), decode(payload)];
}
