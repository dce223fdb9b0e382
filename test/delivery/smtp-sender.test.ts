import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryError } from "../../src/delivery/message-sender.ts";
import { createSmtpSender } from "../../src/delivery/smtp-sender.ts";
import { startSmtpTestServer, type SmtpTestServer } from "../support/smtp-test-server.ts";

let open: SmtpTestServer;
let authenticated: SmtpTestServer;
beforeAll(async () => {
  [open, authenticated] = await Promise.all([
    startSmtpTestServer(),
    startSmtpTestServer({ auth: { user: "portcullis", pass: "smtp-pass" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([open.close(), authenticated.close()]);
});

const message = {
  to: "alice@example.com",
  subject: "Your verification code",
  text: "Your verification code is 123456.\n\nNever share it.",
};

describe("the SMTP adapter (nodemailer)", () => {
  it("delivers the message to the SMTP server", async () => {
    const sender = createSmtpSender({
      kind: "smtp",
      host: open.host,
      port: open.port,
      starttls: "never",
      from: '"Acme sign-in" <no-reply@acme.example>',
    });
    await sender.send(message);
    const [mail] = open.mailsTo("alice@example.com");
    expect(mail).toMatchObject({ from: "no-reply@acme.example", to: ["alice@example.com"], subject: "Your verification code" });
    expect(mail!.text).toContain("Your verification code is 123456.");
  });

  it("delivers non-Latin text intact", async () => {
    const sender = createSmtpSender({ kind: "smtp", host: open.host, port: open.port, starttls: "never", from: "no-reply@acme.example" });
    await sender.send({ to: "bob@example.com", subject: "您的验证码", text: "您的验证码是 654321，5 分钟内有效。" });
    const [mail] = open.mailsTo("bob@example.com");
    expect(mail!.subject).toBe("您的验证码");
    expect(mail!.text).toContain("您的验证码是 654321，5 分钟内有效。");
  });

  it("authenticates with the configured credentials", async () => {
    const sender = createSmtpSender({
      kind: "smtp",
      host: authenticated.host,
      port: authenticated.port,
      starttls: "never",
      auth: { user: "portcullis", pass: "smtp-pass" },
      from: "no-reply@acme.example",
    });
    await sender.send(message);
    expect(authenticated.mailsTo("alice@example.com")).toHaveLength(1);
  });

  it("fails with an error code, not the server's text, on wrong credentials", async () => {
    const sender = createSmtpSender({
      kind: "smtp",
      host: authenticated.host,
      port: authenticated.port,
      starttls: "never",
      auth: { user: "portcullis", pass: "wrong" },
      from: "no-reply@acme.example",
    });
    const error = (await sender.send(message).catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.reason).toMatch(/^EAUTH SMTP 535$/);
  });

  it("requires STARTTLS by default, and refuses to send in clear to a server without it", async () => {
    const sender = createSmtpSender({ kind: "smtp", host: open.host, port: open.port, from: "no-reply@acme.example" });
    const before = open.mails.length;
    const error = (await sender.send(message).catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.reason).toMatch(/^ETLS/);
    expect(open.mails.length).toBe(before);
  });

  it("fails without quoting the refused recipient", async () => {
    open.refuseRecipients = true;
    try {
      const sender = createSmtpSender({ kind: "smtp", host: open.host, port: open.port, starttls: "never", from: "no-reply@acme.example" });
      const error = (await sender.send(message).catch((e: unknown) => e)) as DeliveryError;
      expect(error.reason).toBe("EENVELOPE SMTP 550");
      expect(error.message).not.toContain("alice@example.com");
    } finally {
      open.refuseRecipients = false;
    }
  });

  it("fails when nothing listens", async () => {
    const sender = createSmtpSender({
      kind: "smtp",
      host: "127.0.0.1",
      port: 1,
      starttls: "never",
      from: "no-reply@acme.example",
      timeout: "2s",
    });
    expect(((await sender.send(message).catch((e: unknown) => e)) as DeliveryError).reason).toBe("ESOCKET");
  });
});
