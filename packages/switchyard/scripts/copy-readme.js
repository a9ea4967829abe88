// The package's README is the repository README's "Library mode" and "TypeScript client" sections (one source
// for both), with links into the repository left as their text (the package has no repository to point to),
// and its LICENSE the repository's.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

/** The README's section whose heading starts with `heading`, up to the next heading of its level. */
function section(heading) {
  const start = readme.indexOf(`\n${heading}`);
  const end = readme.indexOf('\n## ', start + 1);
  if (start === -1 || end === -1) throw new Error(`README.md has no "${heading}" section`);
  return readme.slice(start + 1, end).trimEnd();
}

const sections = [section('## Library mode').replace(/^## Library mode \(open source\)/, '## Use'), section('## TypeScript client')];
// [text](relative/path): the text alone; absolute links stay.
const body = sections.join('\n\n').replace(/\[([^\]]+)\]\((?!https?:|#)[^)]+\)/g, '$1');
writeFileSync(
  new URL('../README.md', import.meta.url),
  `# switchyard\n\nExecute \`{entity, action, params}\` against third-party SaaS APIs with credentials you supply (the runtime of\nSwitchyard), and call a Switchyard service with a typed client (\`switchyard/client\`).\n\n${body}\n`,
);
copyFileSync(new URL('LICENSE', root), new URL('../LICENSE', import.meta.url));
