/**
 * `npm run bench [name...]`: runs the benchmarks and prints one table each. Names: startup,
 * sync-ingest, sync-freshness, filter-search, semantic-search, execute-overhead (all when none is given). Targets are printed in the
 * rows; these are measurements, not tests.
 */
type Row = Record<string, string | number>;

const BENCHES: Record<string, () => Promise<{ run: () => Promise<Row[]> }>> = {
  startup: () => import('./startup.js'),
  'sync-ingest': () => import('./sync-ingest.js'),
  'sync-freshness': () => import('./sync-freshness.js'),
  'filter-search': () => import('./filter-search.js'),
  'semantic-search': () => import('./semantic-search.js'),
  'execute-overhead': () => import('./execute-overhead.js'),
};

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}.`);
  process.exit(1);
}
for (const name of asked.length > 0 ? asked : Object.keys(BENCHES)) {
  const started = Date.now();
  const rows = await (await (BENCHES[name] as () => Promise<{ run: () => Promise<Row[]> }>)()).run();
  console.log(`\n## ${name} (${Math.round((Date.now() - started) / 1000)} s)`);
  console.table(rows);
}
