// swagger-ui-dist's swagger-initializer.js with the spec served beside the page (no network beyond this host).
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/petstore.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    // The online validator badge would be a request off this host.
    validatorUrl: null,
  });
};
