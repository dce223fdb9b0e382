/**
 * The one-time-code methods (e-mail, SMS) with real delivery on loopback, for the Chromium suites: a
 * method's login.yaml edit that sends its codes to a test server (the SMTP server, the SMS gateway),
 * the codes read from what arrived, and the login page's code step passed with them, as a user would.
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { codeIn } from "./code-login.ts";
import { startSmsTestGateway } from "./sms-test-gateway.ts";
import { startSmtpTestServer } from "./smtp-test-server.ts";

export interface CodeDelivery {
  method: "email" | "sms";
  /** The key of `portcullis methods enroll USER METHOD KEY=VALUE` that names the address. */
  operatorOption: string;
  /** The label of the login page's code field. */
  codeLabel: string;
  /** The login.yaml edits that send this method's codes to the test's server. */
  edits: Record<string, unknown>;
  /** The code in the last message to `address`. */
  lastCodeTo(address: string): string;
  /** How many messages `address` has received. */
  countTo(address: string): number;
  close(): Promise<void>;
}

/** E-mail codes over SMTP to a real SMTP server on loopback. */
export async function startEmailDelivery(): Promise<CodeDelivery> {
  const smtp = await startSmtpTestServer();
  return {
    method: "email",
    operatorOption: "address",
    codeLabel: "Code from the e-mail",
    edits: {
      "methods.email": {
        delivery: { kind: "smtp", host: smtp.host, port: smtp.port, starttls: "never", from: "no-reply@portcullis.example" },
      },
    },
    lastCodeTo: (address) => codeIn(smtp.mailsTo(address).at(-1)!.text),
    countTo: (address) => smtp.mailsTo(address).length,
    close: () => smtp.close(),
  };
}

/** SMS codes over HTTP to an SMS gateway on loopback. */
export async function startSmsDelivery(): Promise<CodeDelivery> {
  const gateway = await startSmsTestGateway();
  return {
    method: "sms",
    operatorOption: "phone",
    codeLabel: "Code from the text message",
    edits: { "methods.sms": { delivery: { kind: "http", url: `${gateway.url}/v1/messages` } } },
    lastCodeTo: (address) => codeIn(gateway.messagesTo(address).at(-1)!.text),
    countTo: (address) => gateway.messagesTo(address).length,
    close: () => gateway.close(),
  };
}

/** From the method's send page: sends a code, reads it where `address` receives it, and signs in with it. */
export async function passWithCode(page: Page, delivery: CodeDelivery, address: string): Promise<void> {
  const before = delivery.countTo(address);
  await page.getByRole("button", { name: "Send code" }).click();
  // The code field comes with the answer to the send, which the provider gives once the message is out.
  await page.getByLabel(delivery.codeLabel).waitFor();
  expect(delivery.countTo(address)).toBe(before + 1);
  await page.getByLabel(delivery.codeLabel).fill(delivery.lastCodeTo(address));
  await page.getByRole("button", { name: "Sign in" }).click();
}
