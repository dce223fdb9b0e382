/**
 * Invariants of the authorization_code grant, driven in process through the grant handler:
 * - a code is redeemed at most once however many redemptions race, on every store backend and across
 *   two provider nodes on one network store, and a raced code leaves no live token behind;
 * - the token scope is always within the code's scope (SPEC scope rules 1 and 3), also after refresh.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Params } from "../../../src/http-kit/params.ts";
import { OAuthError } from "../../../src/errors/oauth-error.ts";
import { authorizationCodeGrant } from "../../../src/http/grants/authorization-code-grant.ts";
import { refreshTokenGrant } from "../../../src/http/grants/refresh-token-grant.ts";
import type { TokenResponse } from "../../../src/http/grants/grant-handler.ts";
import type { Infra } from "../../../src/provider.ts";
import { availableBackends } from "../../support/backends.ts";
import { codeGrant, VERIFIER, WEB, WEB_REDIRECT } from "../../support/code-grant.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

const redemptionForm = (code: string): Params =>
  new Map([
    ["grant_type", "authorization_code"],
    ["code", code],
    ["redirect_uri", WEB_REDIRECT],
    ["code_verifier", VERIFIER],
  ]);

function redeem(infra: Infra, form: Params): Promise<TokenResponse> {
  return authorizationCodeGrant({
    infra,
    policy: infra.policies.current(),
    client: infra.policies.current().clients.get(WEB.id)!,
    params: form,
  });
}

/** The OAuth error code a failed grant threw; anything else fails the test. */
async function errorOf(pending: Promise<unknown>): Promise<string> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return (error as OAuthError).error;
}

describe.each(availableBackends())("code single use on the $name store", ({ name, url: storeUrl }) => {
  // Two nodes of one deployment where the store allows it (the embedded store belongs to one process).
  const nodes: TestProvider[] = [];
  beforeAll(async () => {
    nodes.push(await startTestProvider({ storeUrl }));
    if (name !== "embedded") nodes.push(await startTestProvider({ storeUrl, issuer: nodes[0]!.issuer }));
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
  });

  it("redeems each of many codes at most once under 2 to 20 concurrent redemptions, and revokes the one success", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.nat({ max: 1 }), { minLength: 2, maxLength: 20 }), { minLength: 1, maxLength: 6 }),
        async (codesAndNodes) => {
          const issuing = nodes[0]!.provider;
          const codes = await Promise.all(codesAndNodes.map(() => issuing.codes.issue(codeGrant(), 300)));
          // Every redemption of every code at once, each on a node picked by the property.
          const attempts = codesAndNodes.flatMap((picks, i) =>
            picks.map((pick) => ({ code: i, infra: nodes[pick % nodes.length]!.provider })),
          );
          const outcomes = await Promise.allSettled(attempts.map(({ code, infra }) => redeem(infra, redemptionForm(codes[code]!))));

          for (let i = 0; i < codes.length; i++) {
            const mine = outcomes.filter((_, j) => attempts[j]!.code === i);
            const won = mine.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
            // Every code was fresh and every request right: the one that took it succeeds.
            expect(won).toHaveLength(1);
            for (const o of mine) if (o.status === "rejected") expect((o.reason as OAuthError).error).toBe("invalid_grant");
            // It was presented more than once, so what it issued is revoked.
            await expect(issuing.accessTokenVerifier.verify(won[0]!.access_token)).rejects.toMatchObject({ error: "invalid_token" });
            expect(await issuing.refreshTokens.find(won[0]!.refresh_token!)).toBeUndefined();
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe("token scope within the code's scope", () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider();
  });
  afterAll(() => p?.close());

  // demo-web's allowed scopes, and scopes it may not have: requests draw from both.
  const ALLOWED = ["openid", "profile", "email", "offline_access", "acme", "acme.api.msg"];
  const UNIVERSE = [...ALLOWED, "unknown-scope", "channel.login.scan"];
  const scopeSet = (from: string[]) => fc.uniqueArray(fc.constantFrom(...from), { minLength: 1, maxLength: from.length });
  /** A scope request against `granted`: omitted, a subset of it, or a subset with strangers mixed in. */
  const requestFor = (granted: string[]) =>
    fc.oneof(
      fc.constant(undefined),
      fc.subarray(granted, { minLength: 1 }),
      fc.tuple(fc.subarray(granted), scopeSet(UNIVERSE)).map(([some, others]) => [...new Set([...some, ...others])]),
    );
  const cases = scopeSet(ALLOWED).chain((codeScopes) =>
    requestFor(codeScopes).chain((requested) =>
      requestFor(requested ?? codeScopes).map((refreshRequested) => ({ codeScopes, requested, refreshRequested })),
    ),
  );

  it("grants exactly the code's scope when omitted, the requested scope when within it, and invalid_scope otherwise — also on refresh", async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ codeScopes, requested, refreshRequested }) => {
        const infra = p.provider;
        const code = await infra.codes.issue(codeGrant({ scopes: codeScopes }), 300);
        const form = new Map(redemptionForm(code));
        if (requested !== undefined) form.set("scope", requested.join(" "));

        const within = requested === undefined || requested.every((s) => codeScopes.includes(s));
        if (!within) {
          expect(await errorOf(redeem(infra, form))).toBe("invalid_scope");
          return;
        }
        const response = await redeem(infra, form);
        const granted = response.scope.split(" ");
        expect(granted).toEqual(requested ?? codeScopes);
        expect(granted.every((s) => codeScopes.includes(s))).toBe(true);
        expect(response.refresh_token !== undefined).toBe(granted.includes("offline_access"));
        expect(response.id_token !== undefined).toBe(granted.includes("openid"));
        if (response.refresh_token === undefined) return;

        // A refresh may narrow the scope the code granted, never leave it.
        const refreshForm = new Map([
          ["grant_type", "refresh_token"],
          ["refresh_token", response.refresh_token],
        ]);
        if (refreshRequested !== undefined) refreshForm.set("scope", refreshRequested.join(" "));
        const pending = refreshTokenGrant({
          infra,
          policy: infra.policies.current(),
          client: infra.policies.current().clients.get(WEB.id)!,
          params: refreshForm,
        });
        if (refreshRequested !== undefined && !refreshRequested.every((s) => granted.includes(s))) {
          expect(await errorOf(pending)).toBe("invalid_scope");
          return;
        }
        const refreshed = (await pending).scope.split(" ");
        expect(refreshed).toEqual(refreshRequested ?? granted);
        expect(refreshed.every((s) => codeScopes.includes(s))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
