/** URLs of the app under test, shared by the app launcher and the navigate step. */

/** Joins a base URL (no trailing slash) and a path; absolute http(s) URLs pass through. */
export function joinUrl(baseUrl: string, pathOrUrl?: string): string {
  if (pathOrUrl === undefined || pathOrUrl === '' || pathOrUrl === '/') return new URL(baseUrl).href;
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  if (pathOrUrl.startsWith('?') || pathOrUrl.startsWith('#')) return new URL(baseUrl).href + pathOrUrl;
  return `${baseUrl}/${pathOrUrl.replace(/^\/+/, '')}`;
}

/**
 * Query parameters that carry a credential or name a file holding one: libpq's and node-postgres's (a
 * `postgres://` history URL takes `?password=`, `?sslpassword=`, `?sslkey=`, `?passfile=`) and the names
 * hosted services give an access key.
 */
const CREDENTIAL_PARAMS = [
  'password',
  'passwd',
  'pwd',
  'sslpassword',
  'sslkey',
  'sslcert',
  'passfile',
  'secret',
  'token',
  'access_token',
  'access_key',
  'accesskey',
  'api_key',
  'apikey',
];
const CREDENTIAL_PARAM_RE = new RegExp(`([?&](?:${CREDENTIAL_PARAMS.join('|')})=)[^&#\\s"'<>]*`, 'gi');

/**
 * `scheme://user:secret@host…` anywhere in `text` shown as `scheme://user:***@host…`, and the value of
 * every credential query parameter (`?password=…`, `&sslkey=…`) as `***`: a cloud Selenium Grid takes its
 * access key in the URL, a PostgreSQL history its password, and those URLs reach error messages, run files and reports.
 */
export function hideCredentials(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*):([^\s/?#@]*)@/gi, (_m, scheme: string, user: string) => `${scheme}${user}:***@`)
    .replace(CREDENTIAL_PARAM_RE, (_m, name: string) => `${name}***`);
}

/** `scheme:` of a `scheme://…` location, else undefined (a file path). */
function schemeOf(location: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*:)\/\//i.exec(location)?.[1]?.toLowerCase();
}

/**
 * `location` parsed as a URL; an empty host after credentials (`postgres://u:p@/db?host=/run/postgresql`, a
 * unix socket, which WHATWG URL refuses) is read as no host, as node-postgres reads it.
 */
function parsed(location: string): { url: URL; noHost: boolean } | undefined {
  for (const [text, noHost] of [
    [location, false],
    [location.replace('@/', '@socket/'), true],
  ] as const) {
    try {
      return { url: new URL(text), noHost };
    } catch {
      /* the next form */
    }
  }
  return undefined;
}

/**
 * A location (a database URL or a file path) as it is shown everywhere (text, JSON, errors): a URL as its
 * scheme, user, host, port and path (the database) only, never its password, query or fragment, whatever
 * parameter they carry; a path as it is. libpq's `user`, `host` and `port` parameters override the URL's
 * own (node-postgres connects there), so those are shown.
 */
export function shownLocation(location: string): string {
  const scheme = schemeOf(location);
  if (scheme === undefined) return location;
  const p = parsed(location);
  if (!p) return `${scheme}//(unparseable URL)`;
  const q = /^postgres(ql)?:$/.test(scheme) ? p.url.searchParams : new URLSearchParams();
  const user = q.has('user') ? encodeURIComponent(q.get('user')!) : p.url.username;
  const host = q.has('host') ? encodeURIComponent(q.get('host')!) : p.noHost ? '' : p.url.hostname;
  const port = q.has('port') ? encodeURIComponent(q.get('port')!) : p.url.port;
  return `${scheme}//${user ? `${user}@` : ''}${host}${port ? `:${port}` : ''}${p.url.pathname}`;
}

/**
 * `text` (a database driver's error message) without any secret of `location`: the URL itself shown as
 * shownLocation, its password and credential parameters as `***` wherever they stand as a whole token.
 */
export function withoutSecretsOf(location: string, text: string): string {
  const p = schemeOf(location) === undefined ? undefined : parsed(location);
  let out = location === '' ? text : text.split(location).join(shownLocation(location));
  if (!p) return hideCredentials(out);
  const raw = [p.url.password, ...CREDENTIAL_PARAMS.flatMap((n) => p.url.searchParams.getAll(n))].filter(Boolean);
  const values = [...new Set(raw.flatMap((v) => [v, safeDecode(v)]))].sort((a, b) => b.length - a.length);
  for (const v of values) {
    out = out.replace(new RegExp(`(?<![A-Za-z0-9])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`, 'g'), '***');
  }
  return hideCredentials(out);
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
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
