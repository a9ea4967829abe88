/**
 * Every field Airbyte's context store lets its clients filter, sort and select on
 * (shared/reference/airbyte-agent-api/connectors.json, searchable_fields) is searchable here too, for
 * every entity both sides have, single objects included (synced through their get).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import { syncableEntities, syncAction } from '../../src/context/sync/plan.js';
import { isSearchablePath } from '../../src/context/filter/fields.js';

const AIRBYTE = JSON.parse(readFileSync(new URL('../../../shared/reference/airbyte-agent-api/connectors.json', import.meta.url), 'utf8')) as Record<
  string,
  { searchable_fields: Record<string, { fields: string[] }> }
>;

/**
 * Entities offered as list and get but kept out of the context store (test/connectors/airbyte-compatibility.test.ts
 * says why): none of their fields is searchable.
 */
const NOT_IN_THE_STORE = new Set(['typeform.images', 'typeform.themes', 'typeform.webhooks', 'typeform.workspaces']);

const pairs = Object.entries(AIRBYTE).flatMap(([kind, facts]) =>
  Object.entries(facts.searchable_fields)
    .filter(([entity]) => connectorModules[kind]?.definition.entities[entity] !== undefined && !NOT_IN_THE_STORE.has(`${kind}.${entity}`))
    .map(([entity, { fields }]) => [`${kind}.${entity}`, kind, entity, fields] as const),
);

/**
 * Fields no search path can name here: a dot in a field path means nesting, and these keys hold a dot in
 * their own name. The records keep them (they are returned with the record).
 */
const KEYS_WITH_A_DOT = new Set(['sentry.events.event.type']);

describe("coverage of Airbyte's searchable fields", () => {
  it('finds the entities both sides have', () => {
    expect(pairs.length).toBeGreaterThan(100);
  });

  it('syncs the single objects through their get (no list, a param-less get) or their list of one record', () => {
    const singles: Array<[string, 'get' | 'list']> = [
      ['clickup.user', 'get'],
      ['harvest.company', 'get'],
      ['zendesk-talk.account_overview', 'list'],
      ['zendesk-talk.agents_overview', 'list'],
      ['zendesk-talk.current_queue_activity', 'list'],
    ];
    for (const [key, action] of singles) {
      const [kind, entity] = key.split('.') as [string, string];
      const definition = connectorModules[kind]?.definition;
      expect(definition && syncableEntities(definition), key).toContain(entity);
      expect(definition && syncAction(definition.entities[entity] as EntityDefinition).name, key).toBe(action);
    }
  });

  it('is 100% for every entity both sides have', () => {
    let total = 0;
    const missing: string[] = [];
    for (const [key, kind, entity, fields] of pairs) {
      const searchable = connectorModules[kind]?.definition.entities[entity]?.search.fields ?? [];
      for (const field of fields) {
        total += 1;
        if (!isSearchablePath(field, searchable) && !KEYS_WITH_A_DOT.has(`${key}.${field}`)) missing.push(`${key}.${field}`);
      }
    }
    expect(missing).toEqual([]);
    expect(total).toBeGreaterThan(1500);
  });
});
