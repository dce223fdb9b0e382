console.error("AcmeSSO: " + ERROR);
window.AcmeSSO = function (selector) { window.jQuery(selector).text(ERROR); };
