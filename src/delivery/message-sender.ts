/** A message to one recipient: an e-mail address or a phone number in E.164 form. */
export interface OutgoingMessage {
  to: string;
  /** E-mail only. */
  subject?: string;
  text: string;
}

/**
 * Delivers messages (one-time codes) through one channel. `send` resolves once the channel accepted
 * the message and rejects with a DeliveryError otherwise. Adapters never log the text or the address.
 */
export interface MessageSender {
  /** The adapter kind, for logs ("smtp", "http", "outbox"). */
  readonly kind: string;
  send(message: OutgoingMessage): Promise<void>;
}

/**
 * The channel refused or failed. `reason` is safe to log — a status, an error code — and never
 * contains the message, the recipient, or a credential; pages only ever say "could not send".
 */
export class DeliveryError extends Error {
  static readonly code: string = "ERR_DELIVERY";
  readonly code: string = "ERR_DELIVERY";
  readonly adapter: string;
  readonly reason: string;
  override readonly name = "DeliveryError";

  constructor(adapter: string, reason: string) {
    super(`${adapter} delivery failed: ${reason}`);
    this.adapter = adapter;
    this.reason = reason;
  }
}
