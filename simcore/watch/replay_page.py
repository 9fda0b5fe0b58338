"""A replay as one self-contained HTML page: the board of every position as inline SVG, a slider and
previous/next buttons over the decisions, the scores so far and whose turn it is. No network, no files beside
it: the positions travel in the page as JSON and a little plain JavaScript shows one at a time. A decision
changes a few shapes of the board, so each picture (and text) travels as the edits that make it from the one
before, every distinct piece of SVG stored once: a capture-the-flag game of 2,682 decisions is a page of
0.73 MB instead of 18.4 MB. Each decision has a URL anchor: ``game.html#move-12`` opens at decision 12, and
stepping keeps the address at the decision shown, so that it can be copied and sent. The page fits a phone's
390 px."""

import html
import json
import re
from difflib import SequenceMatcher

from simcore.watch import replay as rp
from simcore.watch.pictures import SEAT_COLOURS

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1rem auto; max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.3rem; margin: 0 0 .3rem; }
code { background: #f3f3f3; padding: .1rem .3rem; border-radius: 3px; font-size: .85rem; }
p { overflow-wrap: anywhere; }   /* a long path or policy spec wraps on a phone */
/* the command that plays the game again stays whole (a break inside --index misreads): it scrolls */
p.command { overflow-x: auto; white-space: nowrap; overflow-wrap: normal; }
main { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
#board { flex: 1 1 560px; min-width: 0; border: 1px solid #ddd; border-radius: 6px; padding: .5rem; }
#board svg { width: 100%; height: auto; max-height: 78vh; }
#board { overflow-x: auto; }   /* on a phone the board keeps a legible size (its script sets it) and scrolls */
/* 440 px beside the board; narrower below it on a phone. min-width 0: a wide text board scrolls in its box,
   it does not push the board away */
aside { flex: 0 1 440px; min-width: 0; }
#scores td:first-child { white-space: nowrap; }
#scores td:nth-child(2) { font-size: .8rem; overflow-wrap: anywhere; }
.controls { display: flex; gap: .4rem; align-items: center; }
.controls input { flex: 1; min-width: 0; }   /* the slider gives way: the buttons stay whole */
button { font: inherit; padding: .2rem .6rem; white-space: nowrap; }
table { border-collapse: collapse; margin: .6rem 0; }
td, th { padding: .15rem .5rem; text-align: left; border-bottom: 1px solid #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.moved td { font-weight: bold; }
.chip { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; vertical-align: middle; }
#move { font-size: 1.05rem; min-height: 2.6rem; }
#result { font-weight: bold; }
/* the position as text, under the board: its long lines of prose wrap on a laptop (its grids are narrower than
   the page); on a phone every line keeps its columns and the box scrolls */
pre { font-size: .75rem; background: #f8f8f8; padding: .5rem; overflow-x: auto; white-space: pre-wrap;
      overflow-wrap: anywhere; }
@media (max-width: 700px) { pre { white-space: pre; overflow-wrap: normal; } }
"""

SCRIPT = r"""
const data = JSON.parse(document.getElementById('frames').textContent);
// on a phone a board is never shown so small that its smallest text is below 12 px: it scrolls in its box
// rather than shrink to unreadable
const PHONE = window.matchMedia('(max-width: 700px)');
function legible(svg) {
  if (!svg || !svg.viewBox.baseVal || !PHONE.matches) return;
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize)).filter(x => x > 0);
  if (sizes.length) svg.style.minWidth = (12 / Math.min(...sizes) * svg.viewBox.baseVal.width) + 'px';
}
// a picture or text is a list of piece numbers, each frame's as splices [at, cut, ...add] of the frame before's
function rebuild(edits) {
  let now = [];
  return edits.map((splices) => {
    now = now.slice();
    for (const [at, cut, ...add] of splices) now.splice(at, cut, ...add);
    return now;
  });
}
const svgs = rebuild(data.svg), texts = rebuild(data.text);
const whole = (numbers) => numbers.map((n) => data.pieces[n]).join('');
const frames = data.move.map((move, i) => ({
  move, seat: data.seat[i], scores: data.scores[i], next: data.next[i], tried: data.tried[i],
  svg: () => whole(svgs[i]), text: () => whole(texts[i])}));
const slider = document.getElementById('step');
const $ = (id) => document.getElementById(id);
slider.max = frames.length - 1;
function show(i) {
  i = Math.max(0, Math.min(frames.length - 1, i));
  slider.value = i;
  const f = frames[i];
  $('board').innerHTML = f.svg();
  legible($('board').querySelector('svg'));
  $('counter').textContent = 'decision ' + i + ' of ' + (frames.length - 1);
  const anchor = '#move-' + i;
  $('anchor').textContent = anchor;
  $('anchor').href = anchor;
  history.replaceState(null, '', anchor);  // a link to this decision; replaced, so Back leaves the page
  $('move').textContent = f.move;
  $('turn').textContent = f.next;
  document.querySelectorAll('#scores tbody tr').forEach((row, seat) => {
    row.querySelector('.score').textContent = f.scores[seat];
    row.classList.toggle('moved', seat === f.seat);
  });
  const tried = $('tried');
  tried.innerHTML = '';
  if (f.tried.length) {
    const head = tried.insertRow();
    for (const t of ['the search tried', 'times', 'mean return']) {
      head.appendChild(document.createElement('th')).textContent = t;
    }
    f.tried.forEach(([words, tries, value]) => {
      const row = tried.insertRow();
      row.insertCell().textContent = words;
      const k = row.insertCell(); k.textContent = tries; k.className = 'n';
      const v = row.insertCell(); v.textContent = value.toFixed(3); v.className = 'n';
    });
  }
  $('result').textContent = i === frames.length - 1 ? RESULT : '';
  const text = f.text();
  $('text').textContent = text;
  $('textbox').hidden = !text;
}
$('prev').onclick = () => show(+slider.value - 1);
$('next').onclick = () => show(+slider.value + 1);
slider.oninput = () => show(+slider.value);
document.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowLeft') show(+slider.value - 1);
  if (e.key === 'ArrowRight') show(+slider.value + 1);
});
// game.html#move-12 opens at decision 12 (0: the start), and so does a hash typed into the address bar
function fromHash() {
  const m = /^#move-(\d+)$/.exec(location.hash);
  return m ? +m[1] : 0;
}
window.addEventListener('hashchange', () => show(fromHash()));
show(fromHash());
"""


def _next(seat):
    return f"seat {seat} to move" if seat >= 0 else "game over"


def frames(replay):
    """One position per entry: the start, then the position after each decision."""
    players = replay.config.players
    out = [{"svg": replay.start_picture, "move": "the start of the game", "seat": -1, "scores": [0] * players,
            "next": _next(replay.start_to_move), "tried": [], "text": ""}]
    for d in replay.decisions:
        out.append({"svg": d.picture, "move": f"{d.move}. seat {d.seat} ({d.policy}): {d.words}", "seat": d.seat,
                    "scores": d.scores, "next": _next(d.to_move), "tried": d.tried,
                    "text": rp.round_end_text(replay, d) if d.round_end else ""})
    return out


# where a picture and a text are cut into the pieces that frames share: an SVG's tags, a text's lines
PIECES = {"svg": re.compile(r"[^<]+|<[^<]*"), "text": re.compile(r"[^\n]*\n|[^\n]+")}


def _deltas(strings, pattern, pieces):
    """Each string as splices ``[at, cut, *add]`` that make its pieces' numbers from the string before's,
    the last position first (applied in order, each leaves the positions before it in place); ``pieces``
    numbers every distinct piece, in the order first seen."""
    before, out = [], []
    for string in strings:
        now = [pieces.setdefault(piece, len(pieces)) for piece in pattern.findall(string)]
        changes = SequenceMatcher(None, before, now, autojunk=False).get_opcodes()
        out.append([[i1, i2 - i1, *now[j1:j2]] for kind, i1, i2, j1, j2 in reversed(changes) if kind != "equal"])
        before = now
    return out


def packed(frames):
    """The frames as the page carries them: one list per field, the pictures and texts as :func:`_deltas`,
    their pieces in ``pieces``."""
    data = {key: [f[key] for f in frames] for key in ("move", "seat", "scores", "next", "tried")}
    pieces = {}
    for key, pattern in PIECES.items():
        data[key] = _deltas([f[key] for f in frames], pattern, pieces)
    data["pieces"] = list(pieces)
    return data


def _score_rows(replay):
    return "".join(f'<tr><td><span class="chip" style="background:{SEAT_COLOURS[s]}"></span> seat {s}</td>'
                   f'<td>{html.escape(p)}</td><td class="n score">0</td></tr>'
                   for s, p in enumerate(replay.config.policies))


def page(replay):
    """The replay's HTML page as text."""
    c = replay.config
    result = rp.result_line(replay)
    if replay.expected is not None:
        result += "; the same as the row in the file" if replay.matches else "; DIFFERENT from the row in the file"
    data = json.dumps(packed(frames(replay)), separators=(",", ":")).replace("</", "<\\/")
    title = f"{c.game} ({c.variant}), seed {c.seed}, game {replay.index}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>simcore replay: {html.escape(title)}</title><style>{STYLE}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="command"><code>{html.escape(rp.command(replay))}</code></p>
<main>
<div id="board"></div>
<aside>
<div class="controls"><button id="prev" title="previous (left arrow)">&#9664; previous</button>
<input type="range" id="step" min="0" value="0" aria-label="decision">
<button id="next" title="next (right arrow)">next &#9654;</button></div>
<p><span id="counter"></span> &middot; link: <a id="anchor"></a></p>
<p id="move"></p>
<p id="turn"></p>
<table id="scores"><thead><tr><th>seat</th><th>policy</th><th>score</th></tr></thead>
<tbody>{_score_rows(replay)}</tbody></table>
<table id="tried"></table>
<p id="result"></p>
</aside>
</main>
<details id="textbox" open><summary>the position as text (at round ends)</summary><pre id="text"></pre></details>
<script type="application/json" id="frames">{data}</script>
<script>const RESULT = {json.dumps(result)};{SCRIPT}</script>
</body></html>
"""
