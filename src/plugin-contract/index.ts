/**
 * The plugin contract: everything a factor method (flows/methods/<id>/), a login flow (flows/) or an
 * extension (src/extensions/<id>/) may import from the provider, in one list (what it declares comes
 * from ./declaration.ts, which this module re-exports). `npm run deps` holds them
 * to it (.dependency-cruiser.cjs): what is not exported here is the provider's own business and may
 * change under them. A plugin is handed its services (PluginServices, ExtensionContext) when it starts;
 * what it imports from here are the shapes it implements and the building blocks it composes.
 */

// What a plug-in declares before it runs (its manifest, its config file's rules): the light part.
export * from "./declaration.ts";

// What a plug-in is and is given when it starts.
export type { PlugInServices } from "./manifest.ts";
export type {
  FactorPlugin,
  PluginContext,
  PluginServices,
  RequestFacts,
} from "./factor-plugin.ts";
export type { EnrolledItem, MethodAccountView } from "./method-account-view.ts";
export type {
  AuthorizationContribution,
  Extension,
  ExtensionContext,
  ExtensionHttp,
  ExtensionPolicy,
  IssuingAuthorization,
  RunningExtension,
} from "./extension.ts";
export { methodPageScript } from "./method-page-script.ts";

// Time, errors, secrets.
export { epochSeconds, type Clock } from "../time/clock.ts";
export { parseDuration } from "../time/duration.ts";
export { OAuthError, invalidRequest, oauthError } from "../errors/oauth-error.ts";
export { ConfigError } from "../errors/config-error.ts";
export { constantTimeEqual } from "../crypto/constant-time-equal.ts";
export { encryptionKeyMaterial } from "../crypto/encryption-key.ts";
export { randomToken } from "../crypto/random-token.ts";
export { storeKeyHash } from "../crypto/store-key-hash.ts";

// Records and limits.
export type { RecordStore, Store } from "../stores/store.ts";
export type { Enrollment } from "../enrollments/enrollments.ts";
export { AttemptLimiter } from "../security/attempt-limiter.ts";
export { clientAddress } from "../security/client-address.ts";
export { matchTimeStep, type TotpKey } from "../security/time-based-codes.ts";
export { TimeStepClaims } from "../security/time-step-claims.ts";

// HTTP building blocks (a plugin's routes, an extension's endpoints).
export type { Exchange } from "../http-kit/exchange.ts";
export type { ProtocolRoute } from "../http-kit/protocol-route.ts";
export { appendQuery } from "../http-kit/append-query.ts";
export { closedFlag, waitForChange } from "../http-kit/long-poll.ts";
export { readFormBody } from "../http-kit/params.ts";
export { strictJsonBody } from "../http-kit/strict-json-body.ts";
export { JsonBodyError, parseStrictJson } from "../http-kit/strict-json.ts";
export { toOAuthError, writeError } from "../http-kit/write-error.ts";
export { writeJson } from "../http-kit/write-response.ts";
export { scriptJson } from "../views/view-engine.ts";
export type { Lang } from "../i18n/lang.ts";
export { qrSvgDataUri, writeQrSvg } from "../qr-codes/qr-image.ts";

// Who is signed in, and the directory.
export { currentSession } from "../sessions/current-session.ts";
export { verifyUserPassword } from "../users/verify-user-password.ts";
export type { AuthorizationRequest } from "../oauth/authorization-request.ts";
export type { AccessTokenClaims } from "../tokens/access-token.ts";
export { formatScope, parseScope, scopesOutside } from "../scopes/scope.ts";

// Delivering messages (SMS and e-mail codes).
export { createHttpSmsSender, httpGatewaySchema, type HttpGatewaySettings } from "../delivery/http-sms-sender.ts";
export { DeliveryError, type MessageSender, type OutgoingMessage } from "../delivery/message-sender.ts";
export { OutboundRequestError, sendOutbound } from "../delivery/outbound-request.ts";
export { checkOutboundUrl } from "../delivery/outbound-url.ts";
export { Outbox, outboxSchema, type OutboxSettings } from "../delivery/outbox.ts";
export { createSmtpSender, smtpSchema, type SmtpSettings } from "../delivery/smtp-sender.ts";

// One-time codes (the code methods' shared builder, flows/code-method/).
export { CodeHasher } from "../one-time-codes/code-hasher.ts";
export { codeMethodSchema, sendPolicy, type CodeMethodSettings } from "../one-time-codes/code-method-settings.ts";
export type { CheckInput, CheckVerdict, SendInput, SendVerdict } from "../one-time-codes/code-verdicts.ts";
export { composeText, loadMessageTexts, type MessageTexts } from "../one-time-codes/message-texts.ts";
export { normaliseCode } from "../one-time-codes/one-time-code.ts";
export { OneTimeCodes, type CodeRecord, type CodeSlot } from "../one-time-codes/one-time-codes.ts";
export { SendLimits } from "../one-time-codes/send-limits.ts";

// The trusted app (qrcode, appotp, bfido, and the custom QR-code login).
export { bfidoUri } from "../trusted-app/acmeauth-uri.ts";
export { wantsAppEvidence, type AppEvidence, type AppEvidenceProblem } from "../trusted-app/app-evidence.ts";
export { DEVICE_JWS_TYPES } from "../trusted-app/device-jws.ts";
export { DEVICE_ENROLLMENT_METHOD, type Device, type DeviceEnrollment } from "../trusted-app/device-registry.ts";
export { refusedDeviceRequest, verifiedDeviceRequest } from "../trusted-app/device-request.ts";
export { trustedApp } from "../trusted-app/trusted-app.ts";
