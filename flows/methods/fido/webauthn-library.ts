/**
 * @simplewebauthn/server, loaded at the first FIDO ceremony instead of at start: with its ASN.1 and
 * X.509 dependencies it is some 250 modules, which a provider or CLI command that never sees a passkey
 * has no use for. Node keeps the module once loaded; later calls resolve at once.
 */
export const webauthnLibrary = () => import("@simplewebauthn/server");
