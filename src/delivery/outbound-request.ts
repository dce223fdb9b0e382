/** A request to a configured service (SMS gateway, face service) failed; `reason` is safe to log. */
export class OutboundRequestError extends Error {
  static readonly code: string = "ERR_OUTBOUND_REQUEST";
  readonly code: string = "ERR_OUTBOUND_REQUEST";
  readonly reason: string;
  override readonly name = "OutboundRequestError";

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

export interface OutboundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Largest answer read; a longer one is a failure. */
  maxAnswerBytes?: number;
}

/**
 * One request to a configured service, answered with its 2xx status and text. Redirects are not
 * followed (a redirect would carry the message or image to an address nobody configured), the whole
 * exchange has a deadline, and every failure becomes an OutboundRequestError whose reason names a
 * status or an error code — never the URL's secrets, the body, or the answer.
 */
export async function sendOutbound(url: string, request: OutboundRequest): Promise<{ status: number; text: string; headers: Headers }> {
  let res: Response;
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    res = await fetch(url, { method: request.method, headers: request.headers, body: request.body, redirect: "manual", signal });
  } catch (err) {
    throw new OutboundRequestError(failureReason(err));
  }
  try {
    if (res.status < 200 || res.status > 299) throw new OutboundRequestError(`answered HTTP ${res.status}`);
    const text = await readLimited(res, request.maxAnswerBytes ?? 65_536);
    return { status: res.status, text, headers: res.headers };
  } catch (err) {
    if (err instanceof OutboundRequestError) throw err;
    throw new OutboundRequestError(failureReason(err));
  } finally {
    // Release the connection whatever happened to the body.
    await res.body?.cancel().catch(() => undefined);
  }
}

async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new OutboundRequestError(`answer larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A loggable reason: the timeout, or the network error's code (ECONNREFUSED, ...), never its message. */
function failureReason(err: unknown): string {
  const name = (err as { name?: unknown })?.name;
  if (name === "TimeoutError" || name === "AbortError") return "timed out";
  const cause = (err as { cause?: { code?: unknown } })?.cause;
  if (typeof cause?.code === "string" && /^[A-Z0-9_]{2,40}$/.test(cause.code)) return `network error ${cause.code}`;
  return "network error";
}
