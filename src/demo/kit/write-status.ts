import { DemoPageError } from "./demo-page-error.ts";

/** The write-status body (contract §6): 10 approved with data, 5 auditor asked, -10 refused. */
export interface StatusWrite {
  session_id: string;
  status: 10 | 5 | -10;
  /** Always sent, "" when there is none: the provider refuses a data that is not a string. */
  data: string;
  auditor?: string;
}

export interface StatusAnswer {
  /** The provider's body status: 200 OK, else the spec's error table. */
  status: number;
  message: string;
}

/**
 * POST {provider}/Acme/CustomLogin/WriteStatusOperation with the access token the mobile page got for
 * this scan. The provider's refusals (a finished session, too much data) come back as its answer, for
 * the page to show; only an unreachable provider or an unreadable answer throws.
 */
export async function writeStatus(provider: string, accessToken: string, write: StatusWrite): Promise<StatusAnswer> {
  let res: globalThis.Response;
  try {
    res = await fetch(`${provider}/Acme/CustomLogin/WriteStatusOperation`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(write),
      redirect: "error",
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new DemoPageError(502, "The identity provider cannot be reached.");
  }
  const body = (await res.json().catch(() => undefined)) as Partial<StatusAnswer> | undefined;
  if (typeof body?.status !== "number" || typeof body.message !== "string")
    throw new DemoPageError(502, `The identity provider answered HTTP ${res.status} without a status.`);
  return { status: body.status, message: body.message };
}
