import express, { type Router } from "express";
import type { Logger } from "pino";
import type { Clock } from "../time/clock.ts";
import type { MessageSender, OutgoingMessage } from "./message-sender.ts";

/** `delivery: { kind: outbox }`: nothing is sent. Development and demos only. */
export interface OutboxSettings {
  kind: "outbox";
}

export const outboxSchema = {
  type: "object",
  additionalProperties: false,
  required: ["kind"],
  properties: {
    kind: { const: "outbox", description: "DEVELOPMENT ONLY: messages (with their codes) go to the log and to GET /methods/<id>/outbox." },
  },
} as const;

/** A message the outbox kept. */
export interface OutboxMessage extends OutgoingMessage {
  /** Epoch ms. */
  at: number;
}

/** The newest messages kept in memory; older ones drop off. */
const KEPT = 50;

/**
 * The development outbox: instead of sending, it writes each message — code included, which is its
 * whole point — to a log line and keeps the newest ones for `GET /methods/<id>/outbox`. It exists
 * only when a method's settings say `delivery: { kind: outbox }`; there is no fallback to it. The
 * provider warns when it starts serving while one is configured, and the list answers loopback
 * clients only.
 */
export class Outbox implements MessageSender {
  private readonly methodId: string;
  private readonly logger: Logger;
  private readonly clock: Clock;
  readonly kind = "outbox";
  private readonly kept: OutboxMessage[] = [];

  constructor(methodId: string, logger: Logger, clock: Clock) {
    this.methodId = methodId;
    this.logger = logger;
    this.clock = clock;
  }

  async send(message: OutgoingMessage): Promise<void> {
    this.kept.push({ ...message, at: this.clock() });
    if (this.kept.length > KEPT) this.kept.shift();
    this.logger.warn(
      { event: "outbox_message", method: this.methodId, to: message.to, subject: message.subject, text: message.text },
      "development outbox: message kept, not sent",
    );
  }

  /** The kept messages, oldest first (copies). */
  messages(): OutboxMessage[] {
    return this.kept.map((m) => ({ ...m }));
  }

  /**
   * `GET /outbox` (under the method's routes): the kept messages as JSON, for loopback clients. Built
   * once, when the provider starts serving — which is when it warns that the outbox is on (operator
   * commands that only load the configuration stay quiet).
   */
  router(): Router {
    this.logger.warn(
      { event: "outbox_enabled", method: this.methodId },
      "development outbox: codes of this method are logged and listed, not sent; never use it in production",
    );
    return express.Router().get("/outbox", (req, res) => {
      if (!isLoopback(req.socket.remoteAddress))
        return void res.status(404).json({ error: "not_found", error_description: "no such endpoint" });
      res.setHeader("Cache-Control", "no-store");
      res.json({ messages: this.messages() });
    });
  }
}

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === "::1" || /^(::ffff:)?127\./.test(address));
}
