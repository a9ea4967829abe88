/**
 * An action's alternative_paths (Snapchat's ad squads of a campaign or of an ad account): the request goes
 * to the first path whose every {name} is given, and a call that completes none is refused before any
 * request, should a manifest not name the choice in at_least_one_of.
 */
import { describe, expect, it } from 'vitest';
import { connectorModules, ValidationError, type ActionDefinition } from '../../runtime/index.js';
import { buildRequest } from '../../runtime/request.js';

const target = { origin: 'https://adsapi.snapchat.com', baseUrl: 'https://adsapi.snapchat.com/v1' };
const adsquadsList = connectorModules['snapchat-marketing']?.definition.entities.adsquads?.actions.list as ActionDefinition;

describe('alternative_paths', () => {
  it('sends the request to the first path whose params are all given', () => {
    expect(buildRequest(adsquadsList, { campaign_id: 'c-1' }, target).url).toBe('https://adsapi.snapchat.com/v1/campaigns/c-1/adsquads');
    expect(buildRequest(adsquadsList, { ad_account_id: 'a 1' }, target).url).toBe('https://adsapi.snapchat.com/v1/adaccounts/a%201/adsquads');
  });

  it('refuses params that complete none of the paths, naming them all', () => {
    const error = (() => {
      try {
        buildRequest(adsquadsList, { limit: 50 }, target);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      expect.objectContaining({ field: 'params', rule: 'path_params', limit: ['/campaigns/{campaign_id}/adsquads', '/adaccounts/{ad_account_id}/adsquads'] }),
    ]);
  });
});
