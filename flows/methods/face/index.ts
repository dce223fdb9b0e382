import { readFileSync } from "node:fs";
import express from "express";
import { fromPromise } from "xstate";
import { decodeFrame } from "./face-frame.ts";
import {
  createDevelopmentFaceService,
  createHttpFaceService,
  developmentFaceServiceSchema,
  FaceServiceError,
  httpFaceServiceSchema,
  type DevelopmentFaceServiceSettings,
  type FaceService,
  type HttpFaceServiceSettings,
} from "./face-service.ts";
import { faceMachine, type FaceVerdict } from "./face.machine.ts";
import {
  epochSeconds,
  methodManifest,
  methodPageScript,
  type Enrollment,
  type FactorPlugin,
  type PluginContext,
} from "../../../src/plugin-contract/index.ts";

interface FaceSettings {
  service: HttpFaceServiceSettings | DevelopmentFaceServiceSettings;
  /** Only users with a face enrollment record (a reference key) may use the method (default false). */
  require_enrollment: boolean;
}

/** A user's face enrollment: the face service's reference for them (set by an operator). */
interface FaceEnrollment {
  key: string;
}

/** The service answer that passes. */
const MATCH = "match";

// Room in the form body for everything but the image: csrf token, event name, field names.
const FORM_OVERHEAD_BYTES = 1024;
const CAPTURE_SCRIPT = readFileSync(new URL("./capture.js", import.meta.url), "utf8");

const services = new WeakMap<PluginContext<FaceSettings>, FaceService>();
function serviceOf(ctx: PluginContext<FaceSettings>): FaceService {
  let service = services.get(ctx);
  if (!service) {
    const { settings, methodId } = ctx;
    service =
      settings.service.kind === "development"
        ? createDevelopmentFaceService()
        : createHttpFaceService(settings.service, `methods.${methodId}.service`);
    services.set(ctx, service);
  }
  return service;
}

/**
 * Face recognition (class untrusted, web): the page captures one camera frame and a configured face
 * service decides whether it shows the user; the provider recognises no faces itself. The check
 * that passed ({result, key, time}) is the method's output, for the `faceid` claim. See README.md.
 */
const facePlugin: FactorPlugin<FaceSettings> = {
  manifest: methodManifest({
    id: "face",
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["service"],
      properties: {
        service: {
          type: "object",
          oneOf: [httpFaceServiceSchema, developmentFaceServiceSchema],
          description: "The face service. `kind: development` accepts any frame and must be chosen explicitly.",
        },
        require_enrollment: {
          type: "boolean",
          default: false,
          description: "Only users with a face enrollment (a reference key, set by an operator) may use the method.",
        },
      },
    },
    machines: { login: faceMachine },
  }),
  class: "untrusted",
  identifiesUser: false,
  amr: "face",
  actors(ctx) {
    const { services, attempts, enrollments, methodId } = ctx;
    const service = serviceOf(ctx);
    return {
      verifyFace: fromPromise<FaceVerdict, { sub: string; image: string }>(async ({ input }) => {
        const image = decodeFrame(input.image);
        if (!image) return { outcome: "invalid_frame" };
        // Counted before anything is checked; a locked account hears what a stranger's face hears.
        if (!(await attempts.tryAttempt(input.sub))) return { outcome: "no_match" };
        // A decoy sub (unknown name) or a disabled user: never sent to the service, never accepted.
        if (!(await services.users.isActive(input.sub))) return { outcome: "no_match" };
        const enrolled = (await enrollments.get(input.sub)) as Enrollment<FaceEnrollment> | undefined;
        if (ctx.settings.require_enrollment && !enrolled) return { outcome: "no_match" };
        let answer;
        try {
          answer = await service.verify({ sub: input.sub, image, reference: enrolled?.data.key });
        } catch (err) {
          if (!(err instanceof FaceServiceError)) throw err;
          services.logger.warn(
            { event: "face_service_failed", method: methodId, sub: input.sub, reason: err.reason },
            "face service could not verify a frame",
          );
          return { outcome: "unavailable" };
        }
        const faceid = { result: answer.result, key: answer.key, time: epochSeconds(services.clock) };
        services.logger.info({ event: "face_checked", method: methodId, sub: input.sub, adapter: service.kind, ...faceid }, "face checked");
        if (answer.result !== MATCH) return { outcome: "no_match" };
        await attempts.succeeded(input.sub);
        return { outcome: "match", faceid };
      }),
    };
  },
  // The reference is recorded by an operator (`portcullis methods enroll USER face key=…`).
  account: { setUpBy: "administrator" },
  views: { capture: readFileSync(new URL("./capture.hbs", import.meta.url), "utf8") },
  routes(ctx) {
    // Built once when the provider starts serving: the moment to say that any face passes.
    if (serviceOf(ctx).kind === "development") {
      ctx.services.logger.warn(
        { event: "face_development_adapter", method: ctx.methodId },
        "development face adapter: ANY camera frame passes as the user; never use it in production",
      );
    }
    const budget = ctx.services.settings.security.max_body_bytes - FORM_OVERHEAD_BYTES;
    const script = CAPTURE_SCRIPT.replace("__MAX_FIELD_CHARS__", String(budget));
    return express.Router().get("/capture.js", methodPageScript(script));
  },
  async enrollByOperator({ services, enrollments }, sub, options) {
    const key = options.key;
    if (key === undefined || !/^[\x21-\x7e]{1,200}$/.test(key)) throw new Error("give key=<the face service's reference for this user>");
    if (!(await services.users.findBySub(sub))) throw new Error(`no user with sub ${sub}`);
    await enrollments.put(sub, { key } satisfies FaceEnrollment);
    return `face reference ${key} recorded for ${sub}`;
  },
};

export default facePlugin;
