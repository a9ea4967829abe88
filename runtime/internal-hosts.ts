import { BlockList, isIP } from 'node:net';

/** Loopback, private, shared, benchmarking, link-local, NAT64 and unspecified addresses (RFC 1918, 6598, 2544, 4193, 3927, 6052, 4291). */
const INTERNAL = new BlockList();
INTERNAL.addSubnet('0.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('10.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('100.64.0.0', 10, 'ipv4');
INTERNAL.addSubnet('127.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('169.254.0.0', 16, 'ipv4');
INTERNAL.addSubnet('172.16.0.0', 12, 'ipv4');
INTERNAL.addSubnet('192.168.0.0', 16, 'ipv4');
INTERNAL.addSubnet('198.18.0.0', 15, 'ipv4');
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addSubnet('fc00::', 7, 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');
INTERNAL.addSubnet('64:ff9b::', 96, 'ipv6');

/**
 * Whether a URL's hostname names this machine or its private network by itself: localhost, or an IP
 * address in the ranges above (IPv4-mapped IPv6 included). Names that resolve there are not seen here.
 */
export function isInternalHost(hostname: string): boolean {
  // A fully qualified name may end with a dot (localhost.), which resolves as the name without it.
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
  if (mapped !== undefined) return INTERNAL.check(mapped, 'ipv4');
  const version = isIP(host);
  if (version === 0) return false;
  return INTERNAL.check(host, version === 4 ? 'ipv4' : 'ipv6');
}
