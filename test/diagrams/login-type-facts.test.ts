/**
 * A login type's chart comes with its plan: MyVendor runs the very machine MfaTotp runs (the same
 * second-factor flow over totp), so its chart is the same, byte for byte; what makes it MyVendor —
 * the vendor login_hint, the signature, its scopes — is declared in login.yaml and shown beside the
 * chart, in the generated docs and on the provider's diagram page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginTypeFacts } from "../../src/diagrams/login-type-facts.ts";
import type { LoginType } from "../../src/login-policy/login-policy.ts";
import { diagramFiles } from "../../scripts/generate-diagrams.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const MY_VENDOR: LoginType = {
  name: "MyVendor",
  flow: "second_factor",
  methods: ["totp"],
  sso: false,
  loginHint: "vendor",
  repeatLoginTypeAtToken: true,
  scopes: new Set(["openid", "profile"]),
  signature: true,
  fa: false,
  enrollOnFirstUse: false,
};

describe("loginTypeFacts", () => {
  it("names every fact a plan decides beyond the machine: methods and fa, SSO, login_hint, signature, scopes, login_type at the token endpoint, first-use enrollment", () => {
    expect(loginTypeFacts(MY_VENDOR)).toEqual([
      { labelKey: "diagram.plan.methods", value: "totp" },
      { labelKey: "diagram.plan.fa", valueKey: "diagram.plan.fa.false" },
      { labelKey: "diagram.plan.sso", valueKey: "diagram.plan.sso.false" },
      { labelKey: "diagram.plan.login_hint", valueKey: "diagram.plan.login_hint.vendor" },
      { labelKey: "diagram.plan.signature", valueKey: "diagram.plan.signature.true" },
      { labelKey: "diagram.plan.scopes", value: "openid profile" },
      { labelKey: "diagram.plan.repeat_login_type", valueKey: "diagram.plan.repeat_login_type.true" },
      { labelKey: "diagram.plan.enroll_on_first_use", valueKey: "diagram.plan.enroll_on_first_use.false" },
    ]);
  });

  it("gives an eID login type its upstream instead of methods, and a type without scopes the client's own", () => {
    const eid: LoginType = {
      ...MY_VENDOR,
      name: "eID",
      flow: "eid",
      methods: [],
      sso: true,
      loginHint: "optional",
      signature: false,
      upstream: "dev-eid",
    };
    delete (eid as { scopes?: unknown }).scopes;
    const facts = loginTypeFacts(eid);
    expect(facts[0]).toEqual({ labelKey: "diagram.plan.upstream", value: "dev-eid" });
    expect(facts.map((f) => f.labelKey)).not.toContain("diagram.plan.methods");
    expect(facts).toContainEqual({ labelKey: "diagram.plan.scopes", valueKey: "diagram.plan.scopes.client" });
  });
});

describe("the generated docs", () => {
  const files = new Map<string, string>();
  beforeAll(async () => {
    for (const file of await diagramFiles()) files.set(file.path, file.content);
  });
  const chart = (content: string) => content.slice(content.indexOf("```mermaid"));
  const plan = (content: string) => content.slice(content.indexOf("## "), content.indexOf("```mermaid"));

  it("draw MyVendor's chart exactly as MfaTotp's, and print each one's plan beside it, where they differ", () => {
    const vendor = files.get("docs/diagrams/login-myvendor.md")!;
    const totp = files.get("docs/diagrams/login-mfatotp.md")!;
    expect(chart(vendor)).toBe(chart(totp));
    expect(plan(vendor)).toContain(
      "| Login hint (login_hint) | required, &lt;client_id&gt;:&lt;account&gt;: the requesting client's vendor account, also the tokens' sub |",
    );
    expect(plan(vendor)).toContain(
      "| Signature (signature) | required: SHA-1 of redirect_uri + login_hint + the client's signing key, checked before anything is shown |",
    );
    expect(plan(vendor)).toContain("| Scopes allowed (scopes) | openid profile |");
    expect(plan(totp)).toContain("| Login hint (login_hint) | required: it names the user the second factor verifies |");
    expect(plan(totp)).toContain("| Signature (signature) | none |");
    expect(plan(vendor)).not.toBe(plan(totp).replace("MfaTotp", "MyVendor"));
  });

  it("print a plan for every login type's chart, and for no other chart", () => {
    for (const [path, content] of files) {
      const isLoginType = /\/login-[a-z0-9-]+\.md$/.test(path);
      expect(content.includes("## What login.yaml declares for login type "), path).toBe(isLoginType);
    }
    expect(plan(files.get("docs/diagrams/login-eid.md")!)).toContain("| Upstream eID provider (upstream) | dev-eid |");
    expect(plan(files.get("docs/diagrams/login-2fa.md")!)).toContain(
      "| Single sign-on (sso) | an existing session is used, and the login creates or updates one |",
    );
  });
});

describe("the diagram page of a login type", () => {
  let op: TestProvider;
  beforeAll(async () => {
    op = await startTestProvider();
  });
  afterAll(async () => {
    await op?.close();
  });
  const section = (html: string) => html.slice(html.indexOf("<h2>"), html.indexOf("</dl>") + "</dl>".length);
  const mermaid = (html: string) => html.slice(html.indexOf('<pre class="mermaid">'), html.indexOf("</pre>"));

  it("shows the running login type's plan above its chart, in the page's language, escaped", async () => {
    const vendor = (await send(`${op.url}/diagrams/login-myvendor`)).text;
    const totp = (await send(`${op.url}/diagrams/login-mfatotp`)).text;
    expect(mermaid(vendor)).toBe(mermaid(totp));
    expect(section(vendor)).toContain("<h2>What login.yaml declares for login type MyVendor</h2>");
    expect(section(vendor)).toContain(
      "<dt>Signature (signature)</dt><dd>required: SHA-1 of redirect_uri + login_hint + the client&#x27;s signing key, checked before anything is shown</dd>",
    );
    expect(section(vendor)).toContain(
      "<dd>required, &lt;client_id&gt;:&lt;account&gt;: the requesting client&#x27;s vendor account, also the tokens&#x27; sub</dd>",
    );
    expect(section(vendor)).toContain("<dt>Scopes allowed (scopes)</dt><dd>openid profile</dd>");
    expect(section(totp)).toContain("<dt>Signature (signature)</dt><dd>none</dd>");
    expect(section((await send(`${op.url}/diagrams/login-myvendor?lang=jp`)).text)).toContain("<dt>署名（signature）</dt>");
  });

  it("shows no plan for a chart that is no login type's", async () => {
    for (const name of ["login", "method-totp", "identify-user"])
      expect((await send(`${op.url}/diagrams/${name}`)).text, name).not.toContain('class="plan-facts"');
  });
});
