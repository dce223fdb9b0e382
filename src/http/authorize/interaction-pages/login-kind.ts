import type { LoginInteraction } from "../../../runtime/interaction.ts";
import type { LoginFlowInput, LoginFlowOutput } from "../../../../flows/login-flow-setup.ts";
import { finishLogin } from "../finish-login.ts";
import type { InteractionKind } from "./interaction-kind.ts";
import { clientLoginPage, clientStillRegistered, requestLang } from "./authorize-request-kinds.ts";

/** A login that answers an authorize request: its end completes the authorization (finish-login.ts). */
export const loginKind: InteractionKind<LoginInteraction> = {
  lang: requestLang,
  onPages: {
    // What the authorize endpoint planned (older interactions: the login_hint alone).
    flowInput: (interaction): LoginFlowInput => interaction.flowInput ?? { loginHint: interaction.request.loginHint },
    stillValid: clientStillRegistered,
    page: (shown) => clientLoginPage(shown, shown.interaction.signedInAs),
    finish: async ({ scope, pages, req, res, interaction, flow, output, path }) => {
      await finishLogin(scope, pages, req, res, { interaction, flow, output: output as LoginFlowOutput, path });
    },
  },
};
