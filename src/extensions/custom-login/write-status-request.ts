import type { PhoneProgressEvent } from "../../../flows/custom-login/phone-progress.machine.ts";

/** The spec's status values: 10 finished, 5 an auditor must approve, -10 refused. */
export const STATUS_FINISHED = 10;
export const STATUS_AUDITING = 5;
export const STATUS_REFUSED = -10;
/** An auditor account: any reasonable account name fits. */
const MAX_AUDITOR_LENGTH = 256;
/** A lone UTF-16 surrogate (in `u` mode a proper pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * A write-status refusal as the spec's error table has it: the body's `status` (200, 400, 401, 501)
 * and, per DESIGN.md, the HTTP status that goes with it — 400 for incomplete data and for a bad status
 * value (whose body status the spec makes 401), 401 for the token, 500 for anything unexpected.
 */
export class WriteStatusError extends Error {
  static readonly code: string = "ERR_WRITE_STATUS";
  readonly code: string = "ERR_WRITE_STATUS";
  readonly bodyStatus: 400 | 401 | 501;
  readonly httpStatus: number;

  constructor(bodyStatus: 400 | 401 | 501, httpStatus: number, message: string) {
    super(message);
    this.bodyStatus = bodyStatus;
    this.httpStatus = httpStatus;
  }
}

export const incomplete = (message: string) => new WriteStatusError(400, 400, message);
export const tokenRefused = (message: string) => new WriteStatusError(401, 401, message);

/** A checked write: the session and the phone event it asks for. */
export interface StatusWrite {
  sessionId: string;
  status: number;
  event: (at: number) => PhoneProgressEvent;
}

/**
 * Reads the JSON body `{session_id, status, data, auditor}` in the order of the spec's table: an empty
 * session_id is incomplete data (400); a status other than 10, 5, -10 is the table's 401 (sent as HTTP
 * 400: it is the caller's data, not its token); status 5 needs an auditor (400); data is a string of at
 * most `maxDataLength` characters, handed to the PC side unchanged — `|` and any other character included.
 */
export function readStatusWrite(body: unknown, maxDataLength: number): StatusWrite {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw incomplete("the body must be a JSON object");
  const fields = body as Record<string, unknown>;
  const sessionId = fields.session_id;
  if (typeof sessionId !== "string" || sessionId === "") throw incomplete("request data incomplete: session_id is empty");
  const status = fields.status;
  if (status !== STATUS_FINISHED && status !== STATUS_AUDITING && status !== STATUS_REFUSED)
    throw new WriteStatusError(401, 400, "status must be one of 10, 5, -10");
  const data = fields.data ?? "";
  if (typeof data !== "string") throw incomplete("data must be a string");
  if (data.length > maxDataLength) throw incomplete(`data is longer than ${maxDataLength} characters`);
  // JSON's \ud800 escapes can carry text no URL can: the PC redirect's state could not hold it unchanged.
  if (LONE_SURROGATE.test(data)) throw incomplete("data must be well-formed Unicode (it has a lone surrogate)");
  const auditor = fields.auditor;
  if (auditor !== undefined && auditor !== null && typeof auditor !== "string") throw incomplete("auditor must be a string");
  if (typeof auditor === "string" && auditor.length > MAX_AUDITOR_LENGTH)
    throw incomplete(`auditor is longer than ${MAX_AUDITOR_LENGTH} characters`);
  if (typeof auditor === "string" && LONE_SURROGATE.test(auditor))
    throw incomplete("auditor must be well-formed Unicode (it has a lone surrogate)");
  if (status === STATUS_AUDITING) {
    if (typeof auditor !== "string" || auditor.trim() === "") throw incomplete("request data incomplete: status 5 needs the auditor");
    return { sessionId, status, event: (at) => ({ type: "WRITE_AUDITING", auditor, at }) };
  }
  if (status === STATUS_FINISHED) return { sessionId, status, event: (at) => ({ type: "WRITE_FINISHED", data, at }) };
  return { sessionId, status, event: (at) => ({ type: "WRITE_REFUSED", at }) };
}
