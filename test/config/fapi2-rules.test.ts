import { generateKeyPairSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { ClientRegistry } from "../../src/oauth/client-registry.ts";
import { configIssues, DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

/** clients.yaml's `profile: fapi2` (src/config/fapi2-profile.ts, src/config/fapi2-rules.ts): what it sets, and every contradiction named at its line. */
afterAll(removeTempConfigDirs);

const jwk = JSON.stringify({ ...generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ format: "jwk" }), kid: "k1" });
/** A FAPI 2.0 client: line 2 is `- client_id`, the extra lines start at line 9. */
const fapi2 = (...lines: string[]) => ({
  "clients.yaml": `${[
    "clients:",
    "  - client_id: bank",
    "    profile: fapi2",
    "    grant_types: [authorization_code, refresh_token]",
    "    redirect_uris: [https://bank.example/cb]",
    "    allowed_scopes: [openid, offline_access]",
    "    offline_access: true",
    `    jwks: { keys: [${jwk}] }`,
    ...lines,
  ].join("\n")}\n`,
});
const loads = async (files: Record<string, string>) => {
  const config = await loadInstalledConfig(await tempConfigDir(files), {});
  return { entry: config.clients.clients[0]!, client: new ClientRegistry(config.clients.clients, config.provider.lifetimes).get("bank")! };
};

describe("profile: fapi2 sets", () => {
  it("every FAPI 2.0 setting the client leaves out, and what the profile changes beyond them", async () => {
    const { entry, client } = await loads(fapi2());
    expect(entry).toMatchObject({
      type: "confidential",
      token_endpoint_auth_method: "private_key_jwt",
      require_pushed_authorization_requests: true,
      require_pkce: true,
      allow_plain_pkce: false,
      require_dpop: true,
      id_token_signed_response_alg: "PS256",
      access_token_signed_response_alg: "PS256",
      lifetimes: { authorization_code: "60s" },
    });
    expect(client.lifetimes.authorizationCode).toBe(60);
    expect([...client.authMethods]).toEqual(["private_key_jwt"]);
    expect(client.assertionAlgorithms).toEqual(["PS256", "ES256"]);
    expect(client.dpopAlgorithms).toEqual(["ES256", "PS256", "EdDSA"]);
    expect(client.rotatesRefreshTokens).toBe(false);
  });

  it("keeps the values a FAPI 2.0 client may choose: ES256, a shorter code, the profile's own values written out, client_credentials", async () => {
    const { entry, client } = await loads({
      "clients.yaml": fapi2(
        "    id_token_signed_response_alg: ES256",
        "    access_token_signed_response_alg: ES256",
        "    lifetimes: { authorization_code: 30s, access_token: 5m }",
        "    require_dpop: true",
        "    type: confidential",
      )["clients.yaml"].replace("[authorization_code, refresh_token]", "[authorization_code, refresh_token, client_credentials]"),
    });
    expect(entry.id_token_signed_response_alg).toBe("ES256");
    expect(client.lifetimes).toMatchObject({ authorizationCode: 30, accessToken: 300 });
    expect(client.grantTypes.has("client_credentials")).toBe(true);
  });

  it("changes nothing for a client without the profile", async () => {
    const config = await loadInstalledConfig(await tempConfigDir(), {});
    const web = new ClientRegistry(config.clients.clients, config.provider.lifetimes).get("demo-web")!;
    expect(web).toMatchObject({ requireDpop: false, requirePushedRequests: false, idTokenAlg: "RS256", rotatesRefreshTokens: true });
    expect(web.assertionAlgorithms).toContain("RS256");
  });
});

