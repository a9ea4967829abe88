import type { ServiceContext } from '../service-context.js';

/**
 * Has the semantic-search indexes of deleted connectors dropped in the background (their passages went with
 * their rows): after deleting a connector, or a workspace with its connectors. A failure is logged: the
 * connectors are gone either way, and the next deletion drops what is left.
 */
export function dropDeletedConnectorIndexes(ctx: Pick<ServiceContext, 'vectors' | 'log'>): void {
  ctx.vectors
    .dropDeletedConnectorIndexes()
    .catch((error: unknown) => ctx.log.warn({ err: error }, 'could not drop the semantic-search indexes of deleted connectors'));
}
