/*
 * AcmeSSO — the browser side of the custom QR-code login (custom-login contract §2).
 *
 * GET /Acme/CustomLogin/LoginJs serves this file wrapped as
 *   (function (window) { var SESSION = {...}; <this file> })(window);
 * so SESSION (one scan session per script load) is in scope and nothing here leaks into the page
 * except window.AcmeSSO. It runs on third-party pages in whatever browser their users have: plain
 * ES5 (no let/const, arrows, template strings, Promise or fetch) and only jQuery >= 1.7, taken from
 * window.jQuery when AcmeSSO is called (the page may load jQuery after this script).
 *
 * One poller per scan session: every `new AcmeSSO` of this script load is a view of the same session.
 * A second call on another container draws a second view; on a container that already shows this
 * session it replaces that view. Either way the status is polled once and the PC login posted once.
 */
/* global SESSION */

var DEFAULT_LAYOUT = { imgSize: 180, imgMarginTop: 30, imgMarginBottom: 30 };
var PROMPT_NAMES = ["scanPrompt", "s0Prompt", "s5Prompt", "sn10Prompt", "s10Prompt"];
/** Which prompt each state shows; a state not listed here keeps the prompt shown. */
var STATE_PROMPT = {
  waiting: "scanPrompt",
  scanned: "s0Prompt",
  auditing: "s5Prompt",
  refused: "sn10Prompt",
  approved: "s10Prompt",
  stale: "scanPrompt",
};
/** States that end the poller. `stale`: the QR expired and could not be renewed (reload hint shown). */
var FINAL_STATES = { refused: true, approved: true, done: true, stale: true };
var KNOWN_STATES = { waiting: true, scanned: true, auditing: true, approved: true, refused: true, expired: true, done: true, stale: true };
/** The provider answers a long poll within ~25 s; past this the request is taken as lost. */
var POLL_TIMEOUT_MS = 40000;
/** Back-off after a failed request: 2 s, 4 s, 8 s ... capped at 30 s, each shortened by up to half at random. */
var RETRY_FIRST_MS = 2000;
var RETRY_MAX_MS = 30000;
/** An unattended page stops renewing after this many fresh QR codes (an hour at 120 s each). */
var MAX_RENEWALS = 30;
var RELOAD_HINT = (SESSION.prompts && SESSION.prompts.reloadHint) || "Reload the page for a new code.";
var STYLE_ID = "acme-sso-default-style";
var DEFAULT_CSS =
  ".acme-sso{text-align:center}" +
  ".acme-sso-qr{display:block;margin-left:auto;margin-right:auto;border:0}" +
  ".acme-sso-prompt,.acme-sso-reload{margin:0 0 8px;font-size:14px;line-height:1.4;color:#333}" +
  ".acme-sso-state-refused .acme-sso-prompt{color:#b3261e}" +
  ".acme-sso-offline .acme-sso-qr{opacity:.5}";

/** The scan session every view of this script load shows. */
var session = {
  id: SESSION.sessionId,
  binding: SESSION.binding,
  qrUri: SESSION.qrUri,
  qrImage: SESSION.qrImage,
  state: "waiting",
  offline: false,
  started: false,
  busy: false,
  retryTimer: null,
  failures: 0,
  renewals: 0,
  submitted: false,
  views: [],
};

window.AcmeSSO = function AcmeSSO(selector, options) {
  if (!(this instanceof AcmeSSO)) return new AcmeSSO(selector, options);
  var $ = window.jQuery;
  if (!$ || !$.ajax) {
    report("jQuery 1.7 or later must be on the page before new AcmeSSO(...)");
    return;
  }
  // find() never parses the string as HTML, as $(string) would for a string with "<" in it.
  var $container = typeof selector === "string" ? $(window.document).find(selector).eq(0) : $(selector).eq(0);
  if ($container.length === 0) {
    report("no element matches " + selector);
    return;
  }
  var view = createView($, $container, readOptions(options || {}));
  forgetViewOf($container[0]);
  session.views.push(view);
  render(view);
  if (!session.started) {
    session.started = true;
    poll();
  }
};

function report(message) {
  if (window.console && window.console.error) window.console.error("AcmeSSO: " + message);
}

/** The options the spec lists; anything else (or of the wrong type) falls back to the default. */
function readOptions(options) {
  var read = { prompts: {}, useDefaultCsss: options.useDefaultCsss !== false };
  for (var i = 0; i < PROMPT_NAMES.length; i++) {
    var name = PROMPT_NAMES[i];
    read.prompts[name] = typeof options[name] === "string" ? options[name] : String((SESSION.prompts && SESSION.prompts[name]) || "");
  }
  for (var key in DEFAULT_LAYOUT) {
    if (!DEFAULT_LAYOUT.hasOwnProperty(key)) continue;
    var value = parseInt(options[key], 10);
    read[key] = isNaN(value) || value < 0 ? DEFAULT_LAYOUT[key] : value;
  }
  return read;
}

/** Empties the container and draws the QR and the prompt; the page's own style rules are kept. */
function createView($, $container, options) {
  if (options.useDefaultCsss) addDefaultStyle($);
  var $img = $("<img>")
    .addClass("acme-sso-qr")
    .attr({ width: options.imgSize, height: options.imgSize, alt: options.prompts.scanPrompt })
    // The margins are options of their own, so they apply with or without the default style.
    .css({ marginTop: options.imgMarginTop + "px", marginBottom: options.imgMarginBottom + "px" });
  // A live region, so a screen reader says each new prompt (the user is looking at the phone meanwhile).
  var $prompt = $("<p>").addClass("acme-sso-prompt").attr({ role: "status", "aria-live": "polite" });
  $container.empty().addClass("acme-sso").append($img, $prompt);
  return { $: $, $container: $container, $img: $img, $prompt: $prompt, $reload: null, options: options };
}

