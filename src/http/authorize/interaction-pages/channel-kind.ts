import type { ChannelChoiceInteraction } from "../../../runtime/interaction.ts";
import { SESSION_COOKIE } from "../../../sessions/session-cookie.ts";
import { currentSession } from "../../../sessions/current-session.ts";
import type { ChannelChoiceInput } from "../../../../flows/channel-choice.flow.ts";
import { completeAuthorization } from "../complete-authorization.ts";
import type { FinishedFlow, InteractionKind } from "./interaction-kind.ts";
import { clientLoginPage, clientStillRegistered, requestLang } from "./authorize-request-kinds.ts";
import { interactionExpired } from "./interaction-expired.ts";

/** req_chnl with several administered channels (channel-choice.ts): the user picks one before the code is issued. */
export const channelKind: InteractionKind<ChannelChoiceInteraction> = {
  lang: requestLang,
  onPages: {
    flowInput: (interaction): ChannelChoiceInput => ({ channels: interaction.channels }),
    stillValid: clientStillRegistered,
    page: (shown) => clientLoginPage(shown),
    finish: finishChannelChoice,
  },
};

/** The channel is chosen: the authorization completes with it, for the login kept or the browser's session. */
async function finishChannelChoice({ scope, pages, req, res, interaction, output }: FinishedFlow<ChannelChoiceInteraction>): Promise<void> {
  const { channel } = output as { channel: string };
  if (interaction.login)
    return completeAuthorization(scope, pages, req, res, interaction.request, { login: interaction.login }, { chosenChannel: channel });
  const cookie = scope.infra.cookies.read(req, SESSION_COOKIE);
  const session = await currentSession(scope, req);
  if (!session || !cookie) return interactionExpired(pages, req, res, requestLang(interaction));
  await completeAuthorization(scope, pages, req, res, interaction.request, { existing: session, cookie }, { chosenChannel: channel });
}
