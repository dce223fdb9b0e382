import type { BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPage, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import { launchChromiumWithCamera } from "../support/chromium-camera.ts";
import { startFaceTestService, type FaceTestService } from "../support/face-test-service.ts";

/**
 * Face recognition end to end: Chromium's fake camera on the capture page (getUserMedia → canvas →
 * JPEG in the form, under the page's strict CSP), the provider asking a face service on loopback,
 * and demo-web verifying an ID token whose amr is ["face"].
 */
const SUITE = "face recognition login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("face recognition login in Chromium", () => {
  let suite: MethodSuite;
  let service: FaceTestService;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    service = await startFaceTestService();
    suite = await startMethodSuite({
      methods: ["face"],
      edits: { "login.yaml": { "methods.face": { service: { kind: "http", url: service.url } } } },
      launch: launchChromiumWithCamera,
    });
  });
  afterAll(async () => {
    await suite?.close();
    await service?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  it("captures a camera frame, has the face service match it, and logs alice in; the ID token's amr is face", async () => {
    const { web } = suite;
    const opened = await openPage(suite.browser);
    context = opened.context;
    context.setDefaultTimeout(10_000);
    const { page } = opened;
    const cspViolations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.goto(web.loginUrl({ login_hint: "alice" }));
    const capture = page.getByRole("button", { name: "Take picture and sign in" });
    await expect.poll(() => capture.isEnabled(), { timeout: 10_000 }).toBe(true); // the camera is live
    await capture.click();
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(await page.locator("#status").textContent()).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", amr: ["face"], acr: "1fa" });

    // What the service got: alice's sub and one JPEG frame from the camera.
    expect(service.requests).toHaveLength(1);
    const { sub, image } = service.requests[0]!.body;
    expect(sub).toBe("E10001");
    const frame = Buffer.from(image!, "base64");
    expect([...frame.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(frame.length).toBeGreaterThan(1_000);
    expect(cspViolations).toEqual([]);
  });
});
