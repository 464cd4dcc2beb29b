import type { BaseType, Selection } from 'd3';

type Value<D> = string | number | null | ((this: Element, d: D, i: number) => string | number | null);

/** Attribute and text writes that skip values already there: in Chromium an identical write still dirties the element's style, layout and paint. */
export interface Quiet<D> {
  attr(name: string, value: Value<D>): Quiet<D>;
  /** One inline style property, written through the style object: a Content-Security-Policy blocks style attributes. */
  style(name: string, value: (d: D) => string): Quiet<D>;
  text(value: (d: D) => string): Quiet<D>;
}

export function quiet<E extends BaseType, D, P extends BaseType>(selection: Selection<E, D, P, unknown>): Quiet<D> {
  const q: Quiet<D> = {
    attr(name, value) {
      selection.each(function (d, i) {
        const el = this as Element;
        const v = typeof value === 'function' ? value.call(el, d, i) : value;
        const next = v === null ? null : String(v);
        if (el.getAttribute(name) === next) return;
        if (next === null) el.removeAttribute(name);
        else el.setAttribute(name, next);
      });
      return q;
    },
    style(name, value) {
      selection.each(function (d) {
        const style = (this as unknown as ElementCSSInlineStyle).style;
        const next = value(d);
        if (style.getPropertyValue(name) !== next) style.setProperty(name, next);
      });
      return q;
    },
    text(value) {
      selection.each(function (d) {
        const el = this as Element;
        const next = value(d);
        if (el.textContent !== next) el.textContent = next;
      });
      return q;
    },
  };
  return q;
}
