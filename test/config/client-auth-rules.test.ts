import { generateKeyPairSync } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

/** clients.yaml's rules on how a client authenticates (src/config/client-auth-rules.ts): each mistake named at its key. */
afterAll(removeTempConfigDirs);

const OLD = "sha256:6218e017da64a39cf2069bf0961b67c1f405cefd918b1b826b33d1a00b4f3d8c";
const NEW = "sha256:65fe1594b4211b5955cfca1e543e5825eae1debb9af13905e3422399eaa87979";
const clients = (...lines: string[]) => ({
  "clients.yaml": `${["clients:", "  - client_id: app", "    grant_types: [client_credentials]", "    allowed_scopes: [acme]", ...lines].join("\n")}\n`,
});
/** The config loads: resolves to the loaded client. */
const loads = async (files: Record<string, string>) => (await loadInstalledConfig(await tempConfigDir(files), {})).clients.clients[0];
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const publicJwk = JSON.stringify({ ...rsa.publicKey.export({ format: "jwk" }), kid: "k1" });
const privateJwk = JSON.stringify({ ...rsa.privateKey.export({ format: "jwk" }), kid: "k1" });
const smallJwk = JSON.stringify(generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "jwk" }));

describe("token_endpoint_auth_method", () => {
  it("accepts a private_key_jwt client with inline public keys, and one with an https or loopback jwks_uri", async () => {
    const inline = await loads(
      clients("    type: confidential", "    token_endpoint_auth_method: private_key_jwt", `    jwks: { keys: [${publicJwk}] }`),
    );
    expect(inline?.jwks?.keys).toHaveLength(1);
    for (const uri of ["https://app.example/jwks", "http://127.0.0.1:8080/jwks", "http://localhost/jwks"]) {
      expect(
        (await loads(clients("    type: confidential", "    token_endpoint_auth_method: private_key_jwt", `    jwks_uri: ${uri}`)))
          ?.jwks_uri,
      ).toBe(uri);
    }
  });

  it("refuses a private key in jwks, naming the private member, and a key too weak to sign", async () => {
    const lines = await configIssues(
      clients(
        "    type: confidential",
        "    token_endpoint_auth_method: private_key_jwt",
        `    jwks: { keys: [${privateJwk}, ${smallJwk}] }`,
      ),
    );
    expect(lines).toEqual([
      expect.stringMatching(/^clients\.yaml:7:\d+ clients\[0\]\.jwks\.keys\[0\]\.d: is a private key member: give only the public key/),
      expect.stringMatching(/^clients\.yaml:7:\d+ clients\[0\]\.jwks\.keys\[1\]: is an RSA key under 2048 bits$/),
      expect.stringMatching(/^clients\.yaml:7:\d+ clients\[0\]\.jwks\.keys\[1\]: several keys need a kid each/),
    ]);
    // The private key's parts are never echoed.
    expect(lines.join("\n")).not.toContain(String((rsa.privateKey.export({ format: "jwk" }) as { d: string }).d));
  });

  it("refuses both jwks and jwks_uri, neither, a secret beside them, and a plain-http jwks_uri off this machine", async () => {
    expect(
      await configIssues(
        clients(
          "    type: confidential",
          "    token_endpoint_auth_method: private_key_jwt",
          `    client_secret_hash: ${OLD}`,
          `    jwks: { keys: [${publicJwk}] }`,
          "    jwks_uri: http://keys.example/jwks",
        ),
      ),
    ).toEqual([
      "clients.yaml:7:25 clients[0].client_secret_hash: a private_key_jwt client gets no secret: it proves itself with its key (remove the secret)",
      "clients.yaml:9:15 clients[0].jwks_uri: give the keys once: jwks or jwks_uri, not both",
      "clients.yaml:9:15 clients[0].jwks_uri: must be https (plain http only for a loopback host such as 127.0.0.1)",
    ]);
    expect(await configIssues(clients("    type: confidential", "    token_endpoint_auth_method: private_key_jwt"))).toEqual([
      "clients.yaml:6:33 clients[0].token_endpoint_auth_method: private_key_jwt needs the client's public keys: jwks or jwks_uri",
    ]);
  });

  it("refuses keys without private_key_jwt, none for a confidential client and a secret method for a public one", async () => {
    expect(
      await configIssues(clients("    type: confidential", `    client_secret_hash: ${OLD}`, "    jwks_uri: https://app.example/jwks")),
    ).toEqual(["clients.yaml:7:15 clients[0].jwks_uri: jwks_uri is for token_endpoint_auth_method: private_key_jwt"]);
    expect(
      await configIssues(clients("    type: confidential", `    client_secret_hash: ${OLD}`, "    token_endpoint_auth_method: none")),
    ).toEqual([
      "clients.yaml:7:33 clients[0].token_endpoint_auth_method: none is for a public client: a confidential client authenticates",
    ]);
    const publicClient = {
      "clients.yaml":
        "clients:\n  - client_id: spa\n    type: public\n    token_endpoint_auth_method: client_secret_basic\n    grant_types: [authorization_code]\n    redirect_uris: [https://spa.example/cb]\n    allowed_scopes: [openid]\n",
    };
    expect(await configIssues(publicClient)).toEqual([
      "clients.yaml:4:33 clients[0].token_endpoint_auth_method: a public client cannot use client_secret_basic: it has no credential (omit the key, or use none)",
    ]);
  });
});

