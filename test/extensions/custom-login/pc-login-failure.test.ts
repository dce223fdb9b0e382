import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { enrolledPhone } from "../../trusted-app/trusted-app-support.ts";
import { pcLogin, scannedSession, scanState, writeStatus } from "../../support/custom-login.ts";

/**
 * A PC login that fails on the provider's side after the session was found (here: issuing the code
 * throws) still answers the page with access_denied at PCRedirectUrl — never a 500 — and is logged, so
 * that an operator sees why a user's approved login produced no code.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

it("answers access_denied and logs the unexpected failure", async () => {
  const alice = await enrolledPhone(p);
  const { session, tokens } = await scannedSession(p, alice, { PCState: "pc" });
  await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "d" });
  const codes = p.provider.codes;
  const issue = codes.issue.bind(codes);
  codes.issue = () => Promise.reject(new Error("the code store broke"));
  try {
    const login = await pcLogin(session);
    expect(login.status).toBe(303);
    expect(login.location!.searchParams.get("error")).toBe("access_denied");
    expect(login.location!.searchParams.get("state")).toBe("pc");
  } finally {
    codes.issue = issue;
  }
  const errors = p.logs.filter((line) => line.level === 50);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({
    msg: "unhandled error",
    path: "/Acme/CustomLogin/Authorize",
    err: { message: "the code store broke" },
  });
  expect(await scanState(session)).toBe("done");
});
