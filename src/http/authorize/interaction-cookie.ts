import type { ServerResponse } from "node:http";
import { paths } from "../../http-kit/paths.ts";
import { seeOther } from "../../http-kit/see-other.ts";
import type { Infra } from "../../infra/infra.ts";

/** Base name of the cookie that binds an interaction to its browser; scoped to the interaction's path. */
export const INTERACTION_COOKIE = "portcullis_interaction";

/** The page of one interaction: where its forms post, and the path its binding cookie is scoped to. */
export const interactionPath = (id: string) => `${paths.interaction}/${id}`;

/**
 * Sends the browser to a new interaction's page with the cookie that binds it there (SameSite=None
 * behind https for a login framed by iframe_authz). Cookies set earlier on the response are kept.
 */
export function redirectToInteraction(
  infra: Pick<Infra, "cookies">,
  res: ServerResponse,
  id: string,
  browserCookie: string,
  options: { sameSiteNone?: boolean } = {},
): void {
  const location = interactionPath(id);
  res.appendHeader(
    "Set-Cookie",
    infra.cookies.set(INTERACTION_COOKIE, browserCookie, { path: location, sameSiteNone: options.sameSiteNone }),
  );
  seeOther(res, location);
}
