/**
 * `portcullis audit trace`: a real login and code exchange against a real provider, then the real CLI
 * in a child process reads the provider's audit file and traces the token (by jti) and the session (by
 * sid): the events, the path, and the login's machine drawn with that path highlighted.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { portcullis } from "../support/run-cli.ts";
import { eventually } from "../support/relying-party.ts";
import { collectAudit, eventsOf, loginAndRedeem, type AuditedLogin } from "../support/audited-login.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { redeemCode } from "../support/code-grant.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";

let p: TestProvider;
let login: AuditedLogin;
let events: AuditEvent[];
let auditFile: string;

beforeAll(async () => {
  p = await startTestProvider();
  events = collectAudit(p);
  login = await loginAndRedeem(p);
  auditFile = join(p.provider.settings.data_dir, "audit.log");
  // The sink writes without waiting: the token's line is in the file soon after the response.
  await eventually(() => existsSync(auditFile) && readFileSync(auditFile, "utf8").includes(login.jti), "the token.issued line");
});
afterAll(async () => {
  await p?.close();
});

/** The event lines of a trace: "<time>  <type>  <facts>". */
const eventLines = (stdout: string) => stdout.split("\n").filter((line) => /^\d{4}-\d\d-\d\dT/.test(line));
const typesOf = (stdout: string) => eventLines(stdout).map((line) => line.split(/\s+/)[1]);

