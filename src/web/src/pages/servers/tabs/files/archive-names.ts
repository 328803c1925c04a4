/** The archives the extract API reads, by name: .zip, .tar, .tar.gz or .tgz, .tar.zst or .tzst. */
export const isArchive = (name: string) => /\.(zip|tar|tar\.gz|tgz|tar\.zst|tzst)$/i.test(name);

/** The archive Compress writes for a folder or file: `world` → `world.zip` beside it. */
export const zipNameFor = (path: string) => `${path}.zip`;
