import type { LoginFile } from "../config/types.generated.ts";

/** A login type whose accounts set up their second factor on a link anyone holding it can replay. */
export interface FirstUseOnSignedLinks {
  loginType: string;
  /** One line for the operator: the key, the risk and what to do instead. */
  warning: string;
}

/**
 * The login types that enroll on first use behind a signed link (`signature: true` with
 * `enroll_on_first_use: true`; MyVendor's). The spec's signature has no expiry and no nonce, so the
 * first person to open an account's link — the vendor, or whoever got a forwarded, logged or leaked
 * copy of it — sets up that account's second factor and owns it from then on. It stays allowed (a
 * vendor whose links never leave its system may want it), but the provider (at start and at each
 * reload) and `check-config` say so, with the safe setting (docs/decisions.md "MyVendor accounts").
 */
export function firstUseOnSignedLinks(login: Pick<LoginFile, "login_types">): FirstUseOnSignedLinks[] {
  return Object.entries(login.login_types ?? {}).flatMap(([loginType, type]) =>
    type.signature && type.enroll_on_first_use
      ? [
          {
            loginType,
            warning:
              `login.yaml login_types.${loginType}.enroll_on_first_use: signed links never expire, so whoever opens an account's link first ` +
              `(a forwarded, logged or replayed one) sets up its second factor; unless every link stays private, set it to false ` +
              `and enroll the accounts: portcullis methods enroll '<client_id>:<account>' <method>`,
          },
        ]
      : [],
  );
}

/** Logs each of them as a warning: at start and after each reload that serves such a login type. */
export function logFirstUseOnSignedLinks(
  logger: { warn(fields: object, message: string): void },
  login: Pick<LoginFile, "login_types">,
): void {
  for (const { loginType, warning } of firstUseOnSignedLinks(login))
    logger.warn({ event: "first_use_enrollment_on_signed_links", login_type: loginType }, warning);
}
