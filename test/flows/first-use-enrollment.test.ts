/**
 * The second-factor flow for a user the runtime already knows (a MyVendor login: input `sub` is the
 * vendor account its signature vouched for): no identification, and an account without an enrolled
 * method either enrolls one inside the login (`enrollOnFirstUse`) or is told to ask its administrator.
 * First over stand-ins, then with the real TOTP plugin on a real provider: the enrollment page's
 * secret, a code an app computes from it, and the record it leaves.
 */
import { flowServices } from "../../src/infra/live-services.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assign, fromPromise, setup, type AnyActorLogic } from "xstate";
import { ENROLLED_METHODS, enrollmentActorId } from "../../flows/first-use-enrollment.ts";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
import type { FlowMethod, LoginFlowInput } from "../../flows/login-flow-setup.ts";
import { takeSecretToShow } from "../../flows/methods/totp/pending-secrets.ts";
import { createSecondFactorFlow } from "../../flows/second-factor.flow.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { createLogger } from "../../src/logging/create-logger.ts";
import { createProvider, type Infra } from "../../src/provider.ts";
import { currentView, runFlowStep, type FlowEvent, type StepResult } from "../../src/runtime/flow-step.ts";
import { decoySub } from "../../src/runtime/identify-user.ts";
import { loginBuiltIns, runnable, toFlowMethods, type RunnableFlow } from "../../src/runtime/login-flows.ts";
import type { PluginContext } from "../../src/plugin-contract/factor-plugin.ts";
import type { TotpSettings } from "../../flows/methods/totp/totp-settings.ts";
import { copyConfig } from "../support/test-provider.ts";

/** Runs a flow through a list of events, one step each, persisting between steps as the runtime does. */
async function walk(flow: RunnableFlow, input: LoginFlowInput, events: FlowEvent[] = []): Promise<StepResult> {
  let step = await runFlowStep(flow, { input });
  for (const event of events) step = await runFlowStep(flow, { input, persisted: JSON.parse(JSON.stringify(step.persisted)), event });
  return step;
}
const where = (step: StepResult) => JSON.stringify(step.snapshot.value);

describe("second-factor flow for a known user (stand-ins)", () => {
  const enrolled = new Set<string>();
  const asked: string[] = [];
  const identified: string[] = [];
  /** Verifies the known user on PASS. */
  const verify = setup({ types: { input: {} as { sub?: string }, context: {} as { sub?: string } } }).createMachine({
    context: ({ input }) => ({ sub: input.sub }),
    initial: "waiting",
    states: { waiting: { meta: { view: "form" }, on: { PASS: "passed" } }, passed: { type: "final" } },
    output: ({ context }) => ({ sub: context.sub! }),
  });
  /** Enrolls the known user on CONFIRM (as the TOTP enrollment machine after a good first code). */
  const enroll = setup({ types: { input: {} as { sub?: string }, context: {} as { sub: string } } }).createMachine({
    context: ({ input }) => ({ sub: input.sub! }),
    initial: "awaitingCode",
    states: {
      awaitingCode: {
        meta: { view: "enroll" },
        on: {
          CONFIRM: {
            target: "enrolled",
            actions: assign(({ context }) => {
              enrolled.add(context.sub);
              return {};
            }),
          },
        },
      },
      enrolled: { type: "final" },
    },
  });
  const identify = setup({ types: { input: {} as { loginHint?: string } } }).createMachine({
    initial: "done",
    entry: ({ self }) => identified.push(self.id),
    states: { done: { type: "final" } },
    output: () => ({ sub: "decoy" }),
  });
  const METHODS: FlowMethod[] = [{ id: "totp", identifiesUser: false, class: "untrusted", enrollable: true }];
  const actors: Record<string, AnyActorLogic> = {
    [IDENTIFY_USER]: identify,
    totp: verify,
    [enrollmentActorId("totp")]: enroll,
    [ENROLLED_METHODS]: fromPromise<string[], { sub: string; methods: string[] }>(async ({ input }) => {
      asked.push(input.sub);
      return enrolled.has(input.sub) ? ["totp"] : [];
    }),
  };
  const flow: RunnableFlow = { id: "test", machine: createSecondFactorFlow(METHODS).provide({ actors }), hash: "h", methods: new Map() };
  const vendor = (account: string, enrollOnFirstUse?: boolean): LoginFlowInput => ({
    sub: `demo-vendor:${account}`,
    loginHint: `demo-vendor:${account}`,
    ...(enrollOnFirstUse !== undefined && { enrollOnFirstUse }),
  });

  it("does not identify a known user again, and verifies an enrolled one with its method", async () => {
    enrolled.add("demo-vendor:ops");
    identified.length = 0;
    expect(where(await walk(flow, vendor("ops")))).toBe('{"verifying":"totp"}');
    const done = await walk(flow, vendor("ops"), [{ type: "PASS" }]);
    expect(done.snapshot.output).toEqual({ sub: "demo-vendor:ops", methods: ["totp"] });
    expect(identified).toEqual([]);
  });

  it("enrolls an account without a method inside the login where the type allows it, and logs it in with that method", async () => {
    const start = await walk(flow, vendor("new", true));
    expect(where(start)).toBe('{"enrolling":"totp"}');
    // Shown as the method's own page: its views, routes and labels are the totp plugin's.
    expect(currentView(start)).toEqual({ owner: "totp", view: "enroll" });
    const done = await walk(flow, vendor("new", true), [{ type: "CONFIRM" }]);
    expect(done.snapshot.output).toEqual({ sub: "demo-vendor:new", methods: ["totp"] });
    expect(enrolled.has("demo-vendor:new")).toBe(true);
  });

  it("tells an account without a method to ask its administrator, and lets it try again once one is enrolled", async () => {
    const stuck = await walk(flow, vendor("lost", false));
    expect(where(stuck)).toBe('"noAuthenticator"');
    expect(currentView(stuck)).toEqual({ owner: "flow", view: "no-authenticator" });
    expect(where(await walk(flow, vendor("lost"), [{ type: "PASS" }, { type: "START_OVER" }]))).toBe('"noAuthenticator"');
    enrolled.add("demo-vendor:lost"); // the operator: portcullis methods enroll 'demo-vendor:lost' totp
    const retried = await walk(flow, vendor("lost"), [{ type: "START_OVER" }, { type: "PASS" }]);
    expect(retried.snapshot.output).toEqual({ sub: "demo-vendor:lost", methods: ["totp"] });
  });

  it("never tells a user named only by login_hint what they have enrolled (anyone can write a login_hint)", async () => {
    asked.length = 0;
    const step = await walk(flow, { loginHint: "mallory", enrollOnFirstUse: true });
    expect(where(step)).toBe('{"verifying":"totp"}');
    expect(step.snapshot.context.sub).toBe("decoy");
    expect(asked).toEqual([]);
  });
});

