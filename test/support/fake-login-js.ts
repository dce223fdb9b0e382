/** A 10×10 SVG, as the real script's QR is an SVG data: URI. */
const QR = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>').toString("base64")}`;

/**
 * The stand-in provider's LoginJs: an ES5 probe with the real script's outline (contract §2) that does
 * each thing the real one needs a relying page's CSP to allow — add a style element, draw a data: image,
 * poll the provider with XHR, post the PC authorize form to the provider — and then posts what it saw
 * (`probe`: jQuery's version, the state, the style's effect) for the PC page to show as its data.
 */
export function fakeLoginJs(issuer: string, query: URLSearchParams): string {
  const pcAuthorize = {
    client_id: query.get("PCClientId") ?? query.get("clientId"),
    redirect_uri: query.get("PCRedirectUrl"),
    scope: query.get("PCScope") ?? "openid profile acme",
    response_type: "code",
    state: query.get("PCState") ?? undefined,
  };
  const session = {
    statusUrl: `${issuer}/Acme/CustomLogin/Status`,
    authorizeUrl: `${issuer}/Acme/CustomLogin/Authorize`,
    qrImage: QR,
    pcAuthorize,
  };
  return `(function (window) {
  var SESSION = ${JSON.stringify(session)};
  window.AcmeSSO = function (selector) {
    var $ = window.jQuery, box = $(selector);
    $('<style>.acme-sso-qr { margin-top: 30px; }</style>').appendTo('head');
    var img = $('<img class="acme-sso-qr" alt="QR">');
    img.on('load', function () {
      $.ajax({ url: SESSION.statusUrl, dataType: 'json', success: function (answer) {
        var probe = 'jQuery ' + $.fn.jquery + ', ' + answer.state + ', margin ' + img.css('margin-top') + ', width ' + img[0].naturalWidth;
        var form = $('<form method="post" target="_top"></form>').attr('action', SESSION.authorizeUrl);
        $.each(SESSION.pcAuthorize, function (name, value) { $('<input type="hidden">').attr('name', name).val(value).appendTo(form); });
        $('<input type="hidden" name="probe">').val(probe).appendTo(form);
        form.appendTo('body');
        form[0].submit();
      } });
    });
    img.attr('src', SESSION.qrImage).appendTo(box);
  };
})(window);
`;
}
