import { SelectField, TextField } from '../../../kit';
import {
  MATCH_TYPES,
  type NodeFormProps,
  patchTriggerConfig,
  setTriggerType,
  TRIGGER_TYPES,
  triggerConfigOf,
  triggerTypeOf,
} from './node-config';

/** TRIGGER: the trigger type, then its URL match, event name or element; a manual trigger has nothing to set. */
export function TriggerForm({ config, onChange }: NodeFormProps) {
  const type = triggerTypeOf(config);
  const tc = triggerConfigOf(config);
  const setTc = (patch: Record<string, unknown>) => onChange({ config: patchTriggerConfig(config, patch) });
  return (
    <>
      <SelectField
        label="Trigger type"
        value={type}
        options={TRIGGER_TYPES}
        onChange={(e) => onChange({ config: setTriggerType(e.target.value) })}
      />
      {type === 'URL_MATCH' ? (
        <>
          <SelectField
            label="Match type"
            value={String(tc.matchType ?? 'contains')}
            options={MATCH_TYPES}
            onChange={(e) => setTc({ matchType: e.target.value })}
          />
          <TextField
            label="URL pattern"
            placeholder="/onboarding"
            value={String(tc.pattern ?? '')}
            onChange={(e) => setTc({ pattern: e.target.value })}
          />
        </>
      ) : null}
      {type === 'CUSTOM_EVENT' ? (
        <TextField
          label="Event name"
          placeholder="signed_up"
          value={String(tc.eventName ?? '')}
          onChange={(e) => setTc({ eventName: e.target.value })}
        />
      ) : null}
      {type === 'ELEMENT_CLICK' ? (
        <TextField
          label="Element (CSS selector)"
          placeholder="#upgrade-button"
          value={String(tc.selector ?? '')}
          onChange={(e) => setTc({ selector: e.target.value })}
        />
      ) : null}
      {type === 'MANUAL' ? (
        <p className="hint">Users enter this journey when they are enrolled through the API.</p>
      ) : null}
    </>
  );
}
