import { useState } from 'react';
import { TextField } from '../../../kit';
import { DurationField } from './duration-field';
import { DEFAULT_TIMEOUT, type NodeFormProps, withTimeout } from './node-config';

/** WAIT: how long, as an amount and a unit (stored as milliseconds). */
export function WaitForm({ config, onChange }: NodeFormProps) {
  return (
    <DurationField
      label="Wait for"
      ms={Number(config.duration ?? 86_400_000)}
      onChange={(duration) => onChange({ config: { ...config, duration } })}
      hint="Then the user moves on to the next node."
    />
  );
}

/** WAIT FOR EVENT: the event's name, and an optional time-out (which adds a `timeout` edge). */
export function WaitForEventForm({ config, onChange }: NodeFormProps) {
  const timeout = typeof config.timeout === 'number' ? config.timeout : undefined;
  const [lastTimeout, setLastTimeout] = useState(timeout ?? DEFAULT_TIMEOUT);
  return (
    <>
      <TextField
        label="Event name"
        placeholder="signed_up"
        value={String(config.eventName ?? '')}
        onChange={(e) => onChange({ config: { ...config, eventName: e.target.value } })}
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={timeout !== undefined}
          onChange={(e) => onChange({ config: withTimeout(config, e.target.checked, lastTimeout) })}
        />{' '}
        Give up after a while (adds a <code>timeout</code> edge)
      </label>
      {timeout !== undefined ? (
        <DurationField
          label="Time out after"
          ms={timeout}
          onChange={(ms) => {
            setLastTimeout(ms);
            onChange({ config: { ...config, timeout: ms } });
          }}
        />
      ) : null}
    </>
  );
}
