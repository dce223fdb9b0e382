import { createHmac, hkdfSync } from "node:crypto";
import type { ProviderFile } from "../config/types.generated.ts";
import { encryptionKeyMaterial } from "../crypto/encryption-key.ts";

/**
 * Hashes one-time codes for the store. A six-digit code has only a million values, so a plain hash
 * in a leaked store would be reversed at once; an HMAC under a key derived (HKDF) from the provider's
 * encryption key — which never enters the store — is not. The record key is hashed along, so a hash
 * copied to another user's or interaction's record does not match there.
 */
export class CodeHasher {
  private readonly key: Buffer;

  constructor(keyMaterial: string) {
    this.key = Buffer.from(hkdfSync("sha256", keyMaterial, "portcullis", "one-time-codes v1", 32));
  }

  /** The provider's hasher: the same key material as its SecretBox (configured, or the embedded store's generated key). */
  static forProvider(provider: { readonly settings: ProviderFile }): CodeHasher {
    const { settings } = provider;
    return new CodeHasher(encryptionKeyMaterial(settings.secrets?.encryption_key, settings.data_dir));
  }

  hash(recordKey: string, code: string): string {
    return createHmac("sha256", this.key).update(`${recordKey}\n${code}`).digest("base64url");
  }
}
