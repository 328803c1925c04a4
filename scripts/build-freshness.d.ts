export interface BuildStamp {
  fingerprint: string;
  builtAt: string;
}

export type Freshness = 'missing' | 'stale' | 'fresh';

export const buildInputs: string[];
export const buildOutputs: string[];
export const stampFile: string;
export function inputFingerprint(root: string, inputs?: string[]): Promise<string>;
export function readStamp(root: string): Promise<BuildStamp | undefined>;
export function writeStamp(root: string, fingerprint: string): Promise<void>;
export function removeStamp(root: string): Promise<void>;
export function outputsPresent(root: string): boolean;
export function freshness(state: { outputsPresent: boolean; stamp: BuildStamp | undefined; fingerprint: string }): Freshness;
