/**
 * Every field Airbyte's context store lets its clients filter, sort and select on
 * (shared/reference/airbyte-agent-api/connectors.json, searchable_fields) is searchable here too, for
 * every entity both sides search. Entities we do not search at all are listed with the reason.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { isSearchablePath } from '../../src/context/filter/fields.js';

const AIRBYTE = JSON.parse(readFileSync(new URL('../../../shared/reference/airbyte-agent-api/connectors.json', import.meta.url), 'utf8')) as Record<
  string,
  { searchable_fields: Record<string, { fields: string[] }> }
>;

/** Airbyte entities we have but do not search, and why. */
const NOT_SEARCHED: Record<string, string> = {
  'clickup.user': 'a single object per token (the authorized user), read with get; nothing to search across',
  'harvest.company': 'a single object per account, read with get',
  'zendesk-talk.account_overview': 'a single current-statistics object per account, read with get',
  'zendesk-talk.agents_overview': 'a single current-statistics object per account, read with get',
  'zendesk-talk.current_queue_activity': 'a single current-statistics object per account, read with get',
};

const pairs = Object.entries(AIRBYTE).flatMap(([kind, facts]) =>
  Object.entries(facts.searchable_fields)
    .filter(([entity]) => connectorModules[kind]?.definition.entities[entity] !== undefined)
    .map(([entity, { fields }]) => [`${kind}.${entity}`, kind, entity, fields] as const),
);

describe("coverage of Airbyte's searchable fields", () => {
  it('finds the entities both sides have', () => {
    expect(pairs.length).toBeGreaterThan(100);
  });

  it('entities we do not search are single objects read with get, with no list to sync', () => {
    for (const key of Object.keys(NOT_SEARCHED)) {
      const [kind, entity] = key.split('.') as [string, string];
      const definition = connectorModules[kind]?.definition.entities[entity];
      expect(definition?.search.fields, key).toEqual([]);
      expect(Object.keys(definition?.actions ?? {}), key).toEqual(['get']);
    }
  });

  it('is 100% for every entity both sides search', () => {
    let total = 0;
    const missing: string[] = [];
    for (const [key, kind, entity, fields] of pairs) {
      if (key in NOT_SEARCHED) continue;
      const searchable = connectorModules[kind]?.definition.entities[entity]?.search.fields ?? [];
      for (const field of fields) {
        total += 1;
        if (!isSearchablePath(field, searchable)) missing.push(`${key}.${field}`);
      }
    }
    expect(missing).toEqual([]);
    expect(total).toBeGreaterThan(1500);
  });
});
