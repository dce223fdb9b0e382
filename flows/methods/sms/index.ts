import { createCodeMethodPlugin } from "../../code-method/code-method-plugin.ts";
import { lastDigitsOf, normalisePhoneNumber } from "./phone-number.ts";
import {
  codeMethodSchema,
  createHttpSmsSender,
  httpGatewaySchema,
  outboxSchema,
  type CodeMethodSettings,
  type HttpGatewaySettings,
  type OutboxSettings,
} from "../../../src/plugin-contract/index.ts";

type SmsSettings = CodeMethodSettings<HttpGatewaySettings | OutboxSettings>;

/**
 * SMS code (class untrusted): a six-digit code by text message to the phone number the user
 * confirmed (enrollment "phone confirmation", or an operator), through a configured HTTP gateway.
 * See README.md.
 */
const smsPlugin = createCodeMethodPlugin<SmsSettings>({
  id: "sms",
  amr: "sms",
  configSchema: codeMethodSchema([httpGatewaySchema, outboxSchema]),
  i18n: new URL("./i18n/", import.meta.url),
  field: { inputType: "tel", autocomplete: "tel" },
  normaliseTarget: normalisePhoneNumber,
  maskTarget: (number) => ({ textKey: "method.sms.account_number", params: { digits: lastDigitsOf(number) } }),
  operatorOption: "phone",
  createSender: ({ settings, methodId }) => createHttpSmsSender(settings.delivery as HttpGatewaySettings, `methods.${methodId}.delivery`),
  // The last line binds the code to this provider's origin (origin-bound one-time codes): phones
  // offer to fill it in only on this site, which blunts relaying it to a phishing page.
  message: ({ services }, composed, code) => ({ text: `${composed.text}\n\n@${new URL(services.issuer).host} #${code}` }),
});

export default smsPlugin;
