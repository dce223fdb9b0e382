import { parseDuration } from "../time/duration.ts";
import { compileBodyTemplate, compileUrlTemplate } from "./gateway-template.ts";
import { DeliveryError, type MessageSender, type OutgoingMessage } from "./message-sender.ts";
import { checkOutboundUrl } from "./outbound-url.ts";
import { OutboundRequestError, sendOutbound } from "./outbound-request.ts";

/** `delivery: { kind: http, ... }`: an SMS gateway reached over HTTP(S). */
export interface HttpGatewaySettings {
  kind: "http";
  /** May contain `{to}` and `{text}` (percent-encoded), e.g. for a GET gateway. */
  url: string;
  method?: "POST" | "PUT" | "GET";
  /** Request headers, e.g. `Authorization: Bearer ${env:SMS_TOKEN}`. */
  headers?: Record<string, string>;
  /** How the body template is encoded (default json). */
  format?: "json" | "form";
  /** Body with `{to}` and `{text}` placeholders (default `{"to":"{to}","text":"{text}"}` or `to={to}&text={text}`). */
  body?: string;
  timeout?: string;
}

const DEFAULT_BODIES = { json: '{"to":"{to}","text":"{text}"}', form: "to={to}&text={text}" } as const;
const CONTENT_TYPES = { json: "application/json", form: "application/x-www-form-urlencoded" } as const;

/** The JSON Schema of the settings (no defaults: ajv ignores them inside oneOf). */
export const httpGatewaySchema = {
  type: "object",
  additionalProperties: false,
  required: ["kind", "url"],
  properties: {
    kind: { const: "http" },
    url: { type: "string", minLength: 1, description: "Gateway URL (https, or http on loopback); may contain {to} and {text}." },
    method: { enum: ["POST", "PUT", "GET"], description: "Default POST." },
    headers: {
      type: "object",
      additionalProperties: { type: "string" },
      description: "Request headers; credentials as ${env:NAME} references.",
    },
    format: { enum: ["json", "form"], description: "Body encoding (default json)." },
    body: { type: "string", description: "Body template with {to} and {text}." },
    timeout: { type: "string", pattern: "^[1-9][0-9]*s$", description: "Deadline of one request (default 10s)." },
  },
} as const;

/**
 * Sends SMS through an HTTP gateway: the request is built from the configured templates (values
 * encoded for their place), any 2xx answer is success, anything else a DeliveryError with the status.
 */
export function createHttpSmsSender(settings: HttpGatewaySettings, keyPath: string): MessageSender {
  const method = settings.method ?? "POST";
  const format = settings.format ?? "json";
  // Checked with sample values: the template's fixed parts decide where the request goes.
  checkOutboundUrl(compileUrlTemplate(settings.url)({ to: "+10000000000", text: "x" }), `${keyPath}.url`);
  const url = compileUrlTemplate(settings.url);
  const body = method === "GET" ? undefined : compileBodyTemplate(format, settings.body ?? DEFAULT_BODIES[format], `${keyPath}.body`);
  const headers = { ...(body && { "content-type": CONTENT_TYPES[format] }), ...settings.headers };
  const timeoutMs = parseDuration(settings.timeout ?? "10s") * 1000;
  return {
    kind: "http",
    async send(message: OutgoingMessage) {
      const values = { to: message.to, text: message.text };
      try {
        await sendOutbound(url(values), { method, headers, body: body?.(values), timeoutMs, maxAnswerBytes: 16_384 });
      } catch (err) {
        if (err instanceof OutboundRequestError) throw new DeliveryError("http", err.reason);
        throw err;
      }
    },
  };
}
