/**
 * Data for every page of views/pages: an ordinary case per page (the contract filled in as callers
 * will) and hostile cases (every reflected field an attack). The tests check that each page has both.
 */
import type { PageDataByView } from "../../src/views/page-data.ts";
import type { ViewEngine } from "../../src/views/view-engine.ts";

export interface PageCase {
  view: string;
  label: string;
  data: Record<string, unknown>;
}

/** A case whose data is checked against the page's contract (src/views/page-data.ts) by tsc. */
function page<V extends keyof PageDataByView>(view: V, label: string, data: PageDataByView[V]): PageCase {
  return { view, label, data };
}

/** A stand-in for a factor plugin's partial: shows the method data and the login hint. */
export const TEST_METHOD_PARTIAL = {
  name: "method-test",
  source: `<form method="post" action="{{safeUrl action}}">{{> csrf-field}}
<p class="hint">{{method.hint}}</p>
<label for="username">{{t "method.password.username"}}</label><input id="username" name="username" value="{{loginHint}}">
<label for="password">{{t "method.password.password"}}</label><input id="password" name="password" type="password">
<button type="submit" name="event" value="SUBMIT">{{t "method.password.submit"}}</button></form>`,
};

export function withTestPartial(engine: ViewEngine): ViewEngine {
  engine.registerPartial(TEST_METHOD_PARTIAL.name, TEST_METHOD_PARTIAL.source);
  return engine;
}

export const NONCE = "bm9uY2Utbm9uY2Utbm9uY2U";

const DAY = { iso: "2026-11-21", text: "21 Nov 2026" };
const NO_ROW = { setUp: false, items: [], canEnroll: false, canRemove: false, addsAnother: false };
const ACCOUNT_FRAME = { accountUrl: "/account", signOutUrl: "/connect/endsession" };

