"""The report page's stylesheet and script (report.py inlines both: the page stands alone).

The script does two things: the filter bar (hide cards by spec, kind or
verdict) and the trace player (`#play=SPEC/CHECK/K` in the URL: the whole path
lit on the diagram, step K's row and state marked, previous and next; a lasso's
loop dashed, its back edge labelled, and next past its last step back to the
step the loop starts from).
Text colours keep a contrast of at least 4.5:1 on their backgrounds.
"""

from __future__ import annotations

CSS = """
html{scroll-padding-bottom:42vh}  /* what the player covers */
body{font:15px/1.45 Helvetica,Arial,sans-serif;margin:0 auto;padding:0 1em 45vh;color:#1a1a1a;
 max-width:1400px;overflow-wrap:anywhere}
header{border-bottom:1px solid #bbb;margin-bottom:1em}
.nav{display:flex;flex-wrap:wrap;gap:1em;list-style:none;padding:0}
p.ok,.ok>summary .verdict{font-weight:bold}
p.ok{color:#1B6B32} p.bad{color:#A01525;font-weight:bold}
table.provenance{font-size:13px;border-collapse:collapse}
table.provenance th{white-space:nowrap;vertical-align:top;text-align:left;padding-right:1em;
 font-weight:normal;color:#4a4a4a}
form.filter{display:flex;flex-wrap:wrap;gap:1em;margin:.5em 0 1em;align-items:center}
form.filter select{font-size:14px}
section.spec{margin:2em 0;border-top:2px solid #bbb}
figure.diagram{margin:1em 0;overflow:auto;border:1px solid #ddd;padding:.5em;max-height:90vh;
 position:relative}
figure.diagram.fit svg{max-width:100%;height:auto}
div.zoom{position:sticky;top:0;left:0;z-index:1;display:flex;gap:.3em;background:#fff;
 padding:.2em 0}
div.zoom button{font-size:13px}
table.checks,table.summary{border-collapse:collapse;width:100%;font-size:13px}
table.checks td,table.checks th,table.summary td,table.summary th{border:1px solid #ccc;
 padding:3px 5px;vertical-align:top;text-align:left}
table.summary td.figure{font-weight:bold;width:30%}
details.card{border:1px solid #ccc;border-left:6px solid #1B6B32;margin:.4em 0;padding:.2em .6em}
details.card.bad{border-left-color:#A01525;background:#FFF0EE}
details.card>summary{cursor:pointer}
details.card .kind{color:#4a4a4a}
a.anchor{color:#4a4a4a;text-decoration:none;margin-left:.4em}
table.card{border-collapse:collapse;width:100%;font-size:13px;margin:.3em 0}
table.card th{white-space:nowrap;text-align:left;vertical-align:top;width:7em;color:#4a4a4a;
 font-weight:normal}
table.card td{vertical-align:top;padding:2px 0}
.verdict{font-weight:bold}
.v-proved{color:#1B6B32}.v-witnessed{color:#1F5F99}.v-violated{color:#A01525}.v-unknown{color:#555}
code,pre{font-family:Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;
 overflow-wrap:anywhere}
pre.cert{margin:0}
p.fails{font-family:Menlo,Consolas,monospace;font-size:12px;color:#A01525;margin:.3em 0}
ol.steps{font-family:Menlo,Consolas,monospace;font-size:12px;margin:.3em 0 0 2.5em;padding:0}
figure.sequence{margin:.3em 0;overflow:auto;max-height:80vh;max-width:60vw}
ol.steps a{color:inherit;text-decoration:none}
ol.steps li.now{background:#FFE9A8}
details.source pre{background:#f6f6f6;padding:.5em}
div.variant{border:2px solid #555;padding:.3em .8em;margin:.8em 0}
table.changes{border-collapse:collapse;font-size:13px;width:100%;table-layout:fixed}
table.changes .field{color:#4a4a4a;display:inline-block;min-width:3.5em}
table.changes td,table.changes th{border:1px solid #ccc;padding:2px 5px;text-align:left;
 vertical-align:top}
table.changes del{background:#FBE3E6;color:#7A0E1C}
table.changes ins{background:#E1F3E5;color:#14502A;text-decoration:none;font-weight:bold}
g.edge.changed path,g.edge.added path{stroke-width:3.5px}
.path path,.path polygon,.path ellipse{stroke:#B3123A !important;stroke-width:2px !important}
.hl path,.hl polygon,.hl ellipse{stroke:#B3123A !important;stroke-width:4px !important}
.loop path{stroke-dasharray:7 3}  /* a lasso's loop: dashed, not only coloured */
.hl text{fill:#B3123A !important;font-weight:bold}
g.hl>a>polygon,g.hl>polygon:first-child{fill:#FFE9A8 !important}
aside#player{position:fixed;left:0;right:0;bottom:0;max-height:40vh;overflow:auto;
 background:#fff;border-top:3px solid #B3123A;padding:.4em 1em;box-shadow:0 -2px 8px #0003}
aside#player .controls{display:flex;flex-wrap:wrap;gap:.6em;align-items:center}
aside#player button{font-size:14px}
table#pstate{display:flex;flex-wrap:wrap;gap:2px 4px;font-family:Menlo,Consolas,monospace;
 font-size:12px}
table#pstate tr{display:flex;border:1px solid #ccc}
table#pstate td,table#pstate th{padding:1px 6px;text-align:left}
table#pstate tr.changed{background:#FFE9A8}
table#pstate tr.changed th::after{content:" (changed)";font-weight:normal}
@media print{
 div.zoom{display:none}
 figure.diagram svg{max-width:100%;height:auto}
 details.card,details.rows,details.conformance,details.source{display:block}
 details>summary{list-style:none}
 details:not([open])>*:not(summary){display:block !important}
 aside#player,form.filter{display:none}
 figure.diagram{max-height:none;overflow:visible}
}
"""

