import { assign, setup } from "xstate";

/** A channel the user may pick: what the chooser page shows. */
export interface OfferedChannel {
  id: string;
  name: string;
  icon: string;
}

export interface ChannelChoiceInput {
  channels: OfferedChannel[];
}

/** The id the channel choice runs under in the flow catalog. */
export const CHANNEL_CHOICE_FLOW_ID = "channel-choice";

/**
 * acr_values req_chnl when the user administers several channels: after the login (or over the SSO
 * session), the user picks the one the application gets as `chnl`. Only an offered channel ends the
 * choice; the runtime checks it against the channel directory again before the code is issued.
 */
export const channelChoiceFlow = setup({
  types: {
    context: {} as ChannelChoiceInput & { chosen?: string },
    input: {} as ChannelChoiceInput,
    output: {} as { channel: string },
    events: {} as { type: "CHOOSE_CHANNEL"; channel?: string },
  },
  guards: {
    isOffered: ({ context, event }) => context.channels.some((c) => c.id === event.channel),
  },
  actions: {
    setChosen: assign({ chosen: ({ event }) => event.channel }),
  },
}).createMachine({
  id: "channelChoice",
  context: ({ input }) => ({ channels: input.channels }),
  initial: "choosing",
  states: {
    choosing: {
      meta: { view: "channel-choice" },
      on: { CHOOSE_CHANNEL: { guard: "isOffered", target: "chosen", actions: "setChosen" } },
    },
    chosen: { type: "final" },
  },
  output: ({ context }) => ({ channel: context.chosen! }),
});
