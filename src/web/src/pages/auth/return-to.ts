/** Navigation state naming the page to go back to after changing the password, or on Cancel. */
interface ReturnTo {
  returnTo: string;
}

export const returnTo = (path: string): ReturnTo => ({ returnTo: path });

/** The page that sent the person here, or the servers page (the header's link and a pasted address). */
export function returnPath(state: unknown): string {
  const path = (state as Partial<ReturnTo> | null)?.returnTo;
  // Only a path of this app: state comes from history, which any page of the origin can write.
  return typeof path === 'string' && path.startsWith('/') && !path.startsWith('//') ? path : '/servers';
}
