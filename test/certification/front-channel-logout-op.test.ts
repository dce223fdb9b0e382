/**
 * The Front-Channel Logout OP certification profile (the suite's oidcc-frontchannel-rp-initiated-logout-
 * certification-test-plan): discovery, then an RP-initiated logout of a static client registered with a
 * frontchannel_logout_uri on the suite's /frontchannel_logout path. The logout needs a real browser: the
 * logged-out page loads the client's URI in an iframe and then continues to post_logout_redirect_uri by
 * script. alice signs in over raw HTTP; her provider cookies go to a Chromium context that does the
 * logout; the recording RP (loopback https, the test CA not in Chromium's store, hence ignoreHTTPSErrors)
 * sees the iframe's request with iss and sid, then the return with state.
 */
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium } from "../support/chromium.ts";
import { eventually } from "../support/relying-party.ts";
import { authorizationRequest, signedIn, startCertificationStand, type CertificationStand } from "./certification-stand.ts";

describe.skipIf(!chromiumAvailable("front-channel logout certification"))(
  "Front-Channel Logout OP (oidcc-frontchannel-rp-initiated-logout-certification-test-plan)",
  { timeout: 90_000 },
  () => {
    let stand: CertificationStand;
    let chromium: Browser;

    beforeAll(async () => {
      [stand, chromium] = await Promise.all([startCertificationStand(), launchChromium()]);
    });
    afterAll(async () => {
      await chromium?.close();
      await stand?.close();
    });

    it("oidcc-frontchannel-logout-discovery-endpoint-verification", () => {
      // The profile requires sid in the ID token and the logout request, so both flags, and somewhere to log out.
      expect(stand.discovery.frontchannel_logout_supported).toBe(true);
      expect(stand.discovery.frontchannel_logout_session_supported).toBe(true);
      expect(new URL(stand.discovery.end_session_endpoint as string).protocol).toBe("https:");
    });

    it("oidcc-frontchannel-rp-initiated-logout", async () => {
      const client = stand.clients.frontChannel;
      const { browser, idToken, claims } = await signedIn(stand, client);
      expect(claims.sid).toEqual(expect.any(String));
      const context = await chromium.newContext({ ignoreHTTPSErrors: true, locale: "en-US" });
      try {
        await context.addCookies([...browser.cookies].map(([name, c]) => ({ name, value: c.value, url: `${stand.issuer}${c.path}` })));
        const page = await context.newPage();

        const state = randomBytes(12).toString("base64url");
        const logout = new URL(stand.discovery.end_session_endpoint as string);
        logout.search = new URLSearchParams({
          id_token_hint: idToken,
          post_logout_redirect_uri: client.postLogoutRedirectUri,
          state,
        }).toString();
        await page.goto(logout.href);
        await eventually(() => stand.receivedAt(client, "postLogout").length > 0, "the return to post_logout_redirect_uri", 20_000);

        // The iframe loaded the front-channel URI with iss and sid (Front-Channel Logout 1.0 §2, session variant).
        const hits = stand.receivedAt(client, "frontChannel");
        expect(hits).toHaveLength(1);
        expect(hits[0]!.method).toBe("GET");
        expect(hits[0]!.query.get("iss")).toBe(stand.issuer);
        expect(hits[0]!.query.get("sid")).toBe(claims.sid);
        // Then the browser went on to the registered return address with state, and nothing else.
        const back = stand.receivedAt(client, "postLogout");
        expect(back).toHaveLength(1);
        expect([...back[0]!.query]).toEqual([["state", state]]);

        // The session is gone: prompt=none in the same browser comes back with an error that needs the user.
        const silent = authorizationRequest(stand, client, { prompt: "none" });
        await page.goto(silent.url);
        await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
        const params = new URL(page.url()).searchParams;
        expect(["login_required", "interaction_required"]).toContain(params.get("error"));
        expect(params.get("state")).toBe(silent.state);
        expect(params.get("code")).toBeNull();
      } finally {
        await context.close();
      }
    });
  },
);