export const ORDINARY: PageCase[] = [
  page("error", "untrusted redirect_uri", { error: "invalid_request", description: "redirect_uri is not registered for this client" }),
  page("error", "translated description", {
    title: "Sign-in link",
    error: "invalid_request",
    description: "",
    descriptionKey: "error.interaction_expired",
  }),
  page("form-post", "code response", {
    action: "https://client.example/cb",
    fields: [
      { name: "code", value: "abc" },
      { name: "state", value: "xyz" },
      { name: "iss", value: "https://op.example" },
    ],
    nonce: NONCE,
  }),
  page("form-post", "in an iframe, no script", {
    action: "https://client.example/cb",
    fields: [{ name: "code", value: "abc" }],
    target: "_top",
  }),
  page("top-redirect", "iframe login done", {
    url: "https://client.example/cb?code=abc&state=xyz&iss=https%3A%2F%2Fop.example",
    nonce: NONCE,
  }),
  page("login", "password step", {
    clientName: "Demo App",
    csrf: "csrf-token",
    action: "/interaction/abc",
    methodPartial: "method-test",
    method: { hint: "hint" },
  }),
  page("login", "re-login with error, hint and other methods", {
    clientName: "Demo App",
    csrf: "csrf-token",
    action: "/interaction/abc",
    signedInAs: "alice",
    errorKey: "method.password.wrong",
    methodPartial: "method-test",
    method: { hint: "hint" },
    loginHint: "alice",
    otherMethods: [
      { id: "totp", labelKey: "method.password.label" },
      { id: "fido", labelKey: "enroll.back" },
    ],
  }),
  page("logout-confirm", "with client", { csrf: "csrf-token", action: "/connect/endsession", clientName: "Demo App" }),
  page("logout-confirm", "with cancel link", { csrf: "csrf-token", action: "/connect/endsession", cancelUrl: "https://client.example/" }),
  page("logged-out", "no redirect", { frontChannelUrls: [] }),
  page("logged-out", "front-channel and redirect", {
    frontChannelUrls: ["https://a.example/logout?iss=x&sid=1", "https://b.example/logout"],
    postLogoutRedirectUri: "https://client.example/bye?state=s",
    nonce: NONCE,
  }),
  page("enroll", "a method's step", {
    methodLabelKey: "method.password.label",
    csrf: "csrf-token",
    action: "/interaction/abc",
    methodPartial: "method-test",
    method: { hint: "hint" },
    nonce: NONCE,
  }),
  page("account", "one enrolled, one not", {
    ...ACCOUNT_FRAME,
    userName: "Alice",
    csrf: "csrf-token",
    enrollAction: "/account/enroll",
    removeUrl: "/account/remove",
    notice: "account.enrolled_notice",
    methods: [
      {
        ...NO_ROW,
        id: "password",
        labelKey: "method.password.label",
        setUp: true,
        canEnroll: true,
        canRemove: true,
        items: [{ text: "Pixel 8", addedAt: DAY }],
        enrolledAt: DAY,
        lastUsedAt: DAY,
      },
      { ...NO_ROW, id: "other", labelKey: "method.password.label", setUpNote: "Set up by your administrator.", lastUsedAt: DAY },
    ],
  }),
  page("account", "back to a client, in English", {
    ...ACCOUNT_FRAME,
    lang: "en",
    clientId: "demo-web",
    backUrl: "https://client.example/",
    backName: "Demo App",
    userName: "Alice",
    csrf: "c",
    enrollAction: "/account/enroll",
    removeUrl: "/account/remove",
    methods: [],
  }),
  page("account-remove", "asks first", {
    ...ACCOUNT_FRAME,
    lang: "jp",
    csrf: "csrf-token",
    action: "/account/remove",
    method: "totp",
    methodName: "Authenticator app",
  }),
  page("diagrams", "the deployment's machines", {
    stylesheetUrl: "/diagrams/diagrams.0123456789abcdef.css",
    diagrams: [
      { name: "login", url: "/diagrams/login", descriptionKey: "diagrams.kind.login", subject: "default" },
      { name: "identify-user", url: "/diagrams/identify-user", descriptionKey: "diagrams.kind.identify", subject: "" },
      { name: "method-password", url: "/diagrams/method-password", descriptionKey: "diagrams.kind.method", subject: "password" },
    ],
  }),
  page("diagram", "a method's statechart", {
    name: "method-password",
    descriptionKey: "diagrams.kind.method",
    subject: "password",
    source:
      'stateDiagram-v2\n  state "awaitingCredentials" as s_awaitingCredentials\n  [*] --> s_awaitingCredentials\n  s_awaitingCredentials --> s_verified : SUBMIT_PASSWORD [hasCredentials]\n',
    indexUrl: "/diagrams",
    stylesheetUrl: "/diagrams/diagrams.0123456789abcdef.css",
    scriptUrl: "/diagrams/mermaid.0123456789abcdef.js",
    nonce: NONCE,
  }),
  page("diagram", "a login type's statechart with its plan", {
    name: "login-myvendor",
    descriptionKey: "diagrams.kind.login_second_factor",
    subject: "MyVendor",
    source: 'stateDiagram-v2\n  state "starting" as s_starting\n  [*] --> s_starting\n',
    plan: {
      loginType: "MyVendor",
      facts: [
        { labelKey: "diagram.plan.methods", value: "totp" },
        { labelKey: "diagram.plan.login_hint", valueKey: "diagram.plan.login_hint.vendor" },
        { labelKey: "diagram.plan.signature", valueKey: "diagram.plan.signature.true" },
      ],
    },
    indexUrl: "/diagrams",
    stylesheetUrl: "/diagrams/diagrams.0123456789abcdef.css",
    scriptUrl: "/diagrams/mermaid.0123456789abcdef.js",
    nonce: NONCE,
  }),
  page("account", "no one signed in", { ...ACCOUNT_FRAME, signInUrl: "/account/sign-in", methods: [] }),
  page("interaction-expired", "no way back", {}),
  page("interaction-expired", "with way back", { backUrl: "https://client.example/" }),
  page("login", "a second factor's step", {
    clientName: "Demo App",
    csrf: "csrf-token",
    action: "/interaction/abc",
    verifyingAccount: "a•••e",
    methodPartial: "method-test",
    method: { hint: "hint" },
  }),
];

/** Text that breaks out of element content, either attribute quote, or a template literal. */
export const TEXT = `<script>alert(1)</script>"'\`=&<img src=x onerror=alert(2)>' onmouseover='alert(3)`;
/** A URL that runs script, in the spellings browsers accept. */
export const SCRIPT_URLS = [
  "javascript:alert(4)",
  " JaVaScRiPt:alert(4)",
  "java\tscript:alert(4)",
  "\u0001javascript:alert(4)",
  "vbscript:msgbox(4)",
  "data:text/html,<script>alert(4)</script>",
];
/** A real https URL that would end an inline script if embedded carelessly. */
export const BREAKOUT_URL = `https://client.example/cb?x=</script><script>alert(5)</script>&y="'\`<!--`;

