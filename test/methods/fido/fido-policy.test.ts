import { pluginServices } from "../../../src/infra/live-services.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors/config-error.ts";
import type { PluginContext } from "../../../src/plugin-contract/factor-plugin.ts";
import { startAuthentication, verifyAuthentication, type AuthenticationDeps } from "../../../flows/methods/fido/authentication.ts";
import { DecoyCredentials } from "../../../flows/methods/fido/decoy-credentials.ts";
import { FidoChallenges } from "../../../flows/methods/fido/fido-challenges.ts";
import { relyingParty, type FidoSettings } from "../../../flows/methods/fido/fido-settings.ts";
import { startRegistration, verifyRegistration } from "../../../flows/methods/fido/registration.ts";
import { SoftwareAuthenticator, type CreationOptionsJson, type RequestOptionsJson } from "../../support/software-authenticator.ts";
import { extraUsers } from "../../support/method-pages.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** The FIDO2 settings: the relying party they describe, and the user-verification policy as enforced. */
describe("the FIDO2 relying party", () => {
  const settings = (extra: Partial<FidoSettings> = {}): FidoSettings => ({
    rp_name: "Portcullis",
    user_verification: "preferred",
    timeout: "2m",
    ...extra,
  });

  it("defaults the RP id and origin to the issuer's host and origin", () => {
    expect(relyingParty(settings(), "http://localhost:3000")).toEqual({
      id: "localhost",
      name: "Portcullis",
      origins: ["http://localhost:3000"],
      userVerification: "preferred",
      timeoutMs: 120_000,
    });
    expect(relyingParty(settings(), "https://sso.example.com/base")).toMatchObject({
      id: "sso.example.com",
      origins: ["https://sso.example.com"],
    });
  });

  it("takes a parent domain as RP id, for origins on its subdomains", () => {
    const rp = relyingParty(
      settings({ rp_id: "example.com", origins: ["https://sso.example.com", "https://login.example.com:8443"] }),
      "https://sso.example.com",
    );
    expect(rp).toMatchObject({ id: "example.com", origins: ["https://sso.example.com", "https://login.example.com:8443"] });
  });

  it("refuses an RP id that no origin can use, as a config error naming the key", () => {
    expect(() => relyingParty(settings({ rp_id: "example.com" }), "http://localhost:3000")).toThrow(ConfigError);
    expect(() => relyingParty(settings({ rp_id: "ample.com", origins: ["https://example.com"] }), "https://example.com")).toThrow(
      /methods\.fido\.rp_id: the RP id "ample\.com" is neither the host of https:\/\/example\.com nor a parent domain of it/,
    );
  });

  it("stops a provider from starting with such a configuration", async () => {
    await expect(startTestProvider({ edits: { "login.yaml": { "methods.fido.rp_id": "example.com" } } })).rejects.toThrow(
      /methods\.fido\.rp_id/,
    );
  });

  it("refuses malformed settings through the plugin's schema", async () => {
    await expect(startTestProvider({ edits: { "login.yaml": { "methods.fido.user_verification": "sometimes" } } })).rejects.toThrow(
      ConfigError,
    );
    await expect(startTestProvider({ edits: { "login.yaml": { "methods.fido.origins": ["https://example.com/path"] } } })).rejects.toThrow(
      ConfigError,
    );
  });
});

describe("the user-verification policy", () => {
  let p: TestProvider;
  let context: PluginContext<FidoSettings>;
  beforeAll(async () => {
    p = await startTestProvider({
      edits: { "users.yaml": extraUsers(["carol", "dave", "erin"]), "login.yaml": { "methods.fido.user_verification": "required" } },
    });
    context = p.provider.methods.get("fido")!.context as unknown as PluginContext<FidoSettings>;
  });
  afterAll(() => p.close());

  const deps = (): AuthenticationDeps => ({
    context,
    rp: relyingParty(context.settings, p.issuer),
    decoys: new DecoyCredentials(pluginServices(p.provider)),
  });
  const subOf = (username: string) => p.provider.policies.current().config.users.users.find((u) => u.username === username)!.sub;

  async function register(sub: string, key: SoftwareAuthenticator, userVerified?: boolean): Promise<boolean> {
    const handle = await startRegistration(deps(), sub);
    const options = (await new FidoChallenges(context).find(handle))!.options as CreationOptionsJson & {
      authenticatorSelection: { userVerification: string };
    };
    expect(options.authenticatorSelection.userVerification).toBe("required");
    return verifyRegistration(
      deps(),
      sub,
      handle,
      JSON.stringify(key.register(options, userVerified === undefined ? {} : { userVerified })),
    );
  }

  async function logIn(sub: string, key: SoftwareAuthenticator, userVerified: boolean): Promise<boolean> {
    const handle = await startAuthentication(deps(), sub);
    const options = (await new FidoChallenges(context).find(handle))!.options as RequestOptionsJson & { userVerification: string };
    expect(options.userVerification).toBe("required");
    return verifyAuthentication(deps(), sub, handle, JSON.stringify(key.authenticate(options, { userVerified })));
  }

  it("required: refuses a registration without user verification", async () => {
    expect(await register(subOf("carol"), new SoftwareAuthenticator(p.url), false)).toBe(false);
    expect(await register(subOf("carol"), new SoftwareAuthenticator(p.url), true)).toBe(true);
  });

  it("required: refuses an assertion of presence only, accepts a verified one", async () => {
    const key = new SoftwareAuthenticator(p.url);
    expect(await register(subOf("dave"), key)).toBe(true);
    expect(await logIn(subOf("dave"), key, false)).toBe(false);
    expect(await logIn(subOf("dave"), key, true)).toBe(true);
  });

  it("preferred or discouraged: presence is enough", async () => {
    const key = new SoftwareAuthenticator(p.url);
    expect(await register(subOf("erin"), key)).toBe(true);
    for (const policy of ["preferred", "discouraged"] as const) {
      const relaxed = { ...deps(), rp: { ...deps().rp, userVerification: policy } };
      const handle = await startAuthentication(relaxed, subOf("erin"));
      const options = (await new FidoChallenges(context).find(handle))!.options as RequestOptionsJson;
      expect(
        await verifyAuthentication(relaxed, subOf("erin"), handle, JSON.stringify(key.authenticate(options, { userVerified: false }))),
        policy,
      ).toBe(true);
    }
  });
});
