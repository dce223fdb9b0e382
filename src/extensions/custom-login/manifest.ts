import { phoneProgressMachine } from "../../../flows/custom-login/phone-progress.machine.ts";
import { pcProgressMachine } from "../../../flows/custom-login/pc-progress.machine.ts";
import { CUSTOM_LOGIN_RULES } from "./config-rules.ts";
import type { ExtensionManifest } from "../../plugin-contract/declaration.ts";

/** The custom QR-code login (SPEC "Custom QR-code login"): src/extensions/custom-login/. */
export const CUSTOM_LOGIN_MANIFEST = {
  id: "custom-login",
  routePrefix: "/Acme/CustomLogin",
  recordKinds: {
    /** Scan sessions: one per LoginJs load, short-lived (the QR's, then the operation's lifetime). */
    customLoginScans: { durable: false },
  },
  config: {
    in: "own file",
    file: {
      name: "custom_login",
      file: "custom-login.yaml",
      schema: "custom-login.schema.json",
      optional: true,
      rules: CUSTOM_LOGIN_RULES,
    },
  },
  machines: { phone: phoneProgressMachine, pc: pcProgressMachine },
  /** The PC login's ID token carries the scan's times (SPEC "custom_scan"). */
  idTokenClaims: ["custom_scan"],
} as const satisfies ExtensionManifest;
