/**
 * The service side of the execute-overhead benchmark: the real service (startService, as `npm start`
 * runs it, logging off) on PGlite in DATA_DIR or on DATABASE_URL, with Harvest pointed at UPSTREAM_URL,
 * one organization and one API client. Prints its URL and the client's id and secret.
 */
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/server.js';
import { createClient, createOrganization } from '../../src/services/organizations.js';

const config = { ...loadConfig(), upstreamBaseUrls: { harvest: process.env.UPSTREAM_URL ?? '' }, logLevel: 'silent' };
const service = await startService(config, { quiet: true });
const { organization_id } = await createOrganization(service.store.db, 'Bench');
const { client_id, client_secret } = await createClient(service.store.db, [organization_id]);
process.stdout.write(`${JSON.stringify({ url: service.url, client_id, client_secret })}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
