import * as client from "openid-client";
import { isLoopbackHttp } from "../http-kit/loopback-url.ts";
import { classifyEidError } from "./classify-eid-error.ts";
import { EidError } from "./eid-error.ts";
import type { EidBeginOptions, EidPending, EidUpstream } from "./eid-upstream.ts";
import { mapEidAccount, type EidAccount } from "./map-eid-account.ts";
import { meetsAsked, performedAcr, upstreamAcrValues } from "./eid-acr.ts";

/** Seconds any one request to the upstream may take (discovery, JWKS, token, userinfo). */
const UPSTREAM_TIMEOUT_S = 10;

export interface EidRelyingPartyOptions {
  /** Runs before each discovery attempt (the development upstream starts itself here). */
  beforeDiscovery?: () => Promise<void>;
}

/**
 * This provider as an OpenID Connect relying party of one upstream eID provider, over openid-client:
 * the code flow with PKCE S256, state and nonce, the client authenticating with client_secret_basic,
 * and ID tokens verified by openid-client, signature included (non-repudiation checks on).
 *
 * Discovery happens at the first login, not at start: an upstream that is down must not stop the
 * provider. A failed discovery is not cached, so the next login tries again; a good one is kept.
 */
export class EidRelyingParty {
  readonly id: string;
  private readonly upstream: EidUpstream;
  private readonly options: EidRelyingPartyOptions;
  private configuration: Promise<client.Configuration> | undefined;

  constructor(id: string, upstream: EidUpstream, options: EidRelyingPartyOptions = {}) {
    this.id = id;
    this.upstream = upstream;
    this.options = options;
  }

  /** The upstream authorization URL for a new login, and what to keep server-side until its callback. */
  async begin(redirectUri: string, options: EidBeginOptions = {}): Promise<{ url: URL; pending: EidPending }> {
    const configuration = await this.discovered();
    const asked = options.acr ?? [];
    const acrValues = upstreamAcrValues(this.upstream.acr, asked);
    const pending: EidPending = {
      upstream: this.id,
      redirectUri,
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      ...(options.maxAge !== undefined && { maxAge: options.maxAge }),
      ...(asked.length > 0 && { acr: { asked: [...asked], essential: options.acrEssential ?? false } }),
    };
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: this.upstream.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: "S256",
      state: pending.state,
      nonce: pending.nonce,
      ...(options.prompt && { prompt: options.prompt }),
      ...(options.maxAge !== undefined && { max_age: String(options.maxAge) }),
      ...(options.uiLocales && { ui_locales: options.uiLocales }),
      ...(acrValues.length > 0 && { acr_values: acrValues.join(" ") }),
    };
    return { url: client.buildAuthorizationUrl(configuration, parameters), pending };
  }

  /**
   * Completes the login from the upstream's callback: only the callback's query counts, read against
   * the redirect URI `begin` sent (never against the Host the browser came in on). openid-client checks
   * the issuer, state, code exchange with PKCE, the ID token and its nonce; the userinfo answer (when
   * the upstream has the endpoint and claims are mapped) must be about the same sub.
   */
  async finish(callback: URL | URLSearchParams | string, pending: EidPending): Promise<EidAccount> {
    if (pending.upstream !== this.id) throw new EidError("invalid_callback", this.id, "the eID callback does not belong to this login");
    const query = callback instanceof URLSearchParams ? callback : new URL(callback, pending.redirectUri).searchParams;
    // A clear answer for a forged or crossed callback; openid-client checks the state as well.
    if (query.get("state") !== pending.state)
      throw new EidError("invalid_callback", this.id, "the eID callback does not belong to this login (state)");
    const configuration = await this.discovered();
    const currentUrl = new URL(pending.redirectUri);
    currentUrl.search = query.toString();
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
        ...(pending.maxAge !== undefined && { maxAge: pending.maxAge }),
      });
      const idToken = tokens.claims()!;
      const wantsUserinfo = Object.keys(this.upstream.claims).length > 0 && configuration.serverMetadata().userinfo_endpoint !== undefined;
      const userinfo = wantsUserinfo ? await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub) : {};
      return { ...mapEidAccount(this.id, this.upstream, idToken, userinfo), acr: this.acrOf(idToken.acr, pending) };
    } catch (error) {
      throw classifyEidError(this.id, error);
    }
  }

  /**
   * The login's acr here: what the upstream says it performed (its ID token's acr, which openid-client
   * verified with the token), mapped back, never what was asked. Less than an essential ask fails the login.
   */
  private acrOf(upstreamAcr: unknown, pending: EidPending): string {
    const acr = performedAcr(this.upstream.acr, upstreamAcr);
    if (pending.acr?.essential && !meetsAsked(acr, pending.acr.asked))
      throw new EidError(
        "unmet_authentication_requirements",
        this.id,
        `the eID provider did not perform the authentication asked for (${pending.acr.asked.join(" ")})`,
      );
    return acr;
  }

  /** The upstream's discovered configuration: fetched once, again after a failure. */
  private discovered(): Promise<client.Configuration> {
    if (this.configuration === undefined) {
      const attempt = this.discover();
      this.configuration = attempt;
      attempt.catch(() => {
        if (this.configuration === attempt) this.configuration = undefined;
      });
    }
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    try {
      await this.options.beforeDiscovery?.();
      const execute = [client.enableNonRepudiationChecks];
      // Plain HTTP only to a loopback issuer (config rule): the development upstream and tests.
      if (isLoopbackHttp(this.upstream.issuer)) execute.push(client.allowInsecureRequests);
      return await client.discovery(
        new URL(this.upstream.issuer),
        this.upstream.client_id,
        { client_secret: this.upstream.client_secret },
        client.ClientSecretBasic(this.upstream.client_secret),
        { execute, timeout: UPSTREAM_TIMEOUT_S },
      );
    } catch (error) {
      throw new EidError("unavailable", this.id, "the eID provider is not reachable, try again later", { cause: error });
    }
  }
}
