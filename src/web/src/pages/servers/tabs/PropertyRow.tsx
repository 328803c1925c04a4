import type { PropertiesView } from '../../../api/types';

type PropertyKind = PropertiesView['known'][string];

interface PropertyRowProps {
  name: string;
  /** The value shown: the edit, else the file's, else the game's default; null when removed at save. */
  value: string | null;
  /** True when the file lacks the key and no edit set it: the game uses `value` as its default. */
  isDefault: boolean;
  /** Why Cairn manages the key (then it is locked), from the API's properties view. */
  lockedBecause: string | undefined;
  /** What the API takes for the key, when it checks it: booleans and enums are chosen, not typed. */
  kind: PropertyKind | undefined;
  inFile: boolean;
  onEdit: (value: string | null) => void;
  onKeep: () => void;
}

/** One key of server.properties: editable, a game default not yet in the file, or locked by Cairn with why. */
export function PropertyRow({ name, value, isDefault, lockedBecause, kind, inFile, onEdit, onKeep }: PropertyRowProps) {
  const note = lockedBecause ? `Locked: ${lockedBecause}` : isDefault ? 'Game default (not in the file)' : undefined;
  return (
    <tr className={isDefault ? 'default-property' : undefined}>
      <th scope="row" className="mono">{name}</th>
      <td>
        {value === null ? <span className="hint">removed at save</span> : lockedBecause ? (
          <span className="mono" aria-label={`Value of ${name}`}>{value}</span>
        ) : (
          <ValueControl name={name} value={value} kind={kind} note={note} onEdit={onEdit} />
        )}
        {note ? <span className="hint property-note"> {lockedBecause ? <span aria-hidden="true">🔒 </span> : null}{note}</span> : null}
      </td>
      <td>
        {lockedBecause || !inFile ? null
          : value === null ? <button type="button" onClick={onKeep}>Keep</button>
            : <button type="button" onClick={() => onEdit(null)} aria-label={`Remove ${name}`}>Remove</button>}
      </td>
    </tr>
  );
}

const choicesOf = (kind: PropertyKind | undefined): string[] | undefined =>
  kind?.type === 'boolean' ? ['true', 'false'] : kind?.type === 'enum' ? kind.values : undefined;

/** A select for a key with few values; else a text field (numeric on a phone for a number). */
function ValueControl({ name, value, kind, note, onEdit }: { name: string; value: string; kind: PropertyKind | undefined; note: string | undefined; onEdit: (value: string) => void }) {
  const label = `Value of ${name}`;
  const choices = choicesOf(kind);
  if (!choices) {
    const range = kind?.type === 'integer' ? `A whole number from ${kind.minimum} to ${kind.maximum}.` : undefined;
    return <input aria-label={label} value={value} onChange={(e) => onEdit(e.target.value)} aria-description={[range, note].filter(Boolean).join(' ') || undefined} inputMode={range ? 'numeric' : undefined} />;
  }
  // A value the list lacks (`difficulty=2` from an old file, or a typo) stays shown until another is chosen.
  const options = choices.includes(value) ? choices : [value, ...choices];
  return (
    <select aria-label={label} value={value} onChange={(e) => onEdit(e.target.value)} aria-description={note}>
      {options.map((c) => <option key={c} value={c}>{c === '' ? '(empty)' : c}</option>)}
    </select>
  );
}
