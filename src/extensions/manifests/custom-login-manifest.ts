import type { ExtensionManifest } from "./extension-manifest.ts";

/** The custom QR-code login (SPEC "Custom QR-code login"): src/extensions/custom-login/. */
export const CUSTOM_LOGIN_MANIFEST = {
  id: "custom-login",
  routePrefix: "/Acme/CustomLogin",
  configFile: { name: "custom_login", file: "custom-login.yaml", schema: "custom-login.schema.json", optional: true },
  recordKinds: {
    /** Scan sessions: one per LoginJs load, short-lived (the QR's, then the operation's lifetime). */
    customLoginScans: { durable: false },
  },
  /** The PC login's ID token carries the scan's times (SPEC "custom_scan"). */
  idTokenClaims: ["custom_scan"],
} as const satisfies ExtensionManifest;
