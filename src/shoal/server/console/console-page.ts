/**
 * The console's HTML: a shell with no inline script or style (the CSP forbids both); the script
 * (console-script.ts) fills every value in as text.
 */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shoal console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/style.css">
<script src="/console/app.js" defer></script>
</head>
<body>
<header>
  <h1>shoal</h1>
  <span id="who" class="muted"></span>
  <label id="role-label" hidden>role <select id="role"></select></label>
  <button id="sign-out" type="button" hidden>Sign out</button>
</header>
<section id="sign-in" hidden>
  <h2>Sign in</h2>
  <form id="sign-in-form" autocomplete="off">
    <fieldset>
      <legend>Access token</legend>
      <input id="token" type="password" placeholder="shoal_pat_…" aria-label="access token">
    </fieldset>
    <fieldset>
      <legend>or registry user</legend>
      <input id="username" type="text" placeholder="username" aria-label="username">
      <input id="password" type="password" placeholder="password" aria-label="password">
    </fieldset>
    <button id="sign-in-button" type="submit">Sign in</button>
    <p id="sign-in-error" class="error" role="alert"></p>
  </form>
  <p class="muted">Credentials are kept in this tab's sessionStorage (a reopened, restored or duplicated tab has them too; a password is stored as typed) and go only to this server, in the Authorization header. Sign out on a shared machine; prefer an access token.</p>
</section>
<main id="console" hidden>
  <nav>
    <button type="button" class="tab" data-tab="query" aria-selected="true">Query</button>
    <button type="button" class="tab" data-tab="mv" aria-selected="false">Materialized views</button>
    <button type="button" class="tab" data-tab="cache" aria-selected="false">Cache</button>
  </nav>
  <div id="tab-query" class="panel">
    <aside id="catalog"><h2>Catalog</h2><p id="catalog-note" class="muted"></p><div id="catalog-tables"></div></aside>
    <div id="work">
      <textarea id="sql" spellcheck="false" aria-label="SQL">SELECT * FROM sales.orders ORDER BY id</textarea>
      <div class="bar">
        <button id="run" type="button" title="Ctrl+Enter">Run</button>
        <button id="cancel" type="button" disabled>Cancel</button>
        <button id="csv" type="button" disabled>Export CSV</button>
        <span id="status" data-state="idle" class="muted"></span>
      </div>
      <div id="error" class="error" role="alert" hidden>
        <strong id="error-code"></strong> <span id="error-message"></span>
        <div id="error-hint" class="hint"></div>
      </div>
      <div id="grid"><table id="results"><thead></thead><tbody></tbody></table></div>
    </div>
  </div>
  <div id="tab-mv" class="panel" hidden>
    <p id="mv-note" class="muted"></p>
    <div id="mv-body">
      <label><input id="mv-force" type="checkbox"> force (refresh even when the inputs did not change)</label>
      <table id="mv-list"><thead><tr><th>MV</th><th>status</th><th>holder</th><th>lease until</th><th>snapshot</th><th>refreshed at</th><th>rows</th><th>running</th><th></th></tr></thead><tbody></tbody></table>
      <h3>Refresh history <span id="mv-log-id" class="muted"></span></h3>
      <table id="mv-log"><thead><tr><th>at</th><th>outcome</th><th>writer</th><th>rows</th><th>ms</th><th>snapshot</th><th>reason / error</th></tr></thead><tbody></tbody></table>
    </div>
  </div>
  <div id="tab-cache" class="panel" hidden>
    <p id="cache-note" class="muted"></p>
    <div id="cache-body"><p id="cache-summary"></p><table id="cache-tables"><thead></thead><tbody></tbody></table></div>
  </div>
</main>
</body>
</html>
`;
