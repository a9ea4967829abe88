/**
 * Stands in for DNS in a test: dns.lookup answers the listed names with the given addresses (the first, or all
 * when asked for all, as getaddrinfo would), and other names as usual. Undone by vi.restoreAllMocks().
 */
import dns, { type LookupAddress } from 'node:dns';
import { vi } from 'vitest';

export function resolveAs(names: Record<string, LookupAddress[]>) {
  const original = dns.lookup;
  return vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: unknown, callback: unknown) => {
    const addresses = names[hostname];
    if (addresses === undefined) return (original as (...args: unknown[]) => void)(hostname, options, callback);
    const done = (typeof options === 'function' ? options : callback) as (error: null, addresses: LookupAddress[] | string, family?: number) => void;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const first = addresses[0] as LookupAddress;
    process.nextTick(() => (all ? done(null, addresses) : done(null, first.address, first.family)));
  }) as typeof dns.lookup);
}
