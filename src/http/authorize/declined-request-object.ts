import { decodeJwt } from "jose";

/** How the client asked to be answered, as far as its request object says. */
export interface RequestObjectAnswer {
  responseMode?: string;
  state?: string;
}

/**
 * Request objects are declined (request_not_supported), but the refusal goes back the way the object
 * asked: OIDC Core §6.1 lets `response_mode` and `state` live only in the object, and an error sent in
 * the wrong mode or without the state is lost to the client (the certification's unsigned-request-object
 * module). The object is read, not verified: nothing in it is trusted beyond how to answer this one
 * error, and the redirect_uri it goes to is still the registered one the query named. Anything that is
 * not a readable JWT with string members gives nothing.
 */
export function declinedRequestObjectAnswer(params: ReadonlyMap<string, string>): RequestObjectAnswer {
  const object = params.get("request");
  if (object === undefined) return {};
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(object);
  } catch {
    return {};
  }
  const text = (name: string) => (typeof claims[name] === "string" ? (claims[name] as string) : undefined);
  return { responseMode: text("response_mode"), state: text("state") };
}
