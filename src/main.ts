import { loadConfig, type ServiceConfig } from './config.js';
import { startService } from './server.js';
import { startupFailureMessage } from './startup-failure.js';

let config: ServiceConfig | undefined;
// Signals are handled from the first moment: one that arrives while the service is still starting
// closes it as soon as it is up, instead of killing the process half-way.
let closing = false;
const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // A second signal while closing stops at once.
      if (closing) process.exit(1);
      closing = true;
      resolve(signal);
    });
  }
});
try {
  config = loadConfig();
  const service = await startService(config);
  void stopRequested.then((signal) => {
    service.app.log.info({ signal }, 'stopping: finishing the requests under way and handing running syncs back to the queue');
    return service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.app.log.error({ err: error }, 'Switchyard did not close cleanly');
        process.exit(1);
      },
    );
  });
} catch (error) {
  // Expected start-up problems get one clear line and exit code 1, not a stack trace (the stack only with
  // LOG_LEVEL=debug or trace, for the unexpected ones).
  console.error(startupFailureMessage(error, config));
  if (config !== undefined && (config.logLevel === 'debug' || config.logLevel === 'trace')) console.error(error);
  process.exit(1);
}
