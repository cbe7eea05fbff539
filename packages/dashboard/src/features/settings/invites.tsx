import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must, type Role } from '../../app/api';
import { Button, Form, FormError, FormFoot, fieldError, SelectField, TextField } from '../../kit';
import { ROLES } from './roles';

/** Invite by email: an address and a role; the invite is emailed and the member shows as pending. */
export function InviteByEmail({ onSent }: { onSent(): void }) {
  const [invite, setInvite] = useState({ email: '', role: 'EDITOR' as Role });
  const send = useMutation({
    mutationFn: () => must(api.POST('/api/tenants/members', { body: invite })),
    onSuccess: () => {
      setInvite({ email: '', role: invite.role });
      onSent();
    },
  });
  return (
    <Form className="card pad" aria-label="Invite by email" onSubmit={() => send.mutate()}>
      <h2>Invite by email</h2>
      <div className="row">
        <TextField
          label="Email"
          type="email"
          value={invite.email}
          onChange={(e) => setInvite({ ...invite, email: e.target.value })}
          error={fieldError(send.error, 'email')}
        />
        <SelectField
          label="Role"
          value={invite.role}
          onChange={(e) => setInvite({ ...invite, role: e.target.value as Role })}
          options={ROLES}
          error={fieldError(send.error, 'role')}
        />
      </div>
      <FormFoot error={send.error} claimed={['email', 'role']} done={send.isSuccess && 'Invite sent.'}>
        <Button type="submit" variant="primary" busy={send.isPending}>
          Send invite
        </Button>
      </FormFoot>
    </Form>
  );
}

/** A shareable invite link for a role (anyone with it joins with that role). */
export function InviteLink() {
  const [role, setRole] = useState<Role>('VIEWER');
  const link = useMutation({
    mutationFn: () => must(api.POST('/api/tenants/invites/link', { body: { role } })),
  });
  return (
    <Form className="card pad" aria-label="Create an invite link" onSubmit={() => link.mutate()}>
      <h2>Shareable invite link</h2>
      <SelectField
        label="Role for the link"
        value={role}
        onChange={(e) => setRole(e.target.value as Role)}
        options={ROLES}
      />
      <FormError error={link.error} />
      {link.data ? (
        <div className="key-box">
          <input
            readOnly
            aria-label="Invite link"
            value={link.data.data.link}
            onFocus={(e) => e.target.select()}
          />
          <Button onClick={() => navigator.clipboard?.writeText(link.data.data.link)}>Copy</Button>
        </div>
      ) : null}
      <div className="form-actions">
        <Button type="submit" busy={link.isPending}>
          Create link
        </Button>
      </div>
    </Form>
  );
}
