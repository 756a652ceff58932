export function render(el: HTMLElement, html: string): JSX.Element {
  el.outerHTML = html;
  return <div className="preview">{html}</div>;
}
