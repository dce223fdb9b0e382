// The ExperimentalWarnings that would reach the operator's output though the provider uses nothing
// experimental by choice. Only these are muted: every other warning goes to Node's own handler, printed
// as before. Plain JavaScript, loaded by bin/portcullis.js before anything else.

const MUTED = [
  // Node 24 flags WebCrypto's SubtleCrypto.supports() and its ML-DSA algorithms as experimental. Libraries
  // the provider uses probe them once, at their first use (@simplewebauthn/server at the first security-key
  // ceremony, jose and node-oidc-provider behind the development eID provider).
  /\bWeb Crypto API (method|algorithm)\b/,
  // Node 24.0–24.2 warn once, at the first TypeScript file they strip: the way every source is loaded
  // (24.3 and 22.18 no longer warn).
  /^Type Stripping is an experimental feature\b/,
];

/** Mutes the ExperimentalWarnings named in MUTED; Node's handlers still get every other warning. */
export function muteExpectedWarnings() {
  const handlers = process.listeners("warning");
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "ExperimentalWarning" && MUTED.some((pattern) => pattern.test(warning.message))) return;
    for (const handler of handlers) handler(warning);
  });
}
