/**
 * `switchyard connect <connector_type> --workspace NAME`: connect an account through the hosted connect
 * page instead of passing secrets on the command line. Asks a running service (SWITCHYARD_URL) for a
 * widget token with the API client's credentials (SWITCHYARD_CLIENT_ID / SWITCHYARD_CLIENT_SECRET, from
 * the environment only), prints the page's URL (or opens it), and waits until the connector exists.
 */
import { spawn } from 'node:child_process';
import { Command, InvalidArgumentError } from 'commander';

/** A connect command that cannot go on: its message is printed, exit code 1. */
export class ConnectCommandError extends Error {}

interface ConnectOptions {
  workspace: string;
  open?: boolean;
  enable?: boolean;
  timeout: number;
  json?: boolean;
}

const POLL_INTERVAL_MS = 2000;

function positiveSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400)
    throw new InvalidArgumentError('--timeout must be a whole number of seconds from 1 to 86400.');
  return seconds;
}

class ServiceClient {
  private token?: string;

  constructor(readonly baseUrl: string) {}

  async request<T>(method: string, pathname: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.baseUrl + pathname, {
        method,
        headers: { ...(this.token && { authorization: `Bearer ${this.token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ConnectCommandError(`Cannot reach the Switchyard service at ${this.baseUrl} (set SWITCHYARD_URL).`);
    }
    const text = await response.text();
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    if (!response.ok) {
      const message =
        parsed !== null && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string'
          ? (parsed as { message: string }).message
          : `HTTP ${response.status}`;
      throw new ConnectCommandError(`${method} ${pathname} failed: ${message}`);
    }
    return parsed as T;
  }

  async authenticate(clientId: string, clientSecret: string): Promise<void> {
    const answer = await this.request<{ access_token: string }>('POST', '/api/v1/account/applications/token', {
      client_id: clientId,
      client_secret: clientSecret,
    });
    this.token = answer.access_token;
  }
}

function openInBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => console.error(`Could not start ${command}; open the URL above yourself.`));
  child.unref();
}

async function connectorIds(client: ServiceClient, workspace: string, connectorType: string): Promise<Set<string>> {
  const list = await client.request<{ data: Array<{ id: string; connector_type: string }> }>(
    'GET',
    `/api/v1/integrations/connectors?workspace_name=${encodeURIComponent(workspace)}`,
  );
  return new Set(list.data.filter((connector) => connector.connector_type === connectorType).map((connector) => connector.id));
}

async function runConnect(connectorTypeArg: string, options: ConnectOptions): Promise<void> {
  const baseUrl = (process.env.SWITCHYARD_URL?.trim() || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const clientId = process.env.SWITCHYARD_CLIENT_ID?.trim();
  const clientSecret = process.env.SWITCHYARD_CLIENT_SECRET?.trim();
  if (!clientId || !clientSecret) {
    throw new ConnectCommandError(
      'Set SWITCHYARD_CLIENT_ID and SWITCHYARD_CLIENT_SECRET (an API client of the organization; `switchyard admin create-client` makes one).',
    );
  }
  const workspace = options.workspace.trim();
  if (workspace === '') throw new ConnectCommandError('--workspace must not be empty.');
  const client = new ServiceClient(baseUrl);
  await client.authenticate(clientId, clientSecret);

  const catalog = await client.request<{ data: Array<{ connector_name: string; actor_definition_id: string }> }>(
    'GET',
    '/api/v1/integrations/templates/sources?use_global=true',
  );
  const templates = await client.request<{ data: Array<{ connector_name: string | null }> }>('GET', '/api/v1/integrations/templates/sources');
  const wanted = connectorTypeArg.trim().toLowerCase();
  const entry = catalog.data.find((template) => template.connector_name === wanted);
  if (!entry) throw new ConnectCommandError(`"${connectorTypeArg}" is not a connector type of this service (\`switchyard connectors\` lists them).`);
  const definition = { id: entry.actor_definition_id, connector_type: entry.connector_name };
  if (!templates.data.some((template) => template.connector_name === definition.connector_type)) {
    if (!options.enable) {
      throw new ConnectCommandError(
        `${definition.connector_type} is not enabled for the organization's connect page. Enable it with POST /api/v1/integrations/templates/sources, or run this command with --enable.`,
      );
    }
    await client.request('POST', '/api/v1/integrations/templates/sources', { actor_definition_id: definition.id, partial_default_config: {} });
  }

  const before = await connectorIds(client, workspace, definition.connector_type);
  const widget = await client.request<{ connect_url: string; expires_in: number }>('POST', '/api/v1/account/applications/widget-token', {
    workspace_name: workspace,
    allowed_origin: new URL(baseUrl).origin,
  });
  const url = new URL(widget.connect_url);
  url.searchParams.set('connector_type', definition.connector_type);
  // The URL goes to stdout alone on its line (a script can read it); the guidance goes to stderr.
  console.error(
    `Open this page in a browser to connect ${definition.connector_type} to workspace "${workspace}" (valid ${Math.round(widget.expires_in / 60)} minutes):`,
  );
  console.log(url.toString());
  if (options.open) openInBrowser(url.toString());
  console.error('Waiting for the connection...');

  const deadline = Date.now() + options.timeout * 1000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    const now = await connectorIds(client, workspace, definition.connector_type);
    const created = [...now].find((id) => !before.has(id));
    if (created) {
      if (options.json) console.log(JSON.stringify({ connector_id: created, connector_type: definition.connector_type, workspace_name: workspace }));
      else console.log(`Connected: connector ${created}`);
      return;
    }
  }
  throw new ConnectCommandError(`No ${definition.connector_type} connector appeared in workspace "${workspace}" within ${options.timeout} seconds.`);
}

/** Adds `connect` to the switchyard program. */
export function addConnectCommand(program: Command): void {
  program
    .command('connect')
    .description(
      'Connect an account through the hosted connect page (OAuth consent or typed credentials), so no secret passes on the command line. Uses SWITCHYARD_URL, SWITCHYARD_CLIENT_ID and SWITCHYARD_CLIENT_SECRET; prints the page URL and waits until the connector exists.',
    )
    .argument('<connector_type>', 'the connector type, e.g. salesforce')
    .requiredOption('--workspace <name>', 'the workspace the connector belongs to (created when missing)')
    .option('--open', 'open the page in the default browser as well')
    .option('--enable', 'enable the connector type for the connect page (create a source template) when it is not yet')
    .option('--timeout <seconds>', 'how long to wait for the connection', positiveSeconds, 900)
    .option('--json', 'print the result as JSON: {connector_id, connector_type, workspace_name}')
    .action(runConnect);
}
