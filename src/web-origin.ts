/** `raw` as a web origin (scheme://host[:port], http or https, no path; a trailing slash allowed), normalized; undefined when it is not one. */
export function webOrigin(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.origin.toLowerCase() !== raw.replace(/\/$/, '').toLowerCase()) return undefined;
  return url.origin;
}
