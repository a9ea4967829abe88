// The runtime reads skill docs from ../docs/connectors/ beside its modules (runtime/skill-docs.ts):
// in the package that is docs/connectors/ beside dist/, copied here from the repository's generated docs.
import { cpSync, rmSync } from 'node:fs';

const target = new URL('../docs/connectors/', import.meta.url);
rmSync(new URL('../docs/', import.meta.url), { recursive: true, force: true });
cpSync(new URL('../../../docs/connectors/', import.meta.url), target, { recursive: true });
