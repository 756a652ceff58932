/** A URL slug for an article title. */
export function slugify(title: string, taken: ReadonlySet<string> = new Set()): string {
  return title.toLowerCase().replace(/ /g, '-');
}
