import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals secrets the provider keeps in its store (AES-256-GCM). The key is derived with HKDF from the
 * configured `secrets.encryption_key`, and every sealed value is bound to a context string (its
 * purpose and id) as additional authenticated data, so a ciphertext copied to another record or
 * purpose does not open. Format: `v1.<iv>.<ciphertext>.<tag>`, base64url parts.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyMaterial: string) {
    if (keyMaterial.length < 32) throw new Error("the encryption key must be at least 32 characters");
    this.key = Buffer.from(hkdfSync("sha256", keyMaterial, "portcullis", "secret-box v1", 32));
  }

  /**
   * A key of its own for `purpose` (HKDF from the same material), for a MAC every node can compute and
   * check without shared state (DPoP nonces). A derived key reveals nothing of the sealing key.
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.key, "portcullis", `derived v1 ${purpose}`, 32));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, iv, body, cipher.getAuthTag()].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  /** The plaintext; throws when the value was not sealed by this key for this context, or was altered. */
  open(sealed: string, context: string): string {
    const [version, iv, body, tag, ...rest] = sealed.split(".");
    if (version !== VERSION || iv === undefined || body === undefined || tag === undefined || rest.length > 0)
      throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }
}
