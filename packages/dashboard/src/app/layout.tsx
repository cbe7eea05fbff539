import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { Loading } from '../kit';
import { ApiError } from './api';
import { FEATURES } from './features';
import { SessionProvider, useMe, useSignOut } from './session';

const NAV = FEATURES.flatMap((f) => (f.nav ? [f.nav] : []));

/** The signed-in shell: sidebar navigation, the company and user, and the page. */
export function Layout() {
  const me = useMe();
  const location = useLocation();
  const signOut = useSignOut();
  if (me.isPending) return <Loading label="Signing in" />;
  if (me.isError) {
    if (me.error instanceof ApiError && me.error.status === 401) {
      const next = location.pathname + location.search;
      return <Navigate to={next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`} replace />;
    }
    return <p role="alert">{me.error.message}</p>;
  }
  const session = me.data;
  return (
    <SessionProvider me={session}>
      <div className="shell">
        <a className="skip" href="#main">
          Skip to content
        </a>
        <aside className="sidebar">
          <div className="brand">
            <span className="logo" aria-hidden="true">
              G
            </span>
            <span>Guidance</span>
          </div>
          <nav aria-label="Main">
            <ul>
              {NAV.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`}>
                    <span className="nav-icon" aria-hidden="true">
                      {item.icon}
                    </span>
                    {item.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className="sidebar-foot">
            <div className="who">
              <strong>{session.tenant.name}</strong>
              <span className="muted">{session.user.email}</span>
              <span className="role-pill">{session.role}</span>
            </div>
            <button type="button" className="btn btn-ghost" onClick={signOut}>
              Sign out
            </button>
          </div>
        </aside>
        <main id="main" className="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </SessionProvider>
  );
}
