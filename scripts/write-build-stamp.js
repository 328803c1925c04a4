import { fileURLToPath } from 'node:url';
import { inputFingerprint, writeStamp } from './build-freshness.js';

// The last step of `npm run build`: marks dist/ as made from the inputs as they are now.
const root = fileURLToPath(new URL('..', import.meta.url));
await writeStamp(root, await inputFingerprint(root));
