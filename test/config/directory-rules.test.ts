import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { acmeDirectoryYaml } from "../support/ldap/acme-directory-config.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const LDAP = acmeDirectoryYaml("ldap://127.0.0.1:3890");
const env = { ACME_DIRECTORY_PASSWORD: "directory-password" };
/** The password from a file beside the config, for the checks that load with no environment. */
const FROM_FILE = {
  "directory.yaml": LDAP.replace("${env:ACME_DIRECTORY_PASSWORD}", "${file:directory-password}"),
  "directory-password": "pw\n",
};

describe("directory.yaml", () => {
  it("loads an LDAP directory with users.yaml listing no users, the password from the environment", async () => {
    const dir = await tempConfigDir({ "directory.yaml": LDAP, "users.yaml": "users: []\n" });
    const config = await loadInstalledConfig(dir, env);
    expect(config.directory.type).toBe("ldap");
    expect(config.directory.ldap).toMatchObject({ bind_password: "directory-password", max_connections: 4, start_tls: false });
    expect(config.directory.ldap?.disabled).toEqual({ active_directory: true });
  });

  it("reads as the embedded directory when the file is missing", async () => {
    const config = await loadInstalledConfig(await tempConfigDir({ "directory.yaml": null }), {});
    expect(config.directory).toEqual({ type: "embedded" });
    expect(config.users.users.length).toBeGreaterThan(0);
  });

  it("refuses a bind password written in the file, without echoing it", async () => {
    const lines = await configIssues({
      "directory.yaml": LDAP.replace("${env:ACME_DIRECTORY_PASSWORD}", "hunter2"),
      "users.yaml": "users: []\n",
    });
    expect(lines.some((line) => line.startsWith("directory.yaml:") && line.includes("ldap.bind_password:"))).toBe(true);
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  it("refuses users.yaml users beside an LDAP directory, ldap without its block, and StartTLS on ldaps", async () => {
    expect(await configIssues(FROM_FILE)).toContainEqual(
      expect.stringMatching(/^users\.yaml:\d+:\d+ users: directory\.yaml chooses an LDAP directory, so users\.yaml must list no users/),
    );
    expect(await configIssues({ "directory.yaml": "type: ldap\n" })).toContainEqual(
      expect.stringMatching(/^directory\.yaml:1:7 type: is ldap, but there is no `ldap` block/),
    );
    const ldaps = FROM_FILE["directory.yaml"]
      .replace("url: ldap://", "url: ldaps://")
      .replace("  cache_ttl:", "  start_tls: true\n  cache_ttl:");
    expect(await configIssues({ ...FROM_FILE, "directory.yaml": ldaps, "users.yaml": "users: []\n" })).toContainEqual(
      expect.stringMatching(/^directory\.yaml:\d+:\d+ ldap\.start_tls: start_tls needs an ldap:\/\/ URL/),
    );
  });

  it("refuses an unknown claim, a date claim without its format and a URL that is not LDAP", async () => {
    const bad = LDAP.replace("    job_title: title", "    job_title: title\n    shoe_size: shoeSize")
      .replace("{ attribute: extensionAttribute1, from: iso_date }", "extensionAttribute1")
      .replace("url: ldap://", "url: http://");
    const lines = await configIssues({ "directory.yaml": bad, "users.yaml": "users: []\n" });
    expect(lines.some((line) => line.includes("ldap.claims") && line.includes("shoe_size"))).toBe(true);
    expect(lines.some((line) => line.includes("ldap.claims.birthdate"))).toBe(true);
    expect(lines.some((line) => line.includes("ldap.url"))).toBe(true);
  });
});
