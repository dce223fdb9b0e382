/**
 * A WebAuthn authenticator in software, for tests that must forge what a browser would never send
 * (another origin, another RP id, an old challenge, a counter that went back). @simplewebauthn/server
 * ships none (DESIGN "Pitfalls"): this one is built on node:crypto and a few lines of CBOR. It makes
 * P-256 (ES256) credentials with `none` attestation, and answers with the JSON a browser's
 * PublicKeyCredential serialises to (binary fields base64url), which is what the FIDO2 pages post.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import {
  attestedCredentialData,
  b64u,
  FLAG_AT,
  FLAG_UP,
  FLAG_UV,
  noneAttestation,
  rpIdHash,
  u32,
} from "../../src/cli/reference-app/webauthn-encoding.ts";

export interface CreationOptionsJson {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

export interface RequestOptionsJson {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/** What a test may forge in one answer. */
export interface Forgery {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** The signature counter to report (default: the next one). */
  signCount?: number;
  /** The user-verified flag (default: the authenticator's). */
  userVerified?: boolean;
  /** Sign with this key instead of the credential's. */
  signingKey?: KeyObject;
  /** clientData type (default webauthn.create / webauthn.get). */
  type?: string;
}

export interface SoftwareCredential {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  signCount: number;
}

export class SoftwareAuthenticator {
  private readonly origin: string;
  private readonly settings: { userVerified?: boolean; transports?: string[] };
  readonly credentials: SoftwareCredential[] = [];

  constructor(origin: string, settings: { userVerified?: boolean; transports?: string[] } = {}) {
    this.origin = origin;
    this.settings = settings;
  }

  /** navigator.credentials.create: a new credential for the options' RP and user. */
  register(options: CreationOptionsJson, forge: Forgery = {}) {
    const rpId = forge.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const credential: SoftwareCredential = {
      id: randomBytes(32).toString("base64url"),
      privateKey,
      publicKey,
      rpId,
      userHandle: options.user.id,
      signCount: 0,
    };
    this.credentials.push(credential);
    const clientDataJSON = this.clientData(forge.type ?? "webauthn.create", forge.challenge ?? options.challenge, forge.origin);
    const authData = Buffer.concat([
      rpIdHash(rpId),
      Buffer.of(this.flags(forge) | FLAG_AT),
      u32(forge.signCount ?? 0),
      attestedCredentialData(credential.id, publicKey),
    ]);
    const attestationObject = noneAttestation(authData);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: this.settings.transports ?? ["usb"],
      },
    };
  }

  /** navigator.credentials.get: an assertion by the first of our credentials the options allow. */
  authenticate(options: RequestOptionsJson, forge: Forgery = {}, credential = this.allowed(options)) {
    const signCount = forge.signCount ?? ++credential.signCount;
    const clientDataJSON = this.clientData(forge.type ?? "webauthn.get", forge.challenge ?? options.challenge, forge.origin);
    const authData = Buffer.concat([rpIdHash(forge.rpId ?? credential.rpId), Buffer.of(this.flags(forge)), u32(signCount)]);
    const signed = Buffer.concat([authData, createHash("sha256").update(clientDataJSON).digest()]);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(sign("sha256", signed, forge.signingKey ?? credential.privateKey)),
        userHandle: credential.userHandle,
      },
    };
  }

  private allowed(options: RequestOptionsJson): SoftwareCredential {
    const ids = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const found = this.credentials.find((c) => ids.size === 0 || ids.has(c.id));
    if (!found) throw new Error("no credential of this authenticator is allowed");
    return found;
  }

  private flags(forge: Forgery): number {
    return FLAG_UP | ((forge.userVerified ?? this.settings.userVerified ?? true) ? FLAG_UV : 0);
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}
