// The FIDO2 pages (flows/methods/fido/fido.hbs, fido-enroll.hbs): on "Use"/"Register", fetches the
// WebAuthn options of the page's pending ceremony (by the opaque handle in data-handle), asks the
// browser (navigator.credentials.create or .get), and posts the credential as JSON — binary fields
// in base64url, as @simplewebauthn/server reads them — with the page's form. An expired ceremony
// (404) posts REFRESH for a new one.
(() => {
  "use strict";
  const root = document.getElementById("fido");
  if (!root) return;
  const start = document.getElementById("fido-start");
  const problem = document.getElementById("fido-problem");

  const toBase64url = (buffer) => {
    let binary = "";
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const fromBase64url = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  };
  const withBinaryIds = (list) => (list || []).map((c) => ({ ...c, id: fromBase64url(c.id) }));

  const creationOptions = (o) => ({
    ...o,
    challenge: fromBase64url(o.challenge),
    user: { ...o.user, id: fromBase64url(o.user.id) },
    excludeCredentials: withBinaryIds(o.excludeCredentials),
  });
  const requestOptions = (o) => ({ ...o, challenge: fromBase64url(o.challenge), allowCredentials: withBinaryIds(o.allowCredentials) });

  const common = (credential) => ({
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  });
  const registrationJson = (credential) => ({
    ...common(credential),
    response: {
      clientDataJSON: toBase64url(credential.response.clientDataJSON),
      attestationObject: toBase64url(credential.response.attestationObject),
      transports: typeof credential.response.getTransports === "function" ? credential.response.getTransports() : [],
    },
  });
  const authenticationJson = (credential) => ({
    ...common(credential),
    response: {
      clientDataJSON: toBase64url(credential.response.clientDataJSON),
      authenticatorData: toBase64url(credential.response.authenticatorData),
      signature: toBase64url(credential.response.signature),
      userHandle: credential.response.userHandle ? toBase64url(credential.response.userHandle) : undefined,
    },
  });

  const EXPIRED = new Error("expired");
  const fetchCeremony = async () => {
    const res = await fetch(root.dataset.optionsUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ handle: root.dataset.handle }),
      credentials: "same-origin",
      cache: "no-store",
    });
    if (res.status === 404) throw EXPIRED;
    if (!res.ok) throw new Error(`status ${res.status}`);
    return res.json();
  };

  const showProblem = (text) => {
    problem.textContent = text;
    problem.hidden = false;
  };

  const run = async () => {
    start.disabled = true;
    problem.hidden = true;
    try {
      const { ceremony, options } = await fetchCeremony();
      const credential =
        ceremony === "registration"
          ? registrationJson(await navigator.credentials.create({ publicKey: creationOptions(options) }))
          : authenticationJson(await navigator.credentials.get({ publicKey: requestOptions(options) }));
      const form = document.getElementById("fido-answer");
      form.elements.credential.value = JSON.stringify(credential);
      form.submit();
    } catch (error) {
      if (error === EXPIRED) return document.getElementById("fido-refresh").submit();
      showProblem(root.dataset.failedText);
      start.disabled = false;
    }
  };

  if (!window.PublicKeyCredential || !navigator.credentials) {
    start.disabled = true;
    showProblem(root.dataset.unsupportedText);
    return;
  }
  start.addEventListener("click", () => void run());
})();
