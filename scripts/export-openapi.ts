/**
 * Writes Switchyard's OpenAPI description (the one GET /api/v1/openapi.json serves) to a file or
 * stdout, from the route schemas, without a store or a key on disk: `npm run openapi -- out.json`.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { composeService } from '../src/composition.js';
import { openStore } from '../src/db/database.js';
import { Keyring } from '../src/security/keyring.js';

const store = await openStore({ dataDir: 'memory://' });
const { ctx } = composeService({
  store,
  keyring: new Keyring(randomBytes(32)),
  config: { host: '127.0.0.1', port: 0, dataDir: 'memory://', upstreamBaseUrls: {}, logLevel: 'silent', tokenTtlSeconds: 900, bodyLimitBytes: 1_048_576 },
});
const app = buildApp(ctx);
await app.ready();
const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await store.close();
const out = process.argv[2];
if (out === undefined || out === '-') process.stdout.write(text);
else writeFileSync(out, text);
