/**
 * The console's script (served as /console/app.js). Plain DOM, no framework: every value from the
 * server (rows, catalog, MV status) is set as text (textContent), never parsed as HTML. The
 * credentials are the Authorization header value, kept in sessionStorage and sent by fetch (no
 * cookie, so no CSRF). The CSV builder is result-csv.ts's own source, embedded.
 */
import { csvField, resultCsv } from './result-csv.js';

// The browser part is a string: the project's TypeScript targets Node (no DOM types), and the
// script must be one self-contained file. It uses no template literals, so it can live in one here.
const APP = String.raw`
(function () {
  'use strict';
  var AUTH = 'shoal.console.auth', ROLE = 'shoal.console.role';
  // the grid renders the first SHOWN_MAX rows; the page keeps KEPT_MAX for the export (a bigger
  // result is counted as it streams, and exported with Accept: text/csv instead)
  var SHOWN_MAX = 10000, KEPT_MAX = 100000;
  var $ = function (id) { return document.getElementById(id); };
  // epoch counts sign-ins and sign-outs: work begun before one does not touch the page after it
  var state = { who: null, role: null, rows: [], columns: [], controller: null, mvPoll: null, mvSelected: null, epoch: 0 };
  // One counter per panel: a load takes a number before its request and draws only if no later
  // load (or a sign-out) has taken one since, so overlapping reloads neither mix nor duplicate.
  var loads = { catalog: 0, mv: 0, mvLog: 0, cache: 0 };
  function nextLoad(panel) { return ++loads[panel]; }
  function stale(panel, n) { return loads[panel] !== n; }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function cellText(v) {
    if (v === null || v === undefined) return null;
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  function when(ms) { return ms === null || ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z'); }
  /** The Authorization value; '' when signed in without credentials (auth.provider: none), null when signed out. */
  function auth() { return sessionStorage.getItem(AUTH); }
  function authHeaders() { var a = auth(); return a ? { authorization: a } : {}; }
  function roleHeaders(extra) {
    var h = authHeaders();
    if (state.role) h['x-provisa-role'] = state.role;
    for (var k in extra || {}) h[k] = extra[k];
    return h;
  }
  // Credentials go in the Authorization header only. 'omit' also keeps the browser from answering
  // a 401's Basic challenge with its own login prompt (a fetch with credentials mode omit is never
  // prompted for), so a refused sign-in comes back to the page.
  function call(path, init) { init.credentials = 'omit'; init.cache = 'no-store'; return fetch(path, init); }
  function problem(body, status) {
    var e = body && body.error ? body.error : { code: 'HTTP_' + status, message: 'the server answered ' + status };
    return { code: String(e.code || ''), message: String(e.message || ''), hint: e.hint ? String(e.hint) : '', status: status };
  }
  /** A thrown problem as it is, anything else (fetch's TypeError when the server cannot be reached) as NETWORK. */
  function asProblem(e) {
    if (e && typeof e.code === 'string') return e;
    return { code: 'NETWORK', message: 'no answer from the server: ' + (e && e.message ? e.message : String(e)), hint: 'check the connection and try again' };
  }
  function problemText(p) { return p.code + ': ' + p.message; }
  /** The problem of a refused request; a 401 while signed in means the credentials stopped working (revoked, expired): back to the sign-in form. */
  function refusal(body, status) {
    var p = problem(body, status);
    if (status === 401 && state.who) { sessionStorage.removeItem(AUTH); state.who = null; resetWorkspace(); showSignIn(problemText(p)); }
    return p;
  }
  async function readJson(r) { try { return await r.json(); } catch (_) { return null; } }
  async function getJson(path, headers) {
    var r;
    try { r = await call(path, { headers: headers || roleHeaders() }); } catch (e) { throw asProblem(e); }
    var body = await readJson(r);
    if (!r.ok) throw refusal(body, r.status);
    return body;
  }
  function isAdmin() {
    var role = (state.who && state.who.roles || []).find(function (r) { return r.id === state.role; });
    return !!role && role.capabilities.indexOf('admin') >= 0;
  }

  // ---- sign-in
  /** Forgets everything the last user saw: results, error, status, panels, the SQL; stops what runs. */
  function resetWorkspace() {
    cancel(); stopMvPoll();
    Object.keys(loads).forEach(function (k) { loads[k]++; });
    state.epoch++;
    state.controller = null; state.rows = []; state.columns = []; state.count = 0; state.mvSelected = null; state.refreshing = false;
    ['#results thead', '#results tbody', '#mv-list tbody', '#mv-log tbody', '#cache-tables thead', '#cache-tables tbody'].forEach(function (q) { clear(document.querySelector(q)); });
    clear($('catalog-tables'));
    ['catalog-note', 'mv-note', 'mv-log-id', 'cache-note', 'cache-summary'].forEach(function (id) { $(id).textContent = ''; });
    setStatus('idle', '');
    $('error').hidden = true;
    $('sql').value = $('sql').defaultValue;
    $('csv').disabled = true; $('run').disabled = false; $('cancel').disabled = true;
  }
  function showSignIn(message) {
    $('sign-in').hidden = false; $('console').hidden = true;
    $('who').textContent = ''; $('role-label').hidden = true; $('sign-out').hidden = true;
    $('sign-in-error').textContent = message || '';
  }
  async function signIn(header) {
    resetWorkspace();
    var who;
    try {
      who = await getJson('/auth/whoami', header ? { authorization: header } : {});
    } catch (e) {
      var p = asProblem(e);
      // only refused credentials are forgotten: after a network failure or a 5xx a reload retries them
      if (p.status === 401) sessionStorage.removeItem(AUTH);
      showSignIn(problemText(p) + (p.hint ? ' (' + p.hint + ')' : ''));
      return;
    }
    sessionStorage.setItem(AUTH, header);
    state.who = who;
    var ids = who.roles.map(function (r) { return r.id; });
    var kept = sessionStorage.getItem(ROLE);
    state.role = ids.indexOf(kept) >= 0 ? kept : (who.default_role && ids.indexOf(who.default_role) >= 0 ? who.default_role : (ids[0] || null));
    var select = $('role'); clear(select);
    ids.forEach(function (id) { var o = el('option', id); o.value = id; select.appendChild(o); });
    if (state.role) select.value = state.role;
    $('who').textContent = who.id;
    $('role-label').hidden = false; $('sign-out').hidden = false;
    $('sign-in').hidden = true; $('console').hidden = false;
    roleChanged();
  }
  function roleChanged() {
    if (state.role) sessionStorage.setItem(ROLE, state.role);
    loadCatalog();
    var tab = document.querySelector('.tab[aria-selected=true]');
    showTab(tab ? tab.getAttribute('data-tab') : 'query');
  }

  // ---- catalog
  async function loadCatalog() {
    var n = nextLoad('catalog'), box = $('catalog-tables');
    $('catalog-note').textContent = 'loading…';
    try {
      var c = await getJson('/data/catalog' + (state.role ? '?role=' + encodeURIComponent(state.role) : ''));
      if (stale('catalog', n)) return;
      clear(box);
      $('catalog-note').textContent = 'as ' + c.role + ': ' + c.tables.length + ' table(s)';
      c.tables.forEach(function (t) {
        var d = el('details'); var s = el('summary', t.table); d.appendChild(s);
        s.addEventListener('dblclick', function () { $('sql').value = 'SELECT * FROM ' + t.table + ' LIMIT 100'; });
        var ul = el('ul');
        t.columns.forEach(function (col) {
          var li = el('li', col.name + ' ' + col.type);
          if (col.masked) li.appendChild(el('span', 'masked', 'masked'));
          ul.appendChild(li);
        });
        d.appendChild(ul); box.appendChild(d);
      });
    } catch (e) {
      if (stale('catalog', n)) return;
      clear(box);
      $('catalog-note').textContent = problemText(asProblem(e));
    }
  }

  // ---- query
  function setStatus(stateName, text) { var s = $('status'); s.setAttribute('data-state', stateName); s.textContent = text; }
  function showError(p) {
    $('error').hidden = false;
    $('error-code').textContent = p.code; $('error-message').textContent = p.message; $('error-hint').textContent = p.hint || '';
  }
  function appendRows(tbody, rows) {
    var frag = document.createDocumentFragment();
    rows.forEach(function (row) {
      var tr = el('tr');
      row.forEach(function (v) {
        var t = cellText(v);
        tr.appendChild(t === null ? el('td', 'NULL', 'null') : el('td', t));
      });
      frag.appendChild(tr);
    });
    tbody.appendChild(frag);
  }
  async function run() {
    if (state.controller) return;
    var sql = $('sql').value;
    if (!sql.trim()) return;
    var controller = new AbortController();
    state.controller = controller; state.rows = []; state.columns = []; state.count = 0;
    var thead = document.querySelector('#results thead'), tbody = document.querySelector('#results tbody');
    clear(thead); clear(tbody);
    $('error').hidden = true; $('run').disabled = true; $('cancel').disabled = false; $('csv').disabled = true;
    var started = performance.now();
    var elapsed = function () { return ((performance.now() - started) / 1000).toFixed(2) + ' s'; };
    setStatus('running', 'running…');
    try {
      var body = { sql: sql };
      if (state.role) body.role = state.role;
      var r = await call('/data/sql', {
        method: 'POST', signal: controller.signal,
        headers: Object.assign(authHeaders(), { 'content-type': 'application/json', accept: 'application/x-ndjson' }),
        body: JSON.stringify(body),
      });
      if (!r.ok) {
        var eb = await readJson(r);
        // Cancel pressed while the error body was read: the read failed for that, say cancelled
        if (controller.signal.aborted) throw new Error('cancelled');
        var p = refusal(eb, r.status);
        if (state.controller !== controller) return; // signed out by the 401
        showError(p); setStatus('error', 'failed after ' + elapsed());
        return;
      }
      var reader = r.body.getReader(), decoder = new TextDecoder(), buffered = '', header = true;
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffered += decoder.decode(chunk.value, { stream: true });
        var lines = buffered.split('\n'); buffered = lines.pop();
        var batch = [];
        for (var i = 0; i < lines.length; i++) {
          if (!lines[i]) continue;
          var value = JSON.parse(lines[i]);
          if (header) {
            header = false;
            state.columns = value.columns.map(function (c) { return c.name; });
            var tr = el('tr');
            value.columns.forEach(function (c) { var th = el('th', c.name); th.title = c.type; tr.appendChild(th); });
            thead.appendChild(tr);
          } else {
            state.count++;
            if (state.count <= KEPT_MAX) state.rows.push(value);
            if (state.count <= SHOWN_MAX) batch.push(value);
          }
        }
        appendRows(tbody, batch);
        setStatus('running', state.count + ' row(s), ' + elapsed() + '…');
      }
      // every line ends with a newline: a leftover is a last line the connection cut off
      buffered += decoder.decode();
      if (buffered.trim()) throw new Error('the answer was cut off');
      var shown = state.count > KEPT_MAX ? ' (the grid shows the first ' + SHOWN_MAX + '; too many to export here: POST /data/sql with Accept: text/csv)'
        : state.count > SHOWN_MAX ? ' (the grid shows the first ' + SHOWN_MAX + '; the CSV has all)' : '';
      setStatus('done', state.count + ' row(s) in ' + elapsed() + shown);
      $('csv').disabled = state.count > KEPT_MAX;
    } catch (e) {
      if (state.controller !== controller) return; // signed out meanwhile: nothing of it stays
      if (controller.signal.aborted) {
        setStatus('cancelled', 'cancelled after ' + elapsed() + ' (' + state.count + ' row(s) received)');
      } else {
        // no answer at all is a network failure; an answer that stops is a cut-off result
        showError(!r ? asProblem(e) : { code: 'RESULT_CUT_OFF', message: 'the result stream broke off: ' + (e && e.message ? e.message : String(e)), hint: 'the server aborts a result that fails after its first rows; run it again' });
        setStatus('error', 'failed after ' + elapsed());
      }
    } finally {
      if (state.controller === controller) {
        state.controller = null;
        $('run').disabled = false; $('cancel').disabled = true;
      }
    }
  }
  function cancel() { if (state.controller) state.controller.abort(); }
  function exportCsv() {
    // the BOM makes Excel on Windows read the file as UTF-8
    var blob = new Blob(['\uFEFF', resultCsv(state.columns, state.rows)], { type: 'text/csv;charset=utf-8' });
    var a = el('a'); a.href = URL.createObjectURL(blob); a.download = 'shoal-result.csv';
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
  }

  // ---- tabs and admin panels
  function showTab(name) {
    document.querySelectorAll('.tab').forEach(function (b) { b.setAttribute('aria-selected', String(b.getAttribute('data-tab') === name)); });
    ['query', 'mv', 'cache'].forEach(function (t) { $('tab-' + t).hidden = t !== name; });
    if (name !== 'mv') stopMvPoll();
    if (name === 'mv') loadMv();
    if (name === 'cache') loadCache();
  }
  function adminGate(note, body, what) {
    if (isAdmin()) { note.textContent = ''; body.hidden = false; return true; }
    note.textContent = what + ' needs a role with the admin capability; you act as ' + (state.role || '(no role)') + '.';
    body.hidden = true;
    return false;
  }
  function mvVisible() { return !$('console').hidden && !$('tab-mv').hidden && document.visibilityState !== 'hidden'; }
  // Polls while the MV tab is in view: one timer at a time, each set after the previous poll has
  // finished, so a slow answer never has a second poll overlapping it.
  function pollMv() {
    if (state.mvPoll || !mvVisible()) return;
    state.mvPoll = setTimeout(function () { state.mvPoll = null; if (mvVisible()) loadMv(); }, 1000);
  }
  function stopMvPoll() { if (state.mvPoll) { clearTimeout(state.mvPoll); state.mvPoll = null; } }
  async function loadMv() {
    if (!adminGate($('mv-note'), $('mv-body'), 'Materialized-view status')) return;
    var n = nextLoad('mv'), list;
    try { list = await getJson('/admin/mv'); } catch (e) { if (!stale('mv', n)) $('mv-note').textContent = problemText(asProblem(e)); return; }
    if (stale('mv', n)) return;
    $('mv-note').textContent = 'this instance: ' + list.writer;
    var tbody = document.querySelector('#mv-list tbody'); clear(tbody);
    list.mvs.forEach(function (mv) {
      var row = mv.row || {}, running = mv.running;
      var tr = el('tr'); tr.setAttribute('data-mv', mv.id);
      if (mv.id === state.mvSelected) tr.className = 'selected';
      [mv.id, row.status || (mv.serving && mv.serving.kind) || mv.consistency, row.writer || '', when(row.leaseUntilMs), row.snapshotId || '', when(row.lastRefreshAtMs), row.rowCount === null || row.rowCount === undefined ? '' : row.rowCount,
        running ? running.phase + ' ' + running.elapsedMs + ' ms' : ''].forEach(function (v, i) {
        var td = el('td', v); td.className = ['id', 'status', 'holder', 'lease', 'snapshot', 'refreshed', 'rows', 'running'][i]; tr.appendChild(td);
      });
      var b = el('button', running ? 'refreshing…' : 'Refresh'); b.type = 'button'; b.className = 'refresh'; b.disabled = !!running;
      b.addEventListener('click', function (ev) { ev.stopPropagation(); refreshMv(mv.id, b); });
      var td = el('td'); td.appendChild(b); tr.appendChild(td);
      tr.addEventListener('click', function () { state.mvSelected = mv.id; loadMv(); });
      tbody.appendChild(tr);
    });
    if (!state.mvSelected && list.mvs.length > 0) state.mvSelected = list.mvs[0].id;
    if (state.mvSelected) loadMvLog(state.mvSelected);
    var busy = list.mvs.some(function (m) { return !!m.running; });
    if (busy || state.refreshing) pollMv(); else stopMvPoll();
  }
  async function loadMvLog(id) {
    var n = nextLoad('mvLog');
    $('mv-log-id').textContent = id;
    var tbody = document.querySelector('#mv-log tbody');
    try {
      var log = await getJson('/admin/mv/' + encodeURIComponent(id) + '/log?limit=20');
      if (stale('mvLog', n)) return;
      clear(tbody);
      log.entries.forEach(function (e) {
        var tr = el('tr');
        [when(e.createdAtMs), e.outcome, e.writer || '', e.rowCount === null ? '' : e.rowCount, e.durationMs === null ? '' : e.durationMs, e.snapshotId || '', e.error || e.reason || ''].forEach(function (v) { tr.appendChild(el('td', v)); });
        tbody.appendChild(tr);
      });
    } catch (e) { if (stale('mvLog', n)) return; clear(tbody); var tr = el('tr'); tr.appendChild(el('td', problemText(asProblem(e)))); tbody.appendChild(tr); }
  }
  async function refreshMv(id, button) {
    var epoch = state.epoch;
    state.mvSelected = id; state.refreshing = true;
    button.disabled = true; button.textContent = 'refreshing…';
    // poll while the refresh runs: the list shows its phase, then the new snapshot
    pollMv();
    var note;
    try {
      var r = await call('/admin/mv/' + encodeURIComponent(id) + '/refresh' + ($('mv-force').checked ? '?force=true' : ''), { method: 'POST', headers: roleHeaders() });
      var body = await readJson(r);
      note = !r.ok ? problemText(refusal(body, r.status))
        : body && body.outcome ? id + ': ' + body.outcome + (body.reason ? ' (' + body.reason + ')' : '')
        : id + ': the refresh was accepted but its answer could not be read';
    } catch (e) {
      note = id + ': ' + problemText(asProblem(e));
    } finally {
      state.refreshing = false;
      stopMvPoll();
    }
    if (epoch !== state.epoch) return; // signed out meanwhile (by this refusal or the button)
    await loadMv();
    $('mv-note').textContent = note;
  }
  async function loadCache() {
    if (!adminGate($('cache-note'), $('cache-body'), 'Cache state')) return;
    var n = nextLoad('cache'), thead = document.querySelector('#cache-tables thead'), tbody = document.querySelector('#cache-tables tbody');
    var c;
    try { c = await getJson('/admin/cache'); } catch (e) { if (!stale('cache', n)) $('cache-note').textContent = problemText(asProblem(e)); return; }
    if (stale('cache', n)) return;
    clear(thead); clear(tbody);
    if (!c.hot) { $('cache-summary').textContent = 'Hot tables are off on this instance.'; return; }
    $('cache-summary').textContent = 'hot tables: backend ' + c.hot.backend + ', ' + (c.hot.healthy ? 'healthy' : 'UNHEALTHY') + ', ' + c.hot.tables.length + ' candidate table(s)';
    var keys = [];
    c.hot.tables.forEach(function (t) { Object.keys(t).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
    var hr = el('tr'); keys.forEach(function (k) { hr.appendChild(el('th', k)); }); thead.appendChild(hr);
    c.hot.tables.forEach(function (t) {
      var tr = el('tr');
      keys.forEach(function (k) { var v = t[k]; tr.appendChild(el('td', /At$/.test(k) && typeof v === 'number' ? when(v) : cellText(v) || '')); });
      tbody.appendChild(tr);
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('sign-in-form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      var token = $('token').value.trim(), user = $('username').value, pass = $('password').value;
      // neither: no credentials, which only a server with auth.provider none accepts
      var header = token ? 'Bearer ' + token : (user ? 'Basic ' + btoa(unescape(encodeURIComponent(user + ':' + pass))) : '');
      $('token').value = ''; $('password').value = '';
      signIn(header);
    });
    $('sign-out').addEventListener('click', function () { resetWorkspace(); sessionStorage.removeItem(AUTH); sessionStorage.removeItem(ROLE); state.who = null; showSignIn(''); });
    // polling stops while the browser tab is hidden; back in view, the MV panel catches up
    document.addEventListener('visibilitychange', function () { if (mvVisible()) loadMv(); });
    $('role').addEventListener('change', function () { state.role = $('role').value; roleChanged(); });
    $('run').addEventListener('click', run);
    $('cancel').addEventListener('click', cancel);
    $('csv').addEventListener('click', exportCsv);
    $('sql').addEventListener('keydown', function (ev) { if ((ev.ctrlKey || ev.metaKey) && ev.key === 'Enter') { ev.preventDefault(); run(); } });
    document.querySelectorAll('.tab').forEach(function (b) { b.addEventListener('click', function () { showTab(b.getAttribute('data-tab')); }); });
    var saved = auth();
    if (saved !== null) signIn(saved); else showSignIn('');
  });
})();
`;

/** The script, with the CSV builder's source in front of it. */
export const CONSOLE_JS = `${csvField.toString()}\n${resultCsv.toString()}\n${APP}`;
