import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/server";
import { FidoChallenges } from "../fido/fido-challenges.ts";
import { startRegistration, verifyRegistration, type RegistrationDeps } from "../fido/registration.ts";
import type { BfidoCredential } from "./bfido-credential.ts";
import type { Device } from "../../../src/plugin-contract/index.ts";

/**
 * Registering the trusted app's FIDO2 credential: the app asks with a device-signed request, gets the
 * WebAuthn creation options of a ceremony for the device's user (the fido method's, in this method's
 * records), creates a P-256 credential and answers, again device-signed. The credential is stored
 * with the device that holds it and transport `hybrid` (it is reached over the QR code, never USB).
 */
export async function startAppRegistration(
  deps: RegistrationDeps,
  sub: string,
): Promise<{ handle: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const handle = await startRegistration(deps, sub);
  const ceremony = await new FidoChallenges(deps.context).find(handle);
  if (ceremony?.ceremony !== "registration") throw new Error("the registration ceremony just stored is gone");
  return { handle, options: ceremony.options };
}

/** True when the app's credential verified and was added for `sub`, held by `device`. */
export function finishAppRegistration(
  deps: RegistrationDeps,
  sub: string,
  device: Device,
  handle: string,
  credentialJson: string,
): Promise<boolean> {
  const recorded: Partial<BfidoCredential> = { transports: ["hybrid"], deviceId: device.id, deviceName: device.name };
  return verifyRegistration(deps, sub, handle, credentialJson, recorded);
}
