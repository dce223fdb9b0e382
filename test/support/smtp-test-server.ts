/**
 * A real SMTP server on loopback (the smtp-server package) that keeps every message it receives, for
 * tests of the e-mail code method: the code is read from the delivered mail, as a user would.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  /** The decoded plain-text body. */
  text: string;
  raw: string;
}

export interface SmtpTestServer {
  host: string;
  port: number;
  mails: ReceivedMail[];
  /** Mails delivered to `to`. */
  mailsTo(to: string): ReceivedMail[];
  /** Refuse every recipient with a 550 (a failing relay). */
  refuseRecipients: boolean;
  close(): Promise<void>;
}

export interface SmtpTestServerOptions {
  /** Require AUTH PLAIN/LOGIN with these credentials (over plain text: loopback only). */
  auth?: { user: string; pass: string };
}

/** Starts the server on 127.0.0.1 and a free port; STARTTLS is off (the sender must say `starttls: never`). */
export async function startSmtpTestServer(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
  const mails: ReceivedMail[] = [];
  const state = { refuseRecipients: false };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: options.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass)
        return callback(null, { user: auth.username });
      callback(new Error("invalid credentials"));
    },
    onRcptTo(_address, _session, callback) {
      if (state.refuseRecipients) {
        const error = Object.assign(new Error("mailbox unavailable for alice@example.com"), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: decodeHeader(header(raw, "subject") ?? ""),
          text: decodeBody(raw),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    mails,
    mailsTo: (to) => mails.filter((m) => m.to.includes(to)),
    get refuseRecipients() {
      return state.refuseRecipients;
    },
    set refuseRecipients(value: boolean) {
      state.refuseRecipients = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The unfolded value of a header of the message's top part. */
function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
  return new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1];
}

/** RFC 2047 encoded words (=?UTF-8?B?...?= / =?UTF-8?Q?...?=) as text. */
function decodeHeader(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toLowerCase() === "b" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replaceAll("_", " ")),
  );
}

/** The body of a single-part text message, decoded from its Content-Transfer-Encoding. */
function decodeBody(raw: string): string {
  const at = raw.search(/\r?\n\r?\n/);
  const body = raw.slice(at).replace(/^\r?\n\r?\n/, "");
  const encoding = (header(raw, "content-transfer-encoding") ?? "7bit").trim().toLowerCase();
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  return body;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => `%${hex}`);
  try {
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, "%25"));
  } catch {
    return bytes;
  }
}
