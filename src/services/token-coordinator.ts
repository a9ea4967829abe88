/**
 * OAuth refreshes of one connector, one at a time across every process sharing a PostgreSQL store.
 * The refresh runs inside a transaction holding the connector's row lock (SELECT ... FOR UPDATE);
 * under the lock the stored tokens are compared with the ones the caller holds (compare-and-swap on
 * the stored access token): when another process stored a different access token meanwhile, the
 * caller takes it instead of refreshing (a vendor that revokes rotated refresh tokens would refuse a
 * second refresh); otherwise the vendor is called with the stored refresh token and the new tokens are
 * sealed into the row before the lock is released, and announced to the other processes.
 */
import type { StoredTokens, TokenRefresh, TokenRefreshLock } from '../../runtime/index.js';
import { announceChange } from '../db/changes.js';
import type { Store } from '../db/database.js';
import { ResourceNotFoundError } from '../errors.js';
import type { Keyring } from '../security/keyring.js';
import { updateLockedCredentials } from './credentials.js';

export class StoreTokenCoordinator {
  constructor(
    private readonly store: Store,
    private readonly keyring: Keyring,
  ) {}

  /** The lock of one connector; `stored` hears the new IV of the row it re-sealed, before the commit. */
  forConnector(connectorId: string, stored: (iv: string) => void): TokenRefreshLock {
    return { refresh: (held, refresh) => this.refresh(connectorId, stored, held, refresh) };
  }

  private async refresh(
    connectorId: string,
    stored: (iv: string) => void,
    held: { refresh_token: string; access_token?: string },
    refresh: (refreshToken: string) => Promise<TokenRefresh>,
  ): Promise<StoredTokens> {
    const tokens = await updateLockedCredentials(this.store.db, this.keyring, connectorId, async (current, seal, trx): Promise<StoredTokens> => {
      if (current.access_token && current.access_token !== held.access_token) {
        // Values the token response carries (kept) are read from the stored credentials when present there.
        return { access_token: current.access_token, refresh_token: current.refresh_token ?? held.refresh_token, kept: current };
      }
      const fresh = await refresh(current.refresh_token || held.refresh_token);
      const iv = await seal(fresh);
      await announceChange(trx, { kind: 'connector', id: connectorId });
      stored(iv);
      return fresh;
    });
    if (tokens === undefined) throw new ResourceNotFoundError(`No connector ${connectorId}.`);
    return tokens;
  }
}
