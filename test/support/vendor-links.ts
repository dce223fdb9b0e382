/**
 * The demo's MyVendor client in browser tests: demo-vendor as a relying party serves it, its signing
 * key (config/demo-vendor-signing-key) and the signed links its system would hand a vendor.
 */
import { readFileSync } from "node:fs";
import { vendorSignature } from "../../src/login-policy/vendor-signature.ts";
import type { RpClient, RpClientOptions } from "./relying-party.ts";

export const DEMO_VENDOR_KEY = readFileSync(new URL("../../config/demo-vendor-signing-key", import.meta.url), "utf8").trim();

/** demo-vendor is clients.yaml's seventh client. */
export const DEMO_VENDOR_RP: RpClientOptions = { clientId: "demo-vendor", secret: "demo-vendor-secret", configIndex: 6 };

/** The /login parameters of `client`'s MyVendor link for `loginHint`, signed over its real redirect URI with `key`; `extra` adds or replaces. */
export function vendorLink(
  client: RpClient,
  loginHint: string,
  key = DEMO_VENDOR_KEY,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { login_type: "MyVendor", login_hint: loginHint, signature: vendorSignature(client.redirectUri, loginHint, key), ...extra };
}
