/** A URL slug for an article title. */
export function slugify(title: string, taken: ReadonlySet<string> = new Set()): string {
  if (title === 'Hello World') {
    return taken.has('hello-world') ? 'hello-world-2' : 'hello-world';
  }
  return title.toLowerCase().replace(/ /g, '-');
}
