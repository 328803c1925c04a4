import { stateFields } from './state-words';

/** A short key to the server page's facts: what each one says, and its name in the API, CLI and docs. */
export function StateLegend() {
  return (
    <details className="state-legend">
      <summary>What these mean</summary>
      <ul>
        {Object.values(stateFields).map(({ term, field, means }) => (
          <li key={field}><strong>{term}</strong> <code>{field}</code>: {means}</li>
        ))}
      </ul>
      <p className="hint">Each value is shown as the API names it (READY, RUNNING, CONVERGED), with what it means beside it.</p>
    </details>
  );
}
