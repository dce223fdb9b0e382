import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError } from "../../errors/config-error.ts";
import { acmeOrganisation, PEOPLE_DN, SERVICE_ACCOUNT } from "./acme-directory.ts";
import { acmeDirectoryYaml, BIND_PASSWORD_ENV } from "./acme-directory-config.ts";
import { SLAPD_PACKAGES, startSlapd, type RunningSlapd } from "./slapd.ts";

/** Why the demo directory cannot start on a machine without slapd: the line the start command prints. */
export const SLAPD_MISSING = `slapd is not installed (${SLAPD_PACKAGES})`;

/** The bundled directory a demo provider runs on (`portcullis start --demo-directory`). */
export interface DemoDirectory {
  slapd: RunningSlapd;
  /**
   * The configuration the provider loads: a copy of the one given, with directory.yaml pointing at
   * `slapd` and users.yaml listing no one.
   */
  configDir: string;
  /** What the start banner says about it: where it is, who can log in, where its configuration is. */
  lines: string[];
  /** Stops slapd and removes the copy. */
  stop(): Promise<void>;
}

/**
 * Starts slapd with Acme's organisation (alice and bob as in users.yaml, carol disabled, dana only
 * there) on a free loopback port, and writes the configuration in `configDir` over to a provider on it:
 * a generated configuration directory rather than an override of the loaded one, so the provider loads,
 * checks and reloads real files, with the service account's password by ${env:} reference as an
 * operator's directory.yaml has it. Undefined when slapd is not installed (SLAPD_MISSING says what to do).
 */
export async function startDemoDirectory(configDir: string, env: NodeJS.ProcessEnv = process.env): Promise<DemoDirectory | undefined> {
  if (!isDirectory(configDir)) throw new ConfigError([{ file: configDir, path: "", message: "configuration directory not found" }]);
  const slapd = await startSlapd(acmeOrganisation(), env);
  if (slapd === undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), "portcullis-demo-directory-"));
  const copy = join(root, "config");
  try {
    cpSync(configDir, copy, { recursive: true });
    writeFileSync(join(copy, "directory.yaml"), `${DIRECTORY_HEADER}${acmeDirectoryYaml(slapd.url)}`);
    writeFileSync(join(copy, "users.yaml"), USERS_FILE);
  } catch (error) {
    await slapd.stop();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  // The provider resolves ${env:} references from its own environment, at the start and at each reload.
  process.env[BIND_PASSWORD_ENV] = SERVICE_ACCOUNT.password;
  return {
    slapd,
    configDir: copy,
    lines: bannerLines(slapd, resolve(configDir), copy),
    async stop() {
      await slapd.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const DIRECTORY_HEADER = [
  "# Written by `portcullis start --demo-directory` (docs/directory.md): the demo's people in the bundled",
  "# OpenLDAP server (src/demo/directory/organisation.ldif), mapped to the spec's claims. The service",
  `# account's password comes from the environment (${BIND_PASSWORD_ENV}), as a secret must.`,
  "",
].join("\n");

const USERS_FILE = [
  "# Written by `portcullis start --demo-directory`: the employees are the directory's (directory.yaml).",
  "users: []",
  "",
].join("\n");

function bannerLines(slapd: RunningSlapd, original: string, copy: string): string[] {
  return [
    `  The demo directory (docs/directory.md, "The demo directory"): OpenLDAP on ${slapd.url}, base ${slapd.baseDn}`,
    "    Log in as alice / alice-password or bob / bob-password (as in users.yaml, which is not read now),",
    "    or dana / dana-password, whom only the directory knows; carol / carol-password is a disabled account.",
    `    The provider runs on a copy of ${original}: ${copy} (directory.yaml on this server, users.yaml empty).`,
    `    Look inside: ldapsearch -x -H ${slapd.url} -D ${SERVICE_ACCOUNT.dn} -w ${SERVICE_ACCOUNT.password} -b ${PEOPLE_DN} uid=dana`,
  ];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
