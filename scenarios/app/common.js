// Shared helpers for the rehearse demo app: toasts and a "ready" marker.

/** The page's toast live region (role=status). Created on first use if the page has none. */
export function toastRegion() {
  let region = document.getElementById('toasts');
  if (!region) {
    region = document.createElement('div');
    region.id = 'toasts';
    region.className = 'toast-region';
    region.setAttribute('role', 'status');
    region.setAttribute('aria-live', 'polite');
    region.setAttribute('aria-label', 'Notifications');
    region.dataset.testid = 'toasts';
    document.body.append(region);
  }
  return region;
}

/** Show a toast with `message`; it removes itself after `timeoutMs` (default 2000 ms). */
export function toast(message, { timeoutMs = 2000 } = {}) {
  const item = document.createElement('div');
  item.className = 'toast';
  item.dataset.testid = 'toast';
  item.textContent = message;
  toastRegion().append(item);
  setTimeout(() => item.remove(), timeoutMs);
  return item;
}

/** Mark the page as initialised: <body data-ready="true">. */
export function markReady() {
  document.body.dataset.ready = 'true';
}
