import type { IncomingMessage, ServerResponse } from "node:http";
import type { Scope } from "../../infra/scope.ts";
import type { Authentication, AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { Channel } from "../../channels/channel.ts";
import { CHANNEL_CHOICE_FLOW_ID } from "../../../flows/channel-choice.flow.ts";
import { redirectToInteraction } from "./interaction-cookie.ts";

/** The source completeAuthorization was given: a fresh login, or the browser's session (read again when the choice is made). */
type ChoiceSource = { existing: unknown } | { login: Authentication };

/**
 * req_chnl when the user administers several channels: an interaction runs the channel-choice flow
 * (flows/channel-choice.flow.ts) and, once a channel is picked, completes the authorization with it.
 * A fresh login is kept in the interaction; an SSO session is read again from the browser then.
 */
export async function offerChannels(
  { infra, policy }: Scope,
  _req: IncomingMessage,
  res: ServerResponse,
  request: AuthorizationRequest,
  source: ChoiceSource,
  channels: Channel[],
): Promise<void> {
  const flow = policy.flows.get(CHANNEL_CHOICE_FLOW_ID)!;
  const { interaction, browserCookie } = await infra.interactions.create({
    kind: "channel",
    request,
    flowId: flow.id,
    flowHash: flow.hash,
    channels: channels.map(({ id, name, icon }) => ({ id, name, icon })),
    ...("login" in source && { login: source.login }),
  });
  redirectToInteraction(infra, res, interaction.id, browserCookie, { sameSiteNone: request.framed });
}
