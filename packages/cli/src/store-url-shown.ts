// What the CLI may show of a store URL, and which parameters a URL may carry. A store URL often holds
// a credential (a password in its userinfo, `?password=`, an endpoint with its own userinfo), so it
// is never printed as given: it is parsed, and only the parts known to be harmless are shown (the
// scheme, host, port, path and the query parameters known to carry no secret); everything else is
// `***`. A URL that does not parse is never echoed at all: the message says which part is wrong.
import { CliUsageError } from './errors.js';

/** The query parameters of one scheme's URLs, as the adapter reads them. */
interface SchemeParameters {
  /** The package whose URLs these are, for messages. */
  readonly adapter: string;
  /** Parameters shown as they are. */
  readonly shown: readonly string[];
  /** Parameters whose value is a credential: shown as `name=***`. */
  readonly secret: readonly string[];
  /** Parameters whose value is a URL: shown without its userinfo, query and fragment. */
  readonly urls: readonly string[];
  /** Whether the userinfo is hidden whole (the user name too), not only its password. */
  readonly hideUser: boolean;
}

const REDIS: SchemeParameters = {
  adapter: '@memdir/redis',
  // keyPrefix is memdir's own; the others are ioredis's (which takes any query parameter as an option).
  shown: ['keyPrefix', 'db', 'family', 'username'],
  secret: ['password'],
  urls: [],
  hideUser: false,
};

const POSTGRES: SchemeParameters = {
  adapter: '@memdir/postgres',
  // schema is memdir's own; the others are what pg reads from a connection URL.
  shown: [
    'schema',
    'host',
    'port',
    'user',
    'db',
    'database',
    'ssl',
    'sslmode',
    'sslcert',
    'sslkey',
    'sslrootcert',
    'sslnegotiation',
    'uselibpqcompat',
    'application_name',
    'fallback_application_name',
    'options',
    'client_encoding',
    'encoding',
    'binary',
    'replication',
    'statement_timeout',
    'lock_timeout',
    'idle_in_transaction_session_timeout',
    'query_timeout',
  ],
  secret: ['password'],
  urls: [],
  hideUser: false,
};

const S3: SchemeParameters = {
  adapter: '@memdir/s3',
  shown: ['region', 'forcePathStyle'],
  secret: [],
  urls: ['endpoint'],
  // Credentials never belong in an s3:// URL; whatever stands there (an access key id) is hidden.
  hideUser: true,
};

const MEMORY_STORES: SchemeParameters = {
  adapter: '@memdir/memory-stores',
  shown: [],
  secret: [],
  urls: [],
  // The key never belongs in the URL (the adapter refuses it); whatever stands there is hidden.
  hideUser: true,
};

/** The parameters of the first-party schemes. Another scheme's parameters are all hidden, none refused. */
const FIRST_PARTY_PARAMETERS: Readonly<Record<string, SchemeParameters>> = {
  redis: REDIS,
  rediss: REDIS,
  postgres: POSTGRES,
  postgresql: POSTGRES,
  s3: S3,
  'memstore+https': MEMORY_STORES,
  'memstore+http': MEMORY_STORES,
};

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** A parameter name that may be shown even when unknown: it reads as a name, not as a value. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,39}$/;

