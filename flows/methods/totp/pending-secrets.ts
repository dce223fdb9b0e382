import { randomBytes } from "node:crypto";
import { generateSecret } from "otplib";
import { acceptCode } from "./accept-code.ts";
import { newKeyParameters, sealContext, sealKey, type TotpEnrollment, type TotpKey } from "./totp-enrollment-record.ts";
import type { TotpSettings } from "./totp-settings.ts";
import { parseDuration, storeKeyHash, type PluginContext } from "../../../src/plugin-contract/index.ts";

/**
 * Enrolling: a new secret is created and shown once, and recorded when the user proves their app has
 * it by typing one valid code.
 *
 * The enrollment machine's context is persisted with the interaction and rendered into the page, so
 * it holds the secret only sealed (as the enrollment record will), plus an opaque handle. The page's
 * script trades the handle for the secret, its otpauth:// URI and QR code exactly once
 * (`takeSecretToShow`, an atomic take): the plain secret never rests in the store, and a handle read
 * later from a page or a store dump shows nothing.
 */
export interface PendingSecret {
  /** The new secret, sealed for the "pending" stage, with its parameters. */
  pending: TotpEnrollment;
  /** Opaque, single use: what the page presents to be shown the secret. */
  displayHandle: string;
}

interface SecretToShow {
  sub: string;
  pending: TotpEnrollment;
}

export async function createPendingSecret(context: PluginContext<TotpSettings>, sub: string): Promise<PendingSecret> {
  const { services, methodId, settings } = context;
  const pending: TotpEnrollment = {
    secret: services.secretBox.seal(generateSecret(), sealContext(methodId, sub, "pending")),
    ...newKeyParameters(settings),
  };
  return { pending, displayHandle: await offerToShow(context, sub, pending) };
}

/** A new single-use handle that shows `pending` (again: after a mistyped code the page shows the same secret). */
export async function offerToShow(context: PluginContext<TotpSettings>, sub: string, pending: TotpEnrollment): Promise<string> {
  const displayHandle = randomBytes(24).toString("base64url");
  // As long as the enrollment page itself stays usable.
  const ttlMs = parseDuration(context.services.settings.lifetimes.interaction) * 1000;
  await displays(context).set(displayKey(context.methodId, displayHandle), { sub, pending }, ttlMs);
  return displayHandle;
}

/** The pending secret for the page that holds `handle`, once; undefined for an unknown, used or expired handle. */
export async function takeSecretToShow(
  context: PluginContext<TotpSettings>,
  handle: string,
): Promise<{ sub: string; key: TotpKey } | undefined> {
  const shown = await displays(context).take(displayKey(context.methodId, handle));
  return shown && { sub: shown.sub, key: openPending(context, shown.sub, shown.pending) };
}

/** Records the pending secret as the user's TOTP enrollment when `code` is valid (and its step unused); false otherwise. */
export async function confirmPendingSecret(
  context: PluginContext<TotpSettings>,
  sub: string,
  pending: TotpEnrollment,
  code: string,
): Promise<boolean> {
  const key = openPending(context, sub, pending);
  if (!(await acceptCode(context, sub, key, code))) return false;
  await context.enrollments.put(sub, sealKey(context.services, context.methodId, sub, key));
  return true;
}

function openPending(context: PluginContext<TotpSettings>, sub: string, pending: TotpEnrollment): TotpKey {
  return {
    secret: context.services.secretBox.open(pending.secret, sealContext(context.methodId, sub, "pending")),
    digits: pending.digits,
    period: pending.period,
  };
}

const displays = (context: PluginContext<TotpSettings>) => context.services.store.namespace<SecretToShow>("methodChallenges");

// The handle comes from a request: only its hash becomes a store key.
const displayKey = (methodId: string, handle: string) => `${methodId}-show:${storeKeyHash(handle)}`;
