interface PropertyRowProps {
  name: string;
  /** The value shown: the edit, else the file's, else the game's default; null when removed at save. */
  value: string | null;
  /** True when the file lacks the key and no edit set it: the game uses `value` as its default. */
  isDefault: boolean;
  /** Why Cairn manages the key (then it is locked), from the API's properties view. */
  lockedBecause: string | undefined;
  inFile: boolean;
  onEdit: (value: string | null) => void;
  onKeep: () => void;
}

/** One key of server.properties: editable, a game default not yet in the file, or locked by Cairn with why. */
export function PropertyRow({ name, value, isDefault, lockedBecause, inFile, onEdit, onKeep }: PropertyRowProps) {
  const note = lockedBecause ? `Locked: ${lockedBecause}` : isDefault ? 'Game default (not in the file)' : undefined;
  return (
    <tr className={isDefault ? 'default-property' : undefined}>
      <th scope="row" className="mono">{name}</th>
      <td>
        {value === null ? <span className="hint">removed at save</span> : lockedBecause ? (
          <span className="mono" aria-label={`Value of ${name}`}>{value}</span>
        ) : (
          <input aria-label={`Value of ${name}`} value={value} onChange={(e) => onEdit(e.target.value)} aria-description={note} />
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
