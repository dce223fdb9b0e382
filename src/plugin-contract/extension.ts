import type { PlugInManifest, PlugInServices } from "./manifest.ts";
import type { ClientRegistry } from "../oauth/client-registry.ts";
import type { ConfigData } from "../config/cross-field-rule.ts";
import type { IncomingMessage } from "node:http";
import type { AccessTokenVerifier } from "../tokens/access-token-verifier.ts";
import type { ProtocolRoute } from "../http-kit/protocol-route.ts";
import type { Exchange } from "../http-kit/exchange.ts";
import type { Authentication, AuthorizationRequest } from "../oauth/authorization-request.ts";

/**
 * An extension of the provider (the custom QR-code login is the first): a folder under src/extensions/
 * with its manifest (manifest.ts: route prefix, record kinds, its config file, its machines — drawn as
 * `<id>-<name>` — and the ID-token claims it adds) and this object, which starts it. The provider
 * starts every installed extension once and serves its routes; the extension reaches the provider only
 * through the context below, never through its wiring.
 */
export interface Extension {
  readonly manifest: ExtensionManifest;
  start(context: ExtensionContext): RunningExtension;
}

/** An extension's manifest: a plug-in's, with its settings in a file of its own, and the claims its logins add to ID tokens. */
export interface ExtensionManifest extends PlugInManifest {
  readonly config: Extract<PlugInManifest["config"], { in: "own file" }>;
  /** Discovery lists them in claims_supported. */
  readonly idTokenClaims: readonly string[];
}

/**
 * The part of a policy snapshot an extension reads: the registered clients, and the configuration with
 * its own file's section (a reload swaps both).
 */
export interface ExtensionPolicy {
  readonly clients: ClientRegistry;
  readonly config: ConfigData;
}

/** What an extension may use of the provider. */
export interface ExtensionContext extends PlugInServices {
  /**
   * What an extension reads of the policy of this request — its one scope (src/infra/scope.ts): the same
   * snapshot for the whole request, whenever it is asked.
   */
  policy(req: IncomingMessage): ExtensionPolicy;
  /** Verifies the provider's own access tokens (signature, expiry, revocation). */
  readonly accessTokens: AccessTokenVerifier;
}

/** What the HTTP layer offers an extension's routes: finishing an authorization the way /connect/authorize does. */
export interface ExtensionHttp {
  /**
   * Issues a code for a user the extension authenticated and answers the client at its redirect URI;
   * no SSO session is started. `state` is returned as given; `idTokenClaims` go into the ID token.
   */
  completeLogin(
    ex: Exchange,
    request: AuthorizationRequest,
    login: Authentication,
    extras: { idTokenClaims?: Record<string, unknown> },
  ): Promise<void>;
  /** Answers the client at its redirect URI with an error (access_denied and this description), state as in the request. */
  refuse(ex: Exchange, request: AuthorizationRequest, description: string): void;
  /** An error page for a request whose client or redirect URI cannot be trusted. */
  errorPage(ex: Exchange, error: unknown): void;
  /** A UI string in the language a page asked for (`lang`), else the browser's (Accept-Language). */
  translate(ex: Exchange, requestedLang: string | undefined, key: string): string;
}

/** An extension once started. */
export interface RunningExtension {
  /** Its routes, every path under the manifest's routePrefix (checked at start-up). */
  routes(http: ExtensionHttp): readonly ProtocolRoute[];
  /** Asked before any authorization code is issued (every login type and flow); may add to it or refuse it. */
  onAuthorization?(authorization: IssuingAuthorization): Promise<AuthorizationContribution | undefined>;
}

/** A running extension as the provider keeps it: with its manifest, so its routes can be checked against it. */
export interface StartedExtension extends RunningExtension {
  readonly manifest: ExtensionManifest;
}

/** An authorization about to get its code. */
export interface IssuingAuthorization {
  readonly request: AuthorizationRequest;
  readonly sub: string;
  /** The policy the authorize request runs on. */
  readonly policy: ExtensionPolicy;
}

export interface AuthorizationContribution {
  /** Claims the access token issued on this code carries (not the refreshed ones). */
  accessTokenClaims?: Record<string, unknown>;
  /** Refuse the authorization: the client gets access_denied with this description. */
  refuse?: string;
}
