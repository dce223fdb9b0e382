import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type JsonWebKey } from "node:crypto";
import { attestedCredentialData, b64u, FLAG_AT, FLAG_UP, FLAG_UV, noneAttestation, rpIdHash, sha256, u32 } from "./webauthn-encoding.ts";

/** A FIDO2 credential the app holds (kept in the device file: the private key is a secret). */
export interface AppFidoCredential {
  /** base64url credential id. */
  id: string;
  rpId: string;
  /** base64url WebAuthn user.id the provider gave. */
  userHandle: string;
  /** The P-256 private key as a JWK (d included). */
  privateJwk: JsonWebKey;
  signCount: number;
}

/** The creation options the provider sends (WebAuthn JSON form), as far as the app needs them. */
export interface AppCreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

/**
 * The reference app's software FIDO2 authenticator (what a phone's platform authenticator does for
 * the bfido method): P-256 credentials with `none` attestation; each assertion bumps the signature
 * counter and sets user presence and user verification (the app unlocked with the phone's biometrics).
 * It answers with the JSON a browser's PublicKeyCredential serialises to. The origin in the client
 * data is the app's own provider's (it answers only codes of the issuer it enrolled with), so the
 * provider's WebAuthn checks (origin, RP id, challenge, signature, counter) apply unchanged.
 */
export class AppAuthenticator {
  private readonly credentials: AppFidoCredential[];
  private readonly origin: string;

  constructor(credentials: AppFidoCredential[], origin: string) {
    this.credentials = credentials;
    this.origin = origin;
  }

  /** navigator.credentials.create: a new credential for the options' RP and user (added to the list). */
  register(options: AppCreationOptions): { credential: AppFidoCredential; response: Record<string, unknown> } {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const credential: AppFidoCredential = {
      id: b64u(randomBytes(32)),
      rpId,
      userHandle: options.user.id,
      privateJwk: privateKey.export({ format: "jwk" }),
      signCount: 0,
    };
    const authData = Buffer.concat([
      rpIdHash(rpId),
      Buffer.of(FLAG_UP | FLAG_UV | FLAG_AT),
      u32(0),
      attestedCredentialData(credential.id, publicKey),
    ]);
    this.credentials.push(credential);
    const response = {
      clientDataJSON: b64u(this.clientData("webauthn.create", options.challenge)),
      attestationObject: b64u(noneAttestation(authData)),
      transports: ["hybrid"],
    };
    return {
      credential,
      response: {
        id: credential.id,
        rawId: credential.id,
        type: "public-key",
        clientExtensionResults: {},
        authenticatorAttachment: "cross-platform",
        response,
      },
    };
  }

  /** navigator.credentials.get: an assertion over `challenge` by the credential of `rpId`. */
  authenticate(rpId: string, challenge: string): Record<string, unknown> {
    const credential = this.credentials.find((c) => c.rpId === rpId);
    if (!credential) throw new Error(`no FIDO2 credential for ${rpId}: register one first (bfido-register)`);
    credential.signCount += 1;
    const clientDataJSON = this.clientData("webauthn.get", challenge);
    const authData = Buffer.concat([rpIdHash(rpId), Buffer.of(FLAG_UP | FLAG_UV), u32(credential.signCount)]);
    const signature = sign(
      "sha256",
      Buffer.concat([authData, sha256(clientDataJSON)]),
      createPrivateKey({ key: credential.privateJwk, format: "jwk" }),
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "cross-platform",
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: credential.userHandle,
      },
    };
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
