/** The userinfo answer for an access token (SPEC: the access token "can call other interfaces such as userinfo"), or why there is none. */
export async function fetchUserinfo(provider: string, accessToken: string): Promise<Record<string, unknown> | string> {
  try {
    const res = await fetch(`${provider}/connect/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "error",
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok) return `userinfo answered HTTP ${res.status}`;
    return (await res.json()) as Record<string, unknown>;
  } catch {
    return "userinfo cannot be reached";
  }
}
