import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ShownOnceProps {
  title: string;
  /** The CopyFields and anything else about the secret. */
  children: ReactNode;
  onDone: () => void;
}

/**
 * A secret the API answers once (a token, a reset link): shown in a panel that says so and
 * takes focus when it appears; `Done` forgets it for good.
 */
export function ShownOnce({ title, children, onDone }: ShownOnceProps) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="shown-once" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>{title}</h2>
      <p className="shown-once-note"><strong>Shown only now.</strong> Copy it now: Cairn cannot show it again.</p>
      {children}
      <div className="actions">
        <button type="button" onClick={onDone}>Done</button>
      </div>
    </section>
  );
}
