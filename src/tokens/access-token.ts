import { randomUUID } from "node:crypto";
import type { Clock } from "../time/clock.ts";
import type { ClientConfig } from "../config/types.generated.ts";

import { epochSeconds } from "../time/clock.ts";
import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import { formatScope } from "../scopes/scope.ts";
import type { JwsSigner } from "./jws-signer.ts";
import type { SigningAlg } from "../crypto/signing-alg.ts";

/** How a client's access tokens are made: signed JWTs, or reference handles (RFC 7662 introspection). */
export type AccessTokenFormat = ClientConfig["access_token_format"];

/** RFC 9068 access token claims, plus the authentication facts of a user-bound token. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  auth_time?: number;
  amr?: string[];
  acr?: string;
  sid?: string;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to. */
  cnf?: { jkt: string };
  [claim: string]: unknown;
}

export interface AccessTokenRequest {
  /** The user's employee number, or the client id for client_credentials (RFC 9068 §2.2). */
  sub: string;
  clientId: string;
  scopes: readonly string[];
  /** The scopes.yaml of the request's policy snapshot: the API resources whose scopes the token carries are its audiences. */
  resources: Pick<ScopeRegistry, "resourcesFor">;
  lifetime: number;
  /** A jti chosen in advance, so that a record naming the token (for revocation) can exist before the token does. */
  jti?: string;
  extra?: Record<string, unknown>;
  /** The thumbprint of the DPoP proof key of the token request: the token is bound to it (`cnf.jkt`). */
  jkt?: string;
  /** The client's access_token_signed_response_alg; RS256 when absent. A reference handle is not signed. */
  alg?: SigningAlg;
}

export const ACCESS_TOKEN_TYPE = "at+jwt";

/**
 * The access-token claim naming the claims an authorize request's `claims` parameter asked userinfo for
 * (OIDC Core §5.5 `userinfo` member): userinfo releases them beside its scopes' claims. An access token is
 * all userinfo is shown, so the request travels in it, signed (or, for a reference token, in the store).
 */
export const USERINFO_CLAIMS = "userinfo_claims";

/** A client's access-token format (clients.yaml `access_token_format`). */

/** Where a reference token's claims go (reference-tokens.ts; named here so the two files do not import each other). */
export interface ReferenceTokenIssuer {
  /** Keeps the claims until they expire; the opaque handle that names them. */
  issue(claims: AccessTokenClaims): Promise<string>;
}

export interface IssuedToken {
  token: string;
  claims: AccessTokenClaims;
}

/**
 * Issues access tokens: JWTs signed with the client's algorithm (RS256 unless it chose PS256 or ES256), or reference handles whose same claims stay in the store. The
 * audience is every API resource whose scopes the token carries.
 */
export class AccessTokenIssuer {
  private readonly signer: JwsSigner;
  private readonly issuer: string;
  private readonly clock: Clock;
  private readonly references: ReferenceTokenIssuer;
  readonly userinfoAudience: string;

  constructor(signer: JwsSigner, issuer: string, clock: Clock, references: ReferenceTokenIssuer) {
    this.signer = signer;
    this.issuer = issuer;
    this.clock = clock;
    this.references = references;
    this.userinfoAudience = `${issuer}/connect/userinfo`;
  }

  /** A token in the client's format; both formats carry the same claims, so introspection answers alike. */
  async issueAs(format: AccessTokenFormat, request: AccessTokenRequest): Promise<IssuedToken> {
    // JWT unless reference is asked for by name: the schema's default, and for a client built by hand.
    if (format !== "reference") return this.issue(request);
    const claims = this.claims(request);
    return { token: await this.references.issue(claims), claims };
  }

  /** A JWT access token. */
  issue(request: AccessTokenRequest): IssuedToken {
    const claims = this.claims(request);
    return { token: this.signer.sign(claims, ACCESS_TOKEN_TYPE, request.alg), claims };
  }

  private claims(request: AccessTokenRequest): AccessTokenClaims {
    const iat = epochSeconds(this.clock);
    const aud = request.resources.resourcesFor(request.scopes);
    // A token that may read userinfo names the userinfo endpoint as an audience too; a token with
    // identity scopes only has it as its one audience (RFC 9068 requires one).
    if (request.scopes.includes("openid") || aud.length === 0) aud.push(this.userinfoAudience);
    // The extra claims first: none of them can replace a registered claim (nor the binding).
    const claims: AccessTokenClaims = {
      ...request.extra,
      iss: this.issuer,
      sub: request.sub,
      aud: aud.length === 1 ? aud[0]! : aud,
      exp: iat + request.lifetime,
      iat,
      jti: request.jti ?? randomUUID(),
      client_id: request.clientId,
      scope: formatScope(request.scopes),
    };
    if (request.jkt !== undefined) claims.cnf = { jkt: request.jkt };
    else delete claims.cnf;
    return claims;
  }
}
