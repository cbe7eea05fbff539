import type { ReactNode } from 'react';
import { humanize, SelectField, TextArea, TextField } from '../../kit';
import {
  formQuestions,
  formQuestionsText,
  hasImageAndNext,
  STEP_TYPES,
  type StepType,
  TARGETED,
  text,
} from './flow-model';

type Fields = Record<string, unknown>;
type Update = (fn: (previous: Fields) => Fields) => void;

/** The fields a step of its type asks for: a target element, title, body, video, URL, wait, form questions, image, next label. */
export function StepFields({
  type,
  targetSelector,
  content,
  settings,
  onType,
  onTarget,
  onContent,
  onSettings,
  errorAt: err,
  targetExtra,
}: {
  type: StepType;
  targetSelector: string;
  content: Fields;
  settings: Fields;
  onType(type: StepType): void;
  onTarget(selector: string): void;
  onContent: Update;
  onSettings: Update;
  errorAt(path: string): string | undefined;
  /** Under the target field: its health and the element picker (issue 40). */
  targetExtra?: ReactNode;
}) {
  const set = (k: string) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    onContent((c) => ({ ...c, [k]: value }));
  };
  return (
    <>
      <SelectField
        label="Step type"
        value={type}
        onChange={(e) => onType(e.target.value as StepType)}
        options={STEP_TYPES.map((t) => ({ value: t, label: humanize(t) }))}
        error={err('type')}
      />
      {TARGETED.has(type) ? (
        <TextField
          label="Target element (CSS selector)"
          placeholder="#save-button"
          value={targetSelector}
          onChange={(e) => onTarget(e.target.value)}
          error={err('targetSelector')}
          hint={
            type === 'WAIT' ? 'Optional: wait until this element appears.' : 'The element the step points at.'
          }
        />
      ) : null}
      {TARGETED.has(type) ? targetExtra : null}
      <TextField
        label="Title"
        value={text(content, 'title')}
        onChange={set('title')}
        error={err('content.title')}
      />
      <TextArea
        label="Body"
        rows={3}
        value={text(content, 'body')}
        onChange={set('body')}
        error={err('content.body')}
      />
      {type === 'VIDEO' ? (
        <TextField
          label="Video URL"
          placeholder="https://www.youtube.com/watch?v=…"
          value={text(content, 'videoUrl')}
          onChange={set('videoUrl')}
          error={err('content.videoUrl')}
        />
      ) : null}
      {type === 'NAVIGATE' ? (
        <TextField
          label="Go to URL"
          placeholder="https://app.example.com/settings"
          value={text(content, 'url')}
          onChange={set('url')}
          error={err('content.url')}
        />
      ) : null}
      {type === 'WAIT' ? (
        <TextField
          label="Wait (milliseconds)"
          type="number"
          min={0}
          max={60000}
          value={String(settings.duration ?? '')}
          onChange={(e) => {
            const v = e.target.value;
            onSettings((x) => ({ ...x, duration: v === '' ? undefined : Number(v) }));
          }}
          error={err('settings.duration')}
        />
      ) : null}
      {type === 'FORM' ? (
        <TextArea
          label="Form questions (one per line)"
          rows={3}
          value={formQuestionsText(content)}
          onChange={(e) => {
            const lines = e.target.value;
            onContent((c) => ({ ...c, fields: formQuestions(lines) }));
          }}
        />
      ) : null}
      {hasImageAndNext(type) ? (
        <div className="row">
          <TextField
            label="Image URL"
            value={text(content, 'imageUrl')}
            onChange={set('imageUrl')}
            error={err('content.imageUrl')}
          />
          <TextField
            label="Next button label"
            placeholder="Next"
            value={text(content, 'nextLabel')}
            onChange={set('nextLabel')}
          />
        </div>
      ) : null}
    </>
  );
}
