import type { AuthorizationContribution, IssuingAuthorization, RunningExtension } from "../../plugin-contract/extension.ts";

/**
 * What the extensions add to an authorization about to get its code: their access-token claims
 * (merged in extension order), or the first refusal. Asked before any session is started, so a
 * refused authorization leaves nothing behind.
 */
export async function extensionContributions(
  extensions: readonly RunningExtension[],
  authorization: IssuingAuthorization,
): Promise<Required<Pick<AuthorizationContribution, "accessTokenClaims">> & Pick<AuthorizationContribution, "refuse">> {
  const accessTokenClaims: Record<string, unknown> = {};
  for (const extension of extensions) {
    const contribution = await extension.onAuthorization?.(authorization);
    if (contribution?.refuse !== undefined) return { accessTokenClaims: {}, refuse: contribution.refuse };
    Object.assign(accessTokenClaims, contribution?.accessTokenClaims);
  }
  return { accessTokenClaims };
}
