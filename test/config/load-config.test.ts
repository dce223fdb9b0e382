import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** The formatted issue lines of a load that must fail. */
async function issueLines(dir: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const error = await loadInstalledConfig(dir, env).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message.split("\n");
}

/** A clients.yaml with one client whose body is `lines` (already indented by four spaces). */
const clientsYaml = (...lines: string[]) => ["clients:", "  - client_id: app", ...lines].join("\n") + "\n";
const CONFIDENTIAL = [
  "    type: confidential",
  "    client_secret_hash: sha256:6218e017da64a39cf2069bf0961b67c1f405cefd918b1b826b33d1a00b4f3d8c",
];

describe("loadConfig", () => {
  it("loads the demo config with every default filled in", async () => {
    const config = await loadInstalledConfig(DEMO_CONFIG_DIR, {});
    expect(config.dir).toBe(DEMO_CONFIG_DIR.replace(/\/$/, ""));
    expect(config.provider.lifetimes.interaction).toBe("30m");
    expect(config.provider.listen.trust_proxy).toBe(false);
    expect(config.provider.security.max_body_bytes).toBe(16384);
    const byId = new Map(config.clients.clients.map((c) => [c.client_id, c]));
    expect(byId.get("demo-legacy")?.redirect_uris).toEqual([]);
    expect(byId.get("demo-service")?.offline_access).toBe(false);
    expect(byId.get("demo-web")?.backchannel_logout_session_required).toBe(true);
    expect(config.users.users.map((u) => u.disabled)).toEqual([false, false]);
  });

  it("requires PKCE for every public client", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(
        "    type: public",
        "    grant_types: [authorization_code]",
        "    redirect_uris: [http://localhost/cb]",
        "    allowed_scopes: [openid]",
      ),
    });
    const config = await loadInstalledConfig(dir, {});
    expect(config.clients.clients[0]?.require_pkce).toBe(true);
  });

  it("refuses secrets written in plain text, and accepts them as references", async () => {
    const plain = await tempConfigDir({
      "provider.yaml":
        "issuer: http://localhost:3000\nstore:\n  url: redis://portcullis:hunter2@127.0.0.1:6379\nsecrets:\n  encryption_key: an-encryption-key-in-plain-text-32-chars\n",
      "clients.yaml": clientsYaml(
        ...CONFIDENTIAL,
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
        "    signing_key: a-signing-key-in-plain-text",
      ),
    });
    const lines = await issueLines(plain);
    expect(lines).toEqual([
      `${plain}/provider.yaml:3:8 store.url: holds a password: give the URL as \${env:NAME} or \${file:PATH}, not in plain text`,
      `${plain}/provider.yaml:5:19 secrets.encryption_key: is a secret: give it as \${env:NAME} or \${file:PATH}, not in plain text`,
      `${plain}/clients.yaml:7:18 clients[0].signing_key: is a secret: give it as \${env:NAME} or \${file:PATH}, not in plain text`,
    ]);
    expect(lines.join("\n")).not.toMatch(/hunter2|a-signing-key|an-encryption-key/);

    const referenced = await tempConfigDir({
      "provider.yaml":
        "issuer: http://localhost:3000\nstore:\n  url: ${env:STORE_URL}\nsecrets:\n  encryption_key: ${env:ENCRYPTION_KEY}\n",
      "clients.yaml": clientsYaml(
        ...CONFIDENTIAL,
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
        "    signing_key: ${env:SIGNING_KEY}",
      ),
    });
    const config = await loadInstalledConfig(referenced, {
      STORE_URL: "redis://portcullis:hunter2@127.0.0.1:6379",
      SIGNING_KEY: "a-signing-key-from-env",
      ENCRYPTION_KEY: "an-encryption-key-from-env-of-32-chars",
    });
    expect(config.clients.clients[0]?.signing_key).toBe("a-signing-key-from-env");
  });

  it("closes the ways around the reference rules: anchors on references, aliases at secret keys, stray '${'", async () => {
    const dir = await tempConfigDir({
      "secret.txt": "TOPSECRET-value-that-must-never-print",
      "provider.yaml": [
        "issuer: http://localhost:3000",
        "data_dir: &x ${file:secret.txt}",
        "logging:",
        "  level: *x",
        "secrets:",
        '  encryption_key: "${}plain-text-dressed-up-as-a-reference-32+"',
        "keys:",
        "  static:",
        "    - kid: k1",
        "      status: current",
        "      private_key_pem: prefix-${file:secret.txt}",
        "",
      ].join("\n"),
    });
    const lines = await issueLines(dir);
    expect(lines).toContain(`${dir}/provider.yaml:2:14 data_dir: a value with a reference must not carry an anchor (&x)`);
    expect(lines).toContain(
      `${dir}/provider.yaml:6:19 secrets.encryption_key: contains '\${' that is not a \${env:NAME} or \${file:PATH} reference`,
    );
    expect(lines).toContain(
      `${dir}/provider.yaml:11:24 keys.static[0].private_key_pem: is a secret: give it as exactly one \${env:NAME} or \${file:PATH}, with nothing around it`,
    );
    expect(lines.join("\n")).not.toMatch(/TOPSECRET|plain-text-dressed/);

    const aliased = await tempConfigDir({
      "provider.yaml": "issuer: http://localhost:3000\nlogging:\n  level: &k info\nsecrets:\n  encryption_key: *k\n",
    });
    expect(await issueLines(aliased)).toContain(
      `${aliased}/provider.yaml:5:19 secrets.encryption_key: must not be a YAML alias: give the value itself as a reference`,
    );
  });

  it("refuses zero durations and key rotation too fast for nodes and caches to follow", async () => {
    const dir = await tempConfigDir({
      "provider.yaml": "issuer: http://localhost:3000\nkeys:\n  rotate_every: 30m\n  announce_for: 1m\nlifetimes:\n  refresh_token: 0s\n",
    });
    const lines = await issueLines(dir);
    expect(lines).toEqual([expect.stringMatching(/provider\.yaml:6:18 lifetimes\.refresh_token: /)]);
    const rules = await tempConfigDir({
      "provider.yaml": "issuer: http://localhost:3000\nkeys:\n  rotate_every: 30m\n  announce_for: 1m\n",
    });
    expect(await issueLines(rules)).toEqual([
      `${rules}/provider.yaml:3:17 keys.rotate_every: must be at least 1h (got "30m")`,
      `${rules}/provider.yaml:4:17 keys.announce_for: must be at least 5m (got "1m")`,
    ]);
  });

  it("refuses a client_id that equals a user's sub (employee number)", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": [
        "clients:",
        "  - client_id: E10001",
        ...CONFIDENTIAL,
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
        "",
      ].join("\n"),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:2:16 clients[0].client_id: equals the sub (employee number) of a user in users.yaml (got "E10001")`,
    ]);
  });

  it("requires an encryption key with a Redis or PostgreSQL store, not with the embedded one", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nstore:\n  url: redis://127.0.0.1:6379\n" });
    expect(await issueLines(dir)).toEqual([
      `${dir}/provider.yaml:3:8 store.url: a Redis or PostgreSQL store needs secrets.encryption_key (give it as \${env:NAME} or \${file:PATH})`,
    ]);
    await expect(loadInstalledConfig(DEMO_CONFIG_DIR, {})).resolves.toBeDefined();
  });

  it("reports a value of the wrong type with its line and the value", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nlisten:\n  port: abc\n" });
    expect(await issueLines(dir)).toEqual([`${dir}/provider.yaml:3:9 listen.port: must be integer (got "abc")`]);
  });

  it("reports an unknown key at the key itself and lists the allowed keys", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nlisten:\n  host: 127.0.0.1\n  prot: 3000\n" });
    expect(await issueLines(dir)).toEqual([
      `${dir}/provider.yaml:4:3 listen.prot: unknown key "prot" (allowed: host, port, trust_proxy, headers_timeout, request_timeout, workers)`,
    ]);
  });

  it("rejects a redirect URI with a fragment", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(
        ...CONFIDENTIAL,
        "    grant_types: [authorization_code]",
        "    redirect_uris:",
        "      - http://localhost/cb",
        "      - http://localhost/cb#a",
        "    allowed_scopes: [openid]",
      ),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:8:9 clients[0].redirect_uris[1]: must not contain a fragment (got "http://localhost/cb#a")`,
    ]);
  });

  it("rejects a relative redirect URI", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(
        ...CONFIDENTIAL,
        "    grant_types: [authorization_code]",
        "    redirect_uris: [/callback]",
        "    allowed_scopes: [openid]",
      ),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:6:21 clients[0].redirect_uris[0]: must be an absolute URI (scheme://…) (got "/callback")`,
    ]);
  });

  it("names a missing file", async () => {
    const dir = await tempConfigDir({ "users.yaml": null });
    expect(await issueLines(dir)).toEqual([`${dir}/users.yaml: file not found`]);
  });

  it("reports a missing directory once", async () => {
    const dir = `${await tempConfigDir()}/nowhere`;
    expect(await issueLines(dir)).toEqual([`${dir}: configuration directory not found`]);
  });

  it("reports a YAML syntax error with its position", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\n\nlisten: port: 3000\n" });
    expect(await issueLines(dir)).toEqual([
      `${dir}/provider.yaml:3:9: YAML syntax error: Nested mappings are not allowed in compact mappings`,
    ]);
  });

  it("rejects an allowed scope that scopes.yaml does not declare", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(...CONFIDENTIAL, "    grant_types: [client_credentials]", "    allowed_scopes: [acme, acme.api.nope]"),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:6:28 clients[0].allowed_scopes[1]: scope "acme.api.nope" is not declared in scopes.yaml (declared: openid, profile, email, acme, acme.api.msg, acme.ext.custom_scan, channel.login.scan, channel.directory, portcullis:admin, offline_access)`,
    ]);
  });

  it("requires a secret hash for a confidential client, pointing at the client", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml("    type: confidential", "    grant_types: [client_credentials]", "    allowed_scopes: [acme]"),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:2:5 clients[0].client_secret_hash: a confidential client needs a secret hash (print one with \`portcullis hash-secret\`)`,
    ]);
  });

  it("reports an unset ${env:…} reference at its value", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nstore:\n  url: ${env:PORTCULLIS_TEST_STORE}\n" });
    expect(await issueLines(dir, {})).toEqual([
      `${dir}/provider.yaml:3:8 store.url: environment variable PORTCULLIS_TEST_STORE is not set (in \${env:PORTCULLIS_TEST_STORE})`,
    ]);
  });

  it("resolves ${env:…} and ${file:…} references", async () => {
    const dir = await tempConfigDir({
      "provider.yaml": "issuer: ${env:ISSUER}\ndata_dir: ${file:data-dir.txt}\n",
      "data-dir.txt": "/srv/portcullis\n",
    });
    const config = await loadInstalledConfig(dir, { ISSUER: "https://login.example.com" });
    expect(config.provider.issuer).toBe("https://login.example.com");
    expect(config.provider.data_dir).toBe("/srv/portcullis");
  });

  it("never prints a value that came from a reference", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nstore:\n  url: ${env:STORE_URL}\n" });
    const lines = await issueLines(dir, { STORE_URL: "mysql://admin:hunter2@db" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^.*provider\.yaml:3:8 store\.url: must match .* \(value of "\$\{env:STORE_URL\}" not shown\)$/);
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  it("never echoes the value of a secret key", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(
        "    type: confidential",
        "    client_secret_hash: my-plain-secret",
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
      ),
    });
    const lines = await issueLines(dir);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${dir}/clients\\.yaml:4:25 clients\\[0\\]\\.client_secret_hash: must match \\^sha256:`));
    expect(lines[0]).not.toContain("my-plain-secret");
  });

  it("reports every mistake in a file at once", async () => {
    const dir = await tempConfigDir({
      "clients.yaml": clientsYaml(
        "    type: secret-keeper",
        "    grant_types: [client_credentials]",
        "    allowed_scopes: [acme]",
        "    offline_access: maybe",
        "    colour: blue",
      ),
    });
    expect(await issueLines(dir)).toEqual([
      `${dir}/clients.yaml:3:11 clients[0].type: must be one of: confidential, public (got "secret-keeper")`,
      `${dir}/clients.yaml:6:21 clients[0].offline_access: must be boolean (got "maybe")`,
      expect.stringMatching(
        new RegExp(`^${dir}/clients\\.yaml:7:5 clients\\[0\\]\\.colour: unknown key "colour" \\(allowed: client_id, name, type, `),
      ),
    ]);
  });

  it("reports the mistakes of every file together", async () => {
    const dir = await tempConfigDir({
      "provider.yaml": "issuer: http://localhost:3000/\n",
      "users.yaml": null,
      "scopes.yaml": "identity_scopes: []\napi_resources: []\n",
    });
    const lines = await issueLines(dir);
    expect(lines).toContain(`${dir}/provider.yaml:1:9 issuer: must not end with / (got "http://localhost:3000/")`);
    expect(lines).toContain(`${dir}/scopes.yaml:1:18 identity_scopes: the "openid" identity scope must be declared`);
    expect(lines).toContain(`${dir}/users.yaml: file not found`);
    // The demo clients now name scopes that scopes.yaml no longer declares.
    expect(lines.filter((line) => line.includes("is not declared in scopes.yaml")).length).toBeGreaterThan(0);
  });
});
