import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, must, PAGE_SIZE, type Role } from '../../app/api';
import { useCan, useSession } from '../../app/session';
import {
  Button,
  Checkbox,
  Empty,
  FormError,
  fieldError,
  formatDate,
  Loading,
  Modal,
  Notice,
  Page,
  Pagination,
  SelectField,
  StatusBadge,
  Tabs,
  TextField,
} from '../../kit/ui';

const TABS = [
  { value: 'team', label: 'Team' },
  { value: 'api-keys', label: 'API keys' },
  { value: 'audit-log', label: 'Audit log' },
  { value: 'plan', label: 'Plan & usage' },
  { value: 'ai', label: 'AI provider' },
] as const;
type Tab = (typeof TABS)[number]['value'];
const ROLES: readonly Role[] = ['VIEWER', 'EDITOR', 'ADMIN', 'OWNER'];

/** Settings: team and invites, API keys (shown once, with the snippet), audit log, plan and usage, AI provider. */
export default function Settings() {
  const { tab = 'team' } = useParams();
  const navigate = useNavigate();
  return (
    <Page title="Settings">
      <Tabs<Tab>
        label="Settings sections"
        tabs={TABS}
        value={tab as Tab}
        onChange={(v) => navigate(`/settings/${v}`)}
      />
      {tab === 'api-keys' ? (
        <ApiKeys />
      ) : tab === 'audit-log' ? (
        <AuditLog />
      ) : tab === 'plan' ? (
        <Plan />
      ) : tab === 'ai' ? (
        <AiProvider />
      ) : (
        <Team />
      )}
    </Page>
  );
}

