import { createTypedCodeMachine } from "../../typed-code.machine.ts";

/** Trusted-app dynamic code: the identified user types the 6-digit code their enrolled phone shows. */
export const appotpMachine = createTypedCodeMachine({ id: "appotp", view: "code", wrongKey: "method.appotp.wrong" });
