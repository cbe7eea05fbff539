/**
 * The drift benchmark's pages: twelve screens built the way real apps build them (CSS modules,
 * styled-components, emotion, Tailwind, Svelte, Angular, React ids, web components with open
 * shadow roots, a same-origin iframe), each in four deploys. Deploy 0 is the one the steps were
 * authored on, with selectors as an author (or a naive recorder) writes them: hashed classes,
 * `:nth-child` paths, ids. Deploys 1–3 build on each other, the way releases do: hashed classes
 * renamed (every deploy), wrappers added, siblings reordered, text casing changed, elements moved
 * to another container, elements removed (sometimes leaving a look-alike behind).
 *
 * The element each step means carries `truth="<step key>"`, an attribute the SDK never reads
 * (fingerprints and selectors only use ids, test ids, data-*, aria-*, name, type, href, …).
 */

export interface DriftStep {
  key: string;
  /** Authored on deploy 0. */
  selector: string;
  /** The first deploy without this element (it must then be reported missing). */
  removedIn?: number;
}

export interface DriftPage {
  name: string;
  steps: DriftStep[];
  html(deploy: number): string;
}

/** A deterministic hash of `seed`: `len` characters of `alphabet`. */
function hash(seed: string, len: number, alphabet: string): string {
  let h = 2166136261;
  let out = '';
  for (let i = 0; out.length < len; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i % seed.length) ^ i, 16777619) >>> 0;
    out += alphabet[h % alphabet.length];
  }
  return out;
}
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const B36 = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** CSS modules: `Component_local__hash5` (the hash changes with every build). */
const mod = (comp: string, local: string, d: number) =>
  `${comp}_${local}__${hash(`${comp}${local}${d}`, 5, B64)}`;
/** emotion: `css-hash6-Label`. */
const emo = (label: string, d: number) => `css-${hash(label + d, 6, B36)}-${label}`;
/** styled-components: `sc-hash static-class`. */
const sc = (name: string, d: number) =>
  `sc-${hash(`${name}sc${d}`, 6, LETTERS)} ${hash(name + d, 6, LETTERS)}`;
/** Svelte's scoped class. */
const sv = (d: number) => `svelte-${hash(`svelte${d}`, 7, B36)}`;
/** Angular's emulated encapsulation attribute. */
const ng = (d: number) => `_ngcontent-ng-c${1000 + d * 137}`;

