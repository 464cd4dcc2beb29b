import type { Page } from 'playwright-core';

/**
 * Measurements of the laid-out page for the layout tests: what is cut off, what is too small to read, and where things
 * are. Each runs in the page and returns plain data, so a failing assertion prints what it found.
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
  bottom: number;
  right: number;
}

/** The first element with `testId`, as the page lays it out now; null when there is none or it has no size. */
export async function boxOf(page: Page, testId: string): Promise<Box | null> {
  return page.evaluate((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return null;
    return { x: r.x, y: r.y, width: r.width, height: r.height, bottom: r.bottom, right: r.right };
  }, testId);
}

/** Waits for two animation frames, so a resize's layout and the effects it starts have run. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * Text cut off without a sign, inside `root`: an element that clips (overflow hidden or clip) what it holds, an ellipsis
 * included, or a scrolling box with more below whose scroll cue (a ScrollArea's "more" button) is not shown. A box that
 * scrolls sideways counts too. Screen-reader-only text and the topology picture are left out.
 */
export async function clippedWithoutCue(page: Page, root: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const found: string[] = [];
    const scope = document.querySelector(selector);
    if (!scope) return [`${selector}: not on the page`];
    const describe = (el: Element): string => {
      const id = el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.tagName.toLowerCase();
      return `${id} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    };
    for (const el of [scope, ...Array.from(scope.querySelectorAll('*'))]) {
      if (!(el instanceof HTMLElement) || el.closest('.sr-only, [data-testid="topology"]') || el instanceof HTMLSelectElement) continue;
      const style = getComputedStyle(el);
      if (style.display === 'none' || el.clientHeight === 0) continue;
      const clips = (overflow: string): boolean => overflow === 'hidden' || overflow === 'clip';
      const scrolls = (overflow: string): boolean => overflow === 'auto' || overflow === 'scroll';
      const tallerBy = el.scrollHeight - el.clientHeight;
      const widerBy = el.scrollWidth - el.clientWidth;
      if (clips(style.overflowY) && tallerBy > 1) found.push(`${describe(el)} clips ${tallerBy}px at its bottom`);
      if (clips(style.overflowX) && widerBy > 1) found.push(`${describe(el)} clips ${widerBy}px at its right`);
      if (scrolls(style.overflowX) && widerBy > 1) found.push(`${describe(el)} scrolls sideways by ${widerBy}px`);
      if (scrolls(style.overflowY) && tallerBy > 1) {
        const below = el.scrollHeight - el.scrollTop - el.clientHeight > 1;
        const cue = el.parentElement?.querySelector(':scope > [data-testid="scroll-cue"]');
        const shown = cue instanceof HTMLElement && cue.offsetWidth > 0 && cue.offsetHeight > 0;
        if (!el.hasAttribute('data-scroll-area')) found.push(`${describe(el)} scrolls ${tallerBy}px without a scroll cue`);
        else if (below && !shown) found.push(`${describe(el)} has ${tallerBy}px more below and no cue showing`);
      }
    }
    return found;
  }, root);
}

/** Visible text set smaller than `minPx` CSS pixels, HTML and SVG, outside the topology picture. */
export async function textSmallerThan(page: Page, minPx: number): Promise<string[]> {
  return page.evaluate((min) => {
    const found = new Set<string>();
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      if (el.closest('.sr-only, [data-testid="topology"], [aria-hidden="true"]')) continue;
      const own = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
      if (!own) continue;
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      if (style.visibility === 'hidden' || style.display === 'none' || box.width === 0 || box.height === 0) continue;
      const px = parseFloat(style.fontSize);
      if (px < min) found.add(`${px}px "${(el.textContent ?? '').trim().slice(0, 30)}"`);
    }
    return [...found];
  }, minPx);
}

/** How many lines the direct children of `selector` sit on: children whose vertical middles differ by under 12 px share one. */
export async function rowsOf(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return 0;
    const middles = Array.from(el.children)
      .map((c) => c.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .map((r) => r.y + r.height / 2)
      .sort((a, b) => a - b);
    let rows = 0;
    let last = -Infinity;
    for (const m of middles) {
      if (m - last >= 12) rows++;
      last = m;
    }
    return rows;
  }, selector);
}

/**
 * Visible text in the topology picture drawn smaller than `minPx` on screen: each text's font size times the scale it is
 * drawn at (its box on screen over its box in the drawing's units).
 */
export async function pictureTextSmallerThan(page: Page, minPx: number): Promise<string[]> {
  return page.evaluate((min) => {
    const found = new Set<string>();
    for (const t of Array.from(document.querySelectorAll<SVGTextElement>('svg[data-testid="topology"] text'))) {
      const style = getComputedStyle(t);
      const box = t.getBoundingClientRect();
      if (style.visibility === 'hidden' || style.display === 'none' || box.width === 0 || box.height === 0 || !t.textContent?.trim()) continue;
      const own = t.getBBox().height;
      const px = own > 0 ? (parseFloat(style.fontSize) * box.height) / own : 0;
      if (px < min) found.add(`${px.toFixed(1)}px "${t.textContent.trim().slice(0, 30)}"`);
    }
    return [...found];
  }, minPx);
}

/**
 * The picture's boxes (machines, elements, pods, group headings, the caption) that lie under one of the overlays on top
 * of it (its legend, its deployment toggles), as "box under overlay" lines.
 */
export async function pictureBoxesUnderOverlays(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const overlays = Array.from(document.querySelectorAll<HTMLElement>('[data-testid="picture-legend"], [data-testid="deployment-toggles"]'))
      .map((el) => ({ name: el.dataset['testid']!, box: el.getBoundingClientRect() }))
      .filter((o) => o.box.width > 0 && o.box.height > 0);
    const found: string[] = [];
    const boxes = document.querySelectorAll<SVGGraphicsElement>(
      'svg[data-testid="topology"] [data-entity], svg[data-testid="topology"] .topo-mgroup-label, svg[data-testid="topology"] .topo-caption-text',
    );
    for (const el of Array.from(boxes)) {
      if (getComputedStyle(el).visibility === 'hidden') continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) continue;
      for (const o of overlays) {
        const overlap = Math.min(b.right, o.box.right) - Math.max(b.left, o.box.left) > 1 && Math.min(b.bottom, o.box.bottom) - Math.max(b.top, o.box.top) > 1;
        if (overlap) found.push(`${el.getAttribute('data-entity') ?? el.textContent?.slice(0, 30)} under ${o.name}`);
      }
    }
    return found;
  });
}
