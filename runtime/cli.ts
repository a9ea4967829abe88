/**
 * `switchyard` command line, library (open-source) mode: run one operation with credentials you
 * supply. Credentials come from a file or an environment variable, never from the command line,
 * so they stay out of shell history and process listings.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { SwitchyardError } from './errors.js';

export function jsonObject(label: string) {
  return (text: string): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON.parse's message: V8 quotes the text around the problem, which may be a secret.
      throw new InvalidArgumentError(`${label} must be a JSON object: it is not valid JSON.`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InvalidArgumentError(`${label} must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`);
    return value as Record<string, unknown>;
  };
}

export function readCredentials(file: string | undefined): Record<string, unknown> {
  if (file !== undefined) return jsonObject(`The credentials file ${file}`)(readCredentialsFile(file));
  const text = process.env.SWITCHYARD_CREDENTIALS;
  if (text === undefined || text.trim() === '')
    throw new InvalidArgumentError('Give credentials with --credentials-file FILE or the SWITCHYARD_CREDENTIALS environment variable (a JSON object).');
  return jsonObject('SWITCHYARD_CREDENTIALS')(text);
}

function readCredentialsFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable by this user'
          : code === 'EISDIR'
            ? 'is a folder'
            : `cannot be read (${code ?? 'error'})`;
    throw new InvalidArgumentError(`The credentials file ${file} ${reason}.`);
  }
}

/** The connectors, loaded by the commands that use them: a program with other commands (`switchyard admin`) starts without them. */
function loadConnectors(): Promise<typeof import('./index.js')> {
  return import('./index.js');
}

/** Adds the library (open-source mode) commands `connectors` and `execute` to a commander program. */
export function addLibraryCommands(program: Command): Command {
  program
    .command('connectors')
    .description('List the connector types, their entities and actions.')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { connectorModules } = await loadConnectors();
      const catalog = Object.values(connectorModules).map(({ definition }) => ({
        connector_type: definition.connectorType,
        name: definition.displayName,
        entities: Object.fromEntries(Object.values(definition.entities).map((e) => [e.name, Object.keys(e.actions)])),
      }));
      if (options.json) {
        console.log(JSON.stringify(catalog, null, 2));
        return;
      }
      for (const c of catalog) {
        console.log(`${c.connector_type} (${c.name})`);
        for (const [entity, actions] of Object.entries(c.entities)) console.log(`  ${entity}: ${actions.join(', ')}`);
      }
    });

  program
    .command('execute')
    .description('Run one operation and print {data, pagination, next_params} as JSON.')
    .argument('<connector_type>')
    .argument('<entity>')
    .argument('<action>')
    .option('-p, --params <json>', 'params as a JSON object', jsonObject('--params'), {})
    .option('-c, --config <json>', 'connector configuration as a JSON object', jsonObject('--config'), {})
    .option('--credentials-file <file>', 'JSON file with the credentials (else $SWITCHYARD_CREDENTIALS)')
    .option('--base-url <url>', "replace the manifest's base URL (a sandbox or test double)")
    .action(
      async (
        type: string,
        entity: string,
        action: string,
        options: { params: Record<string, unknown>; config: Record<string, unknown>; credentialsFile?: string; baseUrl?: string },
      ) => {
        const { createConnector } = await loadConnectors();
        const connector = createConnector(type, {
          credentials: readCredentials(options.credentialsFile),
          config: options.config,
          ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
        });
        console.log(JSON.stringify(await connector.execute(entity, action, options.params), null, 2));
      },
    );
  return program;
}

/** A `switchyard` program with the library commands only. */
export function libraryProgram(): Command {
  return addLibraryCommands(new Command().name('switchyard').description('Reach third-party APIs through Switchyard connectors.'));
}

/**
 * Parses the command line and runs the command. Expected errors print a clear message (a
 * SwitchyardError as its JSON envelope) and exit 1 (2 for upstream/server-side failures), without a
 * stack trace; anything else is rethrown. `expected` lets a caller name more expected errors: it
 * returns the message to print (exit 1), or undefined for an error it does not know.
 */
export async function runProgram(program: Command, options: { argv?: string[]; expected?: (error: unknown) => string | undefined } = {}): Promise<void> {
  // A reader that stops early (`switchyard connectors | head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    await program.parseAsync(options.argv ?? process.argv);
  } catch (error) {
    const message = options.expected?.(error);
    if (message !== undefined) {
      console.error(message);
      process.exit(1);
    }
    if (error instanceof SwitchyardError) {
      console.error(JSON.stringify({ message: error.message, error_code: error.code, errors: error.issues }, null, 2));
      process.exit(error.status >= 500 ? 2 : 1);
    }
    if (error instanceof InvalidArgumentError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Run directly (`tsx runtime/cli.ts ...`): the library commands only. */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runProgram(libraryProgram());
}
