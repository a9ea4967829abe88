/**
 * The CLI's way to provision through a running service's admin API, used when the embedded store is
 * locked by that service. The service is found at SWITCHYARD_URL, else at HOST:PORT of the settings;
 * the operator credential is SWITCHYARD_OPERATOR_TOKEN, else DATA_DIR/operator.token.
 */
import type { ServiceConfig } from './config.js';
import { readOperatorToken } from './security/operator-token.js';

export class AdminApiError extends Error {}

export function serviceUrl(config: ServiceConfig, env: NodeJS.ProcessEnv = process.env): string {
  const given = env.SWITCHYARD_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export async function adminRequest<T>(config: ServiceConfig, method: string, pathname: string, body?: unknown): Promise<T> {
  const token = readOperatorToken({ ...(config.operatorToken !== undefined && { operatorToken: config.operatorToken }), dataDir: config.dataDir });
  const base = serviceUrl(config);
  if (token === undefined) {
    throw new AdminApiError(
      `The embedded store is in use by the running service, and no operator credential was found to use its admin API: set SWITCHYARD_OPERATOR_TOKEN or keep ${config.dataDir}/operator.token.`,
    );
  }
  let response: Response;
  try {
    response = await fetch(`${base}/api/v1/admin${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new AdminApiError(
      `The embedded store is in use, and the running service's admin API at ${base} does not answer (${reason}): set SWITCHYARD_URL to its address.`,
    );
  }
  const text = await response.text();
  const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const message = (parsed as { message?: string } | undefined)?.message ?? `HTTP ${response.status}`;
    throw new AdminApiError(`The admin API at ${base} refused: ${message}`);
  }
  return parsed as T;
}
