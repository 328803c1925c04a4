import { useLayoutEffect, useState, type RefObject } from 'react';

const rem = () => parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;

/**
 * A height for `box` that ends where the first screen does, leaving room for `below` (the command
 * form) under it, between `minRem` and `maxRem`: the console and its command field are seen together
 * without scrolling, and nothing has to be drawn over the console to keep the field in view. Measured
 * again when the window resizes and whenever the page above re-renders (a condition or a crash shown).
 */
export function useFirstScreenHeight(box: RefObject<HTMLElement | null>, below: RefObject<HTMLElement | null>, minRem = 12, maxRem = 32): number | undefined {
  const [height, setHeight] = useState<number>();
  const [viewport, setViewport] = useState(() => window.innerHeight);
  useLayoutEffect(() => {
    const onResize = () => setViewport(window.innerHeight);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  useLayoutEffect(() => {
    if (!box.current || !below.current) return;
    const top = box.current.getBoundingClientRect().top + window.scrollY;
    const under = below.current.getBoundingClientRect().bottom - box.current.getBoundingClientRect().bottom;
    const fits = Math.floor(viewport - top - under - 8);
    const next = Math.max(minRem * rem(), Math.min(maxRem * rem(), fits));
    if (next !== height) setHeight(next);
  });
  return height;
}
