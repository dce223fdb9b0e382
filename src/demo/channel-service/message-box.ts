import { randomBytes } from "node:crypto";

export interface ChannelMessage {
  id: string;
  /** The sender's account (the sub of the token that sent it). */
  from: string;
  to: string;
  text: string;
  /** A link the addressee follows to answer (an approval page). */
  approveUrl?: string;
  sentAt: Date;
}

/**
 * The demo channel's messages (SendMsg), in memory: the reference service stands in for a messaging
 * platform, and a restart forgets them. At most `max` are kept; the oldest go first.
 */
export class MessageBox {
  private readonly max: number;
  private readonly messages: ChannelMessage[] = [];

  constructor(max = 1000) {
    this.max = max;
  }

  send(message: Omit<ChannelMessage, "id" | "sentAt">): ChannelMessage {
    const stored = { ...message, id: randomBytes(16).toString("base64url"), sentAt: new Date() };
    this.messages.push(stored);
    if (this.messages.length > this.max) this.messages.shift();
    return stored;
  }

  /** The messages to an account, newest first. */
  to(account: string): ChannelMessage[] {
    return this.messages.filter((m) => m.to === account).reverse();
  }
}