const doc = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>
body{font:15px system-ui,sans-serif;margin:0}main{padding:24px}button{padding:6px 12px;margin:4px}
input,select{padding:6px;margin:4px}table{border-collapse:collapse}td,th{padding:6px 10px;border-bottom:1px solid #ddd}
nav a{display:inline-block;padding:6px 10px}.col{display:inline-block;vertical-align:top;width:200px;margin:8px;padding:8px;background:#f4f4f5}
</style>${head}</head><body>${body}</body></html>`;

/** `html` wrapped in a div (a new layout wrapper) from deploy `from` on. */
const wrap = (html: string, d: number, from: number, cls = 'wrapper') =>
  d >= from ? `<div class="${emo(cls, d)}">${html}</div>` : html;

// ---------------------------------------------------------------------------------------------

const signup: DriftPage = {
  name: 'sign-up form (React, CSS modules)',
  steps: [
    { key: 'name', selector: 'form > div:nth-child(1) > input' },
    { key: 'email', selector: `input.${mod('Input', 'field', 0)}[type="email"]` },
    { key: 'terms', selector: `form > label:nth-of-type(1) > input`, removedIn: 3 },
    { key: 'submit', selector: `.${mod('Button', 'primary', 0)}` },
    { key: 'login', selector: 'main > p > a' },
  ],
  html(d) {
    const field = (id: string, label: string, type: string, name: string, truth: string) =>
      `<div class="${mod('Field', 'row', d)}"><label for="${id}">${label}</label>${wrap(
        `<input id="${id}" name="${name}" type="${type}" class="${mod('Input', 'field', d)}" truth="${truth}">`,
        d,
        1,
        'inputWrap',
      )}</div>`;
    const fields = [
      field('su-name', 'Full name', 'text', 'fullName', 'name'),
      field('su-email', 'Work email', 'email', 'email', 'email'),
      field('su-pass', 'Password', 'password', 'password', 'password'),
    ];
    if (d >= 2) fields.reverse();
    const submit = `<button type="submit" class="${mod('Button', 'primary', d)}" truth="submit">${
      d >= 2 ? 'CREATE ACCOUNT' : 'Create account'
    }</button>`;
    const terms =
      d < 3
        ? `<label class="${mod('Check', 'row', d)}"><input type="checkbox" name="terms" truth="terms"> I agree to the terms</label>`
        : '';
    return doc(
      'Sign up',
      `<main class="${mod('Page', 'main', d)}"><h1>Create your account</h1>
      <form class="${mod('Signup', 'form', d)}">${fields.join('')}${terms}${d < 3 ? submit : ''}</form>
      ${d >= 3 ? `<footer class="${mod('Page', 'foot', d)}">${submit}</footer>` : ''}
      <p class="${mod('Page', 'alt', d)}">Already have an account? <a href="/login" truth="login">${d >= 2 ? 'Sign In' : 'Sign in'}</a></p></main>`,
    );
  },
};

const team: DriftPage = {
  name: 'team table (styled-components)',
  steps: [
    { key: 'search', selector: `.${sc('Toolbar', 0).split(' ')[0]} input` },
    { key: 'export', selector: `.${sc('Toolbar', 0).split(' ')[0]} button:nth-of-type(1)`, removedIn: 2 },
    { key: 'invite', selector: `.${sc('Primary', 0).split(' ')[1]}` },
    { key: 'edit-alice', selector: 'tbody tr:nth-child(1) button' },
    { key: 'next', selector: 'nav[aria-label="Pagination"] button:last-child' },
  ],
  html(d) {
    let people = [
      ['Alice Martin', 'alice@acme.io', 'Admin'],
      ['Bob Stone', 'bob@acme.io', 'Member'],
      ['Carol Diaz', 'carol@acme.io', 'Member'],
      ['Dan Wu', 'dan@acme.io', 'Viewer'],
    ];
    if (d >= 2) people = [people[1]!, people[2]!, people[0]!, people[3]!];
    if (d >= 3) people.unshift(['Erin Cole', 'erin@acme.io', 'Member']);
    const rows = people
      .map(
        ([n, e, r]) =>
          `<tr class="${sc('Row', d)}"><td>${n}</td><td>${e}</td><td>${r}</td><td><button class="${sc('RowBtn', d)}"${
            n === 'Alice Martin' ? ' truth="edit-alice"' : ''
          }>Edit</button></td></tr>`,
      )
      .join('');
    const exportBtn = d < 2 ? `<button class="${sc('Ghost', d)}" truth="export">Export CSV</button>` : '';
    return doc(
      'Team',
      `<main class="${sc('Layout', d)}"><h1>Team</h1>
      <div class="${sc('Toolbar', d)}"><input type="search" placeholder="Search people" truth="search">${exportBtn}
      <button class="${sc('Ghost', d)}">Import CSV</button>
      ${wrap(`<button class="${sc('Primary', d)}" truth="invite">Invite user</button>`, d, 1)}</div>
      <table class="${sc('Table', d)}"><thead><tr><th>Name</th><th>Email</th><th>Role</th><th></th></tr></thead><tbody>${rows}</tbody></table>
      <nav aria-label="Pagination"><button>Previous</button><button truth="next">Next</button>${d >= 3 ? '<span>Page 1 of 3</span>' : ''}</nav></main>`,
    );
  },
};

const shell: DriftPage = {
  name: 'app shell navigation (emotion)',
  steps: [
    { key: 'projects', selector: `nav a.${emo('NavLink', 0)}:nth-child(2)` },
    { key: 'reports', selector: `nav > a:nth-child(3)` },
    { key: 'billing', selector: `nav > a[href="/billing"]`, removedIn: 3 },
    { key: 'profile', selector: `header > button.${emo('Avatar', 0)}` },
    { key: 'new', selector: `#new-project` },
  ],
  html(d) {
    let links = [
      ['/dashboard', 'Dashboard', ''],
      ['/projects', 'Projects', 'projects'],
      ['/reports', 'Reports', 'reports'],
      ['/settings', 'Settings', ''],
      ['/billing', 'Billing', 'billing'],
    ];
    if (d >= 2) links = [links[0]!, links[2]!, links[1]!, links[3]!, links[4]!];
    if (d >= 3) links = links.filter((l) => l[0] !== '/billing');
    const nav = links
      .map(
        ([href, text, truth]) =>
          `<a class="${emo('NavLink', d)}" href="${href}"${truth ? ` truth="${truth}"` : ''}>${
            d >= 1 ? `<span class="${emo('Icon', d)}">•</span>` : ''
          }${text}</a>`,
      )
      .join('');
    const avatar = `<button class="${emo('Avatar', d)}" aria-label="Your profile" truth="profile">AM</button>`;
    return doc(
      'Dashboard',
      `<header class="${emo('Header', d)}"><strong>Acme</strong>${d < 3 ? avatar : ''}</header>
      <div class="${emo('Body', d)}"><nav class="${emo('Nav', d)}" aria-label="Main">${nav}</nav>
      <main class="${emo('Main', d)}"><h1>Dashboard</h1>${d >= 3 ? `<div class="${emo('Top', d)}">${avatar}</div>` : ''}
      <button id="${d >= 2 ? 'create-project' : 'new-project'}" class="${emo('Primary', d)}" truth="new">New project</button></main></div>`,
    );
  },
};

