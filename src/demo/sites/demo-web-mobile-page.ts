import express from "express";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { exchangeCode, type ConfidentialClient } from "../kit/exchange-code.ts";
import { formField } from "../kit/form-field.ts";
import { html } from "../kit/html.ts";
import type { PageSession, PageSessions } from "../kit/page-sessions.ts";
import { finishWrite, type PhoneSession } from "../kit/phone-session.ts";
import { readRedirect } from "../kit/read-redirect.ts";
import { sendPage } from "../kit/send-page.ts";
import { sendPhoneProgress } from "../kit/send-phone-progress.ts";
import { splitPhoneState } from "../kit/split-state.ts";
import { writeStatus } from "../kit/write-status.ts";
import type { ApprovalWatcher } from "./approval-watcher.ts";
import type { ChannelServiceClient } from "./channel-service-client.ts";

export interface DemoWebPhone extends PhoneSession {
  mobileState: string;
}

export interface MobilePageDeps {
  provider: string;
  /** demo-web with its MobileRedirectUrl. */
  client: ConfidentialClient;
  channel: ChannelServiceClient;
  watcher: ApprovalWatcher;
  sessions: PageSessions<DemoWebPhone>;
}

export const MOBILE_PATH = "/custom-login/mobile";

/**
 * demo-web's MobileRedirectUrl, its custom operation (SPEC "Custom QR-code login" step 4):
 *   GET  /custom-login/mobile?code=&state=<session_id>|<MobileState>  redeems the code, then 303 to itself
 *   GET  /custom-login/mobile                                        "Sign in on the PC as <sub>"
 *   POST /custom-login/mobile  action=confirm|ask|refuse, data, auditor, csrf
 * confirm writes 10 with the data; ask writes 5 with the auditor, sends the auditor the channel
 * service's approval link (SendMsg) and writes 10 or -10 when the auditor answers; refuse writes -10.
 */
export function demoWebMobilePage(deps: MobilePageDeps): express.Router {
  const router = express.Router();

  router.get(MOBILE_PATH, async (req, res) => {
    const redirect = readRedirect(req.query, deps.provider);
    if (!redirect) return render(res, deps.sessions.current(req));
    const [scanSessionId, mobileState] = splitPhoneState(redirect.state);
    const { sub, accessToken } = await exchangeCode(deps.provider, deps.client, redirect.code);
    deps.sessions.start(res, { sub, accessToken, scanSessionId, mobileState: mobileState ?? "", phase: "choosing" });
    res.redirect(303, MOBILE_PATH);
  });

  router.post(MOBILE_PATH, express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 10 }), async (req, res) => {
    const phone = deps.sessions.forPost(req).data;
    if (phone.phase !== "choosing") throw new DemoPageError(409, "This sign-in was answered already.");
    const action = formField(req.body, "action");
    const data = formField(req.body, "data") ?? "";
    const write = (status: 10 | -10) =>
      writeStatus(deps.provider, phone.accessToken, { session_id: phone.scanSessionId, status, data: status === 10 ? data : "" });
    if (action === "confirm") finishWrite(phone, await write(10), `The PC is signing in as ${phone.sub}.`);
    else if (action === "refuse") finishWrite(phone, await write(-10), "You refused: nobody is signed in on the PC.");
    else if (action === "ask") await askAuditor(deps, phone, formField(req.body, "auditor")?.trim() ?? "", write);
    else throw new DemoPageError(400, "Choose Confirm, Ask a manager or Refuse.");
    res.redirect(303, MOBILE_PATH);
  });

  return router;
}

/** Status 5 with the auditor, the approval link to the auditor, then 10 or -10 when the channel service has the answer. */
async function askAuditor(
  deps: MobilePageDeps,
  phone: DemoWebPhone,
  auditor: string,
  write: (status: 10 | -10) => ReturnType<typeof writeStatus>,
): Promise<void> {
  if (auditor === "" || auditor.length > 200) throw new DemoPageError(400, "Enter the account of the manager to ask.");
  // The approval request first: when the channel service refuses this site, nothing has been written yet.
  const approval = await deps.channel.requestApproval(phone.accessToken, auditor, "the demo third-party site (demo-web)");
  const asked = await writeStatus(deps.provider, phone.accessToken, { session_id: phone.scanSessionId, status: 5, data: "", auditor });
  if (asked.status !== 200) return finishWrite(phone, asked, "");
  await deps.channel.sendMsg(phone.accessToken, {
    to: auditor,
    text: `${phone.sub} asks to sign in on a PC at the demo third-party site.`,
    approve_url: approval.url,
  });
  phone.phase = "waiting";
  phone.waitingFor = auditor;
  deps.watcher.watch({
    token: phone.accessToken,
    id: approval.id,
    onAnswer: async (decision) => {
      if (decision === "approved") return finishWrite(phone, await write(10), `${auditor} approved: the PC is signing in as ${phone.sub}.`);
      finishWrite(
        phone,
        await write(-10),
        decision === "refused"
          ? `${auditor} refused: nobody is signed in on the PC.`
          : `${auditor} did not answer in time: nobody is signed in on the PC.`,
      );
    },
  });
}

function render(res: express.Response, session: PageSession<DemoWebPhone>): void {
  const phone = session.data;
  if (sendPhoneProgress(res, "Demo site", phone)) return;
  sendPage(
    res,
    "Demo site",
    html`<p>Sign in on the PC as ${phone.sub}${phone.mobileState ? html` (MobileState ${phone.mobileState})` : ""}?</p>
<form method="post" action="${MOBILE_PATH}"><input type="hidden" name="csrf" value="${session.csrf}">
<p><label>Data for the PC (optional; the PC page reads it before the last |) <input name="data" maxlength="2048"></label></p>
<p><button name="action" value="confirm">Confirm</button></p>
<p><label>Manager's account <input name="auditor" maxlength="200"></label> <button name="action" value="ask">Ask a manager</button></p>
<p><button name="action" value="refuse">Refuse</button></p></form>`,
  );
}
