import type { AuthenticatorTransport, CredentialDeviceType } from "@simplewebauthn/server";

/** One registered authenticator of a user. */
export interface StoredCredential {
  /** The credential id, base64url (as the browser reports it). */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; 0 for authenticators that do not count. */
  counter: number;
  /** How the browser can reach it (usb, nfc, ble, internal, hybrid...), as it reported at registration. */
  transports: AuthenticatorTransport[];
  deviceType: CredentialDeviceType;
  backedUp: boolean;
  /** The authenticator model (all zeros under `none` attestation for most). */
  aaguid: string;
  /** Epoch ms. */
  createdAt: number;
  lastUsedAt?: number;
}

/**
 * What the FIDO2 method keeps per user (the enrollment record's data): the WebAuthn user handle it
 * gave the user's authenticators, and every credential registered (a user may have several keys).
 */
export interface FidoEnrollment {
  /** base64url of the random WebAuthn user.id (never the sub, which would leak into authenticators). */
  userHandle: string;
  credentials: StoredCredential[];
}

/** How many authenticators one user may register (bounds the record and the options lists). */
export const MAX_CREDENTIALS = 10;