const settings: DriftPage = {
  name: 'settings screen (Tailwind)',
  steps: [
    { key: 'tab-notif', selector: 'div[role="tablist"] > button:nth-child(2)' },
    { key: 'email-toggle', selector: '#notify-email' },
    { key: 'digest', selector: 'select.mt-2.w-full' },
    { key: 'save', selector: 'button.bg-indigo-600' },
    { key: 'delete-ws', selector: 'section.border-red-300 button:nth-of-type(2)', removedIn: 3 },
  ],
  html(d) {
    const tw = (a: string, b: string) => (d % 2 === 0 ? a : b);
    let tabs = ['General', 'Notifications', 'Security'];
    if (d >= 2) tabs = ['Notifications', 'General', 'Security'];
    const tablist = tabs
      .map(
        (t) =>
          `<button role="tab" class="${tw('px-3 py-2 text-sm', 'px-4 py-2 text-sm font-medium')}"${
            t === 'Notifications' ? ' truth="tab-notif"' : ''
          }>${t}</button>`,
      )
      .join('');
    const danger = `<section class="${tw('border border-red-300 p-4', 'border-2 border-red-400 p-6')}"><h2>Danger zone</h2>
      <button class="bg-red-100">Delete project</button>${d < 3 ? '<button class="bg-red-600" truth="delete-ws">Delete workspace</button>' : ''}</section>`;
    return doc(
      'Settings',
      `<main class="${tw('mx-auto max-w-3xl p-6', 'mx-auto max-w-4xl p-8')}"><h1 class="text-2xl">Settings</h1>
      <div role="tablist" class="flex gap-2">${tablist}</div>
      <form class="${tw('space-y-4', 'space-y-6')}" aria-label="Notifications">
      ${wrap(
        `<label class="flex items-center"><input id="${d >= 3 ? 'notifications-email' : 'notify-email'}" type="checkbox" truth="email-toggle"> ${
          d >= 2 ? 'Email Notifications' : 'Email notifications'
        }</label>`,
        d,
        1,
      )}
      <label for="digest">Digest</label><select id="digest-${d >= 1 ? 'freq' : 'x'}" name="digest" class="${tw('mt-2 w-full', 'mt-3 w-full rounded')}" truth="digest"><option>Daily</option><option>Weekly</option></select>
      <button type="submit" class="${tw('bg-indigo-600 px-4 py-2 text-white', 'bg-violet-600 px-5 py-2 text-white')}" truth="save">Save changes</button></form>
      ${danger}</main>`,
    );
  },
};

