import type { FidoEnrollment, StoredCredential } from "../fido/fido-enrollment-record.ts";

/**
 * A FIDO2 credential of the trusted app (the bfido method's enrollment record holds the user's, in the
 * fido method's record shape): held by one enrolled device, reached over the QR (transport hybrid).
 */
export interface BfidoCredential extends StoredCredential {
  /** The trusted-app device that registered it and holds its private key. */
  deviceId: string;
  /** The device's name then (the account page lists the credentials by it). */
  deviceName: string;
}

export interface BfidoEnrollment extends FidoEnrollment {
  credentials: BfidoCredential[];
}
