import { generateKeyPairSync } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const issues = configIssues;

const SECRET = "sha256:6218e017da64a39cf2069bf0961b67c1f405cefd918b1b826b33d1a00b4f3d8c";
const yaml = (...lines: string[]) => `${lines.join("\n")}\n`;

describe("client rules", () => {
  it("rejects a duplicate client_id", async () => {
    const client = [
      "    type: confidential",
      `    client_secret_hash: ${SECRET}`,
      "    grant_types: [client_credentials]",
      "    allowed_scopes: [acme]",
    ];
    expect(await issues({ "clients.yaml": yaml("clients:", "  - client_id: app", ...client, "  - client_id: app", ...client) })).toEqual([
      'clients.yaml:7:16 clients[1].client_id: duplicate client_id "app" (first used by clients[0])',
    ]);
  });

  it("rejects a secret and secret-based grants on a public client", async () => {
    const lines = await issues({
      "clients.yaml": yaml(
        "clients:",
        "  - client_id: spa",
        "    type: public",
        `    client_secret_hash: ${SECRET}`,
        "    grant_types: [client_credentials, password]",
        "    allowed_scopes: [acme]",
      ),
    });
    expect(lines).toEqual([
      "clients.yaml:4:25 clients[0].client_secret_hash: a public client cannot keep a secret: remove it or make the client confidential",
      "clients.yaml:5:19 clients[0].grant_types[0]: a public client cannot use the client_credentials grant",
      "clients.yaml:5:39 clients[0].grant_types[1]: a public client cannot use the password grant",
    ]);
  });

  it("gives the admin API's scope only to a client with the client_credentials grant alone", async () => {
    const client = (id: string, grants: string) => [
      `  - client_id: ${id}`,
      "    type: confidential",
      `    client_secret_hash: ${SECRET}`,
      `    grant_types: [${grants}]`,
      "    redirect_uris: [https://app.example/callback]",
      '    allowed_scopes: [openid, "portcullis:admin"]',
    ];
    const lines = await issues({
      "clients.yaml": yaml("clients:", ...client("tool", "client_credentials"), ...client("web", "authorization_code, client_credentials")),
    });
    expect(lines).toEqual([
      "clients.yaml:13:30 clients[1].allowed_scopes[1]: portcullis:admin is for a client with the client_credentials grant alone (its grant_types: authorization_code, client_credentials)",
    ]);
  });

  it("needs a redirect URI for the authorization_code grant", async () => {
    expect(
      await issues({
        "clients.yaml": yaml(
          "clients:",
          "  - client_id: web",
          "    type: confidential",
          `    client_secret_hash: ${SECRET}`,
          "    grant_types: [authorization_code]",
          "    allowed_scopes: [openid]",
        ),
      }),
    ).toEqual(["clients.yaml:2:5 clients[0].redirect_uris: the authorization_code grant needs at least one redirect URI"]);
  });

  it("refuses redirect URIs of a signing client where one is a prefix of another (a MyVendor signature could not tell them apart)", async () => {
    const client = (key: string[]) => [
      "  - client_id: vendor",
      "    type: confidential",
      `    client_secret_hash: ${SECRET}`,
      "    grant_types: [authorization_code]",
      "    redirect_uris: [https://vendor.example/cb, https://vendor.example/cbv, https://vendor.example/other]",
      "    allowed_scopes: [openid]",
      ...key,
    ];
    const key = { "vendor-key": "vendor-signing-key-0123456789\n" };
    expect(await issues({ ...key, "clients.yaml": yaml("clients:", ...client(["    signing_key: ${file:vendor-key}"])) })).toEqual([
      'clients.yaml:6:21 clients[0].redirect_uris[0]: is a prefix of the redirect URI "https://vendor.example/cbv": a client with a signing_key cannot register both (docs/decisions.md, MyVendor)',
    ]);
    // Without a signing key nothing is signed: the same URIs are fine.
    await expect(loadInstalledConfig(await tempConfigDir({ "clients.yaml": yaml("clients:", ...client([])) }), {})).resolves.toBeDefined();
  });

  it("rejects a fragment in a post-logout redirect URI", async () => {
    const lines = await issues({
      "clients.yaml": yaml(
        "clients:",
        "  - client_id: web",
        "    type: confidential",
        `    client_secret_hash: ${SECRET}`,
        "    grant_types: [authorization_code]",
        "    redirect_uris: [http://localhost/cb]",
        '    post_logout_redirect_uris: ["http://localhost/#bye"]',
        "    allowed_scopes: [openid]",
      ),
    });
    expect(lines).toEqual([
      'clients.yaml:7:33 clients[0].post_logout_redirect_uris[0]: must not contain a fragment (got "http://localhost/#bye")',
    ]);
  });

  it("ties offline_access in allowed_scopes, offline_access: true and the refresh_token grant together", async () => {
    const head = [
      "clients:",
      "  - client_id: web",
      "    type: confidential",
      `    client_secret_hash: ${SECRET}`,
      "    redirect_uris: [http://localhost/cb]",
    ];
    expect(
      await issues({
        "clients.yaml": yaml(
          ...head,
          "    grant_types: [authorization_code, refresh_token]",
          "    allowed_scopes: [openid, offline_access]",
        ),
      }),
    ).toEqual([
      "clients.yaml:6:39 clients[0].grant_types[1]: the refresh_token grant needs offline_access: true",
      "clients.yaml:7:30 clients[0].allowed_scopes[1]: offline_access is allowed but the client does not set offline_access: true",
    ]);
    expect(
      await issues({
        "clients.yaml": yaml(...head, "    grant_types: [authorization_code]", "    allowed_scopes: [openid]", "    offline_access: true"),
      }),
    ).toEqual(['clients.yaml:8:21 clients[0].offline_access: offline_access: true needs "offline_access" in allowed_scopes']);
  });
});

