/** Small DOM helpers of the page (no framework: a few tables and lists). @module */

type Attrs = Record<string, string | boolean | ((e: Event) => void) | undefined>;

/** An element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string | undefined | false)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (v === true) el.setAttribute(k, '');
    else if (k === 'value' && 'value' in el) (el as HTMLInputElement).value = v;
    else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== undefined && c !== false) el.append(c);
  return el;
}

/** The element with this id (the page's skeleton is index.html). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no #${id}`);
  return el as T;
}

/** Replace an element's children. */
export function fill(el: HTMLElement, ...children: (Node | string | undefined | false)[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== undefined && c !== false));
}

/** Call `fn` once `ms` after the last of a burst of calls. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
