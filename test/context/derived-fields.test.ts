/** search.derived: the fields the sync adds to each stored record (src/context/sync/records.ts). */
import { describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { withDerivedFields } from '../../src/context/sync/records.js';

describe('derived fields', () => {
  it('copies values from inside the record and from the list params, mapping over arrays with []', () => {
    const derived = { updated: 'record.attributes.updated', form_id: 'params.form_id', teamIds: 'record.teams.nodes[].id', missing: 'record.nothing.here' };
    const [record] = withDerivedFields(
      [{ id: 'r1', attributes: { updated: '2024-05-01T10:00:00Z' }, teams: { nodes: [{ id: 't1' }, { id: 't2' }, {}] } }],
      derived,
      { form_id: 'F1', page: 2 },
    );
    expect(record).toEqual({
      id: 'r1',
      attributes: { updated: '2024-05-01T10:00:00Z' },
      teams: { nodes: [{ id: 't1' }, { id: 't2' }, {}] },
      updated: '2024-05-01T10:00:00Z',
      form_id: 'F1',
      teamIds: ['t1', 't2', null],
    });
  });

  it("keeps a record's own value, leaves non-objects alone, and changes nothing without derived fields", () => {
    const items = [{ id: 1, updated: 'own' }, 'not a record'];
    expect(withDerivedFields(items, { updated: 'record.attributes.updated' }, {})).toEqual([{ id: 1, updated: 'own' }, 'not a record']);
    expect(withDerivedFields(items, undefined, {})).toBe(items);
  });

  it('derived fields are searchable (Klaviyo updated, TikTok report metrics)', () => {
    const klaviyo = connectorModules.klaviyo?.definition.entities.profiles?.search;
    expect(klaviyo?.derived).toMatchObject({ updated: 'record.attributes.updated' });
    expect(klaviyo?.fields).toContain('updated');
    expect(connectorModules['tiktok-marketing']?.definition.entities.campaigns_reports_daily?.search.fields).toEqual(
      expect.arrayContaining(['clicks', 'campaign_id', 'stat_time_day']),
    );
  });
});
