import { useId, useRef, useState } from 'react';

/**
 * A read-only, labelled value (a secret, a link, a command line) with a Copy button. Where the
 * clipboard is refused (an insecure origin), the text is selected for copying by hand.
 */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      ref.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <textarea
          id={id} ref={ref} readOnly value={value} spellCheck={false} autoComplete="off"
          rows={Math.min(4, Math.ceil(value.length / 60))} className="mono" onFocus={(e) => e.target.select()}
        />
        <button type="button" onClick={() => void copy()}>Copy<span className="visually-hidden"> {label.toLowerCase()}</span></button>
      </div>
      <div role="status" className="hint">{copied}</div>
    </div>
  );
}
