import { fromPromise } from "xstate";
import {
  DeliveryError,
  composeText,
  randomToken,
  type CheckInput,
  type CheckVerdict,
  type CodeSlot,
  type Lang,
  type MessageSender,
  type MessageTexts,
  type OneTimeCodes,
  type OutgoingMessage,
  type PluginContext,
  type SendInput,
  type SendLimits,
  type SendVerdict,
} from "../../src/plugin-contract/index.ts";

/** A code method's durable enrollment: the address confirmed with a code (or by an operator). */
export interface TargetEnrollment {
  target: string;
  /** Epoch ms. */
  confirmedAt: number;
}

/** What the actors need besides the plugin context: built once per method by the plugin factory. */
export interface CodeMethodParts {
  codes: OneTimeCodes;
  limits: SendLimits;
  sender: MessageSender;
  texts: Record<Lang, MessageTexts>;
  /** The address a known user's codes go to, undefined when there is none (or the user is unknown). */
  findTarget(sub: string): Promise<string | undefined>;
  normaliseTarget(typed: string): string | undefined;
  /** The message for a composed text (SMS adds the origin line, e-mail the subject). */
  message(composed: MessageTexts, code: string): Omit<OutgoingMessage, "to">;
}

const newChallenge = () => randomToken(16);

/**
 * The actors of both machines of a code method. Login: `sendCode` sends to the user's confirmed
 * address — or, for an unknown user or one without an address, sends nothing and answers exactly
 * as if it had (same limits counted, same verdict), and `checkCode` counts the attempt, then
 * redeems. Enrollment: `sendConfirmation` sends to the typed address (kept sealed with the code),
 * and `confirmCode` records the address the redeemed code was issued for.
 */
export function createCodeMethodActors<Settings>(ctx: PluginContext<Settings>, parts: CodeMethodParts) {
  const { services, methodId, attempts, enrollments } = ctx;
  const { codes, limits } = parts;
  const minutes = Math.max(1, Math.round(codes.lifetimeMs / 60_000));
  const slotOf = (purpose: "login" | "enroll", sub: string, challenge: string): CodeSlot => ({
    scope: `${methodId}:${purpose}`,
    sub,
    challenge,
  });

  /** Sends a new code for the slot to `target` (undefined: pretend); the verdict the page gets. */
  async function send(purpose: "login" | "enroll", input: SendInput, target: string | undefined): Promise<SendVerdict> {
    const challenge = input.challenge ?? newChallenge();
    const slot = slotOf(purpose, input.sub, challenge);
    const permission = await limits.claim(slot, input.clientAddress ?? "unknown");
    if (permission !== "ok") return { outcome: permission, challenge, minutes };
    if (target === undefined) {
      // Nothing to send to: an earlier code of this slot must not stay usable either.
      await codes.discard(slot);
      return { outcome: "sent", challenge, minutes };
    }
    const code = await codes.issue(slot, purpose === "enroll" ? target : undefined);
    try {
      await parts.sender.send({ to: target, ...parts.message(composeText(parts.texts, input.lang, { code, minutes }), code) });
    } catch (err) {
      await Promise.all([codes.discard(slot), limits.release(slot)]);
      const reason = err instanceof DeliveryError ? err.reason : `unexpected ${(err as Error)?.name ?? "error"}`;
      services.logger.warn(
        { event: "code_not_sent", method: methodId, purpose, sub: input.sub, adapter: parts.sender.kind, reason },
        "one-time code could not be delivered",
      );
      return { outcome: "failed", challenge, minutes };
    }
    services.logger.info(
      { event: "code_sent", method: methodId, purpose, sub: input.sub, adapter: parts.sender.kind },
      "one-time code sent",
    );
    return { outcome: "sent", challenge, minutes };
  }

  return {
    sendCode: fromPromise<SendVerdict, SendInput>(async ({ input }) => send("login", input, await parts.findTarget(input.sub))),

    checkCode: fromPromise<CheckVerdict, CheckInput>(async ({ input }) => {
      // Counted first and answered like a wrong code when refused: a lockout cannot be told apart.
      if (!(await attempts.tryAttempt(input.sub))) return { ok: false };
      if (input.challenge === undefined || !(await services.users.isActive(input.sub))) return { ok: false };
      if (!(await codes.redeem(slotOf("login", input.sub, input.challenge), input.code))) return { ok: false };
      await attempts.succeeded(input.sub);
      return { ok: true };
    }),

    sendConfirmation: fromPromise<SendVerdict, SendInput>(async ({ input }) => {
      const target = input.target === undefined ? undefined : parts.normaliseTarget(input.target);
      // The machine only sends valid addresses; anything else is a forged or stale state: nothing to send.
      return send("enroll", input, target);
    }),

    confirmCode: fromPromise<CheckVerdict, CheckInput>(async ({ input }) => {
      // Confirmation attempts have their own count, so a mistyped confirmation never locks the login.
      const subject = `enroll:${input.sub}`;
      if (!(await attempts.tryAttempt(subject))) return { ok: false };
      if (input.challenge === undefined) return { ok: false };
      const redeemed = await codes.redeem(slotOf("enroll", input.sub, input.challenge), input.code);
      if (redeemed?.target === undefined) return { ok: false };
      await attempts.succeeded(subject);
      await enrollments.put(input.sub, { target: redeemed.target, confirmedAt: services.clock() } satisfies TargetEnrollment);
      services.logger.info({ event: "target_confirmed", method: methodId, sub: input.sub }, "address confirmed for a code method");
      return { ok: true };
    }),
  };
}
