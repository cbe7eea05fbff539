import { useState } from 'react';
import { TextArea } from '../../../kit';
import { type Config, parseConfig } from './node-config';

/** The configuration as JSON behind a disclosure; edits apply once they parse to an object. */
export function AdvancedJson({ config, onChange }: { config: Config; onChange(c: Config): void }) {
  const current = JSON.stringify(config, null, 2);
  const [draft, setDraft] = useState<{ text: string; from: string }>({ text: current, from: current });
  const [error, setError] = useState<string>();
  // the form changed the config since the last edit here: show the new one
  const text = draft.from === current ? draft.text : current;
  return (
    <details className="advanced">
      <summary>Advanced (JSON)</summary>
      <TextArea
        label="Node configuration (JSON)"
        rows={8}
        className="mono"
        spellCheck={false}
        value={text}
        error={error}
        onChange={(e) => {
          const value = e.target.value;
          const parsed = parseConfig(value);
          if ('config' in parsed) {
            setError(undefined);
            setDraft({ text: value, from: JSON.stringify(parsed.config, null, 2) });
            onChange(parsed.config);
          } else {
            setError(parsed.error);
            setDraft({ text: value, from: current });
          }
        }}
      />
    </details>
  );
}
