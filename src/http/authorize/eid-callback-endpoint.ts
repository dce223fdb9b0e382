import type { Provider } from "../../provider.ts";
import { epochSeconds } from "../../time/clock.ts";
import { EidError } from "../../eid/eid-error.ts";
import type { EidAccount } from "../../eid/map-eid-account.ts";
import type { EidLoginInteraction } from "../../runtime/interaction.ts";
import { answerWithErrorPage, type BrowserPages } from "../../views/browser-pages.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import { paths } from "../../http-kit/paths.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { completeAuthorization, responsePage } from "./complete-authorization.ts";
import { EID_COOKIE } from "./eid-logins.ts";
import { EID_METHOD } from "../../login-policy/login-policy.ts";
import type { PolicySnapshot } from "../../policy/policy-snapshot.ts";
import { loginRequestFacts } from "../../runtime/audit-login-step.ts";

/** What an eID login's session and tokens say about how the user logged in (docs/decisions.md "eID login"). */
export const EID_AMR = "eid";
export const EID_ACR = "1fa";

/**
 * GET /eID/callback: the upstream eID provider sends the browser back here. The login is found by the
 * state the upstream returns (the only handle; nothing else in the query is trusted) and must be this
 * browser's (the binding cookie /eID/authorize set); it completes once. The broker then finishes the
 * upstream login (code exchange, ID token, userinfo) and the authorization completes as after any
 * login: an SSO session for the eID account and the code, with login_type, to the client. The
 * upstream's refusals go to the client as OAuth errors; a callback this browser has no login for is a page.
 */
export function eidCallbackEndpoint(provider: Provider, pages: BrowserPages): ProtocolRoute {
  const unknown = (ex: Exchange) =>
    pages.error(ex.req, ex.res, 400, "invalid_request", "this eID login is not known here: it has expired, was already completed, or was started in another browser");

  async function handle(ex: Exchange): Promise<void> {
    const { req, res } = ex;
    const url = req.url ?? "";
    const query = new URLSearchParams(url.slice(url.indexOf("?") + 1 || url.length));
    const state = query.get("state");
    const interaction = state ? await provider.interactions.findByLink(state, provider.cookies.read(req, EID_COOKIE.name, EID_COOKIE.path)) : undefined;
    // One snapshot for the whole request, even if a reload swaps it meanwhile (src/reload/).
    const policy = provider.policy;
    if (interaction?.kind !== "eid" || !policy.clients.get(interaction.request.clientId)) return unknown(ex);
    // An interaction completes once: a callback replayed (or raced) after it finds nothing to complete.
    if (!(await provider.interactions.finish(interaction.id))) return unknown(ex);
    res.appendHeader("Set-Cookie", provider.cookies.clear(EID_COOKIE.name, { path: EID_COOKIE.path }));
    const account = await finishUpstream(ex, policy, interaction, query);
    if (account) await complete(ex, policy, interaction, account);
  }

  /** The broker's finish; its EidError (cancelled, down, a bad answer) goes to the client, logged with its cause. */
  async function finishUpstream(ex: Exchange, policy: PolicySnapshot, interaction: EidLoginInteraction, query: URLSearchParams): Promise<EidAccount | undefined> {
    try {
      return await provider.eid.finish(query, interaction.pending);
    } catch (err) {
      if (!(err instanceof EidError)) throw err;
      const cause = err.cause instanceof Error ? err.cause.message : undefined;
      provider.logger.warn({ reqId: ex.reqId, event: "eid_login_failed", upstream: err.upstream, failure: err.failure, client: interaction.request.clientId, cause }, "eID login failed");
      answer(ex, policy, interaction, { error: err.error, error_description: err.description });
      return undefined;
    }
  }

  async function complete(ex: Exchange, policy: PolicySnapshot, interaction: EidLoginInteraction, account: EidAccount): Promise<void> {
    const { request } = interaction;
    // OIDC Core §3.1.2.1: the client asked for the user its id_token_hint names; someone else logged in.
    if (request.hintSub !== undefined && account.sub !== request.hintSub) {
      provider.audit.record({ type: "login.failed", flow_id: "eid", path: [`eid.${interaction.pending.upstream}`], ...loginRequestFacts(request), sub: account.sub, reason: "login_required" });
      return answer(ex, policy, interaction, { error: "login_required", error_description: "the user who logged in is not the one id_token_hint names" });
    }
    provider.logger.info({ reqId: ex.reqId, event: "eid_login", upstream: interaction.pending.upstream, sub: account.sub, client: request.clientId }, "eID login");
    const login = { sub: account.sub, authTime: epochSeconds(provider.clock), amr: [EID_AMR], acr: EID_ACR, methods: [EID_METHOD], loginId: interaction.loginId };
    provider.audit.record({ type: "login.succeeded", flow_id: "eid", path: [`eid.${interaction.pending.upstream}`], ...(login.loginId && { login_id: login.loginId }), ...loginRequestFacts(request), sub: login.sub, amr: login.amr, acr: login.acr });
    await completeAuthorization(provider, pages, ex.req, ex.res, request, { login }, { leaveRedirectChain: true, policy });
  }

  function answer(ex: Exchange, policy: PolicySnapshot, interaction: EidLoginInteraction, error: { error: string; error_description: string }): void {
    const { request } = interaction;
    const client = policy.clients.get(request.clientId)!;
    writeAuthorizationResponse(ex.res, pages, request, { ...error, iss: provider.issuer }, responsePage(ex.req, request, client, true));
  }

  return {
    path: paths.eidCallback,
    methods: ["GET"],
    readsBody: false,
    handle: (ex) => handle(ex).catch((err: unknown) => answerWithErrorPage(pages, provider.logger, ex.req, ex.res, err, ex)),
    fail: (ex, err) => answerWithErrorPage(pages, provider.logger, ex.req, ex.res, err, ex),
  };
}
