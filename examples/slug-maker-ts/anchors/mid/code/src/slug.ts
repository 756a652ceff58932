/** A URL slug for an article title, unique among `taken`. */
export function slugify(title: string, taken: ReadonlySet<string> = new Set()): string {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (!taken.has(slug)) {
    return slug;
  }
  let n = 2;
  while (taken.has(`${slug}-${n}`)) {
    n += 1;
  }
  return `${slug}-${n}`;
}