describe("scope rules", () => {
  it("rejects duplicate scope names across identity and API scopes, and a declared offline_access", async () => {
    const lines = await issues({
      "scopes.yaml": yaml(
        "identity_scopes:",
        "  - name: openid",
        "    claims: [sub]",
        "  - name: offline_access",
        "    claims: []",
        "api_resources:",
        "  - name: api",
        "    scopes:",
        "      - name: openid",
        "  - name: api",
        "    scopes:",
        "      - name: other",
      ),
      "clients.yaml": yaml("clients: []"),
    });
    expect(lines).toEqual([
      "scopes.yaml:4:11 identity_scopes[1].name: offline_access is built in: do not declare it",
      'scopes.yaml:9:15 api_resources[0].scopes[0].name: duplicate scope name "openid" (first declared at identity_scopes[0])',
      'scopes.yaml:10:11 api_resources[1].name: duplicate API resource name "api" (first used by api_resources[0])',
    ]);
  });
});

describe("user rules", () => {
  it("rejects usernames equal but for case, and duplicate subs", async () => {
    const lines = await issues({
      "users.yaml": yaml(
        "users:",
        "  - username: Alice",
        "    sub: E1",
        "    claims: {}",
        "  - username: alice",
        "    sub: E1",
        "    claims: {}",
      ),
      // The demo's channels name the demo's users, who are gone from this file.
      "channels.yaml": null,
    });
    expect(lines).toEqual([
      'users.yaml:5:15 users[1].username: duplicate username (same as users[0], ignoring case) (got "alice")',
      'users.yaml:6:10 users[1].sub: duplicate sub "E1" (first used by users[0])',
    ]);
  });
});

