import { own } from './own.js';
import type { ActionDefinition, JsonObject, ParamDefinition } from './definition.js';
import { UpstreamError, ValidationError } from './errors.js';
import type { HttpRequest } from './http.js';
import { setPath } from './paths.js';

/** Where the base URL, paths and next-page URLs resolve. */
export interface Target {
  baseUrl: string;
  origin: string;
}

export function resolveBaseUrl(rendered: string, hostPattern: string | undefined): Target {
  let url: URL;
  try {
    url = new URL(rendered);
  } catch {
    throw new ValidationError(`The connector's base URL "${rendered}" is not a valid URL.`, [{ field: 'base_url', rule: 'url', message: 'not a valid URL' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ValidationError('The connector base URL must use http or https.', [{ field: 'base_url', rule: 'protocol', message: 'must be http(s)' }]);
  }
  if (hostPattern !== undefined && !new RegExp(hostPattern).test(url.hostname)) {
    throw new UpstreamError(`The resolved API host ${url.hostname} is not one this connector may call (${hostPattern}).`);
  }
  return { baseUrl: rendered.replace(/\/+$/, ''), origin: url.origin };
}

function queryValues(value: unknown, param: ParamDefinition): string[] {
  if (Array.isArray(value)) {
    if (param.serialize === 'json') return [JSON.stringify(value)];
    if (param.serialize === 'csv') return [value.map(String).join(',')];
    return value.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)));
  }
  if (typeof value === 'object' && value !== null) return [JSON.stringify(value)];
  return [String(value)];
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** The {name}s of a path template, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
}

/**
 * The first of the action's path and alternative paths whose every {name} is given. A manifest names the
 * choice in at_least_one_of, so validation refuses a call that completes none; this is the last guard.
 */
function pathFor(action: ActionDefinition, params: Record<string, unknown>): string {
  if (action.alternativePaths === undefined) return action.path;
  const given = new Set(
    Object.entries(action.params)
      .filter(([name, param]) => param.in === 'path' && params[name] !== undefined)
      .map(([name, param]) => param.wire ?? name),
  );
  const paths = [action.path, ...action.alternativePaths];
  const complete = paths.find((path) => pathParamNames(path).every((name) => given.has(name)));
  if (complete !== undefined) return complete;
  const message = `params must give every {name} of one of the paths ${paths.join(', ')}`;
  throw new ValidationError(`Invalid params: ${message}.`, [{ field: 'params', rule: 'path_params', message, limit: paths }]);
}

/** A param's value as sent: through its value_template when it has one (Jira's `project = {value}`). */
export function templatedValue(param: ParamDefinition, raw: unknown): unknown {
  return param.valueTemplate === undefined ? raw : param.valueTemplate.replace('{value}', String(raw));
}

/** Builds the HTTP request for validated params (auth headers and query are added by the caller). */
export function buildRequest(action: ActionDefinition, params: Record<string, unknown>, target: Target): HttpRequest & { query: URLSearchParams } {
  const headers: Record<string, string> = { accept: 'application/json' };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(action.constantQuery ?? {})) {
    query.append(name, typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
  }
  const body: Record<string, unknown> = action.constantBody ? clone(action.constantBody as JsonObject) : {};
  const variables: Record<string, unknown> = {};
  let hasBody = action.constantBody !== undefined;

  let path = pathFor(action, params);
  for (const [name, raw] of Object.entries(params)) {
    const param = own(action.params, name);
    if (raw === undefined) continue;
    const value = param === undefined ? raw : templatedValue(param, raw);
    if (!param) {
      // Only reachable with additional_params: body (the validator rejects other unknown names).
      body[name] = value;
      hasBody = true;
      continue;
    }
    switch (param.in) {
      case 'path':
        path = path.replaceAll(`{${param.wire}}`, encodeURIComponent(String(value)));
        break;
      case 'query':
        for (const v of queryValues(value, param)) query.append(param.wire, v);
        break;
      case 'header':
        headers[param.wire.toLowerCase()] = String(value);
        break;
      case 'body':
        setPath(body, param.wire, value);
        hasBody = true;
        break;
      case 'variables':
        setPath(variables, param.wire, value);
        break;
    }
  }

  let payload: string | undefined;
  if (action.graphql) {
    payload = JSON.stringify({ query: action.graphql.document, variables });
  } else if (hasBody) {
    payload = JSON.stringify(body);
  }
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return { method: action.method, url: target.baseUrl + path, headers, body: payload, query };
}

/** The request for a next-records URL handed back by the vendor (same origin only). */
export function buildFollowRequest(rawUrl: string, target: Target): HttpRequest & { query: URLSearchParams } {
  const url = new URL(rawUrl, target.origin);
  if (url.origin !== target.origin) {
    throw new ValidationError(`The next-records URL must stay on ${target.origin}.`, [
      { field: 'next_records_url', rule: 'same_origin', message: `must be on ${target.origin}` },
    ]);
  }
  const query = new URLSearchParams(url.search);
  url.search = '';
  return { method: 'GET', url: url.toString(), headers: { accept: 'application/json' }, query };
}
