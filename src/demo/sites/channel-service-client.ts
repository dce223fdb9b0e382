import { DemoPageError } from "../kit/demo-page-error.ts";

/** The channel account of channelinfo (SPEC "Channel account info"). */
export interface ChannelAccount {
  uid: string;
  name: string;
  icon: string;
  roleId: number;
}

type Answer = { status: number; body: { code?: unknown; msg?: unknown; data?: Record<string, unknown> } };

/**
 * The demo sites' calls to the channel-account service, each with the user's access token:
 * channelinfo, and the open interface (an approval request, SendMsg, the decision). A refusal becomes
 * a DemoPageError that says what the service answered; the token is never shown.
 */
export class ChannelServiceClient {
  private readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  async channelInfo(token: string, loginData: string, lang = "en"): Promise<ChannelAccount> {
    const { body } = this.expectOk(
      await this.call("POST", "/mp_login/channelinfo", token, new URLSearchParams({ login_data: loginData, lang })),
    );
    return body.data as unknown as ChannelAccount;
  }

  /** An approval request to `to`; answers its id and the approval page's URL. */
  async requestApproval(token: string, to: string, text: string): Promise<{ id: string; url: string }> {
    const { body } = this.expectOk(await this.call("POST", "/approvals", token, { to, text }));
    return body.data as { id: string; url: string };
  }

  async sendMsg(token: string, message: { to: string; text: string; approve_url?: string }): Promise<void> {
    this.expectOk(await this.call("POST", "/SendMsg", token, message));
  }

  /** pending, approved or refused; undefined once the service no longer knows the request (expired). */
  async decision(token: string, id: string): Promise<string | undefined> {
    const answer = await this.call("GET", `/approvals/${encodeURIComponent(id)}/decision`, token);
    if (answer.status === 404) return undefined;
    return String(this.expectOk(answer).body.data?.decision);
  }

  private async call(method: string, path: string, token: string, body?: URLSearchParams | Record<string, string>): Promise<Answer> {
    const json = body !== undefined && !(body instanceof URLSearchParams);
    try {
      const res = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: "application/json", ...(json && { "content-type": "application/json" }) },
        ...(body !== undefined && { body: json ? JSON.stringify(body) : body }),
        redirect: "error",
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, body: ((await res.json().catch(() => ({}))) ?? {}) as Answer["body"] };
    } catch {
      throw new DemoPageError(502, "The channel service cannot be reached.");
    }
  }

  private expectOk(answer: Answer): Answer {
    if (answer.status === 200 && answer.body.code === 200) return answer;
    const msg = typeof answer.body.msg === "string" ? answer.body.msg : `HTTP ${answer.status}`;
    throw new DemoPageError(answer.status >= 500 ? 502 : 403, `The channel service refused: ${msg}`);
  }
}
