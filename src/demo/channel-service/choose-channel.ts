import type { Channel } from "../../channels/channel.ts";
import type { ChannelConfig } from "../../config/types.generated.ts";
import type { CustomDataSeal } from "../kit/custom-data-seal.ts";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { finishWrite } from "../kit/phone-session.ts";
import { writeStatus } from "../kit/write-status.ts";
import type { Approvals, Decision } from "./approvals.ts";
import { ownerOf } from "./channels-of.ts";
import type { MessageBox } from "./message-box.ts";
import type { SelectSession } from "./select-session.ts";

export interface ChooseChannelDeps {
  provider: string;
  channels: readonly ChannelConfig[];
  /** Seals the chosen channel for the scanner: channelinfo accepts nothing else as login_data. */
  seal: CustomDataSeal;
  approvals: Approvals;
  messages: MessageBox;
  publicUrl: string;
}

/**
 * The selector's custom operation for one chosen channel (SPEC "Channel account info", contract §6):
 * an operator or owner signs the PC in at once (status 10, data = the channel id sealed for the scanner);
 * a temporary account (roleId 0) needs the channel's owner: status 5 with the owner as auditor, a message
 * to the owner with the approval link, and on the owner's answer 10 (the sealed channel id) or -10.
 * The seal is made when 10 is written, so the PC side has its full 10 minutes however long the owner took.
 */
export async function chooseChannel(deps: ChooseChannelDeps, session: SelectSession, channel: Channel): Promise<void> {
  if (channel.roleId >= 1) {
    finishWrite(
      session,
      await writeStatus(deps.provider, session.accessToken, {
        session_id: session.scanSessionId,
        status: 10,
        data: deps.seal.seal(channel.id, session.sub),
      }),
      `The PC is signing in with ${channel.name}.`,
    );
    return;
  }
  const owner = ownerOf(deps.channels, channel.id);
  // Nothing written: the phone may still choose another channel or refuse.
  if (!owner) throw new DemoPageError(409, `${channel.name} has no owner who could approve a temporary sign-in.`);
  const asked = await writeStatus(deps.provider, session.accessToken, {
    session_id: session.scanSessionId,
    status: 5,
    data: channel.id,
    auditor: owner,
  });
  if (asked.status !== 200) return finishWrite(session, asked, "");
  const approval = deps.approvals.create({
    requester: session.sub,
    to: owner,
    text: `${channel.name} (${channel.id}), a temporary sign-in`,
  });
  deps.approvals.onDecision(approval.id, (decision) => void answer(deps, session, channel, decision));
  deps.messages.send({
    from: session.sub,
    to: owner,
    text: `${session.sub} asks to sign in on a PC with ${channel.name} (${channel.id}).`,
    approveUrl: `${deps.publicUrl}/approvals/${approval.id}`,
  });
  session.phase = "waiting";
  session.waitingFor = owner;
}

/** The user refused on the phone: -10, nobody is signed in. */
export async function refuseLogin(provider: string, session: SelectSession): Promise<void> {
  finishWrite(
    session,
    await writeStatus(provider, session.accessToken, { session_id: session.scanSessionId, status: -10, data: "" }),
    "You refused: nobody is signed in on the PC.",
  );
}

/** The owner answered: write 10 or -10 with the token kept for this scan. Never throws: it runs outside any request. */
async function answer(deps: ChooseChannelDeps, session: SelectSession, channel: Channel, decision: Decision): Promise<void> {
  const approved = decision === "approved";
  try {
    const written = await writeStatus(deps.provider, session.accessToken, {
      session_id: session.scanSessionId,
      status: approved ? 10 : -10,
      data: approved ? deps.seal.seal(channel.id, session.sub) : "",
    });
    finishWrite(
      session,
      written,
      approved
        ? `${session.waitingFor} approved: the PC is signing in with ${channel.name}.`
        : `${session.waitingFor} refused: nobody is signed in on the PC.`,
    );
  } catch (error) {
    session.phase = "done";
    session.result = {
      ok: false,
      text: error instanceof DemoPageError ? error.message : "The answer could not be passed on to the identity provider.",
    };
    if (!(error instanceof DemoPageError)) console.error(error);
  }
}
