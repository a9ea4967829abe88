/**
 * The connectors against the service contract itself: every entity of a kind's row in the entity
 * table exists in its manifest, and every paginated action returns exactly the pagination keys the
 * contract's pagination table lists for the kind.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/pipeline.js';
import { connectorModules } from '../../runtime/index.js';
import { requiredInput } from '../support/required-input.js';

const CONTRACT = path.resolve(REPO_ROOT, '..', 'shared', 'contract', 'service-contract.md');

/** Contract kind (entity table) -> connector type. */
const KINDS: Record<string, string> = {
  'time tracking and invoicing': 'harvest',
  'forms and surveys': 'typeform',
  'issue tracker (cycle/team style)': 'linear',
  'social advertising (bookmark pagination)': 'pinterest',
  'collaborative workspace docs': 'notion',
  'usage billing': 'orb',
  'email and sms marketing': 'klaviyo',
  'error tracking': 'sentry',
  'social advertising (organization hierarchy)': 'snapchat-marketing',
  'call analytics': 'gong',
  'work management': 'clickup',
  'ad platform (account hierarchy)': 'facebook-marketing',
  'customer messaging': 'customer-io',
  'issue tracking (project/issue)': 'jira',
  'customer relationship management': 'salesforce',
  'chat support': 'zendesk-chat',
  helpdesk: 'pylon',
  'phone support': 'zendesk-talk',
  'short-video advertising': 'tiktok-marketing',
  'customer conversations': 'intercom',
};

/** Contract kind (pagination table) -> connector type. Work management has no row: ClickUp documents its own. */
const PAGINATION_KINDS: Record<string, string> = {
  'time tracking': 'harvest',
  forms: 'typeform',
  'issue tracker (cycle style)': 'linear',
  'social advertising (bookmark)': 'pinterest',
  'collaborative docs (list)': 'notion',
  billing: 'orb',
  'email marketing': 'klaviyo',
  'error tracking': 'sentry',
  'organization-hierarchy advertising': 'snapchat-marketing',
  'call analytics': 'gong',
  'ad platform': 'facebook-marketing',
  'customer messaging actions': 'customer-io',
  'issue tracking': 'jira',
  'CRM query lists': 'salesforce',
  'chat support': 'zendesk-chat',
  helpdesk: 'pylon',
  'phone support': 'zendesk-talk',
  'short-video advertising': 'tiktok-marketing',
  'customer conversations': 'intercom',
};

/** The rows of the markdown table that follows `heading`, as cells. */
function tableAfter(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const contractPresent = requiredInput(CONTRACT, 'The service contract (../shared/contract/service-contract.md)');

describe.skipIf(!contractPresent)('connectors against the service contract', () => {
  const text = contractPresent ? readFileSync(CONTRACT, 'utf8') : '';

  it('maps every kind of the contract to a connector', () => {
    const kinds = tableAfter(text, '| Connector kind | Entities |').map(([kind]) => kind as string);
    expect(kinds.sort()).toEqual(Object.keys(KINDS).sort());
    expect(Object.values(KINDS).sort()).toEqual(Object.keys(connectorModules).sort());
  });

  it.each(tableAfter(text, '| Connector kind | Entities |'))('%s: every entity of the contract exists', (kind, entities) => {
    const type = KINDS[kind as string] as string;
    const declared = Object.keys(connectorModules[type]?.definition.entities ?? {});
    const named = (entities as string)
      .replace(/\(.*?\)/g, '')
      .split(',')
      .map((e) => e.trim().replace(/\s+/g, '_'))
      .filter(Boolean);
    expect(declared).toEqual(expect.arrayContaining(named));
  });

  it.each(tableAfter(text, '| Connector kind | Pagination response fields |'))('%s: paginated actions return exactly the contract keys', (kind, fields) => {
    const type = PAGINATION_KINDS[kind as string] as string;
    const keys = [...(fields as string).matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).sort();
    const definition = connectorModules[type]?.definition;
    expect(definition, `${kind} -> ${type}`).toBeDefined();
    const paginated = Object.values(definition?.entities ?? {}).flatMap((entity) =>
      Object.values(entity.actions)
        .filter((action) => action.pagination)
        .map((action) => [`${entity.name}.${action.name}`, Object.keys(action.pagination?.block ?? {}).sort()] as const),
    );
    expect(paginated.length, `${type} has no paginated action`).toBeGreaterThan(0);
    for (const [name, block] of paginated) expect(block, `${type} ${name}`).toEqual(keys);
  });
});
