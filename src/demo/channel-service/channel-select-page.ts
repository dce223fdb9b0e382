import express from "express";
import type { ChannelConfig } from "../../config/types.generated.ts";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { exchangeCode } from "../kit/exchange-code.ts";
import { formField } from "../kit/form-field.ts";
import { html, type Html } from "../kit/html.ts";
import { pageErrorHandler } from "../kit/page-error-handler.ts";
import type { PageSession, PageSessions } from "../kit/page-sessions.ts";
import { readRedirect } from "../kit/read-redirect.ts";
import { sendPage } from "../kit/send-page.ts";
import { sendPhoneProgress } from "../kit/send-phone-progress.ts";
import { splitPhoneState } from "../kit/split-state.ts";
import { channelsOf } from "./channels-of.ts";
import { chooseChannel, refuseLogin, type ChooseChannelDeps } from "./choose-channel.ts";
import { channelsAllowedBy, parseMobileStateRule } from "./mobile-state-rule.ts";
import type { SelectSession } from "./select-session.ts";

export interface ChannelSelectDeps extends ChooseChannelDeps {
  channels: readonly ChannelConfig[];
  /** The selector's client (demo-channel); its redirect URI is `{publicUrl}/channel/select`. */
  client: { id: string; secret: string };
  sessions: PageSessions<SelectSession>;
}

export const SELECT_PATH = "/channel/select";

/**
 * The channel selector page, the channel client's MobileRedirectUrl (SPEC "Channel account info", use case):
 *   GET  /channel/select?code=&state=<session_id>|<MobileState>  redeems the code, keeps the token server-side,
 *                                                                then 303 to itself without the code
 *   GET  /channel/select                                        the page for this phone's session
 *   POST /channel/select  channel=<id> | refuse=1, csrf          the choice (channelsAllowedBy decides what may be chosen)
 */
export function channelSelectPage(deps: ChannelSelectDeps): express.Router {
  const router = express.Router();

  router.get(SELECT_PATH, async (req, res) => {
    const redirect = readRedirect(req.query, deps.provider);
    if (!redirect) return render(res, deps.sessions.current(req));
    const [scanSessionId, mobileState] = splitPhoneState(redirect.state);
    const rule = parseMobileStateRule(mobileState);
    const { sub, accessToken } = await exchangeCode(
      deps.provider,
      { ...deps.client, redirectUri: `${deps.publicUrl}${SELECT_PATH}` },
      redirect.code,
    );
    const offered = channelsAllowedBy(rule, channelsOf(deps.channels, sub));
    deps.sessions.start(res, { sub, accessToken, scanSessionId, rule, offered, phase: "choosing" });
    res.redirect(303, SELECT_PATH);
  });

  router.post(SELECT_PATH, express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }), async (req, res) => {
    const session = deps.sessions.forPost(req);
    if (session.data.phase !== "choosing") throw new DemoPageError(409, "This sign-in was answered already.");
    if (formField(req.body, "refuse") !== undefined) await refuseLogin(deps.provider, session.data);
    else {
      const channel = session.data.offered.find((c) => c.id === formField(req.body, "channel"));
      if (!channel) throw new DemoPageError(400, "Choose one of the channels offered.");
      await chooseChannel(deps, session.data, channel);
    }
    res.redirect(303, SELECT_PATH);
  });

  router.use(pageErrorHandler);
  return router;
}

const ROLE_NAMES = ["temporary, needs the owner's approval", "operator", "owner"];

function render(res: express.Response, session: PageSession<SelectSession>): void {
  const { data } = session;
  if (sendPhoneProgress(res, "Channel sign-in", data)) return;
  const choices: Html[] = data.offered.map(
    (c) => html`<p><button name="channel" value="${c.id}">${c.name}</button> (${ROLE_NAMES[c.roleId]})</p>`,
  );
  sendPage(
    res,
    "Channel sign-in",
    html`<p>Signed in as ${data.sub}. Choose the channel to sign in with on the PC${data.rule ? html` (rule ${data.rule})` : ""}:</p>
<form method="post" action="${SELECT_PATH}"><input type="hidden" name="csrf" value="${session.csrf}">
${choices.length ? choices : html`<p>None of your channels may sign in here.</p>`}
<p><button name="refuse" value="1">Refuse</button></p></form>`,
  );
}
