import type { Transporter } from "nodemailer";
import { parseDuration } from "../time/duration.ts";
import { DeliveryError, type MessageSender, type OutgoingMessage } from "./message-sender.ts";

/** `delivery: { kind: smtp, ... }`: e-mail through an SMTP server (the organisation's relay). */
export interface SmtpSettings {
  kind: "smtp";
  host: string;
  /** Default 465 with `secure`, else 587. */
  port?: number;
  /** TLS from the first byte (SMTPS, usually port 465). */
  secure?: boolean;
  /** Without `secure`: STARTTLS `required` (default), `opportunistic`, or `never` (loopback test servers only). */
  starttls?: "required" | "opportunistic" | "never";
  auth?: { user: string; pass: string };
  /** The From address, e.g. `"Acme sign-in" <no-reply@acme.example>`. */
  from: string;
  timeout?: string;
}

/** The JSON Schema of the settings (no defaults: ajv ignores them inside oneOf). */
export const smtpSchema = {
  type: "object",
  additionalProperties: false,
  required: ["kind", "host", "from"],
  properties: {
    kind: { const: "smtp" },
    host: { type: "string", minLength: 1 },
    port: { type: "integer", minimum: 1, maximum: 65535, description: "Default 465 with secure, else 587." },
    secure: { type: "boolean", description: "Implicit TLS (SMTPS). Default false." },
    starttls: { enum: ["required", "opportunistic", "never"], description: "Without secure: STARTTLS policy (default required)." },
    auth: {
      type: "object",
      additionalProperties: false,
      required: ["user", "pass"],
      properties: { user: { type: "string" }, pass: { type: "string", description: "As a ${env:NAME} or ${file:PATH} reference." } },
    },
    from: { type: "string", minLength: 3 },
    timeout: { type: "string", pattern: "^[1-9][0-9]*s$", description: "Deadline of connecting and of each SMTP step (default 10s)." },
  },
} as const;

/**
 * Sends e-mail over SMTP with nodemailer: one transport, built at the first message. nodemailer is
 * loaded only then: a tenth of a second of every start (and of every CLI command that loads the
 * plugins) otherwise, for a provider that may never send e-mail. Failures become a DeliveryError
 * carrying nodemailer's error code and the SMTP reply code — not the server's reply text, which may
 * quote the recipient.
 */
export function createSmtpSender(settings: SmtpSettings): MessageSender {
  let transport: Promise<Transporter> | undefined;
  return {
    kind: "smtp",
    async send(message: OutgoingMessage) {
      try {
        // A transport that could not be built is not kept: the next message tries again.
        transport ??= createTransport(settings).catch((err: unknown) => {
          transport = undefined;
          throw err;
        });
        await (await transport).sendMail({ from: settings.from, to: message.to, subject: message.subject ?? "", text: message.text });
      } catch (err) {
        const { code, responseCode } = (err ?? {}) as { code?: unknown; responseCode?: unknown };
        const parts = [typeof code === "string" ? code : "error", typeof responseCode === "number" ? `SMTP ${responseCode}` : undefined];
        throw new DeliveryError("smtp", parts.filter(Boolean).join(" "));
      }
    },
  };
}

async function createTransport(settings: SmtpSettings): Promise<Transporter> {
  const { default: nodemailer } = await import("nodemailer");
  const secure = settings.secure ?? false;
  const starttls = settings.starttls ?? "required";
  const timeoutMs = parseDuration(settings.timeout ?? "10s") * 1000;
  return nodemailer.createTransport({
    host: settings.host,
    port: settings.port ?? (secure ? 465 : 587),
    secure,
    requireTLS: !secure && starttls === "required",
    ignoreTLS: !secure && starttls === "never",
    auth: settings.auth,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // The message is plain text we build: nothing in it may make nodemailer read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}
