/**
 * Recognises failures that mean "the store cannot be reached right now" (PostgreSQL down, restarting,
 * refusing connections, the pool's connect timeout), as opposed to a bug or a bad query. The error
 * handler answers them 503 with Retry-After instead of 500.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, crash recovery), and 53300 (too many connections). */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('57P') || code === '53300';
}

export function isStoreUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || unavailableSqlState(code))) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isStoreUnavailable(inner))) return true;
    if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(current.message)) return true;
  }
  return false;
}
