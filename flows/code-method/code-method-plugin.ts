import express from "express";
import { createCodeLoginMachine } from "./code-login.machine.ts";
import { createCodeMethodActors, type TargetEnrollment } from "./code-method-actors.ts";
import { codeMethodViews, type TargetField } from "./code-views.ts";
import { createTargetConfirmationMachine } from "./target-confirmation.machine.ts";
import {
  CodeHasher,
  OneTimeCodes,
  Outbox,
  SendLimits,
  loadMessageTexts,
  methodManifest,
  parseDuration,
  sendPolicy,
  type CodeMethodSettings,
  type CodeRecord,
  type EnrolledItem,
  type Enrollment,
  type FactorPlugin,
  type MessageSender,
  type MessageTexts,
  type OutgoingMessage,
  type PluginContext,
} from "../../src/plugin-contract/index.ts";

/** What makes one code method differ from another: its channel, its kind of address, its texts. */
export interface CodeMethodDefinition<Settings extends CodeMethodSettings> {
  id: string;
  amr: string;
  configSchema: Record<string, unknown>;
  /** The plugin folder's i18n/ (page strings and the message texts). */
  i18n: URL;
  field: TargetField;
  /** The canonical form of a valid address; undefined for an invalid one. */
  normaliseTarget(typed: string): string | undefined;
  /** The key=value option that names the address in `portcullis methods enroll` (e.g. "phone"). */
  operatorOption: string;
  /** The delivery adapter for the settings (other than the outbox, which the factory builds). */
  createSender(ctx: PluginContext<Settings>): MessageSender;
  /** The confirmed address as the account page lists it, masked. */
  maskTarget(target: string): Pick<EnrolledItem, "text" | "textKey" | "params">;
  /** Where a user without an enrollment gets codes, if anywhere (e-mail: the directory's address). */
  fallbackTarget?(ctx: PluginContext<Settings>, sub: string): Promise<string | undefined>;
  /** The message for a composed text. */
  message(ctx: PluginContext<Settings>, composed: MessageTexts, code: string): Omit<OutgoingMessage, "to">;
}

/**
 * Builds the factor plugin of a one-time-code method (SMS, e-mail): class untrusted, verifies a user
 * the flow identified; its login machine sends a code to the user's confirmed address, and its
 * enrollment machine confirms an address. Everything the two methods share lives here; each
 * plugin folder supplies only a CodeMethodDefinition.
 */
export function createCodeMethodPlugin<Settings extends CodeMethodSettings>(
  definition: CodeMethodDefinition<Settings>,
): FactorPlugin<Settings> {
  const texts = loadMessageTexts(definition.i18n);
  // One sender per configured method: actors() and routes() get the same context, and the outbox
  // they share must be one list.
  const senders = new WeakMap<PluginContext<Settings>, MessageSender>();
  const senderOf = (ctx: PluginContext<Settings>): MessageSender => {
    let sender = senders.get(ctx);
    if (!sender) {
      sender =
        ctx.settings.delivery.kind === "outbox"
          ? new Outbox(ctx.methodId, ctx.services.logger, ctx.services.clock)
          : definition.createSender(ctx);
      senders.set(ctx, sender);
    }
    return sender;
  };

  return {
    manifest: methodManifest({
      id: definition.id,
      schema: definition.configSchema,
      machines: {
        login: createCodeLoginMachine(definition.id),
        enrollment: createTargetConfirmationMachine(definition.id, definition.normaliseTarget),
      },
      // One current code per user, method and login: HMACs only (non-durable).
      recordKinds: { oneTimeCodes: { durable: false } },
    }),
    class: "untrusted",
    identifiesUser: false,
    amr: definition.amr,
    account: {
      items: (data) => {
        const { target, confirmedAt } = data as TargetEnrollment;
        return [{ ...definition.maskTarget(target), addedAt: confirmedAt }];
      },
    },
    actors(ctx) {
      const { services, settings } = ctx;
      const codes = new OneTimeCodes(
        services.store.namespace<CodeRecord>("oneTimeCodes"),
        services.clock,
        CodeHasher.forProvider(services),
        services.secretBox,
        parseDuration(settings.code_lifetime) * 1000,
      );
      const limits = new SendLimits(services.store.namespace<number>("rateLimits"), ctx.methodId, sendPolicy(settings));
      return createCodeMethodActors(ctx, {
        codes,
        limits,
        sender: senderOf(ctx),
        texts,
        normaliseTarget: definition.normaliseTarget,
        message: (composed, code) => definition.message(ctx, composed, code),
        async findTarget(sub) {
          // Decoy subs of unknown names, and disabled users, have nowhere to receive a code.
          if (!(await services.users.isActive(sub))) return undefined;
          const enrolled = (await ctx.enrollments.get(sub)) as Enrollment<TargetEnrollment> | undefined;
          return enrolled?.data.target ?? (await definition.fallbackTarget?.(ctx, sub));
        },
      });
    },
    views: codeMethodViews(definition.id, definition.field),
    routes(ctx) {
      const sender = senderOf(ctx);
      return sender instanceof Outbox ? sender.router() : express.Router();
    },
    async usableWithoutEnrollment(ctx, sub) {
      if (definition.fallbackTarget === undefined || !(await ctx.services.users.isActive(sub))) return false;
      return (await definition.fallbackTarget(ctx, sub)) !== undefined;
    },
    async enrollByOperator(ctx, sub, options) {
      const typed = options[definition.operatorOption];
      const target = typed === undefined ? undefined : definition.normaliseTarget(typed);
      if (target === undefined)
        throw new Error(
          `give ${definition.operatorOption}=<${definition.field.inputType === "tel" ? "number in international format, +..." : "e-mail address"}>`,
        );
      // A vendor account has no directory entry, only its client's permission (MyVendor with e-mail or SMS).
      if (!(await ctx.services.users.hasAccount(sub))) throw new Error(`no user with sub ${sub}`);
      await ctx.enrollments.put(sub, { target, confirmedAt: ctx.services.clock() } satisfies TargetEnrollment);
      return `${definition.operatorOption} ${target} recorded as confirmed for ${sub} (method ${ctx.methodId})`;
    },
  };
}
