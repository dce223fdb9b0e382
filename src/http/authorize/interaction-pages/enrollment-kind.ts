import type { EnrollmentInteraction } from "../../../runtime/interaction.ts";
import { accountUrl } from "../../../runtime/account-params.ts";
import { currentSession } from "../../../sessions/current-session.ts";
import { seeOther } from "../../../http-kit/see-other.ts";
import type { EnrollmentFlowInput } from "../../../../flows/enrollment.flow.ts";
import type { InteractionKind } from "./interaction-kind.ts";

/** A signed-in user enrolling one factor method (from the account page); it ends back on the account page. */
export const enrollmentKind: InteractionKind<EnrollmentInteraction> = {
  lang: (interaction) => interaction.lang,
  onPages: {
    flowInput: (interaction): EnrollmentFlowInput => ({ sub: interaction.sub }),
    // Its method must still be configured, and the session it runs in must still be its user's.
    stillValid: async (scope, req, interaction) =>
      scope.infra.methods.has(interaction.method) && (await currentSession(scope, req))?.sub === interaction.sub,
    page: ({ interaction }) => ({ view: "enroll", data: { methodLabelKey: `method.${interaction.method}.label` } }),
    // The method is enrolled (its machine recorded it): back to the account page, which says so.
    finish: ({ scope, res, interaction }) => {
      scope.infra.logger.info({ event: "method_enrolled", sub: interaction.sub, method: interaction.method }, "factor method enrolled");
      seeOther(res, accountUrl(interaction.back ?? {}, { enrolled: interaction.method }));
    },
  },
};
