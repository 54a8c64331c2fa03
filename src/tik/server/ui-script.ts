/**
 * The browser UI's script (`GET /ui/app.js`): vanilla JS, no framework, no CDN. It renders the board,
 * the ticket page and the inbox from the JSON API; ticket data only ever becomes text nodes. Kept
 * as a string so the build ships it in dist/ with the server (docs/tik-board.md).
 */
export const UI_SCRIPT = String.raw`'use strict';
// tik's board in the browser: every page is rendered here from the JSON API, every ticket field
// as text (textContent, never markup); the token lives in sessionStorage and travels as a bearer
// header, so no cookie is ever sent and no cross-site form can write.
(function () {
  var TOKEN = 'tik.token';
  var ACTOR = 'tik.actor';
  var who = null;
  // Bumped by every route() and by sign-out: an answer that arrives after it moved is for a page
  // no longer shown (or a session that ended), and is dropped.
  var seq = 0;
  var main = document.getElementById('main');
  var whoBox = document.getElementById('who');

  function h(tag, attrs) {
    var el = document.createElement(tag);
    var kids = Array.prototype.slice.call(arguments, 2);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
        else if (k === 'text') el.textContent = String(v);
        else el.setAttribute(k, v === true ? '' : String(v));
      });
    }
    kids.forEach(function add(c) {
      if (c === undefined || c === null || c === false) return;
      if (Array.isArray(c)) c.forEach(add);
      else el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return el;
  }

  function token() {
    return sessionStorage.getItem(TOKEN);
  }

  /** The actor this session writes as: the chosen one if the token allows it, else the token's first. */
  function actor() {
    var chosen = sessionStorage.getItem(ACTOR) || '';
    if (!who) return chosen || undefined;
    if (who.mode === 'open') return chosen || undefined;
    if (who.actors.indexOf(chosen) >= 0) return chosen;
    return who.actors[0];
  }

  /** One API call: {ok, status, data}; an answer that is not JSON becomes a coded error. */
  function api(method, path, body) {
    var headers = { accept: 'application/json' };
    var t = token();
    if (t) headers.authorization = 'Bearer ' + t;
    var init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit' };
    if (body instanceof Blob) {
      headers['content-type'] = body.type || 'application/octet-stream';
      init.body = body;
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(
      function (res) {
        return res.text().then(function (text) {
          var data;
          try {
            data = JSON.parse(text);
          } catch (e) {
            data = { error: { code: 'ui/bad-answer', message: 'the replica answered ' + res.status + ' with something that is not JSON' } };
          }
          return { ok: res.ok, status: res.status, data: data, text: text };
        });
      },
      function (e) {
        return { ok: false, status: 0, data: { error: { code: 'ui/unreachable', message: String(e && e.message ? e.message : e) } } };
      },
    );
  }

  /** Wraps an answer's handler so that it runs only if no route() or sign-out happened since. */
  function current(handle) {
    var mine = seq;
    return function (r) {
      if (mine === seq) return handle(r);
    };
  }

  /** A write's answer: 401 returns to sign-in, another refusal is shown in \`out\`, else \`after\`. */
  function written(out, after) {
    return current(function (r) {
      if (r.status === 401) return signIn(r.data);
      if (!r.ok) return out.replaceChildren(errorBox(r.data));
      after(r);
    });
  }

  function errorBox(data) {
    var e = (data && data.error) || { code: 'ui/unknown', message: 'unknown error' };
    return h('p', { class: 'error', role: 'alert' }, h('code', { text: e.code }), ': ' + e.message, e.hint ? ' — ' + e.hint : '');
  }

  function show() {
    var box = h('div', null, Array.prototype.slice.call(arguments));
    main.replaceChildren.apply(main, Array.prototype.slice.call(box.childNodes));
  }

  function age(ms) {
    if (ms === null || ms === undefined) return '';
    var m = Math.floor(ms / 60000);
    if (m < 1) return 'just now';
    if (m < 60) return m + ' min';
    var hrs = Math.floor(m / 60);
    if (hrs < 48) return hrs + ' h';
    return Math.floor(hrs / 24) + ' d';
  }

  function stageName(s) {
    return s.charAt(0) === ':' ? s.slice(1) : s;
  }

  function link(href, text, attrs) {
    var a = h('a', Object.assign({ href: href }, attrs || {}));
    a.textContent = text;
    return a;
  }

  // ── sign-in ────────────────────────────────────────────────────────────────────────────────
  function signIn(problem) {
    var input = h('input', { type: 'password', name: 'token', autocomplete: 'off', placeholder: 'token', required: true });
    var form = h(
      'form',
      {
        class: 'inline',
        id: 'signin',
        onsubmit: function (ev) {
          ev.preventDefault();
          sessionStorage.setItem(TOKEN, input.value.trim());
          start();
        },
      },
      h('label', null, 'Token ', input),
      h('button', { type: 'submit' }, 'Sign in'),
    );
    whoBox.replaceChildren();
    show(h('h1', null, 'Sign in'), h('p', { class: 'muted' }, 'This replica needs a bearer token (ask its operator). It stays in this tab only.'), problem ? errorBox(problem) : null, form);
    input.focus();
  }

  /** Forget the token and clear the page at once: no ticket data stays, and no late answer lands. */
  function signOut() {
    seq++;
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(ACTOR);
    who = null;
    main.replaceChildren();
    whoBox.replaceChildren();
    start();
  }

  function renderWho() {
    var parts = [];
    if (who.mode === 'open') {
      var name = h('input', { name: 'actor', value: sessionStorage.getItem(ACTOR) || '', placeholder: 'your name', size: 10 });
      name.addEventListener('change', function () {
        sessionStorage.setItem(ACTOR, name.value.trim());
        route();
      });
      parts.push(h('label', null, 'writing as ', name));
    } else if (who.principal) {
      parts.push('signed in as ');
      if (who.actors.length > 1) {
        var sel = h('select', { name: 'actor' }, who.actors.map(function (a) { return h('option', { value: a, selected: a === actor() }, a); }));
        sel.addEventListener('change', function () {
          sessionStorage.setItem(ACTOR, sel.value);
          route();
        });
        parts.push(sel);
      } else parts.push(h('b', { id: 'actor', text: actor() || who.principal }), who.actors.length === 0 ? ' (read-only)' : '');
      parts.push(' ', h('button', { class: 'secondary', type: 'button', onclick: signOut }, 'Sign out'));
    } else parts.push(who.writes ? '' : 'read-only replica');
    whoBox.replaceChildren.apply(whoBox, parts);
  }

  // ── board ──────────────────────────────────────────────────────────────────────────────────
  function params() {
    var q = location.hash.indexOf('?');
    return new URLSearchParams(q >= 0 ? location.hash.slice(q + 1) : '');
  }

  function card(c) {
    var chips = [];
    if (c.settled) chips.push(h('span', { class: 'chip settled' }, 'settled'));
    if (c.conflicted) chips.push(h('span', { class: 'chip conflict' }, 'conflict'));
    if (c.disputed) chips.push(h('span', { class: 'chip disputed' }, 'disputed'));
    var blockers = (c.blockers || []).map(function (b) {
      return h('div', null, h('small', null, 'to ' + stageName(b.stage) + (b.impossible ? ' (impossible)' : '') + ':'), h('ul', null, b.missing.map(function (m) { return h('li', { class: 'miss' }, m); })));
    });
    return h(
      'div',
      { class: 'card', 'data-ticket': c.ticket },
      chips,
      link('#/t/' + encodeURIComponent(c.ticket), c.title === null ? '(untitled)' : c.title, { class: 'title' }),
      h('span', { class: 'id' }, c.ticket.slice(0, 8)),
      c.ageMs !== null ? h('small', { class: 'age', title: 'opened ' + c.created }, ' · ' + age(c.ageMs)) : null,
      c.missingParents > 0 ? h('div', { class: 'miss' }, h('small', null, 'incomplete log: ' + c.missingParents + ' parent event(s) missing')) : null,
      blockers.length > 0 ? h('div', { class: 'blockers' }, blockers) : null,
    );
  }

  function newTicketForm(definitions, after) {
    var proc = h('select', { name: 'process', required: true }, definitions.map(function (d) { return h('option', { value: d }, d); }));
    var title = h('input', { name: 'title', placeholder: 'title', size: 40 });
    var out = h('div');
    var form = h(
      'form',
      {
        class: 'inline',
        id: 'new-ticket',
        onsubmit: function (ev) {
          ev.preventDefault();
          var body = { process: proc.value };
          if (title.value !== '') body.title = title.value;
          if (actor()) body.actor = actor();
          api('POST', '/api/tickets', body).then(
            written(out, function (r) {
              title.value = '';
              out.replaceChildren(h('p', { class: 'notice' }, 'created ', link('#/t/' + r.data.ticket, r.data.ticket.slice(0, 8))));
              after();
            }),
          );
        },
      },
      h('b', null, 'New ticket '),
      proc,
      title,
      h('button', { type: 'submit' }, 'Create'),
    );
    return h('div', null, form, out);
  }

  function board() {
    var p = params();
    var where = p.get('where') || '';
    var all = p.get('all') === 'true';
    var whereInput = h('input', { name: 'where', value: where, placeholder: "stage=:triaged and fact:severity=:high and not disputed" });
    var allBox = h('input', { type: 'checkbox', name: 'all', checked: all });
    var filter = h(
      'form',
      {
        class: 'inline',
        id: 'filter',
        onsubmit: function (ev) {
          ev.preventDefault();
          var q = new URLSearchParams();
          if (whereInput.value.trim() !== '') q.set('where', whereInput.value.trim());
          if (allBox.checked) q.set('all', 'true');
          var next = '#/' + (q.toString() ? '?' + q.toString() : '');
          if (location.hash === next) route();
          else location.hash = next;
        },
      },
      h('label', null, 'Filter ', whereInput),
      h('label', null, allBox, ' settled too'),
      h('button', { type: 'submit' }, 'Apply'),
    );
    var q = new URLSearchParams();
    if (where) q.set('where', where);
    if (all) q.set('all', 'true');
    api('GET', '/api/board?' + q.toString()).then(current(function (r) {
      if (r.status === 401) return signIn(r.data);
      if (!r.ok) return show(h('h1', null, 'Board'), filter, errorBox(r.data));
      var b = r.data;
      var sections = b.processes.map(function (pr) {
        var mine = b.cards.filter(function (c) { return c.process === pr.process && (pr.version === null || c.version === pr.version); });
        var cols = pr.stages.map(function (s) {
          var here = mine.filter(function (c) { return !c.settled && c.current.indexOf(s) >= 0; });
          return h('section', { class: 'col' + (here.length === 0 ? ' empty' : ''), 'data-stage': s }, h('h3', null, stageName(s) + ' ', h('small', null, String(here.length))), here.map(card));
        });
        var settled = mine.filter(function (c) { return c.settled; });
        if (settled.length > 0) cols.push(h('section', { class: 'col', 'data-stage': 'settled' }, h('h3', null, 'settled ', h('small', null, String(settled.length))), settled.map(card)));
        return h('div', null, h('h2', null, stageName(pr.process) + ' ', h('small', null, pr.version === null ? '' : 'v' + pr.version)), h('div', { class: 'cols' }, cols));
      });
      var skipped = b.skipped.length === 0 ? null : h('div', null, h('h2', null, 'Unreadable tickets'), h('ul', null, b.skipped.map(function (s) { return h('li', null, h('code', null, s.ticket), ' ' + s.code + ': ' + s.message); })));
      show(
        h('h1', null, 'Board'),
        filter,
        newTicketForm(b.definitions, route),
        sections.length === 0 ? h('p', { class: 'muted' }, where ? 'no ticket matches' : 'no open tickets') : null,
        sections,
        skipped,
        h('p', null, h('small', null, 'derived at ' + b.at + ' from the events')),
      );
    }));
  }

  // ── ticket page ────────────────────────────────────────────────────────────────────────────
  function writeForm(id, title, fields, toRequest, after) {
    var out = h('div');
    var inputs = fields.map(function (f) {
      var el = f.type === 'textarea' ? h('textarea', { name: f.name, rows: 3, cols: 40, placeholder: f.placeholder || '', required: f.required }) : h('input', { name: f.name, type: f.type || 'text', placeholder: f.placeholder || '', required: f.required });
      return { f: f, el: el };
    });
    var form = h(
      'form',
      {
        id: id,
        onsubmit: function (ev) {
          ev.preventDefault();
          var values = {};
          inputs.forEach(function (i) { values[i.f.name] = i.f.type === 'checkbox' ? i.el.checked : i.el.value; });
          var req = toRequest(values);
          if (req.error) return out.replaceChildren(errorBox(req));
          if (actor()) req.body.actor = actor();
          api('POST', req.path, req.body).then(written(out, after));
        },
      },
      h('h3', null, title),
      inputs.map(function (i) { return h('div', null, i.f.type === 'checkbox' ? h('label', null, i.el, ' ' + i.f.label) : h('label', null, i.f.label + ' ', i.el)); }),
      h('button', { type: 'submit' }, title),
    );
    return h('div', null, form, out);
  }

  /** Attach a file (PUT /api/tickets/:ticket/artifacts/<path>, the bytes as the body). */
  function attachFormOf(id, after) {
    var out = h('div');
    var file = h('input', { type: 'file', name: 'file', required: true });
    var path = h('input', { name: 'path', placeholder: 'repro/log.txt' });
    file.addEventListener('change', function () {
      if (path.value === '' && file.files.length > 0) path.value = file.files[0].name;
    });
    var form = h(
      'form',
      {
        id: 'attach',
        onsubmit: function (ev) {
          ev.preventDefault();
          if (file.files.length === 0 || path.value.trim() === '') return out.replaceChildren(errorBox({ error: { code: 'ui/no-file', message: 'choose a file and its artifact path' } }));
          var q = actor() ? '?actor=' + encodeURIComponent(actor()) : '';
          var where = path.value.trim().split('/').map(encodeURIComponent).join('/');
          api('PUT', '/api/tickets/' + encodeURIComponent(id) + '/artifacts/' + where + q, file.files[0]).then(written(out, after));
        },
      },
      h('h3', null, 'Attach'),
      h('label', null, 'file ', file),
      h('label', null, 'as ', path),
      h('button', { type: 'submit' }, 'Attach'),
    );
    return h('div', null, form, out);
  }

  function svgOf(text) {
    var doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    var svg = doc.documentElement;
    if (svg.nodeName !== 'svg') return null;
    return document.importNode(svg, true);
  }

  function ticket(id) {
    api('GET', '/api/ticket-view/' + encodeURIComponent(id)).then(current(function (r) {
      if (r.status === 401) return signIn(r.data);
      if (!r.ok) return show(h('h1', null, 'Ticket'), errorBox(r.data));
      var t = r.data;
      var base = '/api/tickets/' + encodeURIComponent(t.ticket) + '/';
      var reload = function () { ticket(id); };
      var factRows = Object.keys(t.facts).map(function (k) {
        var f = t.facts[k];
        var claims = f.claims ? h('ul', null, f.claims.map(function (c) { return h('li', null, c.by + ' ' + (c.kind === 'assert' ? 'set ' + c.value : 'retracted') + ' at ' + c.at); })) : null;
        return h('tr', { class: f.status, 'data-fact': k }, h('td', null, h('code', null, k)), h('td', null, f.value === null ? '' : String(f.value)), h('td', null, f.status), h('td', null, f.by ? f.by + ' · ' + f.at : '', f.note ? ' (' + f.note + ')' : '', claims, f.resolve ? h('div', { class: 'resolve' }, h('b', null, 'to resolve: '), f.resolve) : null));
      });
      var blocks = t.blocks.map(function (b) {
        return h('li', null, h('b', null, stageName(b.stage)), b.impossible ? ' (impossible)' : '', b.hint ? h('small', null, ' · ' + b.hint) : null, h('ul', null, b.missing.map(function (m) { return h('li', { class: 'miss' }, '✗ ' + m); }), b.satisfied.map(function (g) { return h('li', null, '✓ ' + g); })));
      });
      var log = t.log.map(function (e) {
        var moved = e.derived.length > 0 || e.lost.length > 0;
        return h(
          'li',
          { class: (moved ? 'transition' : '') + (e.flag ? ' flag-' + e.flag : ''), 'data-event': e.id },
          e.flag ? h('span', { class: 'chip ' + (e.flag === 'conflict' ? 'conflict' : 'disputed') }, e.flag === 'conflict' ? 'conflicting write' : 'open dispute') : null,
          h('small', null, e.at + ' · ' + e.actor + ' · '),
          e.summary,
          e.derived.map(function (s) { return h('span', { class: 'stage-gain' }, ' → ' + stageName(s)); }),
          e.lost.map(function (s) { return h('span', { class: 'stage-loss' }, ' ✗ ' + stageName(s)); }),
          e.comment !== null ? h('div', { class: 'comment' }, e.comment) : null,
          e.commentNote ? h('div', null, h('small', { class: 'muted' }, e.commentNote)) : null,
        );
      });
      var svg = svgOf(t.svg);
      var setForm = writeForm('set-fact', 'Set facts', [{ name: 'facts', label: 'key=value (one a line)', type: 'textarea', required: true, placeholder: 'severity=:high' }], function (v) {
        var facts = [];
        var bad = null;
        v.facts.split('\n').forEach(function (line) {
          if (line.trim() === '') return;
          var i = line.indexOf('=');
          if (i <= 0) bad = line;
          else facts.push({ key: line.slice(0, i).trim(), value: line.slice(i + 1).trim() });
        });
        if (bad !== null) return { error: { code: 'ui/bad-fact', message: 'not key=value: ' + bad, hint: 'e.g. severity=:high' } };
        return { path: base + 'facts', body: { facts: facts } };
      }, reload);
      var commentForm = writeForm('comment', 'Comment', [{ name: 'text', label: '', type: 'textarea', required: true }], function (v) { return { path: base + 'comments', body: { text: v.text } }; }, reload);
      var disputeForm = writeForm('dispute', 'Dispute', [{ name: 'key', label: 'fact', required: true, placeholder: 'category' }, { name: 'reason', label: 'reason' }, { name: 'withdraw', label: 'withdraw my dispute', type: 'checkbox' }], function (v) {
        var body = { key: v.key };
        if (v.reason) body.reason = v.reason;
        if (v.withdraw) body.withdraw = true;
        return { path: base + 'dispute', body: body };
      }, reload);
      var retractForm = writeForm('retract', 'Retract', [{ name: 'key', label: 'fact', required: true, placeholder: 'category' }, { name: 'reason', label: 'reason' }], function (v) {
        var body = { key: v.key };
        if (v.reason) body.reason = v.reason;
        return { path: base + 'retract', body: body };
      }, reload);
      var attachForm = attachFormOf(t.ticket, reload);
      show(
        h('p', null, link('#/', '← board')),
        h('h1', { id: 'ticket-title' }, t.title === null ? '(untitled)' : t.title),
        h('p', null, h('span', { class: 'id' }, t.ticket), ' · ' + stageName(t.process.id) + ' v' + t.process.version + ' · ', t.current.map(function (s) { return h('span', { class: 'chip' + (t.settled ? ' settled' : ''), 'data-current': s }, stageName(s)); }), t.missingParents > 0 ? h('span', { class: 'miss' }, ' incomplete log') : null),
        svg,
        h(
          'div',
          { class: 'grid' },
          h('div', { class: 'panel' }, h('h2', null, 'Facts'), factRows.length === 0 ? h('p', { class: 'muted' }, 'no facts yet') : h('table', { id: 'facts' }, h('tr', null, h('th', null, 'fact'), h('th', null, 'value'), h('th', null, 'status'), h('th', null, 'by')), factRows)),
          h('div', { class: 'panel', id: 'explain' }, h('h2', null, 'What the next stages need'), blocks.length === 0 ? h('p', { class: 'muted' }, t.settled ? 'settled' : 'nothing is blocked') : h('ul', null, blocks)),
        ),
        h('div', { class: 'grid' }, h('div', { class: 'panel' }, setForm, commentForm), h('div', { class: 'panel' }, disputeForm, retractForm, attachForm)),
        h('h2', null, 'Log'),
        h('ul', { class: 'log', id: 'log' }, log),
      );
    }));
  }

  // ── inbox ──────────────────────────────────────────────────────────────────────────────────
  function inbox() {
    var me = actor();
    if (!me) {
      var why = who && who.mode === 'open' ? 'Name yourself (top right) to see what you can do.' : who && who.mode === 'tokens' ? 'This token names no actor (it only reads), so there is nothing for it to do; ask the operator for a token that lists your actor.' : 'This replica takes no writes from here, so there is nothing to do.';
      return show(h('h1', null, 'Inbox'), h('p', { class: 'notice', id: 'inbox-none' }, why));
    }
    api('GET', '/api/next?actor=' + encodeURIComponent(me)).then(current(function (r) {
      if (r.status === 401) return signIn(r.data);
      if (!r.ok) return show(h('h1', null, 'Inbox'), errorBox(r.data));
      var items = r.data.items.map(function (i) {
        return h('li', null, h('code', null, i.action), i.role ? h('small', null, ' as ' + i.role) : null, h('ul', null, i.unlocks.map(function (u) { return h('li', null, 'unlocks ' + stageName(u.stage) + ' of ', link('#/t/' + encodeURIComponent(u.ticket), u.ticket.slice(0, 8), { 'data-ticket': u.ticket })); })));
      });
      show(h('h1', null, 'Inbox of ', h('span', { id: 'inbox-actor' }, me)), items.length === 0 ? h('p', { class: 'muted' }, 'nothing for you to do') : h('ul', { id: 'inbox' }, items));
    }));
  }

  function route() {
    seq++;
    var hash = location.hash || '#/';
    if (hash.indexOf('#/t/') === 0) {
      var raw = hash.slice(4).split('?')[0];
      var id;
      try {
        id = decodeURIComponent(raw);
      } catch (e) {
        // a malformed escape (#/t/%E0) names no ticket
        return show(h('h1', null, 'Ticket'), errorBox({ error: { code: 'ui/not-found', message: 'no ticket ' + raw + ': the link is not a valid address', hint: 'open the ticket from the board' } }));
      }
      return ticket(id);
    }
    if (hash.indexOf('#/inbox') === 0) return inbox();
    return board();
  }

  function start() {
    api('GET', '/api/whoami').then(current(function (r) {
      if (r.status === 401) return signIn(token() ? r.data : null);
      if (!r.ok) return show(errorBox(r.data));
      who = r.data;
      renderWho();
      route();
    }));
  }

  window.addEventListener('hashchange', route);
  start();
})();
`;
