/**
 * `fuzzy` matches when pg_trgm's word_similarity(query, field) reaches this. The store sets
 * pg_trgm.word_similarity_threshold to the same value on every connection (src/db/database.ts), so the
 * trigram index condition `query <% text` never drops a record that reaches it.
 */
export const FUZZY_THRESHOLD = 0.5;
