import { markReady } from './common.js';

// A custom element with an OPEN shadow root holding a labelled button and input.
class ShadowPanel extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `
      <style>
        :host { display: block; border: 1px dashed currentColor; border-radius: 6px; padding: 12px; max-width: 480px; }
        .row { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; }
        button, input { font: inherit; padding: 4px 10px; }
      </style>
      <div class="row">
        <button id="shadow-button" type="button" data-testid="shadow-button">Shadow button</button>
        <output id="shadow-output" data-testid="shadow-output" aria-live="polite">Shadow clicks: 0</output>
      </div>
      <div class="row">
        <label for="shadow-input">Shadow input</label>
        <input id="shadow-input" type="text" autocomplete="off" data-testid="shadow-input">
      </div>`;
    let clicks = 0;
    root.getElementById('shadow-button').addEventListener('click', () => {
      clicks++;
      root.getElementById('shadow-output').textContent = `Shadow clicks: ${clicks}`;
    });
  }
}
customElements.define('shadow-panel', ShadowPanel);

markReady();
