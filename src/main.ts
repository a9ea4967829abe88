import { ConfigError, loadConfig, type ServiceConfig } from './config.js';
import { MissingExtensionError } from './db/migrate.js';
import { StoreLockedError } from './db/store-lock.js';
import { KeyringError } from './security/keyring.js';
import { startService, StoreUnreachableError } from './server.js';

let config: ServiceConfig | undefined;
// Signals are handled from the first moment: one that arrives while the service is still starting
// closes it as soon as it is up, instead of killing the process half-way.
let closing = false;
const stopRequested = new Promise<void>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // A second signal while closing stops at once.
      if (closing) process.exit(1);
      closing = true;
      resolve();
    });
  }
});
try {
  config = loadConfig();
  const service = await startService(config);
  void stopRequested.then(() =>
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.app.log.error({ err: error }, 'Switchyard did not close cleanly');
        process.exit(1);
      },
    ),
  );
} catch (error) {
  // Expected start-up problems get one clear line and exit code 1, not a stack trace.
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof StoreLockedError || error instanceof KeyringError || error instanceof StoreUnreachableError || error instanceof MissingExtensionError) {
    console.error(error.message);
    process.exit(1);
  }
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (config !== undefined && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
    console.error(`Cannot listen on ${config.host}:${config.port} (${code}): set HOST and PORT to a free address.`);
    process.exit(1);
  }
  // Anything else still ends in one line (the stack only with LOG_LEVEL=debug or trace).
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  console.error(`Switchyard could not start: ${message}`);
  if (config !== undefined && (config.logLevel === 'debug' || config.logLevel === 'trace')) console.error(error);
  process.exit(1);
}
