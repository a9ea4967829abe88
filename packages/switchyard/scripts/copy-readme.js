// The package's README is the repository README's "Library mode" section (one source for both), and its
// LICENSE the repository's.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const start = readme.indexOf('## Library mode');
const end = readme.indexOf('\n## ', start + 1);
if (start === -1 || end === -1) throw new Error('README.md has no "## Library mode" section');
const section = readme.slice(start, end).replace(/^## Library mode \(open source\)/, '## Use');
writeFileSync(
  new URL('../README.md', import.meta.url),
  `# switchyard\n\nExecute \`{entity, action, params}\` against third-party SaaS APIs with credentials you supply: the runtime of\nSwitchyard, whose hosted service, MCP server and HTTP client live in its repository.\n\n${section.trimEnd()}\n`,
);
copyFileSync(new URL('LICENSE', root), new URL('../LICENSE', import.meta.url));
