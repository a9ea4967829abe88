/**
 * A loopback proxy between the runtime and Prism. It records every exchange (with Prism's
 * `sl-violations`) and works around Prism's own limits, never the vendor's rules:
 * - strict Accept negotiation: a 406 NOT_ACCEPTABLE is asked again with `Accept: *\/*`;
 * - invalid examples in the vendor file: when Prism refuses to serve an answer because it breaks the
 *   vendor's response schema (a 5xx with response violations only), the vendor's own example is
 *   answered as written; without one, Prism is asked again with `Prefer: dynamic=true`, and when
 *   that fails too (formats Prism cannot satisfy) a body the harness builds from the schema is used;
 * - next links to example.com or the vendor's real host: absolute URLs in answers are rewritten to
 *   this proxy's origin, so the runtime (which follows links on its own origin only) can read page 2.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Violation {
  readonly location: readonly string[];
  readonly severity: string;
  readonly code?: string | number;
  readonly message: string;
}

export interface Exchange {
  readonly method: string;
  /** Path and query as received from the runtime. */
  readonly url: string;
  readonly requestBody: string;
  readonly status: number;
  readonly violations: readonly Violation[];
  readonly responseBody: unknown;
  readonly responseText: string;
  /** Which Prism limits were worked around for this exchange. */
  readonly workarounds: readonly string[];
}

export interface RecordingProxy {
  readonly url: string;
  readonly exchanges: Exchange[];
  /** The current operation's own example and a body built from its response schema, for answers Prism cannot mock. */
  fallback: { example: () => unknown; schema: () => unknown } | undefined;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

function jsonAnswer(body: unknown): Answer {
  return { status: 200, headers: new Headers({ 'content-type': 'application/json' }), text: JSON.stringify(body) };
}

function parseViolations(header: string | null): Violation[] {
  if (header === null || header === '') return [];
  try {
    const parsed: unknown = JSON.parse(header);
    return Array.isArray(parsed) ? (parsed as Violation[]) : [];
  } catch {
    return [{ location: [], severity: 'Error', message: header }];
  }
}

function isRecordValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Prism's violations: the sl-violations header and, on its own error answers, the body's validation list. */
function violationsOf(answer: Answer): Violation[] {
  const parsed = parseJson(answer.text);
  // Prism's own 422 bodies locate request violations without the leading "request".
  const fromBody = (isRecordValue(parsed) && Array.isArray(parsed['validation']) ? (parsed['validation'] as Violation[]) : []).map((v) =>
    Array.isArray(v.location) && v.location[0] !== 'request' && v.location[0] !== 'response' ? { ...v, location: ['request', ...v.location] } : v,
  );
  const all = [...parseViolations(answer.headers.get('sl-violations')), ...fromBody];
  return all.filter(
    (v, i) => Array.isArray(v.location) && all.findIndex((w) => w.message === v.message && w.location.join('.') === v.location.join('.')) === i,
  );
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** Every absolute http(s) URL in a JSON value, re-rooted at `origin` (path and query kept). */
export function rerootUrls(value: unknown, origin: string): unknown {
  if (typeof value === 'string') {
    return /^https?:\/\/[^/\s?#]+/i.test(value) ? value.replace(/^https?:\/\/[^/\s?#]+/i, origin) : value;
  }
  if (Array.isArray(value)) return value.map((v) => rerootUrls(v, origin));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rerootUrls(v, origin)]));
  }
  return value;
}

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ['host', 'connection', 'content-length', 'accept-encoding'].includes(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export async function startRecordingProxy(prismUrl: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  let origin = '';
  // Assigned once listening; the handler only runs after that.
  let proxy: RecordingProxy | undefined;

  const ask = async (method: string, url: string, headers: Record<string, string>, body: string): Promise<Answer> => {
    const res = await fetch(`${prismUrl}${url}`, { method, headers, ...(body !== '' && { body }) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const url = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = forwardHeaders(req.headers);
        const workarounds: string[] = [];
        let answer = await ask(method, url, headers, body);
        if (answer.status === 406 && answer.text.includes('NOT_ACCEPTABLE')) {
          workarounds.push(`Accept "${headers['accept'] ?? ''}" relaxed to */* (Prism's strict negotiation)`);
          answer = await ask(method, url, { ...headers, accept: '*/*' }, body);
        }
        const outputViolation = violationsOf(answer).some((v) => v.location[0] === 'response');
        const requestOk = !violationsOf(answer).some((v) => v.location[0] === 'request');
        if (answer.status >= 500 && outputViolation && requestOk) {
          // The request passed; only the answer Prism built breaks the vendor's response schema.
          const example = proxy?.fallback?.example();
          if (example !== undefined) {
            workarounds.push("the vendor's example breaks its own response schema; answered with that example as written");
            answer = jsonAnswer(example);
          } else {
            workarounds.push("Prism's static answer breaks the vendor's response schema; answered from the schema (Prefer: dynamic=true)");
            answer = await ask(method, url, { ...headers, prefer: 'dynamic=true' }, body);
            if (answer.status >= 500 && proxy?.fallback !== undefined) {
              workarounds.push('Prism cannot build a body its own validation accepts; answered from the response schema by the harness');
              answer = jsonAnswer(proxy.fallback.schema());
            }
          }
        }
        if (answer.status < 300 && typeof parseJson(answer.text) === 'string' && /^\s*[[{]/.test(parseJson(answer.text) as string)) {
          workarounds.push("the vendor's example is JSON written as a string; answered with the JSON it holds");
          answer = { ...answer, text: parseJson(answer.text) as string };
        }
        const parsed = parseJson(answer.text);
        const rewritten = parsed === undefined ? answer.text : JSON.stringify(rerootUrls(parsed, origin));
        const violations = violationsOf(answer).filter((v) => v.location[0] === 'request');
        exchanges.push({ method, url, requestBody: body, status: answer.status, violations, responseBody: parsed, responseText: answer.text, workarounds });
        const outHeaders: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
        const link = answer.headers.get('link');
        if (link !== null) outHeaders['link'] = link.replace(/<https?:\/\/[^/\s>?#]+/gi, `<${origin}`);
        res.writeHead(answer.status, outHeaders).end(rewritten);
      })().catch((e: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${e instanceof Error ? e.message : String(e)}`);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  proxy = {
    url: origin,
    exchanges,
    fallback: undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
