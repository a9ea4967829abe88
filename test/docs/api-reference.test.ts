import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IGNORED_FIELDS } from '../../src/routes/request-acceptance.js';

const reference = readFileSync(fileURLToPath(new URL('../../docs/api-reference.md', import.meta.url)), 'utf8');
const comingFromAirbyte = reference.slice(reference.indexOf('## Coming from Airbyte'), reference.indexOf('## Account: tokens and scoped tokens'));

describe('docs/api-reference.md, "Coming from Airbyte"', () => {
  it('names every Airbyte field the service accepts and ignores', () => {
    expect(comingFromAirbyte.length).toBeGreaterThan(0);
    for (const field of Object.keys(IGNORED_FIELDS)) expect(comingFromAirbyte, field).toContain(`\`${field}\``);
  });

  it('documents the check opt-out and the data-pipeline 501s', () => {
    expect(comingFromAirbyte).toContain('?check=false');
    expect(comingFromAirbyte).toMatch(/Data-pipeline operations answer 501/);
  });
});
