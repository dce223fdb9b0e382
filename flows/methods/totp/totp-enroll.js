// The TOTP enrollment page (flows/methods/totp/totp-enroll.hbs): trades the page's single-use handle
// for the new secret and shows it as a QR code, as text and as an otpauth:// link. The server shows a
// secret once, so a reloaded page gets a 404 and says to start over.
(() => {
  "use strict";
  const box = document.getElementById("totp-secret");
  if (!box) return;
  const show = (id) => (document.getElementById(id).hidden = false);
  fetch(box.dataset.url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ handle: box.dataset.handle }),
    credentials: "same-origin",
    cache: "no-store",
  })
    .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`status ${res.status}`))))
    .then((shown) => {
      document.getElementById("totp-qr").src = shown.qr;
      document.getElementById("totp-secret-text").textContent = shown.secret;
      document.getElementById("totp-link").href = shown.uri;
      show("totp-shown");
    })
    .catch(() => show("totp-gone"));
})();
