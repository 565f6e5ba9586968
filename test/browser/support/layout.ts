import type { Page } from 'playwright-core';

/**
 * What does not fit on the page as it is drawn, one line each (none: it all fits). A control
 * (button, input, select, textarea, link) must lie within the viewport's width, within its
 * nearest block container and within whatever clips or scrolls it; a button or link must show
 * all its text; nothing may scroll sideways, so no column is hidden off to the right.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const SLACK = 1; // sub-pixel rounding
    const problems: string[] = [];
    const width = document.documentElement.clientWidth;
    const measure = document.createElement('canvas').getContext('2d')!;
    const describe = (element: Element) => {
      const text = (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40);
      return `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}> "${text}"`;
    };
    const outside = (inner: DOMRect, outer: DOMRect) =>
      inner.left < outer.left - SLACK || inner.right > outer.right + SLACK || inner.top < outer.top - SLACK || inner.bottom > outer.bottom + SLACK;
    const clips = (element: Element) => getComputedStyle(element).overflowX !== 'visible';

    if (document.documentElement.scrollWidth > width) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    for (const element of document.querySelectorAll('body *')) {
      const hidden = element.clientWidth <= 1 || element.clientHeight <= 1; // out of sight on purpose (a table's header on a phone)
      const field = element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement; // its text scrolls in it
      if (clips(element) && !hidden && !field && element.scrollWidth > element.clientWidth + SLACK) {
        problems.push(`${describe(element)} scrolls sideways: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    // The skip link waits off screen until it is focused.
    for (const control of document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]:not(.skip)')) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not drawn
      const name = describe(control);
      if (box.left < -SLACK || box.right > width + SLACK) problems.push(`${name} leaves the screen: ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
      let block = control.parentElement;
      while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
      if (block && outside(box, block.getBoundingClientRect())) problems.push(`${name} sticks out of its container ${describe(block).split(' ')[0]}`);
      for (let clip = control.parentElement; clip; clip = clip.parentElement) {
        if (!clips(clip)) continue;
        if (outside(box, clip.getBoundingClientRect())) problems.push(`${name} is cut by ${describe(clip).split(' ')[0]}`);
        break;
      }
      if ((control instanceof HTMLButtonElement || control instanceof HTMLAnchorElement) && control.scrollWidth > control.clientWidth + SLACK && control.clientWidth > 0) {
        problems.push(`${name} cuts its text: ${control.scrollWidth} > ${control.clientWidth}`);
      }
      if (control instanceof HTMLSelectElement) {
        // A select's scrollWidth does not count its chosen option's text: measured in its font,
        // beside the room its padding and arrow (about 1.5em) leave.
        const style = getComputedStyle(control);
        measure.font = style.font;
        const text = measure.measureText(control.selectedOptions[0]?.text ?? '').width;
        const room = control.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 1.5 * parseFloat(style.fontSize);
        if (text > room) problems.push(`${name} cuts its chosen option: ${Math.round(text)} > ${Math.round(room)}`);
      }
    }
    return problems;
  });
}
