import { moveItem, SelectField, TextField } from '../../kit';
import { useFlowOptions } from '../flows';
import { RowHead } from './row-head';
import { MAX_ROWS, newTask, type Row, removeRow, TASK_ACTIONS, updateRow } from './rows';

type ErrorAt = (path: string) => string | undefined;

/** A task list's items: title, action, and the action's URL or flow (picked by name). */
export function TaskItemsEditor({
  value,
  onChange,
  errorAt,
}: {
  value: Row[];
  onChange(next: Row[]): void;
  errorAt: ErrorAt;
}) {
  const flows = useFlowOptions();
  return (
    <fieldset className="list-editor">
      <legend className="field-legend">Tasks</legend>
      {value.map((item, i) => {
        const n = i + 1;
        const action = String(item.actionType ?? 'NAVIGATE');
        const config = (item.actionConfig ?? {}) as Row;
        const at = (p: string) => errorAt(`items.${i}.${p}`);
        const set = (patch: Row) => onChange(updateRow(value, i, patch));
        const flowId = String(config.flowId ?? '');
        const flowOptions = [
          { value: '', label: 'Choose a flow' },
          ...(flows.data?.data ?? []).map((f) => ({ value: f.id, label: f.name })),
        ];
        if (flowId && !flowOptions.some((o) => o.value === flowId))
          flowOptions.push({ value: flowId, label: 'Selected flow' });
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          <fieldset className="list-row" key={i} aria-label={`Task ${n}`}>
            <RowHead
              noun="task"
              n={n}
              count={value.length}
              title={`Task ${n}`}
              onMove={(to) => onChange(moveItem(value, i, to) ?? value)}
              onRemove={() => onChange(removeRow(value, i))}
            />
            <TextField
              label={`Task ${n} title`}
              value={String(item.title ?? '')}
              onChange={(e) => set({ title: e.target.value })}
              error={at('title')}
            />
            <SelectField
              label={`Task ${n} action`}
              value={action}
              options={TASK_ACTIONS}
              onChange={(e) => set({ actionType: e.target.value, actionConfig: {} })}
              error={at('actionType')}
            />
            {action === 'NAVIGATE' || action === 'EXTERNAL_LINK' ? (
              <TextField
                label={`Task ${n} URL`}
                placeholder={action === 'NAVIGATE' ? '/settings/profile' : 'https://docs.example.com'}
                value={String(config.url ?? '')}
                onChange={(e) => set({ actionConfig: { ...config, url: e.target.value } })}
                error={at('actionConfig')}
              />
            ) : null}
            {action === 'COMPLETE_FLOW' ? (
              <SelectField
                label={`Task ${n} flow`}
                value={flowId}
                options={flowOptions}
                onChange={(e) => set({ actionConfig: { ...config, flowId: e.target.value } })}
                error={at('actionConfig')}
              />
            ) : null}
          </fieldset>
        );
      })}
      <div>
        <button
          type="button"
          className="btn btn-secondary"
          disabled={value.length >= MAX_ROWS}
          onClick={() => onChange([...value, newTask()])}
        >
          Add task
        </button>
      </div>
    </fieldset>
  );
}
