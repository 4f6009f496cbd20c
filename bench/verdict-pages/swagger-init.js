// swagger-ui-dist's initializer, the spec served beside the page (no request leaves this host).
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: 'petstore.json',
    dom_id: '#swagger-ui',
    deepLinking: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    validatorUrl: null,
  });
};