describe("first-use TOTP enrollment in a MyVendor login (the totp plugin on a real provider)", { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
  const configDir = copyConfig({ "provider.yaml": { data_dir: dataDir, "store.url": "embedded", "listen.port": 0 } });
  let provider: Infra;
  let flow: RunnableFlow;
  let totp: PluginContext<TotpSettings>;
  beforeAll(async () => {
    const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
    provider = await createProvider(await loadInstalledConfig(configDir), { logger: createLogger("error", quiet as never) });
    // What the runtime builds for login.yaml's MyVendor: the second-factor flow over its methods.
    const methods = new Map([["totp", provider.methods.get("totp")!]]);
    flow = runnable(
      "login.MyVendor",
      createSecondFactorFlow(toFlowMethods(methods)),
      methods,
      (m) => m.plugin.manifest.machines.login,
      loginBuiltIns(flowServices(provider), methods),
    );
    totp = methods.get("totp")!.context as unknown as PluginContext<TotpSettings>;
  });
  afterAll(async () => {
    await provider?.close();
    rmSync(configDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const input: LoginFlowInput = { sub: "demo-vendor:acme-support", loginHint: "demo-vendor:acme-support", enrollOnFirstUse: true };

  it("shows the new secret, records it when the first code is confirmed, logs the account in with totp, and verifies it next time", async () => {
    const page = await walk(flow, input);
    expect(where(page)).toBe('{"enrolling":"totp"}');
    expect(currentView(page)).toEqual({ owner: "totp", view: "enroll" });
    const shown = await takeSecretToShow(totp, page.method!.snapshot.context.displayHandle as string);
    expect(shown?.sub).toBe("demo-vendor:acme-support");

    const wrong = await runFlowStep(flow, { input, persisted: page.persisted, event: { type: "SUBMIT_CODE", code: "000000" } });
    expect(wrong.method?.snapshot.context.errorKey).toBe("method.totp.wrong");
    expect(await provider.enrollments.get("totp", "demo-vendor:acme-support")).toBeUndefined();

    const code = await generate({ secret: shown!.key.secret });
    const done = await runFlowStep(flow, { input, persisted: wrong.persisted, event: { type: "SUBMIT_CODE", code } });
    expect(done.snapshot.status).toBe("done");
    expect(done.snapshot.output).toEqual({ sub: "demo-vendor:acme-support", methods: ["totp"] });
    expect(await provider.enrollments.get("totp", "demo-vendor:acme-support")).toMatchObject({
      method: "totp",
      sub: "demo-vendor:acme-support",
    });

    // Enrolled now: the next login asks for a code, with no enrollment.
    expect(where(await walk(flow, input))).toBe('{"verifying":"totp"}');
  });

  it("never resolves a vendor login_hint without the runtime's sub: an Mfa-style login gets the decoy", async () => {
    const step = await walk(flow, { loginHint: "demo-vendor:acme-support" });
    expect(step.snapshot.context.sub).toBe(decoySub("demo-vendor:acme-support"));
    expect(where(step)).toBe('{"verifying":"totp"}');
  });

  it("without enroll_on_first_use, stops an account without TOTP at the no-authenticator page", async () => {
    const step = await walk(flow, { sub: "demo-vendor:night-shift", loginHint: "demo-vendor:night-shift" });
    expect(where(step)).toBe('"noAuthenticator"');
    expect(await provider.enrollments.get("totp", "demo-vendor:night-shift")).toBeUndefined();
  });
});
