/**
 * Semantic mode of context_store_search: ranks the passages of one semantic field of an entity by cosine
 * similarity to a prompt's embedding.
 *
 * Order: score descending, then record id, then passage position, so pages are stable. min_similarity is
 * applied first, then dedup (`max`: each record's best passage only), then the page (limit, cursor).
 * The cursor is keyset-based (the last hit's score, record id and passage), signed, and bound to the
 * query: a record synced after the first page shows up on a later page only if it ranks below the hits
 * already returned.
 *
 * Execution: with pgvector (PGlite, a PostgreSQL server that has it) and more passages in the scope than an
 * exact scan ranks within its budget (EXACT_SCAN_BUDGET_MS: the index can miss a passage unlike its
 * neighbours), the HNSW index proposes the K nearest passages of the scope (iterative scan, so filters do not
 * starve it); K grows while the page is not full and the candidates still pass min_similarity, and an exact
 * scan answers when the index ran out early (a selective filter). Such a scope gets an index of its own, built
 * in the background on PostgreSQL when other connectors hold most of the model's passages, and keeps more
 * candidates until then (VectorIndexes.noteLargeScope, efSearchFor).
 * Smaller scopes, and stores without pgvector, are ranked by an exact scan computing every score in SQL. Same
 * scores either way.
 */
import { sql, type RawBuilder } from 'kysely';
import type { EntityDefinition } from '../../../runtime/index.js';
import { getPath } from '../../../runtime/paths.js';
import type { ServiceContext } from '../../service-context.js';
import { BadRequestError } from '../../errors.js';
import { trimContext } from './chunking.js';
import { openCursor, searchFingerprint, signCursor } from '../cursor.js';
import { compileSearchFilter, projectFields } from '../filter/index.js';
import { embeddingProvider } from './runtime.js';
import { realArrayLiteral, vectorExpression } from './vector-store.js';
import { loadVocabulary } from './vocabulary.js';

export interface SemanticParams {
  field: string;
  prompt: string;
  filter?: unknown;
  context_size?: number;
  min_similarity: number;
  dedup: 'max' | 'none';
}

