import { selectAll } from 'd3';
import { describe, expect, it } from 'vitest';
import { quiet } from '../../src/ui/components/quiet';

/** Just enough of an Element to count the writes that reach it. */
class FakeElement {
  attrs = new Map<string, string>();
  writes: string[] = [];
  private text = '';
  getAttribute(name: string): string | null {
    return this.attrs.get(name) ?? null;
  }
  setAttribute(name: string, value: string): void {
    this.writes.push(`set ${name}=${value}`);
    this.attrs.set(name, value);
  }
  removeAttribute(name: string): void {
    this.writes.push(`remove ${name}`);
    this.attrs.delete(name);
  }
  get textContent(): string {
    return this.text;
  }
  set textContent(value: string) {
    this.writes.push(`text ${value}`);
    this.text = value;
  }
}

function bound(data: string[]): { elements: FakeElement[]; sel: ReturnType<typeof selectAll<Element, string>> } {
  const elements = data.map(() => new FakeElement());
  const sel = selectAll<Element, string>(elements as unknown as Element[]).data(data);
  return { elements, sel };
}

describe('quiet attribute and text writes', () => {
  it('writes a value once and skips identical writes after that', () => {
    const { elements, sel } = bound(['a', 'b']);
    quiet(sel)
      .attr('data-x', (d) => d)
      .attr('y', 3)
      .text((d) => `name ${d}`);
    quiet(sel)
      .attr('data-x', (d) => d)
      .attr('y', 3)
      .text((d) => `name ${d}`);
    expect(elements[0]!.writes).toEqual(['set data-x=a', 'set y=3', 'text name a']);
    expect(elements[1]!.writes).toEqual(['set data-x=b', 'set y=3', 'text name b']);
  });

  it('writes only the elements whose value changed, and removes an attribute for null', () => {
    const { elements, sel } = bound(['a', 'b']);
    quiet(sel).attr('data-x', (d) => d);
    quiet(sel.data(['a', 'c'])).attr('data-x', (d) => d);
    quiet(sel).attr('data-x', (d) => (d === 'c' ? null : d));
    quiet(sel).attr('data-x', (d) => (d === 'c' ? null : d));
    expect(elements[0]!.writes).toEqual(['set data-x=a']);
    expect(elements[1]!.writes).toEqual(['set data-x=b', 'set data-x=c', 'remove data-x']);
  });

  it('compares numbers by their string form, as the DOM stores them', () => {
    const { elements, sel } = bound(['a']);
    quiet(sel).attr('width', 12.5);
    quiet(sel).attr('width', '12.5');
    expect(elements[0]!.writes).toEqual(['set width=12.5']);
  });
});
