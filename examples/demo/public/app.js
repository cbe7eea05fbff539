// Acme Projects: a pretend product with client-side routing (pushState), the host page of the
// guidance demo. It loads the SDK from the guidance service (another origin) like a customer would.
(() => {
  const config = window.DEMO_CONFIG || {};
  const projects = [
    'Website relaunch',
    'Mobile app',
    'Q3 planning',
    'Hiring',
    'Brand refresh',
    'Data warehouse',
  ];
  const card = (title, text, pct) =>
    `<div class="card"><h3>${title}</h3><p>${text}</p>${pct === undefined ? '' : `<div class="bar"><i style="width:${pct}%"></i></div>`}</div>`;

  const views = {
    '/': () => `
      <h1>Good morning, Jordan</h1>
      <p class="lead">Here is what is happening across your projects today.</p>
      <div class="row"><button id="create-project" class="primary">+ Create project</button>
        <button class="ghost" id="import">Import</button></div>
      <div class="cards">${projects
        .slice(0, 3)
        .map((p, i) => card(p, `${4 + i} open tasks`, 30 + i * 25))
        .join('')}</div>`,
    '/projects': () => `
      <h1>Projects</h1>
      <p class="lead">All projects of your workspace.</p>
      <div class="row"><button id="new-project" class="primary">New project</button>
        <button id="filters" class="ghost" style="margin-left:auto">Filters</button></div>
      <div class="cards">${projects.map((p, i) => card(p, `Updated ${i + 1}d ago`, (i * 17) % 100)).join('')}</div>`,
    '/setup': () => `
      <h1>Workspace setup</h1>
      <p class="lead">A manual flow, started by the button below through <code>Guidance.startFlow()</code>.</p>
      <div class="row"><button id="start-setup" class="primary">Start the setup guide</button></div>
      <div class="plans"><button id="plan-monthly"><b>Monthly</b><br />$12 / seat</button>
        <button id="plan-yearly"><b>Yearly</b><br />$10 / seat</button></div>
      <label class="field">Project name <input id="project-name" placeholder="e.g. Website relaunch" /></label>`,
    '/reports': () => {
      // The chart arrives a moment after the page: a tooltip on it waits for it.
      setTimeout(() => {
        const slot = document.getElementById('chart-slot');
        if (slot)
          slot.innerHTML =
            '<div class="card" id="reports-chart"><h3>Velocity</h3><p>Tasks closed per week</p><div class="bar"><i style="width:72%"></i></div></div>';
      }, 1500);
      return `<h1>Reports</h1><p class="lead">Loading your charts…</p><div id="chart-slot" class="cards"></div>`;
    },
  };
  const titles = {
    '/announcements/modal': 'Release notes',
    '/announcements/banner': 'Status',
    '/announcements/slideout': "What's new",
    '/announcements/toast': 'Exports',
    '/feedback': 'Editor',
    '/nps': 'Account',
  };
  const fallback = (path) => `
    <h1>${titles[path] || 'Acme'}</h1>
    <p class="lead">This page exists to show one kind of guidance content.</p>
    <div class="cards">${projects
      .slice(0, 4)
      .map((p) => card(p, 'Active'))
      .join('')}</div>`;

  function render() {
    const path = location.pathname;
    document.getElementById('view').innerHTML = (views[path] || (() => fallback(path)))();
    for (const a of document.querySelectorAll('nav a'))
      a.classList.toggle('active', a.getAttribute('href') === path);
    const start = document.getElementById('start-setup');
    if (start && config.setupFlowId) start.onclick = () => window.Guidance?.startFlow(config.setupFlowId);
  }

  document.addEventListener('click', (e) => {
    const link = e.target.closest('a[data-link]');
    if (!link) return;
    e.preventDefault();
    history.pushState(null, '', link.getAttribute('href'));
    render();
  });
  addEventListener('popstate', render);
  render();

  if (!config.serviceUrl || !config.apiKey) {
    document
      .getElementById('view')
      .insertAdjacentHTML(
        'afterbegin',
        '<p class="lead"><b>Not configured:</b> start it with <code>node examples/demo/run.mjs</code>.</p>',
      );
    return;
  }
  // The customer's snippet: load guidance.js from the service, then init.
  const script = document.createElement('script');
  script.src = `${config.serviceUrl}/sdk/guidance.js`;
  script.onload = () =>
    window.Guidance.init({
      apiKey: config.apiKey,
      userId: config.userId,
      traits: config.traits,
      locale: config.locale,
    });
  document.head.append(script);
})();