const webComponent: DriftPage = {
  name: 'web components (open shadow roots, nested)',
  steps: [
    { key: 'wc-save', selector: 'settings-panel >>> button.save' },
    { key: 'wc-name', selector: 'settings-panel >>> input#display-name' },
    { key: 'wc-toggle', selector: 'settings-panel >>> sp-toggle >>> button' },
    { key: 'wc-reset', selector: 'settings-panel >>> .actions > button:nth-child(1)', removedIn: 3 },
  ],
  html(d) {
    const panelTag = d >= 3 ? 'app-settings-panel' : 'settings-panel';
    const inner = `<style>.actions{margin-top:8px}</style><h2>Profile</h2>
      <label for="display-name">Display name</label>${d >= 1 ? '<div class="f">' : ''}<input id="${
        d >= 2 ? 'profile-name' : 'display-name'
      }" truth="wc-name">${d >= 1 ? '</div>' : ''}
      <sp-toggle label="Dark mode"></sp-toggle>
      <div class="${d >= 1 ? 'actions-row' : 'actions'}">${d < 3 ? '<button truth="wc-reset">Reset</button>' : ''}<button class="${
        d >= 2 ? 'btn-save' : 'save'
      }" truth="wc-save">${d >= 2 ? 'Save Settings' : 'Save settings'}</button></div>`;
    const toggle = `<span>Dark mode</span><button role="switch" aria-checked="false" aria-label="Dark mode" truth="wc-toggle">${
      d >= 1 ? '<i></i>' : ''
    }</button>`;
    return doc(
      'Settings (web components)',
      `<main><h1>Account</h1><${panelTag}></${panelTag}></main>
      <script>
      customElements.define('sp-toggle', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(toggle)}; } });
      customElements.define('${panelTag}', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(inner)}; } });
      </script>`,
    );
  },
};

const iframe: DriftPage = {
  name: 'editor in a same-origin iframe',
  steps: [
    { key: 'bold', selector: 'iframe#editor >>> .toolbar button.bold' },
    { key: 'link', selector: 'iframe#editor >>> .toolbar button:nth-child(3)' },
    { key: 'publish', selector: 'iframe#editor >>> #publish' },
    { key: 'strike', selector: 'iframe#editor >>> .toolbar button:nth-child(4)', removedIn: 2 },
  ],
  html(d) {
    let tools = [
      ['bold', 'Bold', 'B'],
      ['italic', 'Italic', 'I'],
      ['link', 'Insert link', '🔗'],
      ['strike', 'Strikethrough', 'S'],
    ];
    if (d >= 2) tools = tools.filter((t) => t[0] !== 'strike');
    if (d >= 3) tools = [tools[2]!, tools[0]!, tools[1]!];
    const buttons = tools
      .map(
        ([k, label, text]) =>
          `<button class="${k} ${emo('Tool', d)}" aria-label="${label}" truth="${k}">${text}</button>`,
      )
      .join('');
    const inner = `<!doctype html><html><body><div class="${d >= 1 ? 'editor-toolbar' : 'toolbar'}">${
      d >= 2 ? `<div class="group">${buttons}</div>` : buttons
    }</div><div contenteditable="true">Write here…</div><button id="${d >= 3 ? 'publish-btn' : 'publish'}" truth="publish">Publish</button></body></html>`;
    return doc(
      'Editor',
      `<main><h1>New post</h1><iframe id="${d >= 1 ? 'post-editor' : 'editor'}" title="Post editor" style="width:600px;height:200px" srcdoc="${inner.replace(
        /"/g,
        '&quot;',
      )}"></iframe></main>`,
    );
  },
};

const product: DriftPage = {
  name: 'product page (BEM and hashed classes)',
  steps: [
    { key: 'add', selector: `.${mod('Buy', 'add', 0)}` },
    { key: 'qty', selector: 'input[type="number"]' },
    { key: 'size', selector: 'select' },
    { key: 'reviews', selector: '.product__tabs > a:nth-child(2)' },
    { key: 'buy-now', selector: `.${mod('Buy', 'now', 0)}`, removedIn: 2 },
  ],
  html(d) {
    const sizeSelect = `<label for="size">Size</label><select id="size" name="size" truth="size"><option>S</option><option>M</option></select>`;
    const colour = `<label for="colour">Colour</label><select id="colour" name="colour"><option>Red</option></select>`;
    let tabs = [
      ['#details', 'Details', ''],
      ['#reviews', 'Reviews (24)', 'reviews'],
      ['#shipping', 'Shipping', ''],
    ];
    if (d >= 2) tabs = [tabs[1]!, tabs[0]!, tabs[2]!];
    return doc(
      'Trail shoe',
      `<main class="product"><h1 class="product__title">Trail shoe</h1><p class="product__price">$120</p>
      <div class="product__options">${d >= 3 ? colour + sizeSelect : sizeSelect}</div>
      <div class="product__buy ${mod('Buy', 'box', d)}"><label for="qty">Quantity</label><input id="qty" name="quantity" type="number" value="1" truth="qty">
      ${wrap(`<button class="${mod('Buy', 'add', d)}" truth="add">${d >= 2 ? 'Add to Cart' : 'Add to cart'}</button>`, d, 1)}
      ${d < 2 ? `<button class="${mod('Buy', 'now', d)}" truth="buy-now">Buy now</button>` : ''}</div>
      <div class="product__tabs">${tabs.map(([h, t, k]) => `<a href="${h}"${k ? ` truth="${k}"` : ''}>${t}</a>`).join('')}</div></main>`,
    );
  },
};

