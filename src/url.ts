/** URLs of the app under test, shared by the app launcher and the navigate step. */

/** Joins a base URL (no trailing slash) and a path; absolute http(s) URLs pass through. */
export function joinUrl(baseUrl: string, pathOrUrl?: string): string {
  if (pathOrUrl === undefined || pathOrUrl === '' || pathOrUrl === '/') return new URL(baseUrl).href;
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  if (pathOrUrl.startsWith('?') || pathOrUrl.startsWith('#')) return new URL(baseUrl).href + pathOrUrl;
  return `${baseUrl}/${pathOrUrl.replace(/^\/+/, '')}`;
}