function Team() {
  const client = useQueryClient();
  const me = useSession();
  const canAdmin = useCan('ADMIN');
  const isOwner = me.role === 'OWNER';
  const [page, setPage] = useState(1);
  const [invite, setInvite] = useState({ email: '', role: 'EDITOR' as Role });
  const [linkRole, setLinkRole] = useState<Role>('VIEWER');
  const members = useQuery({
    queryKey: ['members', page],
    queryFn: () =>
      must(
        api.GET('/api/tenants/members', {
          params: { query: { page: String(page), limit: String(PAGE_SIZE) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['members'] });
  const send = useMutation({
    mutationFn: () => must(api.POST('/api/tenants/members', { body: invite })),
    onSuccess: () => {
      setInvite({ email: '', role: invite.role });
      refresh();
    },
  });
  const link = useMutation({
    mutationFn: () => must(api.POST('/api/tenants/invites/link', { body: { role: linkRole } })),
  });
  const changeRole = useMutation({
    mutationFn: (v: { id: string; role: Role }) =>
      must(
        api.PATCH('/api/tenants/members/{id}', { params: { path: { id: v.id } }, body: { role: v.role } }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tenants/members/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      must(api.POST('/api/tenants/members/{id}/resend-invite', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  return (
    <div style={{ display: 'grid', gap: 18 }}>
      <div className="card">
        <div className="card-header">
          <h2>Members</h2>
        </div>
        <FormError error={changeRole.error ?? remove.error ?? resend.error} />
        {members.isPending ? (
          <Loading />
        ) : members.isError ? (
          <FormError error={members.error} />
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.data.map((m) => (
                <tr key={m.id}>
                  <td>
                    {m.email}
                    {m.userId === me.user.id ? <span className="muted small"> (you)</span> : null}
                  </td>
                  <td>
                    {isOwner && m.userId !== me.user.id ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => changeRole.mutate({ id: m.id, role: e.target.value as Role })}
                        style={{ width: 130 }}
                      >
                        {ROLES.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{m.isPending ? <StatusBadge status="PENDING" /> : <StatusBadge status="ACTIVE" />}</td>
                  <td style={{ textAlign: 'right' }}>
                    {canAdmin && m.isPending ? (
                      <Button variant="ghost" onClick={() => resend.mutate(m.id)}>
                        Resend invite
                      </Button>
                    ) : null}
                    {canAdmin && m.userId !== me.user.id ? (
                      <Button
                        variant="ghost"
                        onClick={() => remove.mutate(m.id)}
                        aria-label={`Remove ${m.email}`}
                      >
                        Remove
                      </Button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pagination meta={members.data?.meta} onPage={setPage} label="Member pages" />
      </div>
      {canAdmin ? (
        <div className="grid-2">
          <form
            className="card pad"
            aria-label="Invite by email"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              send.mutate();
            }}
          >
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
            <FormError error={send.error} claimed={['email', 'role']} />
            {send.isSuccess ? <Notice kind="success">Invite sent.</Notice> : null}
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={send.isPending}>
                Send invite
              </Button>
            </div>
          </form>
          <form
            className="card pad"
            aria-label="Create an invite link"
            onSubmit={(e) => {
              e.preventDefault();
              link.mutate();
            }}
          >
            <h2>Shareable invite link</h2>
            <SelectField
              label="Role for the link"
              value={linkRole}
              onChange={(e) => setLinkRole(e.target.value as Role)}
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
          </form>
        </div>
      ) : null}
    </div>
  );
}

/** The install snippet for a key: the SDK from this service, initialised with the key. */
export function snippetFor(key: string, origin = location.origin): string {
  return `<script src="${origin}/sdk/guidance.js"></script>
<script>
  Guidance.init({
    apiKey: '${key}',
    apiUrl: '${origin}',
    userId: 'USER_ID',          // your signed-in user's id
    traits: { plan: 'pro' },    // anything your audiences target
  });
</script>`;
}

function ApiKeys() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const keys = useQuery({
    queryKey: ['api-keys', page],
    queryFn: () =>
      must(
        api.GET('/api/tenants/api-keys', {
          params: { query: { page: String(page), limit: String(PAGE_SIZE) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const create = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/tenants/api-keys', {
          body: { name, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : undefined },
        }),
      ),
    onSuccess: () => {
      setName('');
      setExpiresAt('');
      void client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tenants/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const created = create.data?.data;
  return (
    <div style={{ display: 'grid', gap: 18 }}>
      {created ? (
        <div className="card pad" style={{ display: 'grid', gap: 12 }}>
          <Notice kind="warning">
            {create.data?.warning ?? 'Copy this key now: it is shown only once.'}
          </Notice>
          <div className="key-box">
            <input
              readOnly
              className="mono"
              aria-label="New API key"
              value={created.key}
              onFocus={(e) => e.target.select()}
            />
            <Button onClick={() => navigator.clipboard?.writeText(created.key)}>Copy key</Button>
          </div>
          <h2>Install snippet</h2>
          <p className="muted small">Paste this before the closing &lt;/body&gt; of your app's pages.</p>
          <textarea
            readOnly
            className="snippet"
            aria-label="Install snippet"
            rows={9}
            value={snippetFor(created.key)}
            onFocus={(e) => e.target.select()}
          />
          <div>
            <Button onClick={() => navigator.clipboard?.writeText(snippetFor(created.key))}>
              Copy snippet
            </Button>
          </div>
        </div>
      ) : null}
      <div className="card">
        <div className="card-header">
          <h2>API keys</h2>
          {canAdmin ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New API key
            </Button>
          ) : null}
        </div>
        <FormError error={revoke.error} />
        {keys.isPending ? (
          <Loading />
        ) : keys.isError ? (
          <FormError error={keys.error} />
        ) : keys.data.data.length === 0 ? (
          <div className="pad">
            <Empty title="No API keys yet">Create a key to install the SDK in your app.</Empty>
          </div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.keyPrefix}…</code>
                  </td>
                  <td>{formatDate(k.createdAt)}</td>
                  <td>{formatDate(k.lastUsedAt)}</td>
                  <td>{k.expiresAt ? formatDate(k.expiresAt) : 'Never'}</td>
                  <td style={{ textAlign: 'right' }}>
                    {k.revokedAt ? (
                      <StatusBadge status="REVOKED" />
                    ) : canAdmin ? (
                      <Button
                        variant="danger"
                        onClick={() => revoke.mutate(k.id)}
                        aria-label={`Revoke ${k.name}`}
                      >
                        Revoke
                      </Button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pagination meta={keys.data?.meta} onPage={setPage} label="API key pages" />
      </div>
      <Modal open={creating} title="New API key" onClose={() => setCreating(false)}>
        <form
          className="modal-body"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(undefined, { onSuccess: () => setCreating(false) });
          }}
        >
          <TextField
            label="Key name"
            placeholder="Production web app"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(create.error, 'name')}
            autoFocus
          />
          <TextField
            label="Expires (optional)"
            type="datetime-local"
            value={expiresAt}
            onChange={(e) => setExpiresAt(e.target.value)}
            error={fieldError(create.error, 'expiresAt')}
          />
          <FormError error={create.error} claimed={['name', 'expiresAt']} />
          <div className="modal-actions">
            <Button onClick={() => setCreating(false)}>Cancel</Button>
            <Button type="submit" variant="primary" busy={create.isPending}>
              Create key
            </Button>
          </div>
        </form>
      </Modal>
    </div>
  );
}

function AuditLog() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState('');
  const logs = useQuery({
    queryKey: ['audit', page, action],
    queryFn: () =>
      must(
        api.GET('/api/tenants/audit-logs', {
          params: { query: { page: String(page), limit: String(PAGE_SIZE), action: action || undefined } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <div className="card">
      <div className="card-header">
        <h2>Audit log</h2>
        <input
          type="search"
          aria-label="Filter by action"
          placeholder="Action, e.g. FLOW_PUBLISHED"
          value={action}
          onChange={(e) => {
            setPage(1);
            setAction(e.target.value.toUpperCase());
          }}
          style={{ maxWidth: 280 }}
        />
      </div>
      {logs.isPending ? (
        <Loading />
      ) : logs.isError ? (
        <FormError error={logs.error} />
      ) : logs.data.data.length === 0 ? (
        <p className="pad muted">No entries.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Entity</th>
              <th scope="col">Actor</th>
            </tr>
          </thead>
          <tbody>
            {logs.data.data.map((l) => (
              <tr key={l.id}>
                <td>{formatDate(l.createdAt)}</td>
                <td>
                  <code>{l.action}</code>
                </td>
                <td>
                  {l.entityType}
                  {l.entityId ? <span className="muted small"> {l.entityId.slice(0, 8)}</span> : null}
                </td>
                <td className="muted small">{l.actorId ? l.actorId.slice(0, 8) : 'system'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination meta={logs.data?.meta} onPage={setPage} label="Audit log pages" />
    </div>
  );
}

const FEATURE_LABELS: Record<string, string> = {
  flows: 'Flows',
  activeUsers: 'Monthly active users',
  apiKeys: 'API keys',
  members: 'Team members',
  aiTokens: 'AI tokens',
  journeys: 'Journeys',
  experiments: 'Experiments',
};

function Plan() {
  const current = useQuery({
    queryKey: ['plan'],
    queryFn: async () => (await must(api.GET('/api/pricing/current'))).data,
  });
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: async () => (await must(api.GET('/api/pricing/usage'))).data,
  });
  if (current.isPending || usage.isPending) return <Loading />;
  if (current.isError) return <FormError error={current.error} />;
  if (usage.isError) return <FormError error={usage.error} />;
  return (
    <div className="grid-2">
      <div className="card pad" style={{ display: 'grid', gap: 8, alignContent: 'start' }}>
        <h2>Current plan</h2>
        <div className="stat" style={{ padding: 0 }}>
          <div className="value" style={{ textTransform: 'capitalize' }}>
            {current.data.plan}
          </div>
          <div className="label">
            {current.data.status.toLowerCase()} · period ends {formatDate(current.data.currentPeriodEnd)}
          </div>
        </div>
      </div>
      <div className="card pad" style={{ display: 'grid', gap: 14 }}>
        <h2>Usage</h2>
        {usage.data.usage.map((u) => (
          <div key={u.feature} style={{ display: 'grid', gap: 4 }}>
            <div style={{ display: 'flex', justifyContent: 'space-between' }}>
              <span>{FEATURE_LABELS[u.feature] ?? u.feature}</span>
              <span className="muted">
                {!u.enabled
                  ? 'Not in your plan'
                  : u.unlimited
                    ? `${u.used} · unlimited`
                    : `${u.used} of ${u.limit}`}
              </span>
            </div>
            <div
              className="usage-bar"
              role="progressbar"
              aria-label={FEATURE_LABELS[u.feature] ?? u.feature}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={u.percentage}
            >
              <span style={{ width: `${Math.min(100, u.percentage)}%` }} />
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}

function AiProvider() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const config = useQuery({
    queryKey: ['ai-config'],
    queryFn: async () => (await must(api.GET('/api/ai-config'))).data,
  });
  const [provider, setProvider] = useState<'OPENAI' | 'GEMINI' | 'CLAUDE'>('OPENAI');
  const [apiKey, setApiKey] = useState('');
  const save = useMutation({
    mutationFn: () => must(api.POST('/api/ai-config', { body: { provider, apiKey } })),
    onSuccess: () => {
      setApiKey('');
      void client.invalidateQueries({ queryKey: ['ai-config'] });
    },
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => must(api.POST('/api/ai-config/toggle', { body: { enabled } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['ai-config'] }),
  });
  if (config.isPending) return <Loading />;
  if (config.isError) return <FormError error={config.error} />;
  const c = config.data;
  return (
    <div className="grid-2">
      <div className="card pad" style={{ display: 'grid', gap: 10, alignContent: 'start' }}>
        <h2>Provider</h2>
        {c ? (
          <>
            <p>
              <strong>{c.provider}</strong> · key <code>{c.maskedKey}</code>
            </p>
            <p className="muted small">Last verified {formatDate(c.lastVerifiedAt)}</p>
            <Checkbox
              label="AI features enabled"
              checked={c.isEnabled}
              disabled={!canAdmin || toggle.isPending}
              onChange={(e) => toggle.mutate(e.target.checked)}
            />
            <FormError error={toggle.error} />
          </>
        ) : (
          <Empty title="No AI provider">
            Connect OpenAI, Gemini or Claude to draft flows, audiences and translations with AI.
          </Empty>
        )}
      </div>
      {canAdmin ? (
        <form
          className="card pad"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <h2>{c ? 'Change provider or key' : 'Connect a provider'}</h2>
          <SelectField
            label="AI provider"
            value={provider}
            onChange={(e) => setProvider(e.target.value as typeof provider)}
            options={['OPENAI', 'GEMINI', 'CLAUDE']}
            error={fieldError(save.error, 'provider')}
          />
          <TextField
            label="Provider API key"
            type="password"
            autoComplete="off"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            error={fieldError(save.error, 'apiKey')}
          />
          <FormError error={save.error} claimed={['provider', 'apiKey']} />
          {save.isSuccess ? <Notice kind="success">Provider saved and verified.</Notice> : null}
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={save.isPending}>
              Save provider
            </Button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
