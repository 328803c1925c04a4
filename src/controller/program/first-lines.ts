/**
 * What `npm start` leaves on a person's terminal once the Controller is up: the address to open and,
 * on a first start, where the setup code is. Printed last and in words; a program reading stdout
 * through a pipe gets the contract's JSON `listening` line instead.
 */
export function readyLines(args: { webUrl: string; grpcAddress: string; setupCodeFile?: string }): string[] {
  return [
    '',
    'Cairn is running.',
    `  Web UI:      ${args.webUrl}`,
    ...(args.setupCodeFile ? [`  Setup code:  in ${args.setupCodeFile} (first start: open the web UI and enter it there)`] : []),
    `  Agents:      connect to ${args.grpcAddress}`,
    '  Stop it with Ctrl-C.',
    '',
  ];
}

/** Resolves once `ready()` holds or `deadlineMs` passes: the summary waits a moment for the local Agent's own lines. */
export async function settleBriefly(ready: () => boolean, deadlineMs: number, stepMs = 100): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!ready() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, stepMs));
}
