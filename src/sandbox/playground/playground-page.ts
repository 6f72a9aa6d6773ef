/**
 * The playground page served at `GET /` outside production: one HTML document (inline style and
 * script, no build step; the only other assets are markdown-it and the favicon, from this service) that
 * chats with this service over the same SSE wire format the front end reads. Answers are rendered as
 * Markdown by markdown-it with raw HTML off (HTML in an answer is shown as text, and javascript: links
 * are refused) and links opened in a new tab; the log follows the newest text unless the reader
 * scrolled up. It shows status lines, the map link, memory changes and the user's memory with delete
 * buttons ("Forget all" asks first), toggles tool groups through `disabled_tools`, and fits a 360 px
 * wide phone. An empty chat greets the user with example questions over the tool groups; clicking one
 * asks it. The script avoids template literals so this TypeScript template string stays plain.
 */
import { GROUP_LABELS, TOOL_GROUPS } from '../../tools/tool-groups.js';

/** A small campus-red speech bubble. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#7f1d1d"/>' +
  '<path d="M8 9h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9l-5 4v-4H8a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z" fill="#fff"/></svg>';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;background:#f5f5f4;color:#1c1917}
header{padding:10px 16px;background:#7f1d1d;color:#fff;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header h1{font-size:17px;margin:0}header small{opacity:.85}
main{display:grid;grid-template-columns:minmax(0,1fr) 300px;gap:12px;padding:12px;height:calc(100vh - 52px)}
#chat{display:flex;flex-direction:column;background:#fff;border-radius:8px;min-height:0;min-width:0}
#log{flex:1;overflow:auto;padding:12px}
.msg{margin:6px 0;padding:8px 10px;border-radius:8px;overflow-wrap:anywhere}.user{white-space:pre-wrap}
.text>:first-child{margin-top:0}.text>:last-child{margin-bottom:0}.text p,.text ul,.text ol{margin:.4em 0}
.text h1,.text h2,.text h3,.text h4{font-size:1em;margin:.5em 0 .3em}.text ul,.text ol{padding-left:1.4em}
.text pre{overflow-x:auto;background:#f5f5f4;padding:6px;border-radius:4px}.text code{font-size:.92em}
.text table{display:block;overflow-x:auto;border-collapse:collapse}.text td,.text th{border:1px solid #e7e5e4;padding:2px 6px}
.text a{color:#991b1b}
.user{background:#e7e5e4;margin-left:20%}.assistant{background:#fef2f2;margin-right:10%}
.status,.note{color:#57534e;font-size:13px;font-style:italic;padding:2px 10px}.error{background:#fee2e2;color:#991b1b}
.services{font-size:12px;color:#78716c;margin-top:4px}.map{display:block;margin-top:6px}
#welcome{padding:8px 4px}#welcome h2{font-size:17px;margin:0 0 4px}#welcome p{margin:0 0 10px;color:#57534e}
#examples{display:flex;flex-wrap:wrap;gap:8px}#examples button{background:#fef2f2;border:1px solid #fecaca;color:#7f1d1d;
border-radius:16px;padding:6px 12px;text-align:left}#examples button:hover{background:#fee2e2}
form{display:flex;gap:8px;padding:10px;border-top:1px solid #e7e5e4}#q{flex:1;padding:8px;font:inherit}
aside{background:#fff;border-radius:8px;padding:12px;overflow:auto}aside h2{font-size:15px;margin:12px 0 6px}
aside label{display:block;margin:4px 0}aside input[type=text],aside input[type=password]{width:100%;padding:6px;font:inherit}
#memory li{margin:4px 0;display:flex;gap:6px;justify-content:space-between;align-items:flex-start}
#memory small{color:#78716c}button{font:inherit;cursor:pointer}
@media (max-width:720px){main{grid-template-columns:minmax(0,1fr);height:auto;padding:8px}
#chat{height:calc(100vh - 120px);min-height:320px}.user{margin-left:10%}.assistant{margin-right:0}
header{padding:8px 12px}header h1{font-size:16px}}
`;

const SCRIPT = `
(function () {
  'use strict';
  var GROUPS = ${JSON.stringify(TOOL_GROUPS)};
  var history = [];
  var $ = function (id) { return document.getElementById(id); };
  var saved = window.sessionStorage;
  $('token').value = saved.getItem('pg.token') || '';
  $('user').value = saved.getItem('pg.user') || 'playground-user';
  $('token').addEventListener('change', function () { saved.setItem('pg.token', $('token').value); loadMemory(); });
  $('user').addEventListener('change', function () { saved.setItem('pg.user', $('user').value); history = []; loadMemory(); });

  function headers(json) {
    var h = {};
    if (json) h['Content-Type'] = 'application/json';
    var token = $('token').value.trim();
    if (token) h.Authorization = 'Bearer ' + token;
    return h;
  }
  function userId() { return $('user').value.trim(); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Raw HTML off: an answer's HTML is shown as text. markdown-it refuses javascript:, vbscript: and file: links.
  var md = window.markdownit({ html: false, linkify: true, breaks: false });
  var defaultLink = md.renderer.rules.link_open || function (tokens, i, options, env, self) { return self.renderToken(tokens, i, options); };
  md.renderer.rules.link_open = function (tokens, i, options, env, self) {
    tokens[i].attrSet('target', '_blank');
    tokens[i].attrSet('rel', 'noopener noreferrer');
    return defaultLink(tokens, i, options, env, self);
  };
  var log = $('log');
  // Follows the newest text while the reader is at the bottom; leaves them where they are if they scrolled up.
  function atBottom() { return log.scrollHeight - log.scrollTop - log.clientHeight < 40; }
  function follow(wasAtBottom) { if (wasAtBottom) log.scrollTop = log.scrollHeight; }
  function add(cls, text) {
    var wasAtBottom = atBottom();
    var e = el('div', 'msg ' + cls, text);
    log.appendChild(e);
    follow(wasAtBottom || cls === 'user');
    return e;
  }
  function renderMarkdown(node, markdown) {
    var wasAtBottom = atBottom();
    node.innerHTML = md.render(markdown);
    follow(wasAtBottom);
  }
  function describe(envelope, status) {
    if (status === 401) return 'The service wants a bearer token: enter it under Settings.';
    if (envelope && envelope.error) return envelope.error + (envelope.detail ? ': ' + envelope.detail : '');
    return 'Request failed (' + status + ')';
  }

  // SSE frames are separated by a blank line; comment lines (": keep-alive") are ignored; "id:" is the
  // run's cursor (<run_id>:<seq>), what a resume starts after.
  function drain(buffer, onEvent) {
    var parts = buffer.replace(/\\r\\n/g, '\\n').split('\\n\\n');
    var rest = parts.pop();
    parts.forEach(function (frame) {
      var type = 'message', data = [], id = null;
      frame.split('\\n').forEach(function (line) {
        if (line.indexOf('event:') === 0) type = line.slice(6).trim();
        else if (line.indexOf('data:') === 0) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.indexOf('id:') === 0) id = line.slice(3).trim();
      });
      if (data.length) onEvent(type, JSON.parse(data.join('\\n')), id);
    });
    return rest;
  }

  // Reads a stream body to its end, frame by frame.
  async function readStream(res, onEvent) {
    var reader = res.body.getReader(), decoder = new TextDecoder(), buffer = '';
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) return;
      buffer = drain(buffer + decoder.decode(chunk.value, { stream: true }), onEvent);
    }
  }

  // A dropped connection (Wi-Fi to cellular, a tunnel) resumes the run where it stopped: the service keeps
  // it RUN_DETACHED_GRACE_MS (30 s by default); these attempts span about that long.
  var RESUME_ATTEMPTS = 20;

  async function send(event) {
    event.preventDefault();
    var query = $('q').value.trim();
    if (!query) return;
    $('q').value = '';
    $('send').disabled = true;
    if (welcome.parentNode) welcome.remove();
    add('user', query);
    var bubble = add('assistant');
    bubble.setAttribute('data-role', 'answer');
    var text = el('div', 'text');
    bubble.appendChild(text);
    var status = add('status', 'Sending...');
    var answer = '';
    var pending = false;
    // Deltas arrive faster than frames: render at most once per frame.
    function show() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; renderMarkdown(text, answer); });
    }
    var body = { query: query, message_history: history.slice(-40),
      disabled_tools: GROUPS.filter(function (g) { return !$('group-' + g).checked; }) };
    if (userId()) body.user_id = userId();
    function onEvent(type, data) {
      if (type === 'status') status.textContent = data.text;
      else if (type === 'delta') { answer += data.text; show(); }
      else if (type === 'map' && data.url) {
        var a = el('a', 'map', 'Open map: ' + (data.mode === 'directions' ? data.src_label + ' → ' + data.dest_label : data.target_label));
        a.href = data.url; a.target = '_blank'; a.rel = 'noopener noreferrer';
        var wasAtBottom = atBottom();
        bubble.appendChild(a);
        follow(wasAtBottom);
      } else if (type === 'memory') { add('note', data.text); loadMemory(); }
      else if (type === 'done') {
        answer = data.response_text;
        renderMarkdown(text, answer);
        history.push({ role: 'user', content: query }, { role: 'assistant', content: data.response_text });
        var bottom = atBottom();
        if (data.services_used.length) bubble.appendChild(el('div', 'services', 'Tools: ' + data.services_used.join(', ')));
        follow(bottom);
      } else if (type === 'error') { bubble.classList.add('error'); text.textContent = describe(data, 500); }
    }
    var lastId = null, ended = false;
    function onFrame(type, data, id) {
      if (id) lastId = id;
      if (type === 'done' || type === 'error') ended = true;
      onEvent(type, data);
    }
    try {
      var res = await fetch('/agent/respond/stream', { method: 'POST', headers: headers(true), body: JSON.stringify(body) });
      if (!res.ok) {
        var envelope = await res.json().catch(function () { return null; });
        bubble.classList.add('error');
        text.textContent = describe(envelope, res.status);
        return;
      }
      var runId = res.headers.get('X-Run-Id');
      for (var attempt = 0; ; ) {
        if (res) {
          try { await readStream(res, onFrame); } catch (err) { if (!runId) throw err; }
        }
        if (ended) break;
        if (!runId || ++attempt > RESUME_ATTEMPTS) throw new Error('the answer could not be resumed');
        // Resumed after the last frame shown: every frame once, so no text is repeated.
        status.textContent = 'Reconnecting...';
        await new Promise(function (r) { window.setTimeout(r, Math.min(250 * attempt, 2000)); });
        var resumeHeaders = headers(false);
        if (lastId) resumeHeaders['Last-Event-ID'] = lastId;
        res = await fetch('/agent/runs/' + encodeURIComponent(runId) + '/stream' + (body.user_id ? '?user_id=' + encodeURIComponent(body.user_id) : ''),
          { headers: resumeHeaders }).catch(function () { return null; });
        if (res && !res.ok) {
          var lost = await res.json().catch(function () { return null; });
          bubble.classList.add('error');
          text.textContent = describe(lost, res.status);
          return;
        }
      }
    } catch (err) {
      bubble.classList.add('error');
      text.textContent = 'Connection lost: ' + err.message;
    } finally {
      status.remove();
      $('send').disabled = false;
      $('q').focus();
    }
  }

  async function loadMemory() {
    var list = $('memory');
    var uid = userId();
    list.textContent = '';
    if (!uid) { list.appendChild(el('li', '', 'Set a user id to use memory.')); return; }
    var res = await fetch('/memory/' + encodeURIComponent(uid), { headers: headers(false) });
    var page = await res.json().catch(function () { return null; });
    if (!res.ok) { list.appendChild(el('li', 'error', describe(page, res.status))); return; }
    if (!page.items.length) list.appendChild(el('li', '', 'Nothing remembered yet.'));
    page.items.forEach(function (item) {
      var li = el('li');
      li.setAttribute('data-fact-id', item.id);
      var label = el('span', '', item.text + ' ');
      label.appendChild(el('small', '', item.type));
      var del = el('button', '', 'Delete');
      del.setAttribute('aria-label', 'Delete ' + item.text);
      del.addEventListener('click', async function () {
        del.disabled = true;
        var r = await fetch('/memory/' + encodeURIComponent(uid) + '/items/' + item.type + '/' + encodeURIComponent(item.id),
          { method: 'DELETE', headers: headers(false) });
        if (!r.ok) add('note error', describe(await r.json().catch(function () { return null; }), r.status));
        loadMemory();
      });
      li.appendChild(label);
      li.appendChild(del);
      list.appendChild(li);
    });
  }

  $('forget-all').addEventListener('click', async function () {
    var uid = userId();
    if (!uid) return;
    if (!window.confirm('Forget everything remembered about ' + uid + '? This cannot be undone.')) return;
    var r = await fetch('/memory/' + encodeURIComponent(uid), { method: 'DELETE', headers: headers(false) });
    var out = await r.json().catch(function () { return null; });
    add('note', r.ok ? 'Forgot ' + out.removed + ' fact(s).' : describe(out, r.status));
    loadMemory();
  });
  $('composer').addEventListener('submit', send);

  // The empty chat: a greeting and questions to click, one per kind of thing the assistant looks up.
  // Each works with the offline model too. Gone once the first question is asked.
  var EXAMPLES = [
    'Where is Gates?',
    'Coffee near the library right now',
    "What's open tonight?",
    'Is 15-112 offered in spring?',
    'How does housing work for first-years?',
    'Remember that I live in Stever House',
  ];
  var welcome = el('div');
  welcome.id = 'welcome';
  welcome.appendChild(el('h2', '', 'Hi! Ask me about campus.'));
  welcome.appendChild(el('p', '', 'Buildings and directions, food that is open, courses and the student guide. Try one:'));
  var examples = el('div');
  examples.id = 'examples';
  EXAMPLES.forEach(function (question) {
    var b = el('button', '', question);
    b.type = 'button';
    b.addEventListener('click', function () { $('q').value = question; $('composer').requestSubmit(); });
    examples.appendChild(b);
  });
  welcome.appendChild(examples);
  log.appendChild(welcome);

  fetch('/api/health').then(function (r) { return r.json(); }).then(function (h) {
    $('health').textContent = 'model: ' + (h.model ? h.model.mode : '?') + ' · memory: ' + h.memory.backend + ' · ' + h.status;
  }).catch(function () { $('health').textContent = 'health unavailable'; });
  loadMemory();
})();
`;

/** The page; `nonce` authorises the one inline script under the page's Content-Security-Policy. */
export function playgroundPage(nonce: string): string {
  const toggles = TOOL_GROUPS.map((g) => `<label><input type="checkbox" id="group-${g}" checked> ${GROUP_LABELS[g]}</label>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Campus assistant playground</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><h1>Campus assistant playground</h1><small id="health">checking health…</small></header>
<main>
<section id="chat">
<div id="log" aria-live="polite"></div>
<form id="composer"><input id="q" autocomplete="off" placeholder="Ask about campus…" aria-label="Question" autofocus><button id="send">Send</button></form>
</section>
<aside>
<h2>Settings</h2>
<label>Bearer token (if the service has AGENT_SHARED_SECRET)<input type="password" id="token" autocomplete="off"></label>
<label>User id<input type="text" id="user"></label>
<h2>Tool groups</h2>
${toggles}
<h2>Memory</h2>
<ul id="memory"></ul>
<button id="forget-all" type="button">Forget all</button>
</aside>
</main>
<script nonce="${nonce}" src="/playground/markdown-it.js"></script>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}
