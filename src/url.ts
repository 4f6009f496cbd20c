/** URLs of the app under test, shared by the app launcher and the navigate step. */

/** Joins a base URL (no trailing slash) and a path; absolute http(s) URLs pass through. */
export function joinUrl(baseUrl: string, pathOrUrl?: string): string {
  if (pathOrUrl === undefined || pathOrUrl === '' || pathOrUrl === '/') return new URL(baseUrl).href;
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  if (pathOrUrl.startsWith('?') || pathOrUrl.startsWith('#')) return new URL(baseUrl).href + pathOrUrl;
  return `${baseUrl}/${pathOrUrl.replace(/^\/+/, '')}`;
}

/**
 * `scheme://user:secret@host…` anywhere in `text` shown as `scheme://user:***@host…`: a cloud Selenium
 * Grid takes its access key in the URL, and that URL reaches error messages, run files and reports.
 */
export function hideCredentials(text: string): string {
  return text.replace(
    /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*):([^\s/?#@]*)@/gi,
    (_m, scheme: string, user: string) => `${scheme}${user}:***@`,
  );
}

/**
 * A URL with credentials as fetch can use it (fetch refuses a URL that holds them): the URL without
 * them, and the HTTP Basic `authorization` header they stand for.
 */
export function splitCredentials(url: string): { url: string; headers: Record<string, string> } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url, headers: {} };
  }
  if (!u.username && !u.password) return { url, headers: {} };
  const basic = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
  u.username = '';
  u.password = '';
  // URL keeps a trailing slash on a bare origin: the callers join paths to it.
  return { url: u.href.replace(/\/$/, url.endsWith('/') ? '/' : ''), headers: { authorization: `Basic ${basic}` } };
}

/** `ws://host/…` with the credentials of `from` (a Grid URL) put in, so the WebSocket sends them as Basic auth. */
export function withCredentialsOf(from: string, target: string): string {
  try {
    const src = new URL(from);
    if (!src.username && !src.password) return target;
    const t = new URL(target);
    t.username = src.username;
    t.password = src.password;
    return t.href;
  } catch {
    return target;
  }
}
