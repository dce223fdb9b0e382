import { createTypedCodeMachine } from "../../typed-code.machine.ts";

/**
 * TOTP login: the identified user types the current code of their authenticator app; the checkCode
 * actor checks it within ±1 time step and claims its step, so a code works once.
 */
export const totpMachine = createTypedCodeMachine({ id: "totp", view: "totp", wrongKey: "method.totp.wrong" });
