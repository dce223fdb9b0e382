import { methodSetUp, type SetUpServices } from "../../account/method-set-up.ts";
import type { UserDirectory } from "../../users/user-directory.ts";
import type { Accepted } from "./explain-authorize-request.ts";

/** `--user`: which of the offered methods the user has set up, and whether the planned login could succeed. */
export interface UserReadiness {
  name: string;
  /** Undefined when there is no such user (nor vendor account). */
  sub?: string;
  methods: Array<{ id: string; setUp: boolean; note?: string }>;
  canSucceed: boolean;
  reason: string;
}

/**
 * The user's side of an accepted plan. Users come from users.yaml; a vendor account (`<client_id>:
 * <account>`, a MyVendor login's login_hint) is its own sub and has no directory entry. Set up means
 * what the account page shows (methodSetUp): an e-mail code can still reach a directory address, and
 * the development face service passes anyone, which the page does not count.
 */
export async function userReadiness(
  name: string,
  explained: Accepted,
  services: SetUpServices & { users: Pick<UserDirectory, "findByUsername" | "findBySub"> },
): Promise<UserReadiness> {
  const { plan } = explained;
  const vendor = plan.loginHint === "vendor";
  const user = vendor ? undefined : await services.users.findByUsername(name);
  const sub = vendor ? name : user?.sub;
  const nothing = (reason: string): UserReadiness => ({ name, ...(sub !== undefined && { sub }), methods: [], canSucceed: false, reason });
  if (plan.flow === "eid")
    return { name, methods: [], canSucceed: false, reason: "an eID login is decided by the upstream eID provider, not by this directory" };
  if (vendor && name !== plan.vendorAccount)
    return nothing(`the request's login_hint names the vendor account ${plan.vendorAccount}, not ${name}`);
  if (!vendor && user === undefined) return nothing("no such user in the directory");
  if (user?.disabled) return nothing("the user is disabled in the directory");
  if (plan.loginHint === "required" && explained.loginHint?.toLowerCase() !== name.toLowerCase()) {
    return nothing(`the request's login_hint names ${explained.loginHint}: the login verifies that user, not ${name}`);
  }
  const methods: UserReadiness["methods"] = [];
  for (const m of explained.methods) {
    const state = await methodSetUp(services, m.id, sub!);
    methods.push({ id: m.id, setUp: state.setUp, ...(state.recordOf !== m.id && { note: `uses ${state.recordOf}'s enrollment` }) });
  }
  const setUp = new Set(methods.filter((m) => m.setUp).map((m) => m.id));
  const result = (canSucceed: boolean, reason: string): UserReadiness => ({ name, sub: sub!, methods, canSucceed, reason });
  if (plan.flow === "two_factor") {
    const lacking = plan.missingClasses.filter((c) => !explained.methods.some((m) => m.class === c && setUp.has(m.id)));
    return lacking.length === 0
      ? result(true, "a method of each class is set up")
      : result(false, `no ${lacking.join(" or ")} method among the offered ones is set up`);
  }
  if (setUp.size > 0) return result(true, `${[...setUp].join(", ")} ${setUp.size === 1 ? "is" : "are"} set up`);
  if (plan.enrollOnFirstUse)
    return result(true, "nothing is set up yet: the login sets up an offered method on first use, after the valid signature");
  return result(false, "none of the offered methods is set up");
}
