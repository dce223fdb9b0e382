import { fromPromise } from "xstate";

/**
 * What a second-factor flow needs to enroll a method inside a login (login types with
 * `enroll_on_first_use`, MyVendor's): an actor that says which of the offered methods the user has
 * enrolled, and the method's enrollment machine under an actor id of its own (the method id already
 * names its login machine). The runtime provides both (src/runtime/login-flows.ts) and shows the
 * enrollment machine's pages as the method's own (methodOfActor).
 */

/** The actor id of the enrolled-methods check. */
export const ENROLLED_METHODS = "enrolledMethods";

export interface EnrolledMethodsInput {
  sub: string;
  /** The flow's methods: the answer is the enrolled ones among them. */
  methods: readonly string[];
}

/** Which of `methods` the user has enrolled (a placeholder until the runtime provides it). */
export const enrolledMethodsPlaceholder = fromPromise<string[], EnrolledMethodsInput>(async () => {
  throw new Error("enrolledMethods is provided by the runtime");
});

const SUFFIX = ".enrollment";

/** The actor id a login flow invokes `methodId`'s enrollment machine by (method ids contain no dot). */
export const enrollmentActorId = (methodId: string) => `${methodId}${SUFFIX}`;

/** The method an invoked actor id stands for: its views, routes and labels are that method's. */
export const methodOfActor = (actorId: string) => (actorId.endsWith(SUFFIX) ? actorId.slice(0, -SUFFIX.length) : actorId);
