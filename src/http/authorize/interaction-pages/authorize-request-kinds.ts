import type { Scope } from "../../../infra/scope.ts";
import type { AuthorizationRequest } from "../../../oauth/authorization-request.ts";
import type { ChannelChoiceInteraction, LoginInteraction } from "../../../runtime/interaction.ts";
import { appEntryUrl, authorizeParamsOf } from "../../../trusted-app/acmeauth-sso.ts";
import { redirectTargetSource } from "../../../views/page-headers.ts";
import { clientFrameAncestors } from "../client-frame-ancestors.ts";
import { verifyingAccount } from "../verifying-account.ts";
import type { KindPage, ShownStep } from "./interaction-kind.ts";

/*
 * What the kinds that answer a client's authorize request (a login, the channel choice, an eID login)
 * have in common: the request's language, the client it hangs on, and the login page that names it.
 */

/** The authorize request's language. */
export function requestLang(interaction: { request: AuthorizationRequest }): string | undefined {
  return interaction.request.lang;
}

/** Valid while its client is: a client removed from the configuration since the page was shown ends it. */
export function clientStillRegistered({ policy }: Scope, _req: unknown, interaction: { request: AuthorizationRequest }): boolean {
  return policy.clients.get(interaction.request.clientId) !== undefined;
}

/**
 * The login page for a client's request: the client's name, whom a second factor verifies, the trusted
 * app's entry, and `signedInAs` (prompt=login over a live session: whom the page says is signed in).
 */
export async function clientLoginPage(
  shown: ShownStep<LoginInteraction | ChannelChoiceInteraction>,
  signedInAs?: string,
): Promise<KindPage> {
  const { policy } = shown.scope;
  const { request } = shown.interaction;
  // stillValid has checked the client, on this same policy.
  const client = policy.clients.get(request.clientId)!;
  const signedIn = signedInAs ? await policy.users.findBySub(signedInAs) : undefined;
  return {
    view: "login",
    data: {
      otherMethods: shown.otherMethods(),
      clientName: client.name,
      signedInAs: signedIn ? (signedIn.claims.name ?? signedIn.username) : undefined,
      verifyingAccount: verifyingAccount(request.plan, request.loginHint),
      loginHint: request.loginHint,
      // A pushed request is not offered to the app: its link would be a plain request anyone could edit (or one a client requiring PAR is refused).
      appEntryUrl: request.framed || request.pushed ? undefined : appEntryUrl(authorizeParamsOf(request)),
    },
    headers: {
      // Only the iframe login may be framed, and only by the client's own registered origins.
      frameAncestors: request.framed ? clientFrameAncestors(client) : undefined,
      // A successful login POST ends in a 303 to the client, and CSP form-action governs that redirect too.
      formAction: [redirectTargetSource(request.redirectUri)],
    },
  };
}