describe("client_secrets (a rotation)", () => {
  it("accepts an old secret with an expiry beside a new one without", async () => {
    const client = await loads(
      clients(
        "    type: confidential",
        "    client_secrets:",
        `      - { hash: ${OLD}, expires: "2030-01-01T00:00:00Z" }`,
        `      - { hash: ${NEW} }`,
      ),
    );
    expect(client?.client_secrets).toEqual([{ hash: OLD, expires: "2030-01-01T00:00:00Z" }, { hash: NEW }]);
  });

  it("refuses client_secrets beside client_secret_hash, the same secret twice, two secrets that never expire, a third, and a date without its offset", async () => {
    expect(
      await configIssues(
        clients(
          "    type: confidential",
          `    client_secret_hash: ${NEW}`,
          "    client_secrets:",
          `      - { hash: ${OLD} }`,
          `      - { hash: ${OLD} }`,
        ),
      ),
    ).toEqual([
      "clients.yaml:6:25 clients[0].client_secret_hash: give client_secret_hash or client_secrets, not both (move the hash into client_secrets)",
      "clients.yaml:8:7 clients[0].client_secrets: of two secrets the old one needs an expires: a rotation ends",
      "clients.yaml:9:17 clients[0].client_secrets[1].hash: is the same secret as client_secrets[0]",
    ]);
    const three = await configIssues(
      clients(
        "    type: confidential",
        "    client_secrets:",
        `      - { hash: ${OLD} }`,
        `      - { hash: ${NEW} }`,
        `      - { hash: ${NEW} }`,
      ),
    );
    expect(three).toEqual(["clients.yaml:7:7 clients[0].client_secrets: must NOT have more than 2 items (got a list)"]);
    const local = await configIssues(
      clients("    type: confidential", "    client_secrets:", `      - { hash: ${OLD}, expires: "2030-01-01T00:00:00" }`),
    );
    expect(local).toEqual([
      'clients.yaml:7:99 clients[0].client_secrets[0].expires: must be a valid date-time (got "2030-01-01T00:00:00")',
    ]);
  });

  it("refuses a confidential client without any secret, and a public client with client_secrets", async () => {
    expect(await configIssues(clients("    type: confidential"))).toEqual([
      "clients.yaml:2:5 clients[0].client_secret_hash: a confidential client needs a secret hash (print one with `portcullis hash-secret`)",
    ]);
  });
});

describe("an API resource's keys (scopes.yaml)", () => {
  const scopesWith = (...lines: string[]) => ({
    "scopes.yaml": `${[
      "identity_scopes:",
      "  - { name: openid, claims: [sub] }",
      "  - { name: profile, claims: [name] }",
      "  - { name: email, claims: [email] }",
      "api_resources:",
      "  - name: acme-api",
      "    scopes: [{ name: acme }, { name: acme.api.msg }, { name: acme.ext.custom_scan }, { name: channel.login.scan }, { name: channel.directory }, { name: portcullis:admin }]",
      ...lines,
    ].join("\n")}\n`,
  });

  it("refuses keys beside an ApiSecret, a private key, and a plain-http jwks_uri off this machine", async () => {
    const lines = await configIssues(
      scopesWith(`    api_secret_hash: ${OLD}`, `    jwks: { keys: [${privateJwk}] }`, "    jwks_uri: http://keys.example/jwks"),
    );
    expect(lines).toEqual([
      "scopes.yaml:8:22 api_resources[0].api_secret_hash: a resource with keys (jwks, jwks_uri) authenticates with them: remove the ApiSecret",
      expect.stringMatching(/^scopes\.yaml:9:\d+ api_resources\[0\]\.jwks\.keys\[0\]\.d: is a private key member/),
      "scopes.yaml:10:15 api_resources[0].jwks_uri: give the keys once: jwks or jwks_uri, not both",
      "scopes.yaml:10:15 api_resources[0].jwks_uri: must be https (plain http only for a loopback host such as 127.0.0.1)",
    ]);
  });
});
