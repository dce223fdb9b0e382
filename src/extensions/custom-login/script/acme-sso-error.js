/*
 * The LoginJs answer when the page's parameters are wrong (custom-login contract §1 "Error"), wrapped as
 *   (function (window) { var ERROR = "<message>"; <this file> })(window);
 * The integrator sees the message in the console at once, and in the container when the page calls
 * new AcmeSSO(selector) as usual. Plain ES5; jQuery is used when the page has it, the DOM otherwise.
 * The message is always set as text, never as HTML.
 */
/* global ERROR */

if (window.console && window.console.error) window.console.error("AcmeSSO: " + ERROR);

window.AcmeSSO = function AcmeSSO(selector) {
  var $ = window.jQuery;
  if ($ && $.fn && $.fn.text) {
    // find() never parses the string as HTML, as $(string) would for a string with "<" in it.
    var $container = typeof selector === "string" ? $(window.document).find(selector) : $(selector);
    $container.eq(0).addClass("acme-sso acme-sso-error").text(ERROR);
    return;
  }
  var element = null;
  try {
    element = typeof selector === "string" ? window.document.querySelector(selector) : selector;
  } catch (badSelector) {
    // An invalid selector: the console line above already says what is wrong.
  }
  if (!element) return;
  element.className = (element.className ? element.className + " " : "") + "acme-sso acme-sso-error";
  if ("textContent" in element) element.textContent = ERROR;
  else element.innerText = ERROR;
};
