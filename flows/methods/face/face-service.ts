import { randomBytes } from "node:crypto";
import { OutboundRequestError, checkOutboundUrl, parseDuration, sendOutbound } from "../../../src/plugin-contract/index.ts";

/** What the provider asks a face service: does this frame show this user? */
export interface FaceCheck {
  sub: string;
  /** The JPEG frame. */
  image: Buffer;
  /** The face enrollment record's reference key, when the user has one. */
  reference?: string;
}

/** The service's answer: its verdict (a string of its own; `match` passes) and its key for this check. */
export interface FaceAnswer {
  result: string;
  key: string;
}

/** The face service could not answer (down, slow, refused, malformed answer); `reason` is safe to log. */
export class FaceServiceError extends Error {
  static readonly code: string = "ERR_FACE_SERVICE";
  readonly code: string = "ERR_FACE_SERVICE";
  readonly reason: string;
  override readonly name = "FaceServiceError";

  constructor(reason: string) {
    super(`face service failed: ${reason}`);
    this.reason = reason;
  }
}

/** A face verification adapter. The provider itself recognises nothing. */
export interface FaceService {
  readonly kind: string;
  verify(check: FaceCheck): Promise<FaceAnswer>;
}

/** `service: { kind: http, ... }`. */
export interface HttpFaceServiceSettings {
  kind: "http";
  url: string;
  headers?: Record<string, string>;
  timeout?: string;
}

/** `service: { kind: development }`: accepts every well-formed frame. Never in production. */
export interface DevelopmentFaceServiceSettings {
  kind: "development";
}

export const httpFaceServiceSchema = {
  type: "object",
  additionalProperties: false,
  required: ["kind", "url"],
  properties: {
    kind: { const: "http" },
    url: { type: "string", minLength: 1, description: "The face service's verification URL (https, or http on loopback)." },
    headers: {
      type: "object",
      additionalProperties: { type: "string" },
      description: "Request headers; credentials as ${env:NAME} references.",
    },
    timeout: { type: "string", pattern: "^[1-9][0-9]*s$", description: "Deadline of one verification (default 10s)." },
  },
} as const;

export const developmentFaceServiceSchema = {
  type: "object",
  additionalProperties: false,
  required: ["kind"],
  properties: { kind: { const: "development", description: "DEVELOPMENT ONLY: every camera frame passes as the user." } },
} as const;

const TOKEN = /^[\x21-\x7e]{1,200}$/;

/**
 * The HTTP face service: POST JSON `{ sub, image (base64 JPEG), reference? }`, answered by 2xx JSON
 * `{ result, key }` (printable strings). Anything else is a FaceServiceError.
 */
export function createHttpFaceService(settings: HttpFaceServiceSettings, keyPath: string): FaceService {
  const url = checkOutboundUrl(settings.url, `${keyPath}.url`).href;
  const headers = { "content-type": "application/json", accept: "application/json", ...settings.headers };
  const timeoutMs = parseDuration(settings.timeout ?? "10s") * 1000;
  return {
    kind: "http",
    async verify(check) {
      const body = JSON.stringify({
        sub: check.sub,
        image: check.image.toString("base64"),
        ...(check.reference !== undefined && { reference: check.reference }),
      });
      let text: string;
      try {
        ({ text } = await sendOutbound(url, { method: "POST", headers, body, timeoutMs, maxAnswerBytes: 16_384 }));
      } catch (err) {
        if (err instanceof OutboundRequestError) throw new FaceServiceError(err.reason);
        throw err;
      }
      let answer: { result?: unknown; key?: unknown };
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        throw new FaceServiceError("answer is not JSON");
      }
      if (typeof answer?.result !== "string" || typeof answer.key !== "string" || !TOKEN.test(answer.result) || !TOKEN.test(answer.key)) {
        throw new FaceServiceError("answer lacks a result or key string");
      }
      return { result: answer.result, key: answer.key };
    },
  };
}

/** The development adapter: every frame matches, under a random key. The plugin warns when the provider starts serving. */
export function createDevelopmentFaceService(): FaceService {
  return {
    kind: "development",
    async verify() {
      return { result: "match", key: `development-${randomBytes(8).toString("hex")}` };
    },
  };
}