describe("check-config refuses a fapi2 client that contradicts the profile", () => {
  it("names each contradicting key at its line with the FAPI 2.0 reason", async () => {
    const lines = await configIssues(
      fapi2(
        "    require_dpop: false",
        "    require_pushed_authorization_requests: false",
        "    require_pkce: false",
        "    allow_plain_pkce: true",
        "    id_token_signed_response_alg: RS256",
        "    access_token_signed_response_alg: RS256",
        "    lifetimes: { authorization_code: 5m }",
      ),
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^clients\.yaml:9:\d+ clients\[0\]\.require_dpop: profile fapi2 does not allow require_dpop: false: .*sender-constrained.*DPoP/,
      ),
      expect.stringMatching(
        /^clients\.yaml:10:\d+ clients\[0\]\.require_pushed_authorization_requests: profile fapi2 does not allow .*pushed authorization request \(§5\.3\.2\.2\)$/,
      ),
      expect.stringMatching(/^clients\.yaml:11:\d+ clients\[0\]\.require_pkce: profile fapi2 does not allow require_pkce: false: .*PKCE/),
      expect.stringMatching(
        /^clients\.yaml:12:\d+ clients\[0\]\.allow_plain_pkce: profile fapi2 does not allow allow_plain_pkce: true: .*S256/,
      ),
      expect.stringMatching(/^clients\.yaml:13:\d+ clients\[0\]\.id_token_signed_response_alg: .*RS256: .*never RS256 \(§5\.4\)$/),
      expect.stringMatching(/^clients\.yaml:14:\d+ clients\[0\]\.access_token_signed_response_alg: .*RS256: .*never RS256/),
      expect.stringMatching(/^clients\.yaml:15:\d+ clients\[0\]\.lifetimes\.authorization_code: .*at most 60s/),
    ]);
  });

  it("refuses a public client, a secret method, the password grant, an http redirect off this machine and an RS256-only key", async () => {
    const base = fapi2("    type: public", "    token_endpoint_auth_method: client_secret_basic")
      ["clients.yaml"].replace("[authorization_code, refresh_token]", "[authorization_code, password]")
      .replace("[https://bank.example/cb]", "[https://bank.example/cb, http://bank.example/cb]")
      .replace('"kid":"k1"', '"kid":"k1","alg":"RS256"');
    const lines = await configIssues({ "clients.yaml": base });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^clients\.yaml:4:\d+ clients\[0\]\.grant_types\[1\]: profile fapi2 does not allow the password grant/),
        expect.stringMatching(/^clients\.yaml:5:\d+ clients\[0\]\.redirect_uris\[1\]: profile fapi2 needs https redirect URIs/),
        expect.stringMatching(
          /^clients\.yaml:8:\d+ clients\[0\]\.jwks\.keys\[0\]\.alg: profile fapi2 accepts client assertions signed PS256 or ES256 only/,
        ),
        expect.stringMatching(
          /^clients\.yaml:9:\d+ clients\[0\]\.type: profile fapi2 does not allow type: public: FAPI 2.0 admits only confidential clients/,
        ),
        expect.stringMatching(
          /^clients\.yaml:10:\d+ clients\[0\]\.token_endpoint_auth_method: profile fapi2 does not allow token_endpoint_auth_method: client_secret_basic: .*never a secret.*no mTLS/,
        ),
      ]),
    );
  });

  it("refuses a request_uri lifetime over 600s in provider.yaml while a fapi2 client exists", async () => {
    const provider = (await readFile(`${DEMO_CONFIG_DIR}/provider.yaml`, "utf8")).replace(
      /^lifetimes:\n/m,
      "lifetimes:\n  pushed_authorization_request: 11m\n",
    );
    const lines = await configIssues({ ...fapi2(), "provider.yaml": provider });
    expect(lines).toEqual([
      expect.stringMatching(
        /^provider\.yaml:\d+:\d+ lifetimes\.pushed_authorization_request: bank has profile fapi2, whose request_uri may live at most 600s/,
      ),
    ]);
    expect(await loadInstalledConfig(await tempConfigDir({ "provider.yaml": provider }), {})).toBeDefined();
  });

  it("accepts an http redirect URI on a loopback host (tests and demos on one machine)", async () => {
    const { client } = await loads({
      "clients.yaml": fapi2()["clients.yaml"].replace("[https://bank.example/cb]", "[http://127.0.0.1:4000/cb]"),
    });
    expect([...client.redirectUris]).toEqual(["http://127.0.0.1:4000/cb"]);
  });
});
