import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { describeJoseError } from "../../tokens/jose-errors.ts";
import { bearerError, ChannelServiceError } from "./channel-service-error.ts";

export interface ProviderTokenVerifierOptions {
  /** The provider's issuer; its discovery document must name exactly this issuer. */
  issuer: string;
  /** The audience our provider puts in tokens with the service's scopes: the API resource's name. */
  audience: string;
}

/** jose codes that mean "the provider's keys could not be fetched", not "the token is bad". */
const KEYS_UNAVAILABLE = new Set(["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"]);

/**
 * Verifies the Bearer access tokens of our provider: RS256 JWTs of type at+jwt, with our issuer and the
 * service's audience, signed by a key of the JWKS that the provider's discovery document names (found
 * once, then cached and refreshed by jose's remote key set). A token of any other issuer, a reference
 * token, or one without the scope the route asks is refused with the RFC 6750 error.
 */
export class ProviderTokenVerifier {
  private readonly options: ProviderTokenVerifierOptions;
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(options: ProviderTokenVerifierOptions) {
    this.options = options;
  }

  /** The token's claims when it is valid and carries `scope` (or, given several, any one of them). */
  async verify(authorization: string | undefined, scope: string | readonly string[]): Promise<JWTPayload & { sub: string }> {
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? "");
    if (!match) throw bearerError(401, undefined, "a Bearer access token is required");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1]!, await this.keySet(), {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: ["RS256"],
        typ: "at+jwt",
        requiredClaims: ["sub", "exp", "scope"],
      }));
    } catch (error) {
      throw this.verificationError(error);
    }
    const scopes = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
    const wanted = typeof scope === "string" ? [scope] : scope;
    if (!wanted.some((s) => scopes.includes(s))) {
      const named = wanted.length === 1 ? `the ${wanted[0]} scope` : `one of the scopes ${wanted.join(", ")}`;
      throw bearerError(403, "insufficient_scope", `the access token lacks ${named}`, wanted.join(" "));
    }
    return payload as JWTPayload & { sub: string };
  }

  private verificationError(error: unknown): ChannelServiceError {
    if (error instanceof ChannelServiceError) return error;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && KEYS_UNAVAILABLE.has(code)) return unavailable();
    try {
      return bearerError(401, "invalid_token", describeJoseError(error));
    } catch {
      // Not a jose error: the key set's fetch failed on the network.
      return unavailable();
    }
  }

  /** The provider's remote key set, located through its discovery document on first use. */
  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.keys) return this.keys;
    const { issuer } = this.options;
    let metadata: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
        redirect: "error",
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`discovery answered HTTP ${res.status}`);
      metadata = (await res.json()) as typeof metadata;
    } catch {
      throw unavailable();
    }
    // OpenID Connect Discovery §4.3: the document's issuer must be the one we asked.
    if (metadata.issuer !== issuer || typeof metadata.jwks_uri !== "string") throw unavailable();
    this.keys = createRemoteJWKSet(new URL(metadata.jwks_uri));
    return this.keys;
  }
}

const unavailable = () => new ChannelServiceError(503, "the identity provider's keys cannot be fetched, try again later");