/** Control characters, escaped (`\x1b`) wherever a URL is shown. */
function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Encodes what would make a shown parameter ambiguous, and nothing else (`://` stays readable). */
function component(text: string): string {
  return escapeControls(text.replace(/[%&#=+\s]/g, (character) => encodeURIComponent(character)));
}

/** The scheme of `url`, lower-cased, or undefined when it has none. */
export function schemeOf(url: string): string | undefined {
  return SCHEME.exec(url)?.[1]?.toLowerCase();
}

/** The schemes the CLI opens itself: their "URLs" are a folder or nothing, and carry no credential. */
function isBuiltIn(scheme: string): boolean {
  return scheme === 'file' || scheme === 'memory';
}

/** A URL parsed, or why it does not parse (never repeating it). */
type Parsed = { ok: true; url: URL } | { ok: false; problem: string };

const PERCENT_ENCODE_HINT =
  'a "/", "?", "#" or "@" in a password must be percent-encoded (%2F, %3F, %23, %40)';

function parse(text: string): Parsed {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: diagnose(text) };
  }
  // A "/" in a password ends the host early and moves the rest, "@" included, into the path:
  // `postgres://u:12/3@host/db` parses with the host `u:12`.
  if (url.pathname.includes('@')) {
    return { ok: false, problem: `the path holds an "@" (${PERCENT_ENCODE_HINT})` };
  }
  return { ok: true, url };
}

/** Which part of a URL that does not parse is wrong, in words that repeat none of it. */
function diagnose(text: string): string {
  const scheme = SCHEME.exec(text)![0];
  const rest = text.slice(scheme.length);
  if (!rest.startsWith('//')) return 'it is not a valid URL';
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?#]/);
  const authority = end === -1 ? afterSlashes : afterSlashes.slice(0, end);
  const after = end === -1 ? '' : afterSlashes.slice(end);
  if (after.includes('@')) return `an "@" follows a "/", "?" or "#" (${PERCENT_ENCODE_HINT})`;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const port = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort)?.[2];
  if (port !== undefined && !/^\d*$/.test(port)) {
    return `the port is not a number (${PERCENT_ENCODE_HINT})`;
  }
  if (port !== undefined && Number(port) > 65535) return 'the port is over 65535';
  return 'the host holds a character URLs do not allow';
}

/** A nested URL (an `endpoint`) as it may be shown: no userinfo, query or fragment. */
function shownNested(value: string): string {
  let nested: URL;
  try {
    nested = new URL(value);
  } catch {
    return '***';
  }
  if (nested.pathname.includes('@')) return '***';
  const userinfo = nested.username !== '' || nested.password !== '' ? '***@' : '';
  const authority = nested.host === '' && userinfo === '' ? '' : `//${userinfo}${nested.host}`;
  return component(
    `${nested.protocol}${authority}${nested.pathname}${nested.search === '' ? '' : '?***'}${nested.hash === '' ? '' : '#***'}`,
  );
}

