import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createActor, waitFor, type AnyActorRef } from "xstate";
import { parse } from "yaml";
import type { MethodInput } from "../../../src/plugin-contract/factor-plugin.ts";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import type { TestProvider } from "../../support/test-provider.ts";
import { providerWithPhone } from "../../trusted-app/trusted-app-support.ts";

/**
 * acr_values app_gps / app_faceid through the qrcode method: the login wants the app's evidence
 * (MethodInput.app, as the login plan will pass it), the QR code asks the app for it, the reference app
 * signs what its sensors read into the scan (real HTTP to the device API), and the provider checks it.
 * The method machine runs with the plugin's own actors against a running provider; the page's long-poll
 * is read over HTTP as the page script does.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

const HERE = { gps: { lat: 25.03, lnt: 121.56 }, faceid: "pass" as const };

/** The qrcode machine for a login wanting `app`, waiting for a scan: the actor and its QR code's URI. */
async function qrLogin(app?: MethodInput["app"]): Promise<{ actor: AnyActorRef; uri: string }> {
  const qrcode = p.provider.methods.get("qrcode")!;
  const machine = qrcode.plugin.manifest.machines.login.provide({ actors: qrcode.plugin.actors(qrcode.context) });
  const actor = createActor(machine, { input: { app } }).start();
  return { actor, uri: await pendingUri(actor) };
}

async function pendingUri(actor: AnyActorRef): Promise<string> {
  const snapshot = await waitFor(actor, (s) => s.matches("awaitingScan"), { timeout: 10_000 });
  const res = await fetch(`${p.url}/methods/qrcode/challenges/${snapshot.context.challengeId}`);
  return ((await res.json()) as { uri: string }).uri;
}

/** The page's CHECK, and where the machine settles. */
async function check(actor: AnyActorRef) {
  actor.send({ type: "CHECK" });
  return waitFor(actor, (s) => !s.matches("checking") && !s.matches("creating"), { timeout: 10_000 });
}

describe("qrcode login with acr_values app_gps and app_faceid", () => {
  it("asks the app for location and face check, and outputs them as the login's evidence", async () => {
    const { actor, uri } = await qrLogin({ gps: true, faceid: true });
    expect(new URL(uri).searchParams.get("req")).toBe("gps,faceid");
    const before = Math.floor(Date.now() / 1000);
    await phone.scan(uri, HERE);
    const approval = await check(actor);
    expect(approval.value).toBe("awaitingApproval");
    await phone.approve(approval.context.number);
    const done = await check(actor);
    expect(done.status).toBe("done");
    const output = done.output as {
      sub: string;
      gps: { lat: number; lnt: number; time: number };
      faceid: { result: string; key: string; time: number };
    };
    expect(output).toMatchObject({ sub: "E10001", gps: { lat: 25.03, lnt: 121.56 }, faceid: { result: "pass" } });
    expect(output.gps.time).toBeGreaterThanOrEqual(before);
    expect(output.faceid.time).toBeGreaterThanOrEqual(before);
    expect(output.faceid.key).toMatch(/^face-/);
    expect(Object.keys(output).sort()).toEqual(["faceid", "gps", "sub"]);
  });

  it("refuses a scan without the location, tells the page why, and shows a new QR code", async () => {
    const { actor, uri } = await qrLogin({ gps: true, faceid: true });
    await expect(phone.scan(uri, { faceid: "pass" })).rejects.toMatchObject({
      status: 400,
      error: "access_denied",
      description: "the location (gps) is required",
    });
    const again = await check(actor);
    expect(again.value).toBe("awaitingScan");
    expect(again.context.errorKey).toBe("method.qrcode.refused_gps");
    const next = await pendingUri(actor);
    expect(next).not.toBe(uri);
    // The refused QR code is spent.
    await expect(phone.scan(uri, HERE)).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
    actor.stop();
  });

  it("refuses a face check that did not pass", async () => {
    const { actor, uri } = await qrLogin({ gps: false, faceid: true });
    expect(new URL(uri).searchParams.get("req")).toBe("faceid");
    await expect(phone.scan(uri, { ...HERE, faceid: "fail" })).rejects.toMatchObject({
      status: 400,
      error: "access_denied",
      description: "face recognition did not pass",
    });
    expect((await check(actor)).context.errorKey).toBe("method.qrcode.refused_faceid");
    actor.stop();
  });

  it("asks for nothing and outputs only the user when the login wants no evidence", async () => {
    const { actor, uri } = await qrLogin();
    expect(new URL(uri).searchParams.has("req")).toBe(false);
    await phone.scan(uri, HERE);
    await phone.approve((await check(actor)).context.number);
    expect((await check(actor)).output).toEqual({ sub: "E10001" });
  });

  it("says why in every UI language", () => {
    for (const lang of ["cn", "tw", "en", "jp", "vn"]) {
      const strings = parse(readFileSync(new URL(`../../../flows/methods/qrcode/i18n/${lang}.yaml`, import.meta.url), "utf8")) as Record<
        string,
        string
      >;
      for (const key of ["refused_gps", "refused_faceid", "wants_evidence"]) expect(strings[key], `${lang} ${key}`).toMatch(/\S/);
    }
  });
});
