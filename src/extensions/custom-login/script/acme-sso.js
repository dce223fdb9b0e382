window.AcmeSSO = function (selector) { window.jQuery(selector).attr("data-session", SESSION.sessionId); };