describe("audit trace", () => {
  it("traces a token by its jti: its login, factor, session and issue, in time order, then the machine with the path highlighted", async () => {
    const result = await portcullis(["audit", "trace", "--config", p.configDir, "--", login.jti]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(typesOf(result.stdout)).toEqual(["factor.passed", "login.succeeded", "session.started", "token.issued"]);
    const times = eventLines(result.stdout).map((line) => line.split(/\s+/)[0]!);
    expect([...times].sort()).toEqual(times);
    const [loginEvent] = eventsOf(events, "login.succeeded");
    const flow = p.provider.policies.current().flows.get("default")!;
    expect(result.stdout).toContain(`jti=${login.jti}`);
    expect(result.stdout).toContain(`machine: flow default, hash ${flow.hash}`);
    expect(result.stdout).toContain(`path:    ${loginEvent!.path.join(" → ")}`);
    // The version the login ran was archived by the provider when the login ran; the trace draws it from there.
    const archived = join(p.provider.settings.data_dir, "machines", `${flow.hash}.json`);
    expect(existsSync(archived)).toBe(true);
    expect(result.stdout).toContain(
      `the exact machine version the login ran, kept in ${archived}\n(the current configuration runs this version too)`,
    );
    expect(result.stdout).toContain(
      `diagram page: ${p.issuer}/diagrams/machine/${flow.hash} (leads to ${p.issuer}/diagrams/login while the provider runs this version)`,
    );
    // That link leads to the flow's diagram on the running provider.
    const page = await fetch(`${p.issuer}/diagrams/machine/${flow.hash}`);
    expect(page.url).toBe(`${p.issuer}/diagrams/login`);
    expect(page.status).toBe(200);
    // The statechart, with the states the login went through in the `taken` class (and only those).
    expect(result.stdout).toContain("```mermaid\nstateDiagram-v2\n");
    expect(result.stdout).toContain("  classDef taken ");
    const taken = /^ {2}class (\S+) taken$/m.exec(result.stdout)?.[1]?.split(",");
    expect(taken?.sort()).toEqual(["s_authenticated", "s_signingIn__password", "s_signingIn__qrcode"]);
    expect(result.stdout).not.toContain("s_signingIn__appotp taken");
  });

  // Ids are base64url: one may begin with "-", so `--` ends the options first.
  it("traces the session by its sid to the same events", async () => {
    const [started] = eventsOf(events, "session.started");
    const result = await portcullis(["audit", "trace", "--config", p.configDir, "--", started!.sid]);
    expect(result.code).toBe(0);
    expect(typesOf(result.stdout)).toEqual(["factor.passed", "login.succeeded", "session.started", "token.issued"]);
  });

  it("reads another file with --file, and draws the exact version the login ran after the configuration changed the flow", async () => {
    const copy = join(p.configDir, "copied-audit.log");
    writeFileSync(copy, readFileSync(auditFile));
    const before = await portcullis(["audit", "trace", "--config", p.configDir, "--", login.jti]);
    // The default flow offered in another order is another machine (another hash).
    const loginYaml = join(p.configDir, "login.yaml");
    const doc = parseDocument(readFileSync(loginYaml, "utf8"));
    doc.setIn(["default_flow", "methods"], ["password", "qrcode", "appotp"]);
    writeFileSync(loginYaml, doc.toString());
    const result = await portcullis(["audit", "trace", "--config", p.configDir, "--file", copy, "--", login.jti]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`audit trace of ${login.jti} (${copy})`);
    const ran = eventsOf(events, "login.succeeded")[0]!.machine_hash;
    expect(result.stdout).toMatch(
      new RegExp(
        `the exact machine version the login ran, kept in \\S+${ran}\\.json\\n\\(the current configuration's default flow is another version, (?!${ran})\\S+\\)`,
      ),
    );
    expect(result.stdout).toContain(
      `diagram page of the current version: ${p.issuer}/diagrams/login (${p.issuer}/diagrams/machine/${ran} no longer leads anywhere)`,
    );
    // The statechart drawn is the archived one, the same as before the change, path and all.
    const drawing = (out: string) => out.slice(out.indexOf("```mermaid"));
    expect(drawing(result.stdout)).toBe(drawing(before.stdout));
  });

  it("without the archived version, draws the current one and says so plainly", async () => {
    const dataDir = p.provider.settings.data_dir;
    renameSync(join(dataDir, "machines"), join(dataDir, "machines-away"));
    try {
      const result = await portcullis(["audit", "trace", "--config", p.configDir, "--", login.jti]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /NOTE: this login ran machine version \S+, which is not in \S+machines; the current configuration's default flow is version \S+\. The diagram below is the CURRENT version/,
      );
    } finally {
      renameSync(join(dataDir, "machines-away"), join(dataDir, "machines"));
    }
  });

  it("answers an unknown id with a clear message and exit 1", async () => {
    const result = await portcullis(["audit", "trace", "no-such-token-id", "--config", p.configDir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`portcullis audit: no audit event names "no-such-token-id" as a jti, sid or signout_id in ${auditFile}\n`);
  });

  // Last: it adds a second login to the session the others trace.
  it("after a re-login in the same browser, the first token's trace is still its own login's, and the session's has both", async () => {
    const again = await loginWithPassword(login.browser, authorizeUrl(p.issuer, { prompt: "login" }));
    const code = responseParams(again).get("code");
    expect(code, again.location).toBeTruthy();
    const redeemed = await redeemCode(p, code!, { code_verifier: undefined });
    expect(redeemed.status, redeemed.text).toBe(200);
    const [first, second] = eventsOf(events, "login.succeeded");
    const [firstToken, secondToken] = eventsOf(events, "token.issued");
    expect(second, "the second login").toBeDefined();
    expect([firstToken!.login_id, secondToken!.login_id]).toEqual([first!.login_id, second!.login_id]);
    // The re-login renewed the session under the same sid: this is what used to pull the later login into the first token's trace.
    const started = eventsOf(events, "session.started");
    expect(started.map((event) => event.sid)).toEqual([started[0]!.sid, started[0]!.sid]);
    await eventually(() => readFileSync(auditFile, "utf8").includes(secondToken!.jti), "the second token.issued line");

    const ofFirst = await portcullis(["audit", "trace", "--config", p.configDir, "--", login.jti]);
    expect(ofFirst.code).toBe(0);
    expect(ofFirst.stdout).toContain(`login_id=${first!.login_id}`);
    // The later login shows only as the session's renewal, not with its factors and success.
    expect(
      typesOf(
        ofFirst.stdout
          .split("\n")
          .filter((line) => line.includes(`login_id=${second!.login_id}`))
          .join("\n"),
      ),
    ).toEqual(["session.started"]);
    expect(ofFirst.stdout).not.toContain(`jti=${secondToken!.jti}`);
    expect(ofFirst.stdout).not.toContain("login 1 of");
    expect(ofFirst.stdout).toContain(`path:    ${first!.path.join(" → ")}`);

    const ofSession = await portcullis(["audit", "trace", "--config", p.configDir, "--", started[0]!.sid]);
    expect(ofSession.code).toBe(0);
    expect(ofSession.stdout).toContain(`jti=${secondToken!.jti}`);
    expect(ofSession.stdout).toContain(`login 1 of 2 (login_id ${first!.login_id}, `);
    expect(ofSession.stdout).toContain(`login 2 of 2 (login_id ${second!.login_id}, `);
    expect(ofSession.stdout.match(/```mermaid/g)).toHaveLength(2);
  });

  it("refuses a missing file and a missing id in one line each", async () => {
    const missing = await portcullis(["audit", "trace", "--config", p.configDir, "--file", "/nonexistent/audit.log", "--", login.jti]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("portcullis audit: cannot read the audit file /nonexistent/audit.log (ENOENT)\n");
    const noId = await portcullis(["audit", "trace", "--config", p.configDir]);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain("expected: audit trace <jti, sid or signout_id>");
  });
});