const board: DriftPage = {
  name: 'kanban board (repeated controls)',
  steps: [
    { key: 'add-progress', selector: '.board > .col:nth-child(2) > button' },
    { key: 'card-login', selector: '.board > .col:nth-child(2) > article:nth-of-type(1)' },
    { key: 'filter', selector: `input.${sv(0)}` },
    { key: 'archive-done', selector: '.board > .col:nth-child(3) > .col-actions > button', removedIn: 3 },
  ],
  html(d) {
    const col = (title: string, cards: string[], extra = '') => {
      const t = title === 'In progress';
      return `<section class="col ${sv(d)}" aria-label="${title}"><h2>${title}</h2>${cards
        .map(
          (c) =>
            `<article class="${sv(d)}"${c === 'Fix login bug' ? ' truth="card-login"' : ''}>${c}</article>`,
        )
        .join(
          '',
        )}<button class="${sv(d)}"${t ? ' truth="add-progress"' : ''}>${d >= 2 ? '+ Add Card' : '+ Add card'}</button>${extra}</section>`;
    };
    let cols = [
      col('To do', ['Write docs', 'Plan Q3']),
      col('In progress', ['Fix login bug', 'New pricing page']),
      col(
        'Done',
        ['Ship v2'],
        d < 3 ? `<div class="col-actions"><button truth="archive-done">Archive all</button></div>` : '',
      ),
    ];
    if (d >= 2) cols = [cols[1]!, cols[0]!, cols[2]!];
    return doc(
      'Board',
      `<main class="${sv(d)}"><h1>Sprint 14</h1><input class="${sv(d)}" placeholder="Filter cards" truth="filter">
      ${wrap(`<div class="board">${cols.join('')}</div>`, d, 1, 'scroller')}</main>`,
    );
  },
};

const analytics: DriftPage = {
  name: 'analytics dashboard (cards and charts)',
  steps: [
    { key: 'range', selector: `div.${emo('Filters', 0)} > input` },
    { key: 'export', selector: `button.${emo('Export', 0)}` },
    { key: 'chart', selector: `div.${emo('Grid', 0)} > div:nth-child(2)` },
    { key: 'share', selector: `div.${emo('Filters', 0)} > button:last-child`, removedIn: 3 },
  ],
  html(d) {
    const cards = [
      `<div class="${emo('Card', d)}"><h3>Active users</h3><p>1,204</p></div>`,
      `<div class="${emo('Card', d)}" data-chart="revenue" truth="chart"><h3>Revenue</h3><canvas width="300" height="80"></canvas></div>`,
      `<div class="${emo('Card', d)}"><h3>Churn</h3><p>2.1%</p></div>`,
    ];
    if (d >= 2) cards.reverse();
    return doc(
      'Analytics',
      `<main><h1>Analytics</h1><div class="${emo('Filters', d)}"><input name="range" placeholder="Last 30 days" truth="range">
      <button class="${emo('Export', d)}" truth="export">${d >= 2 ? 'EXPORT REPORT' : 'Export report'}</button>${
        d < 3 ? `<button class="${emo('Share', d)}" truth="share">Share</button>` : ''
      }</div>
      ${wrap(`<div class="${emo('Grid', d)}">${cards.join('')}</div>`, d, 1)}</main>`,
    );
  },
};

