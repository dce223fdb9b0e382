import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createActor, toPromise } from "xstate";
import { ConfigError } from "../../../src/errors/config-error.ts";
import type { Interaction } from "../../../src/runtime/interaction.ts";
import { responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { AddressedBrowser, nextAddress, normalisePage, postStep } from "../../support/code-login.ts";
import { authorizeUrl, openLoginPage } from "../../support/browser-login.ts";
import { startFaceTestService, type FaceTestService } from "../../support/face-test-service.ts";
import type { Answer } from "../../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** A JPEG as far as anyone checks it without decoding: SOI marker, some bytes, EOI marker. */
const jpeg = (size = 2_000) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size), Buffer.from([0xff, 0xd9])]);
const dataUrl = (bytes: Buffer, type = "image/jpeg") => `data:${type};base64,${bytes.toString("base64")}`;

let service: FaceTestService;
let p: TestProvider;
beforeAll(async () => {
  service = await startFaceTestService();
  p = await startTestProvider({
    edits: {
      "login.yaml": {
        "methods.face": {
          service: { kind: "http", url: service.url, headers: { Authorization: "Bearer face-token" }, timeout: "1s" },
          attempts: { max_failures: 5, window: "15m" },
        },
        "default_flow.methods": ["face"],
      },
      "provider.yaml": { "listen.trust_proxy": true },
    },
  });
});
afterAll(async () => {
  await p?.close();
  await service?.close();
});
afterEach(async () => {
  service.behaviour = { kind: "answer", result: "match", key: "face-key-1" };
  service.requests.length = 0;
  await face().context.attempts.succeeded("E10001");
});

const face = () => p.provider.methods.get("face")!;
const NOT_RECOGNISED = "Your face could not be verified.";
const UNAVAILABLE = "Face recognition is not available right now.";

async function openFaceLogin(loginHint = "alice"): Promise<{ browser: AddressedBrowser; page: Answer }> {
  const browser = new AddressedBrowser(nextAddress());
  const page = await openLoginPage(browser, authorizeUrl(p.issuer, { login_hint: loginHint }));
  expect(page.text).toContain('name="event" value="SUBMIT_FRAME"');
  return { browser, page };
}
const submitFrame = (browser: AddressedBrowser, page: Answer, image: string) => postStep(browser, page, { event: "SUBMIT_FRAME", image });

describe("face recognition", () => {
  it("logs alice in when the face service says match; the ID token's amr is face", async () => {
    const method = face();
    await method.plugin.enrollByOperator!(method.context, "E10001", { key: "ref-alice-7" });
    const frame = jpeg();
    const { browser, page } = await openFaceLogin();
    const done = await submitFrame(browser, page, dataUrl(frame));
    const tokens = await redeemCode(p, responseParams(done).get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["face"] });
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]!.headers.authorization).toBe("Bearer face-token");
    expect(service.requests[0]!.body).toEqual({ sub: "E10001", image: frame.toString("base64"), reference: "ref-alice-7" });
    // The check is kept with the login (its SSO session) for the faceid claim.
    const session = await p.provider.sessions.find(browser.cookies.get("portcullis_session")?.value);
    expect(session?.evidence).toEqual({ face: { faceid: { result: "match", key: "face-key-1", time: expect.any(Number) } } });
    await method.context.enrollments.remove("E10001");
  });

  it("serves a page whose script (with the CSP nonce) captures a frame small enough for the body limit", async () => {
    const { page } = await openFaceLogin();
    const nonce = /<script nonce="([^"]+)" src="\/methods\/face\/capture\.js"><\/script>/.exec(page.text)?.[1];
    expect(nonce).toBeTruthy();
    expect(page.headers.get("content-security-policy")).toContain(`'nonce-${nonce}'`);
    const script = await fetch(`${p.url}/methods/face/capture.js`);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain(`const MAX_FIELD_CHARS = ${p.provider.settings.security.max_body_bytes - 1024};`);
  });

  it("accepts a frame of the script's whole budget through the form's body limit", async () => {
    const budget = p.provider.settings.security.max_body_bytes - 1024;
    // base64's +, / and = are percent-encoded in the form: fill the budget with the encoded length in mind.
    let frame = jpeg(Math.floor((budget * 3) / 4) - 100);
    while (encodeURIComponent(dataUrl(frame)).length > budget) frame = Buffer.concat([frame.subarray(0, 4), frame.subarray(104)]);
    const { browser, page } = await openFaceLogin();
    const answer = await submitFrame(browser, page, dataUrl(frame));
    expect(answer.status).toBe(303);
  });

  it("refuses a frame the service does not match, and counts the attempt", async () => {
    service.behaviour = { kind: "answer", result: "no_match", key: "face-key-2" };
    const { browser, page } = await openFaceLogin();
    const answer = await submitFrame(browser, page, dataUrl(jpeg()));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(NOT_RECOGNISED);
    expect(await face().context.attempts.count("E10001")).toBe(1);
  });

  it.each([
    ["an HTTP 500 with internals", { kind: "status", status: 500 }],
    ["a redirect", { kind: "status", status: 302 }],
    ["an answer that is not JSON", { kind: "raw", body: "<html>upstream error at face-engine.internal</html>" }],
    ["an answer without a key", { kind: "raw", body: '{"result":"match"}' }],
    ["no answer within the timeout", { kind: "hang", ms: 2_500 }],
  ] as const)("lets nobody in when the service fails with %s, and shows no 5xx page and no detail", async (_what, behaviour) => {
    service.behaviour = behaviour;
    const { browser, page } = await openFaceLogin();
    const answer = await submitFrame(browser, page, dataUrl(jpeg()));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(UNAVAILABLE);
    expect(answer.text).not.toMatch(/face-engine|127\.0\.0\.1|HTTP 5|timed out|stack/);
    expect(answer.text).toContain('name="event" value="SUBMIT_FRAME"');
    expect(p.logs.filter((l) => l.event === "face_service_failed").at(-1)).toMatchObject({ sub: "E10001", reason: expect.any(String) });
  });

  it("does not send what is not a JPEG to the service, nor count it", async () => {
    const { browser, page } = await openFaceLogin();
    for (const image of [
      dataUrl(Buffer.from("GIF89a...")),
      dataUrl(jpeg(), "image/png"),
      "data:image/jpeg;base64,!!!!",
      "https://example.com/alice.jpg",
    ]) {
      const answer = await submitFrame(browser, page, image);
      expect(answer.text, image).toContain("No usable picture arrived.");
    }
    expect((await postStep(browser, page, { event: "SUBMIT_FRAME" })).text).toContain("No usable picture arrived.");
    expect(service.requests).toHaveLength(0);
    expect(await face().context.attempts.count("E10001")).toBe(0);
  });

  it("never asks the service about an unknown user, and shows the non-match page", async () => {
    service.behaviour = { kind: "answer", result: "no_match", key: "k" };
    const alice = await openFaceLogin();
    const aliceRefused = await submitFrame(alice.browser, alice.page, dataUrl(jpeg()));
    service.requests.length = 0;
    const stranger = await openFaceLogin("nobody-here");
    const refused = await submitFrame(stranger.browser, stranger.page, dataUrl(jpeg()));
    expect(normalisePage(refused.text)).toBe(normalisePage(aliceRefused.text));
    expect(service.requests).toHaveLength(0);
  });

  it("counts all of 20 concurrent frames, and a locked account's matching face gets the non-match page without the service being asked", async () => {
    service.behaviour = { kind: "answer", result: "no_match", key: "k" };
    const { browser, page } = await openFaceLogin();
    const answers = await Promise.all(Array.from({ length: 20 }, () => submitFrame(browser, page, dataUrl(jpeg()))));
    expect(answers.every((a) => a.text.includes(NOT_RECOGNISED))).toBe(true);
    expect(await face().context.attempts.count("E10001")).toBe(20);
    service.behaviour = { kind: "answer", result: "match", key: "k" };
    service.requests.length = 0;
    const locked = await submitFrame(browser, page, dataUrl(jpeg()));
    expect(normalisePage(locked.text)).toBe(normalisePage(answers[0]!.text));
    expect(service.requests).toHaveLength(0);
  });

  it("keeps the frame out of the persisted login state and the log", async () => {
    service.behaviour = { kind: "answer", result: "no_match", key: "k" };
    const frame = jpeg();
    const { browser, page } = await openFaceLogin();
    await submitFrame(browser, page, dataUrl(frame));
    const interaction = await p.provider.store.namespace<Interaction>("interactions").get(new URL(page.url).pathname.split("/").pop()!);
    const sample = frame.toString("base64").slice(8, 40);
    expect(JSON.stringify(interaction)).not.toContain(sample);
    expect(p.logText()).not.toContain(sample);
  });
});

