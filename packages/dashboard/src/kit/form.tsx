import type { FormHTMLAttributes, ReactNode } from 'react';
import { Button } from './button';
import { Modal } from './dialog';
import { FormError } from './form-error';
import { Notice } from './page';

/**
 * A form that stays on the page: the browser's own validation is off (the API validates, and its
 * messages go next to the fields), submitting calls `onSubmit`.
 */
export function Form({
  onSubmit,
  children,
  ...rest
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit(): void }) {
  return (
    <form
      noValidate
      {...rest}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A dialog with a form: its fields, the error no field claims, Cancel and the submit button. */
export function FormDialog({
  open,
  title,
  onClose,
  onSubmit,
  submitLabel,
  busy,
  error,
  claimed,
  children,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  onSubmit(): void;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  claimed: string[];
  children: ReactNode;
}) {
  return (
    <Modal open={open} title={title} onClose={onClose}>
      <Form className="modal-body" onSubmit={onSubmit}>
        {children}
        <FormError error={error} claimed={claimed} />
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>
            {submitLabel}
          </Button>
        </div>
      </Form>
    </Modal>
  );
}

/**
 * The foot of a form: the error no field claims, the line that says it was saved, and the
 * buttons (`form-actions`; none when `children` is empty, as for a viewer).
 */
export function FormFoot({
  error,
  claimed,
  done,
  children,
}: {
  error: unknown;
  claimed?: string[];
  /** Shown as a success notice when set (`save.isSuccess && 'Saved.'`). */
  done?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <>
      <FormError error={error} claimed={claimed} />
      {done ? <Notice kind="success">{done}</Notice> : null}
      {children ? <div className="form-actions">{children}</div> : null}
    </>
  );
}
