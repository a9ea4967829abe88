/**
 * Run as a child process by test/runtime/transport-tls.test.ts, with NODE_EXTRA_CA_CERTS naming the test
 * certificate (the platform reads it only at start): sends two GETs to the HTTPS URL in argv through the
 * runtime and prints what came back as one JSON line.
 */
import { DEFAULT_HTTP_OPTIONS, sendRequest } from '../../runtime/http.js';

const url = process.argv[2] ?? '';
const answers = [];
for (let index = 0; index < 2; index++) {
  const answer = await sendRequest({ method: 'GET', url, headers: { accept: 'application/json' } }, { ...DEFAULT_HTTP_OPTIONS, retries: 0 }, true);
  answers.push({ status: answer.status, text: answer.text });
}
process.stdout.write(`${JSON.stringify(answers)}\n`);
