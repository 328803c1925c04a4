import { useRef, useState } from 'react';

/**
 * A short value shown inline (an address, a command line) with a Copy button named `Copy <label>`
 * and a "Copied." confirmation beside it; where the clipboard is refused (an insecure origin) the
 * text is selected to copy by hand.
 */
export function CopyValue({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<string>();
  const text = useRef<HTMLElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      if (text.current) window.getSelection()?.selectAllChildren(text.current);
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <span className="copy-value">
      <code ref={text}>{value}</code>{' '}
      <button type="button" aria-label={`Copy ${label}`} onClick={() => void copy()}>Copy</button>
      <span role="status" className="hint">{copied}</span>
    </span>
  );
}
