import { ApiError } from '../app/api';

/** The message of an error that no field claims (an API error's unclaimed field messages listed). */
export function FormError({ error, claimed = [] }: { error: unknown; claimed?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    const rest = error.fields.filter((f) => !claimed.some((c) => f.path === c || f.path.startsWith(`${c}.`)));
    if (error.fields.length > 0 && rest.length === 0) return null;
    return (
      <div className="notice notice-error" role="alert">
        <strong>{error.message}</strong>
        {rest.length > 0 ? (
          <ul className="notice-list">
            {rest.map((f) => (
              <li key={f.path + f.message}>
                <code>{f.path}</code>: {f.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  return (
    <div className="notice notice-error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

/** The API's message for one field, if the error names it. */
export const fieldError = (error: unknown, path: string): string | undefined =>
  error instanceof ApiError ? error.field(path) : undefined;
