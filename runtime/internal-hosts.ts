import { BlockList, isIP } from 'node:net';

/**
 * Loopback, private, shared, benchmarking, link-local, site-local, multicast, reserved and unspecified addresses
 * (RFC 1918, 6598, 2544, 4193, 3927, 3879, 5771, 1112, 4291). NAT64 addresses (RFC 6052) are judged by the IPv4
 * address they embed: behind DNS64, every IPv4 vendor resolves to one.
 */
const INTERNAL = new BlockList();
INTERNAL.addSubnet('0.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('10.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('100.64.0.0', 10, 'ipv4');
INTERNAL.addSubnet('127.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('169.254.0.0', 16, 'ipv4');
INTERNAL.addSubnet('172.16.0.0', 12, 'ipv4');
INTERNAL.addSubnet('192.168.0.0', 16, 'ipv4');
INTERNAL.addSubnet('198.18.0.0', 15, 'ipv4');
INTERNAL.addSubnet('224.0.0.0', 4, 'ipv4');
INTERNAL.addSubnet('240.0.0.0', 4, 'ipv4');
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addSubnet('fc00::', 7, 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');
INTERNAL.addSubnet('fec0::', 10, 'ipv6');
INTERNAL.addSubnet('ff00::', 8, 'ipv6');

const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function groupsOf(address: string): number[] {
  let text = address;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const middle = rest === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}

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
  if (version === 6 && NAT64.check(host, 'ipv6')) {
    const groups = groupsOf(host);
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return INTERNAL.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return INTERNAL.check(host, version === 4 ? 'ipv4' : 'ipv6');
}
