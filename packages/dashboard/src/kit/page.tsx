import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** A page of the signed-in app: its heading, a line under it, actions on the right, its body. */
export function Page({
  title,
  description,
  actions,
  children,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="page">
      <header className="page-header">
        <div>
          <h1>{title}</h1>
          {description ? <p className="muted">{description}</p> : null}
        </div>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success' | 'error' | 'warning';
  children: ReactNode;
}) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** What a list shows when it has nothing: a title, a line, and the action that fills it. */
export function Empty({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty">
      <div className="empty-art" aria-hidden="true">
        ◇
      </div>
      <h2>{title}</h2>
      {children ? <p className="muted">{children}</p> : null}
      {action}
    </div>
  );
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}…
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status.toLowerCase()}`}>{status.toLowerCase().replace(/_/g, ' ')}</span>
  );
}

/** A page title with a breadcrumb back to its list: `Flows / Onboarding <status>`. */
export function Crumb({ to, list, children }: { to: string; list: string; children: ReactNode }) {
  return (
    <>
      <Link to={to} className="crumb">
        {list}
      </Link>{' '}
      / {children}
    </>
  );
}

/** A row of figures, each a card with its value over its label. */
export function Stats({ items }: { items: readonly { label: string; value: ReactNode }[] }) {
  return (
    <div className="stats">
      {items.map((s) => (
        <div className="card stat" key={s.label}>
          <div className="value">{s.value}</div>
          <div className="label">{s.label}</div>
        </div>
      ))}
    </div>
  );
}