function shownQuery(url: URL, rules: SchemeParameters | undefined): string {
  const parts: string[] = [];
  for (const [name, value] of url.searchParams) {
    const shownName = PLAIN_NAME.test(name) ? name : '***';
    if (rules?.shown.includes(name)) {
      parts.push(`${name}=${component(value)}`);
    } else if (rules?.urls.includes(name)) {
      parts.push(`${name}=${shownNested(value)}`);
    } else {
      parts.push(`${shownName}=***`);
    }
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/**
 * A store URL as the CLI may show it in any message: the scheme, host, port, path and the query
 * parameters known to be harmless. A userinfo password (whatever characters it holds), every query
 * parameter that may carry a secret or is unknown, a nested `endpoint` URL's userinfo and any
 * fragment become `***`; a URL that does not parse shows as its scheme and `***`.
 */
export function redactStoreUrl(url: string): string {
  const scheme = schemeOf(url);
  if (scheme === undefined) return /^[\w./~-]*$/.test(url) ? url : '***';
  if (isBuiltIn(scheme)) {
    // A folder path: shown as given, unless it has an authority with userinfo.
    return escapeControls(url.replace(/^([A-Za-z]+:\/\/)[^/?#]*@/, '$1***@'));
  }
  const parsed = parse(url);
  const slashes = url.slice(scheme.length + 1).startsWith('//');
  if (!parsed.ok) return `${url.slice(0, scheme.length)}:${slashes ? '//' : ''}***`;
  const rules = FIRST_PARTY_PARAMETERS[scheme];
  const { username, password, host, pathname, hash } = parsed.url;
  let userinfo = '';
  if (username !== '' || password !== '') {
    userinfo = rules?.hideUser === true ? '***@' : `${username}${password === '' ? '' : ':***'}@`;
  }
  const authority = slashes ? `//${userinfo}${host}` : '';
  return escapeControls(
    `${url.slice(0, scheme.length)}:${authority}${pathname}${shownQuery(parsed.url, rules)}${hash === '' ? '' : '#***'}`,
  );
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * The parts of a store URL that `redactStoreUrl` hides, as given and percent-decoded, so that a
 * message from elsewhere (an adapter, a server) can be cleaned of them too. Parts shorter than four
 * characters are left out: removing them would garble messages more than it protects.
 */
export function storeUrlSecrets(url: string): string[] {
  const scheme = schemeOf(url);
  if (scheme === undefined || isBuiltIn(scheme)) return [];
  const parsed = parse(url);
  const secrets: string[] = [];
  if (!parsed.ok) {
    secrets.push(url.slice(scheme.length + 1));
  } else {
    const rules = FIRST_PARTY_PARAMETERS[scheme];
    const { username, password, hash, search } = parsed.url;
    secrets.push(password, decoded(password), hash.slice(1));
    if (rules?.hideUser) secrets.push(username, decoded(username));
    for (const [name, value] of parsed.url.searchParams) {
      if (!PLAIN_NAME.test(name)) secrets.push(name);
      if (rules?.shown.includes(name)) continue;
      secrets.push(value);
      if (rules?.urls.includes(name)) {
        try {
          const nested = new URL(value);
          secrets.push(nested.username, decoded(nested.username), nested.password, decoded(nested.password));
        } catch {}
      }
    }
    // The raw query as well: a value as given may differ from its parsed form.
    for (const raw of search.slice(1).split('&')) {
      const [name = '', value = ''] = raw.split('=');
      const known = decoded(name);
      // A URL-valued parameter is shown but for its userinfo (taken above), so it is not a secret.
      if (!rules?.shown.includes(known) && !rules?.urls.includes(known)) secrets.push(value);
    }
  }
  return [...new Set(secrets)].filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
}

/** `text` with every secret of `urls` (see {@link storeUrlSecrets}) replaced by `***`. */
export function scrubSecrets(text: string, urls: Iterable<string | undefined>): string {
  let scrubbed = text;
  for (const url of urls) {
    if (url === undefined) continue;
    for (const secret of storeUrlSecrets(url)) scrubbed = scrubbed.replaceAll(secret, '***');
  }
  return scrubbed;
}

/** The edit distance of two names (case counts), for suggesting the name a typo meant. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name `name` most likely meant: the same but for case, else one at most two edits away. */
function nearest(name: string, known: readonly string[]): string | undefined {
  const sameButCase = known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (sameButCase !== undefined) return sameButCase;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const edits = distance(name.toLowerCase(), candidate.toLowerCase());
    if (edits <= 2 && edits < candidate.length / 2 && (best === undefined || edits < best.distance)) {
      best = { name: candidate, distance: edits };
    }
  }
  return best?.name;
}

/**
 * Checks a store URL before any adapter sees it: it must parse (else the message says which part is
 * wrong, never repeating the URL), and a first-party scheme's URL may carry only the parameters its
 * adapter reads, each once. `checkParameters: false` skips the second check (a scheme registered
 * by the embedding program takes parameters of its own).
 * @throws CliUsageError naming the problem, the parameters the scheme takes, and the nearest one to a typo.
 */
export function checkStoreUrl(url: string, options: { checkParameters: boolean }): void {
  const scheme = schemeOf(url);
  if (scheme === undefined || isBuiltIn(scheme)) return;
  const shown = redactStoreUrl(url);
  const parsed = parse(url);
  if (!parsed.ok) throw new CliUsageError(`Invalid store URL ${shown}: ${parsed.problem}`);
  const rules = FIRST_PARTY_PARAMETERS[scheme];
  if (!options.checkParameters || rules === undefined) return;
  const known = [...rules.shown, ...rules.secret, ...rules.urls];
  const seen = new Set<string>();
  for (const name of parsed.url.searchParams.keys()) {
    const named = PLAIN_NAME.test(name) ? JSON.stringify(name) : 'with a name that is not a parameter name';
    if (!known.includes(name)) {
      const guess = PLAIN_NAME.test(name) ? nearest(name, known) : undefined;
      throw new CliUsageError(
        `Invalid store URL ${shown}: unknown parameter ${named}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`,
        {
          hint:
            known.length === 0
              ? `${scheme}:// URLs (${rules.adapter}) take no parameters.`
              : `${scheme}:// URLs (${rules.adapter}) take the parameters ${known.join(', ')}.`,
        },
      );
    }
    if (seen.has(name))
      throw new CliUsageError(`Invalid store URL ${shown}: the parameter ${named} is given twice`);
    seen.add(name);
  }
}
