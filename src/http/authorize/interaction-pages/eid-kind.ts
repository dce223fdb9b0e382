import type { EidLoginInteraction } from "../../../runtime/interaction.ts";
import type { InteractionKind } from "./interaction-kind.ts";
import { requestLang } from "./authorize-request-kinds.ts";

/**
 * An eID login (eid-logins.ts): it has no pages here, it waits for the upstream's callback
 * (/eID/callback). A link to it shows the expired page, in its request's language.
 */
export const eidKind: InteractionKind<EidLoginInteraction> = {
  lang: requestLang,
};
