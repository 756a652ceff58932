/** The longest a slug may be before a number is added to make it unique. */
export const MAX_LENGTH = 40;

function base(title: string): string {
  const ascii = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  let slug = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (slug.length > MAX_LENGTH) {
    const cut = slug.lastIndexOf('-', MAX_LENGTH);
    slug = (cut > 0 ? slug.slice(0, cut) : slug.slice(0, MAX_LENGTH)).replace(/-+$/, '');
  }
  return slug || 'untitled';
}

/**
 * A URL slug for an article title: lowercase ASCII letters, digits and single hyphens; accents
 * folded to their base letter; at most MAX_LENGTH characters, never cut inside a word; "untitled"
 * when nothing is left; a slug already in `taken` gets the first free "-2", "-3", ...
 * Throws a TypeError when the title is not a string or `taken` is not a Set.
 */
export function slugify(title: string, taken: ReadonlySet<string> = new Set()): string {
  if (!(taken instanceof Set)) {
    throw new TypeError('taken must be a Set of slugs');
  }
  if (typeof title !== 'string') {
    throw new TypeError(`title must be a string, got ${typeof title}`);
  }
  const slug = base(title);
  if (!taken.has(slug)) {
    return slug;
  }
  let n = 2;
  while (taken.has(`${slug}-${n}`)) {
    n += 1;
  }
  return `${slug}-${n}`;
}
