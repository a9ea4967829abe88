// The runtime reads skill docs from ../docs/connectors/ beside its modules (runtime/skill-docs.ts): in the
// package that is dist/docs/connectors/, beside dist/runtime/, copied here from the repository's generated docs.
import { cpSync } from 'node:fs';

cpSync(new URL('../../../docs/connectors/', import.meta.url), new URL('../dist/docs/connectors/', import.meta.url), { recursive: true });
