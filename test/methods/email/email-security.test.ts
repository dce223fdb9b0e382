import { codeMethodSecuritySuite } from "../../support/code-method-suite.ts";
import { startSmtpTestServer } from "../../support/smtp-test-server.ts";

/**
 * The e-mail method against a real SMTP server on loopback (see the suite for what is attacked).
 * Without the directory fallback here, so bob — who has a directory address — has none to get codes at.
 */
codeMethodSecuritySuite({
  methodId: "email",
  aliceTarget: "alice.chen@example.org",
  extraSettings: { use_directory_email: false },
  async startChannel() {
    const smtp = await startSmtpTestServer();
    return {
      delivery: { kind: "smtp", host: smtp.host, port: smtp.port, starttls: "never", from: "no-reply@acme.example" },
      textsTo: (to) => smtp.mailsTo(to).map((m) => m.text),
      count: () => smtp.mails.length,
      setFailing(failing) {
        smtp.refuseRecipients = failing;
      },
      close: () => smtp.close(),
    };
  },
});
