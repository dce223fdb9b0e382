import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { webauthnLibrary } from "./webauthn-library.ts";
import type { DecoyCredentials } from "./decoy-credentials.ts";
import { FidoChallenges } from "./fido-challenges.ts";
import type { FidoEnrollment, StoredCredential } from "./fido-enrollment-record.ts";
import type { FidoSettings, RelyingParty } from "./fido-settings.ts";
import { parseCredentialJson } from "./parse-credential-json.ts";
import type { Enrollment, PluginContext } from "../../../src/plugin-contract/index.ts";

/** What authentication needs besides the plugin context. */
export interface AuthenticationDeps {
  context: PluginContext<FidoSettings>;
  rp: RelyingParty;
  decoys: DecoyCredentials;
}

/**
 * Starts a login ceremony for the user: a fresh challenge with the user's credentials (or a decoy
 * list) and the configured user-verification policy, stored server-side; the handle.
 */
export async function startAuthentication({ context, rp, decoys }: AuthenticationDeps, sub: string): Promise<string> {
  const enrolled = (await context.enrollments.get(sub)) as Enrollment<FidoEnrollment> | undefined;
  const credentials = enrolled?.data.credentials ?? [];
  const options = await (await webauthnLibrary()).generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: credentials.length > 0 ? credentials.map(({ id, transports }) => ({ id, transports })) : decoys.for(sub),
    userVerification: rp.userVerification,
    timeout: rp.timeoutMs,
  });
  return new FidoChallenges(context).create({ ceremony: "authentication", sub, challenge: options.challenge, options }, rp.timeoutMs);
}

/**
 * Checks the browser's answer to the ceremony `handle` names: true when it is an assertion of one of
 * the user's credentials over that challenge (single use: taken whatever the outcome), from an
 * allowed origin, for our RP id, with user verification when required, and with a signature counter
 * that moved forward (a counter that did not, while either side counts, means a cloned authenticator).
 * The attempt is counted first; every refusal — including a locked account — is the same false.
 */
export async function verifyAuthentication(
  { context, rp }: AuthenticationDeps,
  sub: string,
  handle: string,
  credentialJson: string,
): Promise<boolean> {
  const allowed = await context.attempts.tryAttempt(sub);
  const pending = await new FidoChallenges(context).take(handle);
  if (!allowed || pending?.ceremony !== "authentication" || pending.sub !== sub) return false;
  return checkAssertion(context, rp, sub, pending.challenge, credentialJson);
}

/**
 * Checks an assertion over `challenge` by one of the user's credentials in this method's records
 * (and, when given, one `accept` allows: the trusted-app FIDO2 method's credential of a still-enrolled
 * device), with the counter rule above; on a pass the attempts are reset. The caller counts the
 * attempt and spends the challenge first.
 */
export async function checkAssertion(
  context: PluginContext<FidoSettings>,
  rp: RelyingParty,
  sub: string,
  challenge: string,
  credentialJson: string,
  accept: (stored: StoredCredential) => boolean | Promise<boolean> = () => true,
): Promise<boolean> {
  const response = parseCredentialJson<AuthenticationResponseJSON>(credentialJson);
  const enrolled = (await context.enrollments.get(sub)) as Enrollment<FidoEnrollment> | undefined;
  const stored = enrolled?.data.credentials.find((c) => c.id === response?.id);
  if (!response || !enrolled || !stored || !(await accept(stored))) return false;
  // A discoverable credential names its user: it must be this one.
  if (response.response.userHandle && response.response.userHandle !== enrolled.data.userHandle) return false;
  let newCounter: number;
  try {
    const verification = await (await webauthnLibrary()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: {
        id: stored.id,
        publicKey: Buffer.from(stored.publicKey, "base64url"),
        counter: stored.counter,
        transports: stored.transports,
      },
      requireUserVerification: rp.userVerification === "required",
    });
    if (!verification.verified) return false;
    newCounter = verification.authenticationInfo.newCounter;
  } catch {
    // The library throws for every failed check (origin, RP id, challenge, signature, counter): the user's answer was not good.
    return false;
  }
  const now = context.services.clock();
  // Under the record's lock, against its current state: a login verified at the same moment with a
  // counter no higher than the one just stored is refused, and no update is lost.
  let counterMoved = true;
  await context.enrollments.update(sub, (current) => {
    const data = current as FidoEnrollment | undefined;
    const credential = data?.credentials.find((c) => c.id === stored.id);
    // A counter that did not move (a cloned authenticator) leaves the record as it was.
    if (!data || !credential || (newCounter !== 0 && newCounter <= credential.counter)) {
      counterMoved = false;
      return data;
    }
    return {
      ...data,
      credentials: data.credentials.map((c) =>
        c === credential ? { ...c, counter: Math.max(c.counter, newCounter), lastUsedAt: now } : c,
      ),
    };
  });
  if (!counterMoved) return false;
  await context.attempts.succeeded(sub);
  return true;
}
