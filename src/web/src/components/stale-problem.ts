import { useCallback, useEffect, useState, type RefObject } from 'react';

/**
 * A refusal is about the values that were sent: once the person changes them, the message is
 * stale and would blame what they just fixed. These hooks answer the error until then, and
 * undefined after; the next refusal is a new error object and shows again.
 */
export function useProblemUntilEdited(error: unknown): [shown: unknown, edited: () => void] {
  const [editedAfter, setEditedAfter] = useState<unknown>();
  const edited = useCallback(() => setEditedAfter(error), [error]);
  return [error === editedAfter ? undefined : error, edited];
}

/**
 * The same for an alert about a whole form: any input or change in the form around `ref` makes it
 * stale. Listening on the form itself covers every control, whatever component draws it.
 */
export function useProblemUntilFormEdited(error: unknown, ref: RefObject<HTMLElement | null>): unknown {
  const [shown, edited] = useProblemUntilEdited(error);
  const visible = shown != null;
  useEffect(() => {
    const form = ref.current?.closest('form');
    if (!form || !visible) return;
    form.addEventListener('input', edited);
    form.addEventListener('change', edited);
    return () => {
      form.removeEventListener('input', edited);
      form.removeEventListener('change', edited);
    };
  }, [edited, ref, visible]);
  return shown;
}
