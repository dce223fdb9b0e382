import { createHmac, hkdfSync } from "node:crypto";
import type { AuthenticatorTransport } from "@simplewebauthn/server";
import { encryptionKeyMaterial, type PluginServices } from "../../../src/plugin-contract/index.ts";

// Transports browsers commonly report for security keys and passkeys.
const TRANSPORTS: AuthenticatorTransport[][] = [["usb"], ["internal"], ["hybrid", "internal"], ["nfc", "usb"]];

/**
 * The credential list shown for a user who has no FIDO2 credential — an unknown name's decoy sub, or
 * a real user who never registered one: one credential id and a common transport list, both stable
 * per sub and unguessable (HMAC under a key derived from the provider's encryption key), so the
 * options a login page fetches do not say whether the name exists or has a key. No authenticator
 * holds that credential, so nothing can answer it.
 */
export class DecoyCredentials {
  private readonly key: Buffer;

  constructor(services: PluginServices) {
    const { secrets, data_dir } = services.settings;
    this.key = Buffer.from(
      hkdfSync("sha256", encryptionKeyMaterial(secrets.encryption_key, data_dir), "portcullis", "fido decoy credential ids", 32),
    );
  }

  for(sub: string): { id: string; transports: AuthenticatorTransport[] }[] {
    const mac = createHmac("sha256", this.key).update(sub).digest();
    return [{ id: mac.toString("base64url"), transports: TRANSPORTS[mac[0]! % TRANSPORTS.length]! }];
  }
}
