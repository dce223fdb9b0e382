import { randomBytes } from "node:crypto";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { webauthnLibrary } from "./webauthn-library.ts";
import { FidoChallenges } from "./fido-challenges.ts";
import { MAX_CREDENTIALS, type FidoEnrollment, type StoredCredential } from "./fido-enrollment-record.ts";
import type { FidoSettings, RelyingParty } from "./fido-settings.ts";
import { parseCredentialJson } from "./parse-credential-json.ts";
import type { Enrollment, PluginContext } from "../../../src/plugin-contract/index.ts";

/** What registration needs besides the plugin context. */
export interface RegistrationDeps {
  context: PluginContext<FidoSettings>;
  rp: RelyingParty;
}

/**
 * Starts registering an authenticator for the signed-in user: a fresh challenge, the user's WebAuthn
 * handle (kept from earlier registrations, else new), their existing credentials excluded, `none`
 * attestation; stored server-side. The handle of the ceremony.
 */
export async function startRegistration({ context, rp }: RegistrationDeps, sub: string): Promise<string> {
  const enrolled = (await context.enrollments.get(sub)) as Enrollment<FidoEnrollment> | undefined;
  const userHandle = enrolled?.data.userHandle ?? randomBytes(32).toString("base64url");
  const user = await context.services.users.findBySub(sub);
  const options = await (await webauthnLibrary()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user?.username ?? sub,
    userDisplayName: (user?.claims.name as string | undefined) ?? user?.username ?? sub,
    userID: Buffer.from(userHandle, "base64url"),
    attestationType: "none",
    excludeCredentials: (enrolled?.data.credentials ?? []).map(({ id, transports }) => ({ id, transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: rp.userVerification },
    timeout: rp.timeoutMs,
  });
  return new FidoChallenges(context).create(
    { ceremony: "registration", sub, challenge: options.challenge, userHandle, options },
    rp.timeoutMs,
  );
}

/**
 * Checks the browser's answer to the registration `handle` names (taken: single use) and adds the
 * new credential, with its transports, to the user's record. False when the answer does not verify
 * (origin, RP id, challenge, user verification when required), or the credential is already
 * registered, or the user has the most credentials allowed. `recorded` overrides what is stored with
 * the credential (the trusted-app FIDO2 method records the device holding it and its transport).
 */
export async function verifyRegistration(
  { context, rp }: RegistrationDeps,
  sub: string,
  handle: string,
  credentialJson: string,
  recorded: Partial<StoredCredential> & Record<string, unknown> = {},
): Promise<boolean> {
  const pending = await new FidoChallenges(context).take(handle);
  if (pending?.ceremony !== "registration" || pending.sub !== sub) return false;
  const response = parseCredentialJson<RegistrationResponseJSON>(credentialJson);
  if (!response) return false;
  let info;
  try {
    const verification = await (await webauthnLibrary()).verifyRegistrationResponse({
      response,
      expectedChallenge: pending.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: rp.userVerification === "required",
    });
    if (!verification.verified) return false;
    info = verification.registrationInfo;
  } catch {
    return false;
  }
  const credential = {
    id: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    aaguid: info.aaguid,
    createdAt: context.services.clock(),
    ...recorded,
  };
  // Under the record's lock: two registrations at once both land, and the limits hold.
  let added = false;
  await context.enrollments.update(sub, (current) => {
    const data = current as FidoEnrollment | undefined;
    const existing = data?.credentials ?? [];
    if (existing.length >= MAX_CREDENTIALS || existing.some((c) => c.id === credential.id)) return data;
    added = true;
    return { userHandle: data?.userHandle ?? pending.userHandle, credentials: [...existing, credential] };
  });
  return added;
}
