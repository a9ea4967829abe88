export interface Link {
  url: string;
  attributes: Record<string, string>;
}

/** Parses an RFC 8288 Link header: `<url>; rel="next"; results="true", <url>; rel="prev"`. */
export function parseLinkHeader(header: string | null): Link[] {
  if (!header) return [];
  const links: Link[] = [];
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+=(?:"[^"]*"|[^;,]*))*)/g)) {
    const attributes: Record<string, string> = {};
    for (const attr of (match[2] ?? '').matchAll(/;\s*([^;=\s]+)\s*=\s*(?:"([^"]*)"|([^;,\s]*))/g)) {
      attributes[(attr[1] as string).toLowerCase()] = attr[2] ?? attr[3] ?? '';
    }
    links.push({ url: match[1] as string, attributes });
  }
  return links;
}