export function hostileCases(): PageCase[] {
  const jsUrl = SCRIPT_URLS[0]!;
  const hostileFrame = { lang: TEXT, clientId: TEXT, backUrl: jsUrl, backName: TEXT, accountUrl: jsUrl, signOutUrl: jsUrl, userName: TEXT };
  const cases: PageCase[] = [
    page("error", "hostile text", { title: TEXT, error: TEXT, description: TEXT }),
    page("error", "hostile text, no title", { error: TEXT, description: TEXT }),
    page("form-post", "hostile action and fields", {
      action: jsUrl,
      fields: [{ name: TEXT, value: TEXT }],
      nonce: NONCE,
      target: `_top" onclick="alert(6)`,
    }),
    page("form-post", "hostile nonce", { action: BREAKOUT_URL, fields: [], nonce: TEXT }),
    page("top-redirect", "script-ending url", { url: BREAKOUT_URL, nonce: NONCE }),
    page("login", "hostile fields", {
      clientName: TEXT,
      csrf: TEXT,
      action: jsUrl,
      signedInAs: TEXT,
      verifyingAccount: TEXT,
      errorKey: "error.login_failed",
      methodPartial: "method-test",
      method: { hint: TEXT },
      loginHint: TEXT,
      otherMethods: [{ id: TEXT, labelKey: "method.password.label" }],
    }),
    page("enroll", "hostile fields", {
      methodLabelKey: "method.password.label",
      csrf: TEXT,
      action: jsUrl,
      errorKey: "error.csrf",
      methodPartial: "method-test",
      method: { hint: TEXT },
      methodPath: TEXT,
    }),
    page("account", "hostile sign-in link", { ...hostileFrame, signInUrl: jsUrl, methods: [] }),
    page("account", "hostile fields", {
      ...hostileFrame,
      userName: TEXT,
      csrf: TEXT,
      enrollAction: jsUrl,
      removeUrl: jsUrl,
      methods: [
        {
          id: TEXT,
          labelKey: "method.password.label",
          setUp: true,
          canEnroll: true,
          canRemove: true,
          addsAnother: true,
          items: [{ text: TEXT, addedAt: { iso: TEXT, text: TEXT } }],
          enrolledAt: { iso: TEXT, text: TEXT },
          lastUsedAt: { iso: TEXT, text: TEXT },
          setUpNote: TEXT,
        },
      ],
    }),
    page("account-remove", "hostile fields", { ...hostileFrame, csrf: TEXT, action: jsUrl, method: TEXT, methodName: TEXT }),
    page("logout-confirm", "hostile fields", { csrf: TEXT, action: jsUrl, clientName: TEXT, cancelUrl: jsUrl }),
    page("logged-out", "script-ending redirect", {
      frontChannelUrls: [jsUrl, BREAKOUT_URL],
      postLogoutRedirectUri: BREAKOUT_URL,
      nonce: NONCE,
    }),
    page("interaction-expired", "hostile back link", { backUrl: jsUrl }),
    page("diagrams", "hostile names and links", {
      stylesheetUrl: jsUrl,
      diagrams: [{ name: TEXT, url: jsUrl, descriptionKey: "diagrams.kind.method", subject: TEXT }],
    }),
    page("diagram", "hostile source and links", {
      name: TEXT,
      descriptionKey: "diagrams.kind.login",
      subject: TEXT,
      source: `${TEXT}\n${BREAKOUT_URL}`,
      plan: { loginType: TEXT, facts: [{ labelKey: "diagram.plan.upstream", value: TEXT }] },
      indexUrl: jsUrl,
      stylesheetUrl: jsUrl,
      scriptUrl: BREAKOUT_URL,
      nonce: NONCE,
    }),
  ];
  for (const url of SCRIPT_URLS) {
    cases.push(
      page("top-redirect", `url ${JSON.stringify(url)}`, { url, nonce: NONCE }),
      page("logged-out", `redirect ${JSON.stringify(url)}`, { frontChannelUrls: [url], postLogoutRedirectUri: url, nonce: NONCE }),
      page("form-post", `action ${JSON.stringify(url)}`, { action: url, fields: [], nonce: NONCE }),
    );
  }
  return cases;
}

/** The password plugin's UI strings: the stand-in partial and the login page cases use them. */
export const PLUGIN_STRINGS = [{ dir: new URL("../../flows/methods/password/i18n", import.meta.url).pathname, prefix: "method.password" }];