describe("provider rules", () => {
  const pem = (modulusLength: number) =>
    generateKeyPairSync("rsa", { modulusLength }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const provider = (...keys: string[]) => yaml("issuer: http://localhost:3000", "keys:", "  static:", ...keys);

  it("checks kids, the single current key and the key material", async () => {
    const lines = await issues({
      "provider.yaml": provider(
        "    - kid: k1",
        "      status: current",
        "      private_key_pem: ${file:k1.pem}",
        "    - kid: k1",
        "      status: current",
        "      private_key_pem: ${file:small.pem}",
        "    - kid: k3",
        "      status: next",
        "      private_key_pem: ${file:ec.pem}",
        "      alg: RS256",
        "    - kid: k4",
        "      status: retired",
        "      private_key_pem: ${file:bad.pem}",
      ),
      "bad.pem": "not a pem",
      "k1.pem": pem(2048),
      "small.pem": pem(1024),
      "ec.pem": generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    });
    expect(lines).toEqual([
      'provider.yaml:7:12 keys.static[1].kid: duplicate kid "k1" (first used by keys.static[0])',
      "provider.yaml:8:15 keys.static[1].status: exactly one RS256 key must have status current (keys.static[0] already is)",
      "provider.yaml:9:24 keys.static[1].private_key_pem: RSA key is 1024 bits; at least 2048 are required",
      "provider.yaml:13:12 keys.static[2].alg: does not fit the key: the PEM is an EC P-256 key, which signs ES256, not RS256",
      "provider.yaml:16:24 keys.static[3].private_key_pem: must be an unencrypted PKCS#8 PEM (-----BEGIN PRIVATE KEY-----); convert with `openssl pkcs8 -topk8 -nocrypt`",
    ]);
  });

  it("takes one current key per algorithm, refuses a second, an EC curve but P-256, and an RSA key declared ES256", async () => {
    const ec = (namedCurve: string) =>
      generateKeyPairSync("ec", { namedCurve }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const lines = await issues({
      "provider.yaml": provider(
        "    - kid: rs",
        "      status: current",
        "      private_key_pem: ${file:rs.pem}",
        "    - kid: ps",
        "      status: current",
        "      alg: PS256",
        "      private_key_pem: ${file:rs.pem}",
        "    - kid: es",
        "      status: current",
        "      private_key_pem: ${file:p256.pem}",
        "    - kid: es2",
        "      status: current",
        "      alg: ES256",
        "      private_key_pem: ${file:p256.pem}",
        "    - kid: p384",
        "      status: next",
        "      private_key_pem: ${file:p384.pem}",
        "    - kid: rs-es",
        "      status: next",
        "      alg: ES256",
        "      private_key_pem: ${file:rs.pem}",
      ),
      "rs.pem": pem(2048),
      "p256.pem": ec("P-256"),
      "p384.pem": ec("P-384"),
    });
    expect(lines).toEqual([
      "provider.yaml:15:15 keys.static[3].status: exactly one ES256 key must have status current (keys.static[2] already is)",
      "provider.yaml:20:24 keys.static[4].private_key_pem: is an EC key on secp384r1; only P-256 (ES256) is supported",
      "provider.yaml:23:12 keys.static[5].alg: does not fit the key: the PEM is an RSA key, which signs RS256 or PS256, not ES256",
    ]);
  });

  it("refuses a client's signing algorithm that no current static key signs, naming the client's key", async () => {
    const lines = await issues({
      "provider.yaml": provider("    - kid: k1", "      status: current", "      private_key_pem: ${file:k1.pem}"),
      "k1.pem": pem(2048),
      "clients.yaml": yaml(
        "clients:",
        "  - client_id: fapi",
        "    type: confidential",
        `    client_secret_hash: ${SECRET}`,
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
        "    access_token_signed_response_alg: ES256",
      ),
    });
    expect(lines).toEqual([
      "clients.yaml:7:39 clients[0].access_token_signed_response_alg: ES256 has no current key in provider.yaml keys.static (add one, or choose RS256)",
    ]);
  });

  it("accepts one current RSA-2048 key from a file", async () => {
    const dir = await tempConfigDir({
      "provider.yaml": provider("    - kid: k1", "      status: current", "      private_key_pem: ${file:k1.pem}"),
      "k1.pem": pem(2048),
    });
    const config = await loadInstalledConfig(dir, {});
    expect(config.provider.keys.static?.[0]?.private_key_pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("needs a current key when static keys are given", async () => {
    expect(
      await issues({ "provider.yaml": provider("    - kid: k1", "      status: next", "      private_key_pem: ${env:NOT_SET}") }),
    ).toEqual(["provider.yaml:6:24 keys.static[0].private_key_pem: environment variable NOT_SET is not set (in ${env:NOT_SET})"]);
  });
});