JS = """
function $(id) { return document.getElementById(id); }
// ---- the filter bar
function applyFilter() {
  var f = $('filter'), spec = f.spec.value, kind = f.kind.value, verdict = f.verdict.value;
  var shown = 0, all = 0;
  document.querySelectorAll('details.card').forEach(function (c) {
    var v = c.dataset.verdict;
    var ok = (!spec || c.dataset.spec === spec) && (!kind || c.dataset.kind === kind) &&
      (!verdict || (verdict === 'not proved' ? v !== 'proved' :
        verdict === 'failed' ? c.classList.contains('bad') : v === verdict));
    c.hidden = !ok; all += 1; if (ok) { shown += 1; }
  });
  document.querySelectorAll('section.spec').forEach(function (s) {
    s.hidden = !!spec && s.querySelector('details.card[data-spec="' + spec + '"]') === null;
  });
  f.shown.value = shown + ' of ' + all + ' checks shown';
}
$('filter').addEventListener('change', applyFilter);
applyFilter();
// ---- pan (the figure scrolls) and zoom: 100% keeps every label at 9 pt or more
document.querySelectorAll('figure.diagram').forEach(function (fig) {
  var svg = fig.querySelector('svg'); if (!svg) { return; }
  var natural = svg.getAttribute('width'), zoom = 1;
  var bar = document.createElement('div'); bar.className = 'zoom';
  [['−', 'zoom out'], ['100%', 'actual size: labels at 9 pt or more'], ['+', 'zoom in'],
   ['fit', 'fit the page width']].forEach(function (b) {
    var button = document.createElement('button'); button.type = 'button';
    button.textContent = b[0]; button.title = b[1]; bar.appendChild(button);
    button.addEventListener('click', function () {
      fig.classList.toggle('fit', b[0] === 'fit');
      zoom = b[0] === '+' ? zoom * 1.25 : b[0] === '−' ? zoom / 1.25 : 1;
      svg.setAttribute('width', b[0] === 'fit' ? natural :
        (parseFloat(natural) * zoom) + 'pt');
      svg.setAttribute('height', b[0] === 'fit' ? svg.getAttribute('height') :
        (parseFloat(svg.viewBox.baseVal.height) * zoom) + 'pt');
    });
  });
  fig.insertBefore(bar, svg);
});
// ---- the trace player
var playing = null;
function lit(fig) {
  fig.querySelectorAll('.hl,.path').forEach(function (el) {
    el.classList.remove('hl'); el.classList.remove('path');
  });
  fig.querySelectorAll('text[data-orig]').forEach(function (t) {
    t.textContent = t.getAttribute('data-orig'); t.removeAttribute('data-orig');
  });
}
// A step is drawn on its own figure (a view split in parts: wave's two halves).
function element(s, id) { return id ? document.getElementById(s.prefix + id) : null; }
function unlit(t) { t.figures.forEach(function (f) { lit($(f)); }); }
function relabel(edge, prefix) {  // an edge label's text, kept to be restored by lit()
  var label = edge && edge.querySelector('text'); if (!label) { return; }
  if (!label.hasAttribute('data-orig')) { label.setAttribute('data-orig', label.textContent); }
  label.textContent = prefix + label.textContent;
}
function stop() {
  if (playing) { unlit(TRACES[playing.key]); }
  document.querySelectorAll('ol.steps li.now').forEach(function (li) {
    li.classList.remove('now');
  });
  playing = null; $('player').hidden = true;
}
function play(key, k) {
  var t = TRACES[key]; if (!t) { return false; }
  k = Math.max(0, Math.min(k, t.steps.length - 1));
  var step = t.steps[k], last = t.steps.length - 1;
  var fig = $(step.figure), fresh = !playing || playing.key !== key;
  if (playing) { unlit(TRACES[playing.key]); }
  playing = {key: key, k: k};
  // A lasso: the steps after t.loop repeat forever, the last one back to step t.loop.
  var looping = t.loop !== null && t.loop < last;
  t.steps.forEach(function (s, j) {
    s.nodes.forEach(function (n) { var el = element(s, n); if (el) { el.classList.add('path'); } });
    var e = element(s, s.edge);
    if (e) { e.classList.add('path'); if (s.loop) { e.classList.add('loop'); } }
    if (looping && j === last) { relabel(e, '\u21ba to step ' + t.loop + ' '); }
  });
  var target = step.nodes[step.nodes.length - 1];
  var node = element(step, target); if (node) { node.classList.add('hl'); }
  var edge = element(step, step.edge);
  if (edge) { edge.classList.add('hl'); relabel(edge, '#' + k + ' '); }
  $('player').hidden = false;
  $('ptitle').textContent = t.title;
  $('pos').textContent = 'step ' + k + ' of ' + last;
  $('ploop').textContent = t.loop === null ? '' : looping ?
    'loop: steps ' + t.loop + '..' + last + ' repeat forever' :
    'then it stutters at step ' + last + ' forever';
  $('prev').disabled = k === 0; $('next').disabled = k === last && !looping;
  var outs = Object.keys(step.outputs).map(function (o) { return o + '=' + step.outputs[o]; });
  $('prow').textContent = (k === 0 ? 'the initial state' : 'row ' + step.row) +
    (outs.length ? '; out: ' + outs.join(' ') : '');
  var table = $('pstate'); table.textContent = '';
  Object.keys(step.state).forEach(function (v) {
    var tr = document.createElement('tr'), th = document.createElement('th');
    var td = document.createElement('td');
    th.textContent = v; td.textContent = step.state[v];
    if (step.changed.indexOf(v) >= 0) { tr.className = 'changed'; }
    tr.appendChild(th); tr.appendChild(td); table.appendChild(tr);
  });
  var card = $(t.card);
  if (card) {
    card.open = true;
    card.querySelectorAll('ol.steps li').forEach(function (li) {
      li.classList.toggle('now', li.dataset.step === String(k));
    });
  }
  if (fresh) { fig.scrollIntoView({block: 'start'}); }
  var seen = edge || node;  // pan the figure to the step
  if (seen) { seen.scrollIntoView({block: 'center', inline: 'center'}); }
  return true;
}
function fromHash() {
  var m = /^#play=(.+)\\/(\\d+)$/.exec(decodeURIComponent(location.hash));
  if (m) { play(m[1], parseInt(m[2], 10)); } else if (playing) { stop(); }
}
// The hash is set for the link, and the step shown at once (hashchange comes later).
function go(k) { location.hash = 'play=' + playing.key + '/' + k; fromHash(); }
document.addEventListener('click', function (ev) {
  var a = ev.target.closest('a');
  if (!a) { return; }
  var href = a.getAttribute('href') || a.getAttribute('xlink:href');
  if (href === '#') { ev.preventDefault(); return; }  // a diagram's note line or table row
  if (href && href.indexOf('#play=') === 0) {
    ev.preventDefault(); location.hash = href.slice(1); fromHash();
  }
});
$('prev').addEventListener('click', function () { go(playing.k - 1); });
// Past a lasso's last step, the run is back at the step its loop starts from.
function after(k) {
  var t = TRACES[playing.key];
  return k < t.steps.length - 1 ? k + 1 : t.loop;
}
$('next').addEventListener('click', function () { go(after(playing.k)); });
$('close').addEventListener('click', function () {
  var card = playing && $(TRACES[playing.key].card);
  stop(); history.replaceState(null, '', card ? '#' + card.id : location.pathname);
});
document.addEventListener('keydown', function (ev) {
  if (!playing || ev.target.tagName === 'SELECT') { return; }
  if (ev.key === 'ArrowLeft' && playing.k > 0) { go(playing.k - 1); }
  if (ev.key === 'ArrowRight' && !$('next').disabled) { go(after(playing.k)); }
});
window.addEventListener('hashchange', fromHash);
fromHash();
"""
