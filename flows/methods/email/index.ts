import { createCodeMethodPlugin } from "../../code-method/code-method-plugin.ts";
import { maskEmailAddress, normaliseEmailAddress } from "./email-address.ts";
import {
  codeMethodSchema,
  createSmtpSender,
  outboxSchema,
  smtpSchema,
  type CodeMethodSettings,
  type OutboxSettings,
  type SmtpSettings,
} from "../../../src/plugin-contract/index.ts";

type EmailSettings = CodeMethodSettings<SmtpSettings | OutboxSettings> & {
  /** Send to the directory's `email` claim when the user has not confirmed an address (default true). */
  use_directory_email: boolean;
};

/**
 * E-mail code (class untrusted): a six-digit code by e-mail, over SMTP, to the address the user
 * confirmed (enrollment "e-mail confirmation", or an operator) — else, when the settings allow it,
 * to the directory's `email` claim. See README.md.
 */
const emailPlugin = createCodeMethodPlugin<EmailSettings>({
  id: "email",
  amr: "email",
  configSchema: codeMethodSchema([smtpSchema, outboxSchema], {
    use_directory_email: {
      type: "boolean",
      default: true,
      description: "Send to the directory's email claim when the user has not confirmed an address.",
    },
  }),
  i18n: new URL("./i18n/", import.meta.url),
  field: { inputType: "email", autocomplete: "email" },
  normaliseTarget: normaliseEmailAddress,
  maskTarget: (address) => ({ text: maskEmailAddress(address) }),
  operatorOption: "address",
  createSender: ({ settings }) => createSmtpSender(settings.delivery as SmtpSettings),
  async fallbackTarget({ services, settings }, sub) {
    if (!settings.use_directory_email) return undefined;
    const email = (await services.users.findBySub(sub))?.claims.email;
    return typeof email === "string" ? normaliseEmailAddress(email) : undefined;
  },
  message: (_ctx, composed) => ({ subject: composed.subject, text: composed.text }),
});

export default emailPlugin;
