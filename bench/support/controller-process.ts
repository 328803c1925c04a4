import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The options the deployed Controller's node runs with: those before the program in
 * deploy/cairn-controller.service's ExecStart, so a bench measures the Controller as it is deployed.
 */
export function deployedNodeOptions(): string[] {
  const unit = readFileSync(new URL('../../deploy/cairn-controller.service', import.meta.url), 'utf8');
  const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '';
  const args = execStart.trim().split(/\s+/).slice(1);
  return args.slice(0, Math.max(0, args.findIndex((arg) => !arg.startsWith('--'))));
}

/**
 * The built Controller in its own process (so its CPU and memory are its own), on free ports (SFTP too: 2022 may be taken) and the embedded
 * store, or the MongoDB database `mongodbUri` names. Node runs with the deployed options (`deployedNodeOptions`) and `nodeArgs` (e.g. `--cpu-prof`).
 */
export async function startControllerProcess(dataDir: string, nodeArgs: string[] = [], mongodbUri = ''): Promise<{ child: ChildProcess; httpPort: number; grpcPort: number }> {
  const child = spawn(process.execPath, [...deployedNodeOptions(), ...nodeArgs, 'dist/src/controller/main.js', '--data-dir', dataDir, '--http-port', '0', '--grpc-port', '0', '--sftp-port', '0'], {
    env: { ...process.env, MONGODB_URI: mongodbUri, CAIRN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The ports are the first JSON line; what node itself prints (`--trace-gc` among `nodeArgs`) is shown, not dropped.
  const ports = new Promise<string>((resolve) => {
    let found = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!found && line.startsWith('{')) {
        found = true;
        resolve(line);
      } else process.stderr.write(`controller stdout: ${line}\n`);
    });
  });
  const exited = once(child, 'exit').then(([code]) => Promise.reject(new Error(`the Controller exited (${String(code)}) before listening`)));
  const line = await Promise.race([ports, exited]);
  const { httpPort, grpcPort } = JSON.parse(line) as { httpPort: number; grpcPort: number };
  return { child, httpPort, grpcPort };
}
