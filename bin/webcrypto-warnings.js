// Node 24 flags WebCrypto's SubtleCrypto.supports() and its ML-DSA algorithms as experimental. Libraries
// the provider uses probe them once, at their first use (@simplewebauthn/server at the first security-key
// ceremony, jose and node-oidc-provider behind the development eID provider), and each probe would put an
// ExperimentalWarning line into the operator's output though nothing experimental is used. Only those are
// muted: every other warning goes to Node's own handler, printed as before.
// Plain JavaScript, loaded by bin/portcullis.js before anything else.

const WEBCRYPTO_PROBE = /\bWeb Crypto API (method|algorithm)\b/;

/** Mutes the ExperimentalWarnings of WebCrypto probes; Node's handlers still get every other warning. */
export function muteWebCryptoProbeWarnings() {
  const handlers = process.listeners("warning");
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name === "ExperimentalWarning" && WEBCRYPTO_PROBE.test(warning.message)) return;
    for (const handler of handlers) handler(warning);
  });
}
