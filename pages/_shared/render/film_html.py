"""A film to take away: the first merges of the run as one self-contained HTML file.

The file plays offline (slides, course pages): the pair chart as HTML bars, the passage
before and after each merge, the merge log, with play/pause/step. No network: no CDN,
no fonts, no images, and a Content-Security-Policy that forbids fetching anything and
runs only the file's own script (by its hash).

Escaping, as carefully as the app: the film's data is JSON inside a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as
``\\u003c``..., so no text can close the block; the script puts every token into the page
with ``textContent``, never as HTML; the title and the line about the run go through `html.text_html` (escaped, bidi controls
as marks).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json

from pages._shared.render.html import text_html

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("film-data").textContent);
  var frames = data.frames, k = 0, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function colour(id) { return "hsl(" + ((id * 137.508) % 360).toFixed(0) + ",70%,85%)"; }
  function tokenSpan(id, cls) {
    var text = data.tokens[String(id)], span = el("span", "tok" + (cls ? " " + cls : ""), text);
    span.style.background = colour(id);
    span.title = "id " + id + ": '" + text + "'";
    return span;
  }
  function line(box, spans) {
    box.textContent = "";
    spans.forEach(function (span, i) {
      if (i) box.appendChild(document.createTextNode(" "));
      box.appendChild(span);
      if (span.textContent.slice(-1) === "\u21b5") box.appendChild(el("br"));
    });
  }
  function render() {
    var f = frames[k];
    $("step").textContent = "Step " + (k + 1).toLocaleString("en-US") + " of " + frames.length.toLocaleString("en-US");
    $("headline").textContent = "Merge " + f.number + ": " + f.pair[0] + " + " + f.pair[1] + " \u2192 " +
      f.token + ", " + f.count.toLocaleString("en") + " times" + (f["new"] ? "" : " (already in the vocabulary)");
    var chart = $("chart"), most = f.top.length ? f.top[0][1] : 1;
    chart.textContent = "";
    f.top.forEach(function (entry, i) {
      var kind = i === 0 ? "winner" : entry[1] === f.count ? "tie" : "other";
      var row = el("div", "bar-row " + kind);
      row.appendChild(el("span", "bar-label", entry[0]));
      var bar = el("span", "bar");
      bar.style.width = Math.max(2, 100 * entry[1] / most) + "%";
      row.appendChild(bar);
      row.appendChild(el("span", "bar-count", entry[1].toLocaleString("en") + (kind === "tie" ? " (tie)" : "")));
      chart.appendChild(row);
    });
    var before = [], after = [], i = 0;
    while (i < f.before.length) {
      var id = f.before[i][0], mark = f.before[i][1];
      if (mark === 1 && i + 1 < f.before.length) {
        before.push(tokenSpan(id, "pair-left"), tokenSpan(f.before[i + 1][0], "pair-right"));
        after.push(tokenSpan(f.token_id, "merged"));
        i += 2;
      } else {
        before.push(tokenSpan(id, mark === 3 ? "special" : ""));
        after.push(tokenSpan(id, mark === 3 ? "special" : ""));
        i += 1;
      }
    }
    line($("before"), before);
    line($("after"), after);
    var log = $("log");
    log.textContent = "";
    frames.slice(Math.max(0, k - 7), k + 1).forEach(function (g) {
      var row = el("tr", g === f ? "current" : "");
      [g.number, g.pair[0] + " + " + g.pair[1], g.token, g.count.toLocaleString("en"),
       g.length.toLocaleString("en"), g.vocab.toLocaleString("en")].forEach(function (cell) {
        row.appendChild(el("td", "", String(cell)));
      });
      log.appendChild(row);
    });
    $("back").disabled = k === 0;
    $("forward").disabled = k === frames.length - 1;
  }
  function go(to) { k = Math.min(Math.max(to, 0), frames.length - 1); render(); }
  function pause() { clearInterval(timer); timer = null; $("play").textContent = "Play"; }
  function play() {
    if (k === frames.length - 1) go(0);
    $("play").textContent = "Pause";
    timer = setInterval(function () {
      if (k >= frames.length - 1) { pause(); return; }
      go(k + 1);
    }, Number($("speed").value));
  }
  $("play").addEventListener("click", function () { if (timer) pause(); else play(); });
  $("back").addEventListener("click", function () { pause(); go(k - 1); });
  $("forward").addEventListener("click", function () { pause(); go(k + 1); });
  $("start").addEventListener("click", function () { pause(); go(0); });
  $("speed").addEventListener("change", function () { if (timer) { pause(); play(); } });
  document.addEventListener("keydown", function (event) {
    if (event.key === "ArrowRight") { pause(); go(k + 1); }
    else if (event.key === "ArrowLeft") { pause(); go(k - 1); }
    else if (event.key === " ") { event.preventDefault(); if (timer) pause(); else play(); }
  });
  if (frames.length) render();
  else { $("step").textContent = "No merges in this film"; $("play").disabled = true; }
})();
"""

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;color:#0f172a}
h1{font-size:1.4rem;margin:0 0 .2rem} .about{color:#475569;font-size:.9rem;margin:0 0 1rem}
.controls{display:flex;gap:.5rem;align-items:center;margin-bottom:.8rem}
button{font-size:1rem;padding:.3rem .9rem;border-radius:.4rem;border:1px solid #cbd5e1;background:#fff;cursor:pointer}
button#play{background:#dc2626;color:#fff;border-color:#dc2626} button:disabled{opacity:.4;cursor:default}
#step{font-weight:600;font-size:1.1rem;margin-left:.5rem} #headline{font-size:1.15rem;margin:.4rem 0 .8rem}
.grid{display:grid;grid-template-columns:3fr 2fr;gap:1.5rem}
.bar-row{display:grid;grid-template-columns:9rem 1fr 6rem;align-items:center;gap:.5rem;margin:2px 0;font-size:.85rem}
.bar-label{font-family:monospace;white-space:pre;overflow:hidden;text-overflow:ellipsis;text-align:right}
.bar{display:block;height:1rem;background:#94a3b8;border-radius:2px} .winner .bar{background:#dc2626}
.tie .bar{background:#f59e0b} .bar-count{color:#334155}
.text{font-family:monospace;line-height:2;font-size:.95rem;white-space:normal}
.tok{border-radius:3px;padding:0 2px;white-space:pre} .pair-left,.pair-right{outline:2px dashed #dc2626}
.merged{outline:2px solid #dc2626;font-weight:600} .tok.special{background:#1e293b!important;color:#f8fafc;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;width:100%} td,th{border-bottom:1px solid #e2e8f0;padding:2px 6px;text-align:left}
td:nth-child(2),td:nth-child(3){font-family:monospace;white-space:pre} tr.current{background:#fef3c7;font-weight:600}
h2{font-size:1rem;margin:1rem 0 .3rem}
"""


def film_html(data: dict, about: str) -> str:
    """The film as one HTML document. ``data`` is `bpe.analysis.film.film_data`; ``about``
    one line of plain text saying what run it comes from."""
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; script-src 'sha256-{script_hash}'; style-src 'unsafe-inline'; "
        "img-src 'none'; connect-src 'none'; font-src 'none'; base-uri 'none'; form-action 'none'"
    )
    title = text_html(data["title"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=True)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{STYLE}</style>
</head>
<body>
<h1>{title}</h1>
<p class="about">{text_html(about)}</p>
<div class="controls">
<button id="start" title="back to the first merge">First</button><button id="back" title="step back (←)">◀ Step</button>
<button id="play" title="play or pause (space)">Play</button><button id="forward" title="step forward (→)">Step ▶</button>
<select id="speed" title="seconds per step"><option value="2000">2 s</option><option value="1000" selected>1 s</option>
<option value="500">0.5 s</option><option value="250">0.25 s</option></select>
<span id="step">Step</span>
</div>
<div id="headline"></div>
<div class="grid">
<div><h2>The most frequent pairs before the merge (red: merged; amber: tied with it)</h2><div id="chart"></div></div>
<div><h2>Merge log</h2><table><thead><tr><th>step</th><th>pair</th><th>new token</th><th>count</th>
<th>sequence length</th><th>vocab size</th></tr></thead><tbody id="log"></tbody></table></div>
</div>
<h2>Before the merge: the pairs it merges are outlined</h2><div class="text" id="before"></div>
<h2>After the merge: the new tokens are outlined</h2><div class="text" id="after"></div>
<script type="application/json" id="film-data">{script_json(data)}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""


def script_json(data) -> str:
    """JSON that is safe inside a script element: nothing in it can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text
