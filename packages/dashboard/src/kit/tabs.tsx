/** A row of tabs (`role="tablist"`): arrow keys move between them, as the ARIA pattern has it. */
export function Tabs<T extends string>({
  tabs,
  value,
  onChange,
  label,
}: {
  tabs: readonly { value: T; label: string }[];
  value: T;
  onChange(value: T): void;
  label: string;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((t) => (
        <button
          key={t.value}
          type="button"
          role="tab"
          aria-selected={t.value === value}
          tabIndex={t.value === value ? 0 : -1}
          className="tab"
          onClick={() => onChange(t.value)}
          onKeyDown={(e) => {
            const i = tabs.findIndex((x) => x.value === value);
            const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : undefined;
            if (next === undefined) return;
            const tab = tabs[(next + tabs.length) % tabs.length]!;
            onChange(tab.value);
            (
              e.currentTarget.parentElement?.children[(next + tabs.length) % tabs.length] as HTMLElement
            )?.focus();
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
