import type { AccountLoginInteraction } from "../../../runtime/interaction.ts";
import { authenticationResult } from "../../../runtime/authentication-result.ts";
import { auditLoginSucceeded } from "../../../runtime/audit-login-step.ts";
import { recordMethodUse } from "../../../runtime/record-method-use.ts";
import { accountUrl } from "../../../runtime/account-params.ts";
import { startSession } from "../../../sessions/start-session.ts";
import { SESSION_COOKIE } from "../../../sessions/session-cookie.ts";
import { seeOther } from "../../../http-kit/see-other.ts";
import type { LoginFlowOutput } from "../../../../flows/login-flow-setup.ts";
import type { FinishedFlow, InteractionKind } from "./interaction-kind.ts";

/** A login to the provider's own account page (no client): it ends in an SSO session and /account. */
export const accountKind: InteractionKind<AccountLoginInteraction> = {
  lang: (interaction) => interaction.lang,
  onPages: {
    flowInput: () => ({}),
    // No client, no method of its own: only its flow can go away, which the routes check for every kind.
    stillValid: () => true,
    page: ({ views, lang, otherMethods }) => ({
      view: "login",
      data: { otherMethods: otherMethods(), clientName: views.translate(lang, "app.name") },
    }),
    finish: finishAccountLogin,
  },
};

/** Signed in to the account page: the SSO session starts (as after any login), and the page shows. */
async function finishAccountLogin(finished: FinishedFlow<AccountLoginInteraction>): Promise<void> {
  const { req, res, interaction, flow, path } = finished;
  const { infra } = finished.scope;
  const done = finished.output as LoginFlowOutput;
  const login = auditLoginSucceeded(infra.audit, interaction, flow, path, authenticationResult(done, flow.methods, infra.clock()));
  const { cookie } = await startSession(infra, req, login);
  recordMethodUse(infra, done);
  res.appendHeader("Set-Cookie", infra.cookies.set(SESSION_COOKIE, cookie));
  seeOther(res, accountUrl(interaction.back ?? {}));
}
