import type { Interaction } from "../../../runtime/interaction.ts";
import type { InteractionKind } from "./interaction-kind.ts";
import { accountKind } from "./account-kind.ts";
import { channelKind } from "./channel-kind.ts";
import { eidKind } from "./eid-kind.ts";
import { enrollmentKind } from "./enrollment-kind.ts";
import { loginKind } from "./login-kind.ts";

/** Every kind of interaction by its `kind`: the type asks for one entry per member of the Interaction union. */
const KINDS: { readonly [K in Interaction["kind"]]: InteractionKind<Extract<Interaction, { kind: K }>> } = {
  login: loginKind,
  channel: channelKind,
  account: accountKind,
  enrollment: enrollmentKind,
  eid: eidKind,
};

/**
 * An interaction's kind. TypeScript cannot follow that KINDS[interaction.kind] is the entry for this
 * very interaction's type; KINDS's type above is what makes that so.
 */
export function kindOf<I extends Interaction>(interaction: I): InteractionKind<I> {
  return KINDS[interaction.kind] as InteractionKind<I>;
}

/** The language an interaction's pages speak, when it knows one. */
export function interactionLang(interaction: Interaction): string | undefined {
  return kindOf(interaction).lang(interaction);
}