describe("the face result", () => {
  it("is the method's output: {result, key, time} with time in Unix seconds, for the faceid claim", async () => {
    service.behaviour = { kind: "answer", result: "match", key: "svc-check-42" };
    const method = face();
    const actor = createActor(method.plugin.manifest.machines.login.provide({ actors: method.actors }), {
      input: { sub: "E10001" },
    }).start();
    const before = Math.floor(Date.now() / 1000);
    actor.send({ type: "SUBMIT_FRAME", image: dataUrl(jpeg()) });
    const output = (await toPromise(actor)) as { sub: string; faceid: { result: string; key: string; time: number } };
    expect(output).toEqual({ sub: "E10001", faceid: { result: "match", key: "svc-check-42", time: expect.any(Number) } });
    expect(output.faceid.time).toBeGreaterThanOrEqual(before);
    expect(output.faceid.time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(p.logs.filter((l) => l.event === "face_checked").at(-1)).toMatchObject({ sub: "E10001", result: "match", key: "svc-check-42" });
  });
});

describe("the face service setting", () => {
  it("has no default: a face method without a service does not start", async () => {
    const error = await startTestProvider({ edits: { "login.yaml": { "methods.face": {} } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toContainEqual(
      expect.objectContaining({ path: "methods.face.service", message: 'missing required key "service"' }),
    );
  });

  it("refuses plain http to a host that is not loopback", async () => {
    const error = await startTestProvider({
      edits: { "login.yaml": { "methods.face": { service: { kind: "http", url: "http://face.example.com/verify" } } } },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/methods\.face\.service\.url: must be an https URL/);
  });

  it("uses the development adapter only where config names it (the demo): any frame passes, and the start-up log says so", async () => {
    const demo = await startTestProvider({ edits: { "login.yaml": { "default_flow.methods": ["face"] } } });
    try {
      expect(demo.logs.filter((l) => l.event === "face_development_adapter")).toHaveLength(1);
      expect(p.logs.filter((l) => l.event === "face_development_adapter")).toHaveLength(0);
      const browser = new AddressedBrowser(nextAddress());
      const page = await openLoginPage(browser, authorizeUrl(demo.issuer, { login_hint: "alice" }));
      expect((await submitFrame(browser, page, dataUrl(jpeg()))).status).toBe(303);
    } finally {
      await demo.close();
    }
  });
});
