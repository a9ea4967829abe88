import { describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { recordIdParam } from '../../src/context/sync/confirm-deletion.js';

describe('confirming a missed record by id (search.confirm_deletion)', () => {
  it('sends the stored id as the param schema asks: a number for integer and number params, text otherwise', () => {
    expect(recordIdParam('2710', { type: 'integer' })).toBe(2710);
    expect(recordIdParam('12.5', { type: 'number' })).toBe(12.5);
    expect(recordIdParam('10002', { type: 'string' })).toBe('10002');
    expect(recordIdParam('PROJ-7', undefined)).toBe('PROJ-7');
    // An id an integer param cannot take is not asked for.
    expect(recordIdParam('12.5', { type: 'integer' })).toBeUndefined();
    expect(recordIdParam('abc', { type: 'integer' })).toBeUndefined();
    expect(recordIdParam('', { type: 'integer' })).toBeUndefined();
  });

  it("is declared where the vendor documents a 404 for a record that does not exist: Harvest's entities read by id, Jira issues, Intercom contacts, Gong users and calls, Pinterest ad accounts and boards, Orb customers, Notion pages, data sources and blocks", () => {
    const declared = Object.entries(connectorModules).flatMap(([type, module]) =>
      Object.entries(module.definition.entities)
        .filter(([, entity]) => entity.search.confirmDeletion !== undefined)
        .map(([name, entity]) => `${type}.${name}: ${entity.search.confirmDeletion?.action}(${entity.search.confirmDeletion?.param})`),
    );
    expect(declared.sort()).toEqual(
      [
        'clients',
        'contacts',
        'estimate_item_categories',
        'estimates',
        'expense_categories',
        'expenses',
        'invoice_item_categories',
        'invoices',
        'projects',
        'roles',
        'tasks',
        'time_entries',
        'users',
      ]
        .map((name) => `harvest.${name}: get(id)`)
        .concat(
          'jira.issues: get(issueIdOrKey)',
          'gong.users: get(id)',
          'intercom.contacts: get(id)',
          'gong.calls: get(id)',
          'pinterest.ad_accounts: get(ad_account_id)',
          'pinterest.boards: get(board_id)',
          'orb.customers: get(customer_id)',
          'notion.pages: get(page_id)',
          'notion.data_sources: get(data_source_id)',
          'notion.blocks: get(block_id)',
        )
        .sort(),
    );
  });
});