function addDefaultStyle($) {
  if (window.document.getElementById(STYLE_ID)) return;
  $("<style>").attr({ id: STYLE_ID, type: "text/css" }).text(DEFAULT_CSS).appendTo($(window.document).find("head").eq(0));
}

function forgetViewOf(element) {
  var kept = [];
  for (var i = 0; i < session.views.length; i++) {
    if (session.views[i].$container[0] !== element) kept.push(session.views[i]);
  }
  session.views = kept;
}

function renderAll() {
  for (var i = 0; i < session.views.length; i++) render(session.views[i]);
}

/** Shows the session's state in one view: state class, QR (only while it can be scanned), prompt. */
function render(view) {
  var state = session.state;
  var classes = [];
  for (var known in KNOWN_STATES) if (KNOWN_STATES.hasOwnProperty(known)) classes.push("acme-sso-state-" + known);
  view.$container.removeClass(classes.join(" ")).addClass("acme-sso-state-" + state);
  if (session.offline) view.$container.addClass("acme-sso-offline");
  else view.$container.removeClass("acme-sso-offline");
  view.$img.attr({ src: session.qrImage, "data-uri": session.qrUri });
  if (state === "waiting" || state === "expired") view.$img.show();
  else view.$img.hide();
  if (STATE_PROMPT.hasOwnProperty(state)) view.$prompt.text(view.options.prompts[STATE_PROMPT[state]]);
  // `stale` is final, so the hint is added once and never taken away.
  if (state === "stale" && !view.$reload) {
    view.$reload = view.$("<p>").addClass("acme-sso-reload").text(RELOAD_HINT);
    view.$container.append(view.$reload);
  }
}

function jQueryOfViews() {
  return session.views[0].$;
}

/** One long poll: `seen` is the state shown, so the provider answers when it changes (or after ~25 s). */
function poll() {
  if (FINAL_STATES[session.state] || session.busy || session.retryTimer) return;
  session.busy = true;
  var askedFor = session.id;
  jQueryOfViews().ajax({
    url: SESSION.statusUrl,
    type: "GET",
    dataType: "json",
    timeout: POLL_TIMEOUT_MS,
    data: { session_id: session.id, binding: session.binding, seen: session.state },
    success: function (answer) {
      session.busy = false;
      if (!answer || !KNOWN_STATES.hasOwnProperty(answer.state) || answer.state === "stale") {
        failed();
        return;
      }
      recovered();
      if (askedFor === session.id) enter(answer.state);
      poll();
    },
    error: function () {
      session.busy = false;
      failed();
    },
  });
}

/** Waits before the next request, longer after each failure in a row, so a provider that is down is not hammered. */
function failed() {
  session.failures++;
  var delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * Math.pow(2, session.failures - 1));
  delay = Math.round(delay * (0.5 + Math.random() / 2));
  session.offline = true;
  renderAll();
  session.retryTimer = window.setTimeout(function () {
    session.retryTimer = null;
    poll();
  }, delay);
}

function recovered() {
  session.failures = 0;
  if (!session.offline) return;
  session.offline = false;
  renderAll();
}

function enter(state) {
  if (state === session.state) return;
  session.state = state;
  renderAll();
  if (state === "expired") renew();
  else if (state === "approved") submitAuthorize();
}

/** A fresh QR for a session that expired unscanned; anything but a transient failure ends with the reload hint. */
function renew() {
  if (session.renewals >= MAX_RENEWALS) {
    enter("stale");
    return;
  }
  session.renewals++;
  session.busy = true;
  jQueryOfViews().ajax({
    url: SESSION.renewUrl,
    type: "POST",
    dataType: "json",
    timeout: POLL_TIMEOUT_MS,
    data: { session_id: session.id, binding: session.binding },
    success: function (fresh) {
      session.busy = false;
      if (!fresh || !isText(fresh.sessionId) || !isText(fresh.binding) || !isText(fresh.qrUri) || !isText(fresh.qrImage)) {
        enter("stale");
        return;
      }
      recovered();
      session.id = fresh.sessionId;
      session.binding = fresh.binding;
      session.qrUri = fresh.qrUri;
      session.qrImage = fresh.qrImage;
      enter("waiting");
      poll();
    },
    error: function (xhr) {
      session.busy = false;
      // A refusal (4xx) is final; a network error or 5xx asks Status again after the back-off,
      // which answers `expired` again and so renews again.
      if (xhr && xhr.status >= 400 && xhr.status < 500) {
        enter("stale");
        return;
      }
      session.state = "waiting";
      failed();
    },
  });
}

function isText(value) {
  return typeof value === "string" && value.length > 0;
}

/** Posts the PC-side authorize request (contract §7) in the top window, once. */
function submitAuthorize() {
  if (session.submitted) return;
  session.submitted = true;
  var $ = jQueryOfViews();
  var $form = $("<form>").attr({ method: "post", action: SESSION.authorizeUrl, target: "_top" }).hide();
  var fields = { session_id: session.id, binding: session.binding };
  var pc = SESSION.pcAuthorize || {};
  for (var name in pc) {
    if (pc.hasOwnProperty(name) && pc[name] !== null && pc[name] !== undefined) fields[name] = String(pc[name]);
  }
  for (var field in fields) {
    if (fields.hasOwnProperty(field)) $form.append($('<input type="hidden">').attr("name", field).val(fields[field]));
  }
  $form.appendTo(window.document.body);
  // The prototype's submit: a field named "submit" would shadow the form's own method.
  window.HTMLFormElement.prototype.submit.call($form[0]);
}