const checkout: DriftPage = {
  name: 'checkout (Angular)',
  steps: [
    { key: 'street', selector: `input[${ng(0)}][formcontrolname="street"]` },
    { key: 'city', selector: 'app-address > div:nth-child(2) > input' },
    { key: 'coupon', selector: 'app-coupon input', removedIn: 3 },
    { key: 'place', selector: `button.ng-tns-c${42}-1` },
  ],
  html(d) {
    const a = ng(d);
    let rows = [
      `<div ${a} class="row"><label ${a} for="street">Street</label><input ${a} id="street" formcontrolname="street" class="ng-untouched ng-pristine" truth="street"></div>`,
      `<div ${a} class="row"><label ${a} for="city">City</label><input ${a} id="city" formcontrolname="city" class="ng-untouched ng-pristine" truth="city"></div>`,
      `<div ${a} class="row"><label ${a} for="zip">Postcode</label><input ${a} id="zip" formcontrolname="zip" class="ng-untouched ng-pristine"></div>`,
    ];
    if (d >= 2) rows = [rows[2]!, rows[0]!, rows[1]!];
    const coupon =
      d < 3
        ? `<app-coupon ${a}><label ${a} for="coupon">Coupon</label><input ${a} id="coupon" formcontrolname="coupon" truth="coupon"></app-coupon>`
        : '';
    return doc(
      'Checkout',
      `<app-root _nghost-ng-c${900 + d}><main ${a}><h1 ${a}>Checkout</h1><form ${a} class="ng-pristine ng-valid"><app-address ${a}>${rows.join('')}</app-address>
      ${coupon}${wrap(
        `<button ${a} type="submit" class="primary ng-tns-c${42 + d * 3}-1 ng-star-inserted" truth="place">${
          d >= 2 ? 'Place Order' : 'Place order'
        }</button>`,
        d,
        1,
      )}</form></main></app-root>`,
    );
  },
};

const login: DriftPage = {
  name: 'login (emotion)',
  steps: [
    { key: 'email', selector: `input.${emo('Input', 0)}:first-of-type` },
    { key: 'password', selector: 'input[type="password"]' },
    { key: 'signin', selector: `button.${emo('Submit', 0)}` },
    { key: 'forgot', selector: 'form > a' },
    { key: 'sso', selector: `button.${emo('Sso', 0)}`, removedIn: 2 },
  ],
  html(d) {
    return doc(
      'Log in',
      `<main class="${emo('Centered', d)}"><h1>Welcome back</h1><form class="${emo('Form', d)}">
      ${wrap(`<input class="${emo('Input', d)}" type="email" name="email" placeholder="you@company.com" aria-label="Email" truth="email">`, d, 2)}
      ${wrap(`<input class="${emo('Input', d)}" type="password" name="password" aria-label="Password" truth="password">`, d, 2)}
      ${d >= 3 ? `<div class="${emo('Links', d)}"><a href="/forgot" truth="forgot">Forgot password?</a></div>` : `<a href="/forgot" truth="forgot">Forgot password?</a>`}
      <button class="${emo('Submit', d)}" type="submit" truth="signin">${d >= 1 ? 'Sign In' : 'Sign in'}</button></form>
      ${d < 2 ? `<button class="${emo('Sso', d)}" truth="sso">Continue with SSO</button>` : ''}</main>`,
    );
  },
};

const projects: DriftPage = {
  name: 'project list with a dialog (React ids)',
  steps: [
    { key: 'dlg-name', selector: `[id=":r${3}:"]` },
    { key: 'dlg-create', selector: 'div[role="dialog"] button:nth-child(2)' },
    { key: 'dlg-template', selector: 'div[role="dialog"] fieldset input[value="blank"]' },
    { key: 'dlg-cancel', selector: 'div[role="dialog"] footer button:first-child', removedIn: 3 },
  ],
  html(d) {
    const r = (n: number) => `:r${n + d * 5}:`;
    const footer = `<footer>${d < 3 ? '<button truth="dlg-cancel">Cancel</button>' : ''}<button class="${emo('Create', d)}" truth="dlg-create">${
      d >= 2 ? 'Create Project' : 'Create project'
    }</button></footer>`;
    return doc(
      'Projects',
      `<main><h1>Projects</h1><ul><li>Website</li><li>Mobile app</li></ul></main>
      <div role="dialog" aria-modal="true" aria-labelledby="${r(1)}" class="${emo('Dialog', d)}"><h2 id="${r(1)}">New project</h2>
      <label for="${r(3)}">Project name</label>${wrap(`<input id="${r(3)}" truth="dlg-name">`, d, 2)}
      <fieldset><legend>Template</legend><label><input type="radio" name="tpl" value="blank" truth="dlg-template"> Blank</label>
      <label><input type="radio" name="tpl" value="kanban"> Kanban</label></fieldset>
      ${footer}</div>`,
    );
  },
};

export const DRIFT_PAGES: DriftPage[] = [
  signup,
  team,
  shell,
  settings,
  webComponent,
  iframe,
  product,
  board,
  analytics,
  checkout,
  login,
  projects,
];
