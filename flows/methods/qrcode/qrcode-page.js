// The qrcode method's page script (scan, approval and enrollment steps). It long-polls the state the
// page was rendered in and, when that changes, submits the step's form: CHECK (the provider then reads
// the new state from its store and shows the next step) or REFRESH (the QR code expired: a new one).
// It also shows the QR code's URI as text, for a trusted app that cannot use the camera (the CLI).
// Without this script the page still works: the same form has "Continue" and "New code" buttons.
(function () {
  "use strict";
  var box = document.getElementById("qrcode-poll");
  var form = document.getElementById("qrcode-form");
  if (!box || !form) return;
  var seen = box.getAttribute("data-state");
  var url = box.getAttribute("data-poll");

  function submit(event) {
    var button = form.querySelector('button[name="event"][value="' + event + '"]');
    if (form.requestSubmit) form.requestSubmit(button);
    else button.click();
  }

  function showUri(uri) {
    var code = document.getElementById("qrcode-uri");
    if (!code || !uri || code.textContent === uri) return;
    code.textContent = uri;
    code.parentNode.hidden = false;
  }

  function wait(ms) {
    return new Promise(function (resolve) {
      setTimeout(resolve, ms);
    });
  }

  async function poll() {
    var query = "";
    for (;;) {
      try {
        var res = await fetch(url + query, { cache: "no-store", credentials: "same-origin", headers: { Accept: "application/json" } });
        if (!res.ok) {
          // Gone (expired and swept, or the session ended): let the provider decide what comes next.
          return submit("CHECK");
        }
        var answer = await res.json();
        if (answer.uri) showUri(answer.uri);
        if (answer.state !== seen) return submit(answer.state === "expired" ? "REFRESH" : "CHECK");
      } catch (e) {
        await wait(2000); // offline for a moment, or the provider restarting
      }
      query = "?seen=" + encodeURIComponent(seen);
    }
  }

  poll();
})();
