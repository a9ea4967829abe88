import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * What the operator can do when the database's character type (LC_CTYPE) is C or POSIX, in one line
 * (undefined otherwise). PostgreSQL then changes the case of ASCII letters only and takes every other letter
 * for a word break: the case-insensitive filters (contains, startswith, endswith, like), the sort's lowercased
 * text, keyword's whole words and fuzzy's words all treat 'É' and 'é' as different letters and split
 * 'Café' into 'Caf'. The embedded store and a database created under a UTF-8 locale (C.UTF-8, en_US.UTF-8…)
 * fold every letter. Said once at start-up: the data stays correct, only those searches differ.
 */
export async function caseFoldingAdvice(db: Kysely<DatabaseSchema>): Promise<string | undefined> {
  const { rows } = await sql<{ folds: boolean; database: string; ctype: string }>`
    SELECT lower('ÀÉÎÕÜ') = 'àéîõü' AS folds, d.datname AS database, d.datctype AS ctype
    FROM pg_database AS d WHERE d.datname = current_database()`.execute(db);
  const found = rows[0];
  if (found === undefined || found.folds) return undefined;
  return (
    `The PostgreSQL database ${found.database} was created with the character type (LC_CTYPE) ${found.ctype}, under which PostgreSQL ` +
    `changes the case of ASCII letters only: case-insensitive filters (contains, startswith, endswith, like, keyword, fuzzy) and sorts ` +
    `tell 'É' from 'é' and take accented letters for word breaks. Create a database with a UTF-8 character type (CREATE DATABASE … ` +
    `TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8'), move the data into it with pg_dump and pg_restore, and ` +
    `point DATABASE_URL at it.`
  );
}
