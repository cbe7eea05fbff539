import { Fragment, type ReactNode } from 'react';
import { SelectField, TextArea, TextField } from '../../kit';
import { AudiencePicker } from '../audiences';
import { type ContentRecord, readField, writeField } from './content-record';
import { type ContentType, JSON_FIELDS, ROWS, SIMPLE, TRIGGERS } from './content-types';
import { QuestionsEditor } from './questions-editor';
import { TaskItemsEditor } from './task-items-editor';

type Rows = Record<string, unknown>[];

/** The fields of one content type: name, its plain fields, audience, row editors, JSON fields, trigger. */
export function ContentFields({
  type,
  record,
  onRecord,
  json,
  onJson,
  trigger,
  onTrigger,
  errorAt: err,
  targetExtra,
}: {
  type: ContentType;
  record: ContentRecord;
  onRecord(record: ContentRecord): void;
  json: Record<string, string>;
  onJson(json: Record<string, string>): void;
  trigger: string;
  onTrigger(text: string): void;
  errorAt(path: string): string | undefined;
  /** Under the target selector of a tooltip or beacon: its health and the element picker (issue 40). */
  targetExtra?: ReactNode;
}) {
  return (
    <>
      <TextField
        label="Name"
        value={String(record.name ?? '')}
        onChange={(e) => onRecord({ ...record, name: e.target.value })}
        error={err('name')}
      />
      {SIMPLE[type].map((f) => {
        const props = {
          label: f.label,
          value: readField(record, f),
          error: err(f.path ? f.path.join('.') : f.key),
          onChange: (e: { target: { value: string } }) => onRecord(writeField(record, f, e.target.value)),
        };
        if (f.options) return <SelectField key={f.key} options={f.options} {...props} />;
        if (f.key === 'body' || f.key === 'description') return <TextArea key={f.key} rows={3} {...props} />;
        if (f.key === 'targetSelector') {
          return (
            <Fragment key={f.key}>
              <TextField {...props} />
              {targetExtra}
            </Fragment>
          );
        }
        return <TextField key={f.key} {...props} />;
      })}
      <AudiencePicker
        value={String(record.audienceId ?? '')}
        onChange={(v) => onRecord({ ...record, audienceId: v || null })}
        error={err('audienceId')}
      />
      {ROWS[type] === 'questions' ? (
        <QuestionsEditor
          value={(record.questions as Rows | undefined) ?? []}
          onChange={(questions) => onRecord({ ...record, questions })}
          errorAt={err}
        />
      ) : null}
      {ROWS[type] === 'items' ? (
        <TaskItemsEditor
          value={(record.items as Rows | undefined) ?? []}
          onChange={(items) => onRecord({ ...record, items })}
          errorAt={err}
        />
      ) : null}
      {JSON_FIELDS[type].map((k) => (
        <TextArea
          key={k}
          label={`${k.charAt(0).toUpperCase()}${k.slice(1)} (JSON)`}
          rows={10}
          spellCheck={false}
          className="mono"
          value={json[k] ?? ''}
          onChange={(e) => onJson({ ...json, [k]: e.target.value })}
          error={err(k)}
        />
      ))}
      {TRIGGERS[type] ? (
        <TextArea
          label="Trigger (JSON, empty for none)"
          rows={3}
          spellCheck={false}
          placeholder='{ "type": "url_match", "pattern": "/pricing" }'
          value={trigger}
          onChange={(e) => onTrigger(e.target.value)}
          error={err('triggerConfig')}
          hint="type: url_match (pattern), time_on_page (delay ms), scroll_depth (percentage), exit_intent, side_button, manual."
        />
      ) : null}
    </>
  );
}
