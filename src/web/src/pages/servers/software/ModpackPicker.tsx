import { useId, useState } from 'react';
import { useModpackSearch } from '../../../api/reference-data';
import type { ModpackSearchItem } from '../../../api/types';
import { TextField } from '../../../components/Field';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useDebounced } from '../../../components/use-debounced';
import { downloadsText } from './loaders';

/** How long the search waits for the typing to pause before asking Modrinth (through the Controller). */
const searchPauseMs = 300;

/** `1.21.4` or `1.20.1 … 1.21.4 (6 versions)`: Modrinth lists a pack's game versions oldest first. */
function gameVersionsText(versions: readonly string[]): string {
  if (versions.length <= 3) return versions.join(', ');
  return `${versions[0]} … ${versions[versions.length - 1]} (${versions.length} versions)`;
}

const aboutPack = (p: ModpackSearchItem) =>
  [`${downloadsText(p.downloads)} downloads`, p.gameVersions.length ? `Minecraft ${gameVersionsText(p.gameVersions)}` : '', p.loaders.join(', ')].filter(Boolean).join(' · ');

/**
 * The New server form's modpack choice: a search of Modrinth's modpacks as the person types, and
 * the packs found as radio buttons (title; downloads, game versions and loaders under it).
 */
export function ModpackPicker({ chosen, onChoose, localError }: { chosen: string; onChoose: (slug: string) => void; localError?: string }) {
  const id = useId();
  const [text, setText] = useState('');
  const query = useDebounced(text.trim(), searchPauseMs);
  const packs = useModpackSearch(query, true);
  const items = packs.data?.items ?? [];
  return (
    <>
      <TextField label="Search modpacks" type="search" value={text} onChange={(e) => setText(e.target.value)}
        hint="Modpacks from Modrinth. CurseForge packs are not offered: they need an API key and some authors forbid third-party downloads." />
      <ProblemAlert error={packs.error} />
      <fieldset className="modpacks" aria-busy={packs.isFetching} aria-describedby={localError ? `${id}-error` : undefined}>
        <legend>Modpack</legend>
        {packs.isSuccess && items.length === 0 ? <p className="hint">No modpack matches “{query}”.</p> : null}
        {items.map((p) => (
          <div className="check-field" key={p.slug}>
            <input id={`${id}-${p.slug}`} type="radio" name="modpack" value={p.slug} checked={chosen === p.slug} onChange={() => onChoose(p.slug)} aria-describedby={`${id}-${p.slug}-about`} />
            <label htmlFor={`${id}-${p.slug}`}>{p.title}</label>
            <div id={`${id}-${p.slug}-about`} className="hint">{aboutPack(p)}</div>
          </div>
        ))}
        {localError ? <div id={`${id}-error`} role="alert" className="field-error">{localError}</div> : null}
      </fieldset>
    </>
  );
}
