/**
 * `switchyard mcp`: the MCP server over stdio, for Claude Desktop and any MCP client.
 * - library mode: `--connector TYPE`, credentials from --credentials-file or SWITCHYARD_CREDENTIALS;
 * - hosted mode: `--url URL` (or SWITCHYARD_URL), client credentials {client_id, client_secret} (or
 *   {token}, e.g. a scoped token) from the same file or variable.
 * Secrets are never taken from the command line. stdout carries only the protocol.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { jsonObject, readCredentials } from '../../runtime/cli.js';

interface McpCommandOptions {
  connector?: string;
  url?: string;
  config: Record<string, unknown>;
  baseUrl?: string;
  credentialsFile?: string;
  actionTools?: boolean;
  allow: string[];
  maxResultChars?: number;
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1000) throw new InvalidArgumentError('--max-result-chars must be an integer of at least 1000.');
  return value;
}

function stringField(credentials: Record<string, unknown>, name: string): string | undefined {
  const value = credentials[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(`The credentials field ${name} must be a non-empty string.`);
  return value;
}

export function addMcpCommand(program: Command): Command {
  program
    .command('mcp')
    .description(
      'Serve Switchyard to an MCP client over stdio. Library mode: --connector TYPE with the vendor credentials in --credentials-file or $SWITCHYARD_CREDENTIALS. ' +
        'Hosted mode: --url URL (or $SWITCHYARD_URL) with {"client_id", "client_secret"} (or {"token"}) in --credentials-file or $SWITCHYARD_CREDENTIALS.',
    )
    .option('--connector <type>', 'library mode: the connector type to serve')
    .addOption(new Option('--url <url>', 'hosted mode: base URL of a running Switchyard service').env('SWITCHYARD_URL'))
    .option('-c, --config <json>', 'library mode: connector configuration as a JSON object', jsonObject('--config'), {})
    .option('--base-url <url>', "library mode: replace the manifest's base URL (a sandbox or test double)")
    .option('--credentials-file <file>', 'JSON file with the credentials (else $SWITCHYARD_CREDENTIALS)')
    .option('--action-tools', 'also expose one tool per entity/action, with its exact params schema')
    .option(
      '--allow <items>',
      'expose these as tools and allow only them: connector:entity.action or connector:entity.* (comma-separated, repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option('--max-result-chars <n>', 'largest record list per tool result before a page is split with record_offset (default 100000)', positiveInteger)
    .action(async (options: McpCommandOptions) => {
      if ((options.connector === undefined) === (options.url === undefined)) {
        throw new InvalidArgumentError('Give either --connector TYPE (library mode) or --url URL (hosted mode; or SWITCHYARD_URL).');
      }
      const { parseAllowList } = await import('./options.js');
      const { SwitchyardMcp } = await import('./server.js');
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const credentials = readCredentials(options.credentialsFile);
      const allow = options.allow.length > 0 ? parseAllowList(options.allow, '--allow') : undefined;
      let backend;
      if (options.connector !== undefined) {
        const { createConnector } = await import('../../runtime/index.js');
        const { LibraryBackend } = await import('./library-backend.js');
        backend = new LibraryBackend(
          createConnector(options.connector, { credentials, config: options.config, ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }) }),
        );
      } else {
        const { SwitchyardClient } = await import('../../client/index.js');
        const { ClientBackend } = await import('./client-backend.js');
        const token = stringField(credentials, 'token');
        const clientId = stringField(credentials, 'client_id');
        const clientSecret = stringField(credentials, 'client_secret');
        const organizationId = stringField(credentials, 'organization_id');
        if (token === undefined && (clientId === undefined || clientSecret === undefined)) {
          throw new InvalidArgumentError('Hosted mode needs credentials {"client_id", "client_secret"} (optionally "organization_id") or {"token"}.');
        }
        const client = new SwitchyardClient({
          baseUrl: options.url as string,
          ...(token !== undefined
            ? { token }
            : { credentials: { clientId: clientId as string, clientSecret: clientSecret as string, ...(organizationId !== undefined && { organizationId }) } }),
        });
        // Fail at start-up, not at the first tool call, when the service or the credentials are wrong.
        await client.token();
        backend = new ClientBackend(client);
      }
      const server = new SwitchyardMcp(backend, {
        ...(options.actionTools === true && { actionTools: true }),
        ...(allow !== undefined && { allow }),
        ...(options.maxResultChars !== undefined && { maxResultChars: options.maxResultChars }),
      }).server();
      server.onclose = () => process.exit(0);
      process.stdin.on('end', () => void server.close());
      await server.connect(new StdioServerTransport());
    });
  return program;
}