export interface SemanticHit {
  entity: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** Candidates asked of the HNSW index before the exact scan takes over. */
const MAX_INDEX_CANDIDATES = 4000;
/** pgvector's largest hnsw.ef_search. */
const MAX_EF_SEARCH = 1000;

/** The position after the last hit: its score, record id and passage; `n` hits returned so far (sizes the candidates). */
interface CursorState {
  s: number;
  r: string;
  o: number;
  n: number;
}

function readCursor(ctx: ServiceContext, cursor: string, fingerprint: string): CursorState {
  const payload = openCursor(ctx.keyring, cursor, fingerprint);
  const { s, r, o, n } = payload;
  if (typeof s !== 'number' || typeof r !== 'string' || typeof o !== 'number' || typeof n !== 'number') {
    const message = 'cursor is not a cursor this service issued.';
    throw new BadRequestError(message, 'invalid_cursor', [{ field: 'cursor', rule: 'invalid_cursor', message }]);
  }
  return { s, r, o, n };
}

/** Binds a cursor to everything that decides the ranking (the shared cursor format of src/context/cursor.ts). */
function fingerprintOf(scope: { organizationId: string; connectorId: string; entity: EntityDefinition }, params: SemanticParams, model: string): string {
  return searchFingerprint({
    c: scope.connectorId,
    e: scope.entity.name,
    m: 'semantic',
    field: params.field,
    prompt: params.prompt,
    filter: params.filter ?? null,
    min: params.min_similarity,
    dedup: params.dedup,
    model,
  });
}

/** Read-only values the manifest declares for hits' metadata (search.metadata: name -> record dot path). */
function declaredMetadata(entity: EntityDefinition): Array<[string, string]> {
  return Object.entries(entity.search.metadata ?? {});
}

/** The fields of a hit's entity when the caller names none: the entity's searchable fields. */
function defaultFields(entity: EntityDefinition): string[] {
  return entity.search.fields;
}

interface Row {
  record_id: string;
  ordinal: number;
  start_offset: number;
  content: string;
  score: number;
  data: Record<string, unknown>;
  candidates: number | string;
  lowest: number | null;
}

export async function semanticSearch(
  ctx: ServiceContext,
  scope: { organizationId: string; connectorId: string; entity: EntityDefinition; connectorType: string },
  params: SemanticParams,
  options: { limit: number; cursor?: string; fields?: string[] },
): Promise<{ data: Array<{ entity: Record<string, unknown>; metadata: Record<string, unknown> }>; meta: { has_more: boolean; cursor: string | null } }> {
  return searchPassages(ctx, scope, params, options, 'auto');
}

export type SearchStrategy = 'auto' | 'exact';

/** semanticSearch, with the strategy forced to the exact scan when asked (the benchmark's reference). */
export async function searchPassages(
  ctx: ServiceContext,
  scope: { organizationId: string; connectorId: string; entity: EntityDefinition },
  params: SemanticParams,
  options: { limit: number; cursor?: string; fields?: string[] },
  strategy: SearchStrategy,
): Promise<{ data: SemanticHit[]; meta: { has_more: boolean; cursor: string | null } }> {
  const { entity } = scope;
  const semantic = entity.search.semantic.find((item) => item.field === params.field);
  if (!semantic) {
    const allowed = entity.search.semantic.map((item) => item.field);
    const message = allowed.length
      ? `semantic.field must be one of the semantic fields of ${entity.name}: ${allowed.join(', ')}.`
      : `${entity.name} has no semantically searchable field.`;
    throw new BadRequestError(message, 'invalid_semantic_field', [{ field: 'semantic.field', rule: 'enum', message, limit: allowed }]);
  }
  const db = ctx.store.db;
  const provider = embeddingProvider(ctx);
  const fingerprint = fingerprintOf(scope, params, provider.id);
  const after = options.cursor ? readCursor(ctx, options.cursor, fingerprint) : undefined;
  const limit = Math.max(1, Math.min(100, Math.trunc(options.limit)));
  const filterSql: RawBuilder<boolean> | undefined =
    params.filter === undefined || params.filter === null ? undefined : await compileSearchFilter(db, scope, params.filter, 'semantic.filter');
  const [query] = await provider.embed([params.prompt]);
  const empty = { data: [], meta: { has_more: false, cursor: null } };
  // A prompt without a single word has no direction to compare with.
  if (!query || query.every((x) => x === 0)) return empty;
  const dims = query.length;
  const indexed = await ctx.vectors.ensureVectorIndex(provider.id, dims);
  await Promise.all([ctx.statistics.ensure('context_passages'), ctx.statistics.ensure('context_records')]);

  const passageVector = vectorExpression('p', dims);
  const queryVector = sql`${`[${Array.from(query).join(',')}]`}::vector(${sql.raw(String(dims))})`;
  const distance = sql<number>`(${passageVector} <=> ${queryVector})`;
  // Exact scores: pgvector's cosine distance where it exists, else the dot product of the unit vectors.
  const exactScore = indexed
    ? sql<number>`(1 - ${distance})`
    : sql<number>`(SELECT sum(u.e::float8 * u.q::float8) FROM unnest(p.embedding, ${realArrayLiteral(query)}::real[]) AS u(e, q))`;
  const minSimilarity = params.min_similarity;

  const scopeWhere = sql`p.organization_id = ${scope.organizationId}
      AND p.connector_id = ${scope.connectorId}
      AND p.entity = ${entity.name}
      AND p.field = ${params.field}
      AND p.model = ${sql.lit(provider.id)}
      AND p.dims = ${sql.raw(String(dims))}
      AND r.organization_id = ${scope.organizationId}
      AND r.deleted_at IS NULL
      ${filterSql ? sql`AND (${filterSql})` : sql``}`;
  const from = sql`context_passages p
      JOIN context_records r ON r.connector_id = p.connector_id AND r.entity = p.entity AND r.record_id = p.record_id`;

  // Candidates carry scores only: the hits' text is read once the page is cut, not carried through the ranking
  // of every passage an exact scan scores.
  const page = async (candidates: RawBuilder<unknown>, run: (query: RawBuilder<Row>) => Promise<Row[]>): Promise<Row[]> => {
    const keyset = after
      ? sql`AND (ranked.score < ${after.s}::float8 OR (ranked.score = ${after.s}::float8 AND (ranked.record_id > ${after.r} OR (ranked.record_id = ${after.r} AND ranked.ordinal > ${after.o}))))`
      : sql``;
    const query = sql<Row>`
      WITH cand AS MATERIALIZED (${candidates}),
      ranked AS (
        SELECT cand.*, row_number() OVER (PARTITION BY cand.record_id ORDER BY cand.score DESC, cand.ordinal) AS rn
        FROM cand
        ${minSimilarity > -1 ? sql`WHERE cand.score >= ${minSimilarity}::float8` : sql``}
      ),
      stats AS (SELECT count(*) AS candidates, min(cand.score) AS lowest FROM cand)
      SELECT stats.candidates, stats.lowest, hit.*, hp.start_offset, hp.content, r.data
      FROM stats
      LEFT JOIN LATERAL (
        SELECT ranked.record_id, ranked.ordinal, ranked.score
        FROM ranked
        WHERE ${params.dedup === 'max' ? sql`ranked.rn = 1` : sql`true`} ${keyset}
        ORDER BY ranked.score DESC, ranked.record_id, ranked.ordinal
        LIMIT ${limit + 1}
      ) hit ON true
      LEFT JOIN context_passages hp ON hp.connector_id = ${scope.connectorId} AND hp.entity = ${entity.name} AND hp.record_id = hit.record_id
        AND hp.field = ${params.field} AND hp.ordinal = hit.ordinal
      LEFT JOIN context_records r ON r.connector_id = ${scope.connectorId} AND r.entity = ${entity.name} AND r.record_id = hit.record_id
      ORDER BY hit.score DESC, hit.record_id, hit.ordinal`;
    return run(query);
  };

  const exact = (): Promise<Row[]> =>
    page(sql`SELECT p.record_id, p.ordinal, ${exactScore}::float8 AS score FROM ${from} WHERE ${scopeWhere}`, async (query) => (await query.execute(db)).rows);

  const countPassages = async (upTo: number): Promise<number> => {
    const { rows: counted } = await sql<{ passages: number }>`
      SELECT count(*)::int AS passages FROM (
        SELECT 1 FROM context_passages p
        WHERE p.connector_id = ${scope.connectorId} AND p.entity = ${entity.name} AND p.field = ${params.field} AND p.model = ${sql.lit(provider.id)}
        LIMIT ${upTo}) AS scoped`.execute(db);
    return Number(counted[0]?.passages ?? 0);
  };
  const beyondExactScan = () => ctx.vectors.beyondExactScan(`${scope.connectorId}|${entity.name}|${params.field}|${provider.id}`, dims, countPassages);

  let rows: Row[] | undefined;
  if (indexed && strategy === 'auto' && (await beyondExactScan())) {
    ctx.vectors.noteLargeScope(scope.connectorId, provider.id, dims);
    // Passages to fetch: everything up to the cursor plus this page, times a margin for dedup.
    let k = Math.max(20, ((after?.n ?? 0) + limit + 1) * (params.dedup === 'max' ? 3 : 1));
    while (k <= MAX_INDEX_CANDIDATES) {
      const candidates = sql`
        SELECT p.record_id, p.ordinal, (1 - ${distance})::float8 AS score
        FROM ${from} WHERE ${scopeWhere}
        ORDER BY ${distance} LIMIT ${sql.raw(String(k))}`;
      const found = await db.transaction().execute(async (trx) => {
        const efSearch = ctx.vectors.efSearchFor(scope.connectorId, provider.id, dims);
        await sql`SET LOCAL hnsw.ef_search = ${sql.raw(String(Math.min(MAX_EF_SEARCH, Math.max(efSearch, k))))}`.execute(trx);
        await sql`SET LOCAL hnsw.iterative_scan = strict_order`.execute(trx);
        return page(candidates, async (query) => (await query.execute(trx)).rows);
      });
      const first = found[0];
      const count = Number(first?.candidates ?? 0);
      const hits = found.filter((row) => row.record_id !== null);
      if (hits.length > limit) {
        rows = hits;
        break;
      }
      if (count < k) break; // the index ran out (small scope or a selective filter): scan exactly
      if (first?.lowest !== null && first?.lowest !== undefined && first.lowest < minSimilarity) {
        rows = hits; // the candidates already went below min_similarity: nothing further can qualify
        break;
      }
      k *= 4;
    }
  }
  if (rows) ctx.vectors.searches.index += 1;
  else {
    ctx.vectors.searches.exact += 1;
    rows = (await exact()).filter((row) => row.record_id !== null);
  }

  const hasMore = rows.length > limit;
  const hits = rows.slice(0, limit);
  const fields = options.fields && options.fields.length > 0 ? options.fields : defaultFields(entity);
  const vocabulary = loadVocabulary();
  const promptWords = vocabulary.embed(params.prompt);
  const metadataFields = declaredMetadata(entity);
  const contextSize = params.context_size === undefined ? undefined : Math.min(params.context_size, semantic.context_window);
  const data = hits.map((row) => {
    const score = Math.max(-1, Math.min(1, Number(row.score)));
    const metadata: Record<string, unknown> = {
      score: Math.round(score * 1e6) / 1e6,
      context: trimContext(row.content, contextSize, (word) => vocabulary.wordScore(word, promptWords)),
      field: params.field,
      record_id: row.record_id,
      passage: row.ordinal,
    };
    for (const [name, path] of metadataFields) {
      const value = getPath(row.data, path);
      if (value !== undefined) metadata[name] = value;
    }
    return { entity: projectFields(row.data, fields), metadata };
  });
  const last = hits.at(-1);
  const cursor =
    hasMore && last
      ? signCursor(ctx.keyring, { v: 1, f: fingerprint, s: Number(last.score), r: last.record_id, o: Number(last.ordinal), n: (after?.n ?? 0) + hits.length })
      : null;
  return { data, meta: { has_more: hasMore, cursor } };
}
