import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";

/** The demo configuration shipped in config/. */
export const DEMO_CONFIG_DIR = fileURLToPath(new URL("../../config/", import.meta.url));

/**
 * The demo's clients.yaml without `allowed_login_types`: for tests that replace the demo's login types
 * (demo-vendor names MyVendor, which their login.yaml does not declare).
 */
export const DEMO_CLIENTS_ANY_LOGIN_TYPE = readFileSync(join(DEMO_CONFIG_DIR, "clients.yaml"), "utf8").replace(
  /^ +allowed_login_types: .*\n/gm,
  "",
);

const created: string[] = [];

/**
 * A temporary copy of the demo config with some files replaced (string) or deleted (null). Tests
 * write whole files so that the line numbers they assert are visible in the test itself.
 */
export async function tempConfigDir(files: Record<string, string | null> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-config-"));
  created.push(dir);
  await cp(DEMO_CONFIG_DIR, dir, { recursive: true });
  // custom-login.yaml names the demo's clients: a test that replaces them has no custom login unless it says so.
  if ("clients.yaml" in files && !("custom-login.yaml" in files)) await rm(join(dir, "custom-login.yaml"));
  for (const [name, content] of Object.entries(files)) {
    if (content === null) await rm(join(dir, name));
    else await writeFile(join(dir, name), content);
  }
  return dir;
}

/** Deletes every directory made by tempConfigDir (call from afterAll). */
export async function removeTempConfigDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * The issue lines that loading a temporary config (see tempConfigDir) fails with, without the directory
 * prefix: `clients.yaml:3:5 clients[1].client_id: …`. Fails the test when the config loads.
 */
export async function configIssues(files: Record<string, string | null>): Promise<string[]> {
  const dir = await tempConfigDir(files);
  const error = await loadInstalledConfig(dir, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message.split("\n").map((line) => line.replace(`${dir}/`, ""));
}
