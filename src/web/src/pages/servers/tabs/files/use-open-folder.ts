import { useSearchParams } from 'react-router';

/**
 * The folder the Files tab shows, kept in the address (`?path=plugins/foo`) so reload, Back and a
 * pasted link open it again. Opening one adds a history entry; the root has no `path`.
 */
export function useOpenFolder(): [dir: string, open: (dir: string) => void] {
  const [params, setParams] = useSearchParams();
  const dir = params.get('path') || '.';
  const open = (next: string) => setParams(next === '.' ? {} : { path: next });
  return [dir, open];
}
