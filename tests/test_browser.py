"""Replay pages and the HTML report as a person sees them: opened in headless Chromium (issue 15, item 4).

Needs the system's Chromium (Debian's package ``chromium``; ``.ci/run`` installs it) and Playwright to drive
it. Without either, every test here is skipped with a message saying so, never passed.
"""

import shutil

import matplotlib.image as mpimg
import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore.io import config as cfg
from simcore.studies import runs
from simcore.watch import replay

PHONE = {"width": 390, "height": 844}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no Chromium on this machine (install Debian's chromium package, as .ci/run does): "
                    "the browser tests did not run")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (make installs "
                                   "it with the dev extras): the browser tests did not run")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page that records every JavaScript error and console error."""
    p = browser.new_page(viewport={"width": 1366, "height": 800})
    p.errors = []
    p.on("pageerror", lambda e: p.errors.append(str(e)))
    p.on("console", lambda m: p.errors.append(m.text) if m.type == "error" else None)
    yield p
    p.close()


def assert_picture(path, colours=()):
    """The screenshot exists, is not blank, and shows the given colours (hex) somewhere."""
    pixels = mpimg.imread(path)[..., :3]
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100
    assert pixels.std() > 0.05, "the screenshot is (nearly) one colour"
    flat = (pixels.reshape(-1, 3) * 255).round()
    for colour in colours:
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(flat - rgb).max(axis=1) <= 8).sum() > 50, f"{colour} is not on the screenshot"


def expected_result(row, players):
    """The final step's words, from the file's row alone."""
    scores = ", ".join(str(row[f"score_{s}"]) for s in range(players))
    return f"{replay.winners(row, players)}; scores {scores}; {row['n_turns']} turns"


@pytest.mark.parametrize("game, sets", [("zwai", [("players", 3), ("formation", "ring")]),
                                        ("zwergen", [("players", 4)]), ("wichtel", [("players", 3)]),
                                        ("skirmish", [("scenario", "capture_the_flag")])])
def test_a_replay_page_shows_the_board_and_steps_to_the_rows_result(page, tmp_path, game, sets):
    """Issue 15, items 2 and 4: the board is drawn, the slider and the buttons step through the decisions,
    and the last step's text is the row's result; no JavaScript errors."""
    from simcore.watch.pictures import SEAT_COLOURS

    config = cfg.resolve(game, sets=sets, policies=[("all", "greedy")], games=2, seed=4)
    results = tmp_path / "run.parquet"
    runs.run_to_file(config, results)
    out = tmp_path / "game.html"
    replay.write_html(results, 1, out)
    page.goto(out.as_uri())
    assert page.locator("#board svg").count() == 1
    assert page.locator("#board svg *").count() > 10
    steps = int(page.locator("#step").get_attribute("max"))
    page.click("#next")
    page.click("#next")
    page.click("#prev")
    assert page.inner_text("#counter") == f"decision 1 of {steps}"
    assert page.inner_text("#move").startswith("1. seat ")
    page.screenshot(path=tmp_path / "first.png", full_page=True)
    assert_picture(tmp_path / "first.png", SEAT_COLOURS[:config.players])
    page.locator("#step").fill(str(steps))
    assert page.inner_text("#turn") == "game over"
    row = pq.read_table(results).to_pylist()[1]
    assert page.inner_text("#result") == expected_result(row, config.players) + "; the same as the row in the file"
    scores = [int(x) for x in page.locator("#scores .score").all_inner_texts()]
    assert scores == [row[f"score_{s}"] for s in range(config.players)]
    page.screenshot(path=tmp_path / "last.png", full_page=True)
    assert_picture(tmp_path / "last.png")
    assert page.errors == []


def _zwergen_report(folder, cli):
    """The HTML report of a random and a greedy Zwergen variant, with its replay pages."""
    folder.mkdir()
    for variant, policy in (("random", "random"), ("greedy", "greedy")):
        runs.run_to_file(cfg.resolve("zwergen", policies=[("all", policy)], games=300, seed=2, variant=variant),
                         folder / f"{variant}.parquet")
    done = cli("analyze", folder, "--report", folder / "report.html")
    assert done.returncode == 0, done.stderr
    return folder / "report.html"


def test_the_html_report_shows_its_plots_and_links_to_replays_that_open(page, tmp_path, cli):
    """Issue 15, items 3 and 4: the report page shows its tables and embedded plots with no JavaScript
    errors, and its replay links open pages that draw the board."""
    page.goto(_zwergen_report(tmp_path / "sweep", cli).as_uri())
    images = page.locator("img")
    assert images.count() >= 3
    assert all(page.evaluate("(img) => img.complete && img.naturalWidth > 100", h) for h in images.element_handles())
    assert page.locator("table").count() >= 4
    page.screenshot(path=tmp_path / "report.png", full_page=True)
    assert_picture(tmp_path / "report.png", ["#1f77b4", "#ff7f0e"])   # the plots' seat colours
    links = page.locator("a[href$='.html']")
    assert links.count() >= 4
    links.first.click()
    page.wait_for_load_state()
    assert page.locator("#board svg").count() == 1
    assert page.inner_text("#move") == "the start of the game"
    assert page.errors == []


def test_a_decision_has_a_url_anchor_that_opens_it(page, tmp_path):
    """Issue 21: page.html#move-N opens at decision N and names its anchor so that it can be copied; stepping
    keeps the address at the decision shown, replacing it (Back leaves the page, it does not step back)."""
    config = cfg.resolve("zwai", sets=[("players", 3)], policies=[("all", "greedy")], games=1, seed=4)
    out = tmp_path / "game.html"
    played = replay.play(config, 0, pictures=True)
    replay.write_page(played, out)
    page.goto(out.as_uri() + "#move-12")
    assert page.inner_text("#counter").startswith("decision 12 of ")
    assert page.inner_text("#move").startswith("12. seat ")
    assert page.inner_text("#anchor") == "#move-12"
    assert page.get_attribute("#anchor", "href") == "#move-12"
    length = page.evaluate("history.length")
    page.click("#next")
    assert page.evaluate("location.hash") == "#move-13"
    assert page.inner_text("#move").startswith("13. seat ")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("location.hash") == "#move-11" and page.evaluate("history.length") == length
    page.evaluate("location.hash = '#move-3'")        # a hash typed into the address bar
    page.wait_for_function("document.getElementById('counter').textContent.startsWith('decision 3 of')")
    end = next(d.move for d in played.decisions if d.round_end)
    page.evaluate(f"location.hash = '#move-{end}'")   # a round end: its text board scrolls beside the board
    page.wait_for_function(f"document.getElementById('counter').textContent.startsWith('decision {end} of')")
    board, aside = page.locator("#board").bounding_box(), page.locator("aside").bounding_box()
    assert page.is_visible("#text") and board["x"] + board["width"] <= aside["x"]
    assert page.errors == []


def _fits(page):
    """Every table fits its box (no sideways scroll), every image loaded; a screenshot of the whole page."""
    wide = page.evaluate("() => [...document.querySelectorAll('.table')].filter(d => d.scrollWidth > d.clientWidth)"
                         ".map(d => d.querySelector('th').textContent)")
    assert wide == [], f"tables wider than the page: {wide}"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    images = page.locator("img")
    assert images.count() >= 2
    assert all(page.evaluate("(img) => img.complete && img.naturalWidth > 100", h) for h in images.element_handles())


@pytest.mark.parametrize("kind", ["skirmish columns", "skill levels"])
def test_the_html_report_fits_a_laptop(browser, tmp_path, kind):
    """Issue 25, part 8: at 1280 px no table of the report scrolls sideways (the skirmish's 40 columns of its own,
    a skill sweep's long policy specs) and every plot loads; a sweep of one fixed length draws no length plot."""
    from analyses import data, report
    from simcore.studies import sweep

    folder = tmp_path / "runs"
    if kind == "skill levels":
        sweep.run(sweep.load("configs/zwai-skill.toml", games=4), folder)
    else:
        folder.mkdir()
        for variant, policy in (("random", "random"), ("greedy", "greedy")):
            runs.run_to_file(cfg.resolve("skirmish", sets=[("scenario", "wizard_war")], policies=[("all", policy)],
                                         games=60, seed=2, variant=variant), folder / f"{variant}.parquet")
    path = report.write_report(data.load_folder(folder), folder / "report.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri())
    _fits(page)
    page.screenshot(path=tmp_path / "report.png", full_page=True)
    assert_picture(tmp_path / "report.png")
    if kind == "skill levels":      # Zwai's 48 turns in every game: a sentence, not a box of a constant
        assert "Not plotted: within each variant, every game lasts as long." in page.inner_text("body")
        assert page.locator("img[alt='game length']").count() == 0
    page.close()


def _fits_a_phone(page, shot):
    """At a phone's width the page does not scroll sideways; a screenshot of the whole page."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=shot, full_page=True)
    assert_picture(shot)


def _steps_on_a_phone(page):
    """The replay's buttons are on screen and step: "next" within the width, as a thumb finds it."""
    button = page.locator("#next").bounding_box()
    assert 0 <= button["x"] and button["x"] + button["width"] <= PHONE["width"]
    before = page.inner_text("#counter")
    page.click("#next")
    assert page.inner_text("#counter") != before


def test_the_html_report_and_its_replays_fit_a_phone(page, tmp_path, cli):
    """Issue 36: at a phone's 390 px the replay page was 456 px wide and its "next" button off-screen. The
    HTML report and the replay pages it links fit the width, with screenshots of both."""
    page.set_viewport_size(PHONE)
    page.goto(_zwergen_report(tmp_path / "sweep", cli).as_uri())
    _fits_a_phone(page, tmp_path / "report-390.png")
    page.locator("a[href$='.html']").first.click()
    page.wait_for_load_state()
    _steps_on_a_phone(page)
    _fits_a_phone(page, tmp_path / "replay-390.png")
    assert page.errors == []


def test_a_long_replay_page_is_small_and_fits_a_phone(page, tmp_path):
    """Issue 36: the page of a random capture-the-flag game of 2,682 decisions was 18.4 MB, every board whole.
    It is under 1 MB, shows every board the game drew, exactly, steps to the row's result and fits 390 px."""
    config = cfg.resolve("skirmish", sets=[("scenario", "capture_the_flag")], policies=[("all", "random")],
                         games=1, seed=1)
    played = replay.play(config, 0, pictures=True)
    assert len(played.decisions) > 2000
    out = tmp_path / "game.html"
    replay.write_page(played, out)
    assert out.stat().st_size < 1_000_000
    page.set_viewport_size(PHONE)
    page.goto(out.as_uri())
    boards = [played.start_picture] + [d.picture for d in played.decisions]
    assert page.evaluate("frames.map((f) => f.svg())") == boards
    _steps_on_a_phone(page)
    page.locator("#step").fill(str(len(played.decisions)))
    assert page.inner_text("#result") == replay.result_line(played)
    _fits_a_phone(page, tmp_path / "replay-390.png")
    assert page.errors == []


# --- issue 54: pages that work on a phone and for every game ---------------------------------------------------

DPI, SMALLEST_PT = 110, 10 * 0.833       # the report's plots: their PNG's dpi, matplotlib's "small" labels
GAMES = [("zwai", [("players", 4)]), ("zwergen", [("players", 4)]), ("wichtel", [("players", 5)]),
         ("skirmish", []), ("goofspiel", [])]


def _replay_page(tmp_path, game, sets, monkeypatch=None):
    played = replay.play(cfg.resolve(game, sets=sets, policies=[("all", "random")], games=1, seed=3), 0,
                         pictures=True)
    out = tmp_path / f"{game}.html"
    replay.write_page(played, out)
    return out


def _legible_on_a_phone(page, shot):
    """At 390 px: nothing off the side, the smallest text of the board at 12 px or more (the board scrolls in its
    box instead), "next" in reach, the command on one line."""
    _fits_a_phone(page, shot)
    smallest = page.evaluate("""() => { const svg = document.querySelector('#board svg');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize)))
               * scale; }""")
    assert smallest >= 11.9, f"the board's smallest text is {smallest:.1f} px"
    _steps_on_a_phone(page)
    assert page.evaluate("() => document.querySelector('p.command code').getClientRects().length") == 1


def _legend_off_the_box(page):
    """The legend's lines (a seat's swatch and the words after it) that lie, wholly or in part, outside the board's
    box, scrolled to its left, or outside the picture (cut at its edge): a phone's reader sees who is who without
    scrolling the board sideways."""
    return page.evaluate("""() => { const board = document.getElementById('board').getBoundingClientRect();
        const picture = document.querySelector('#board svg').getBoundingClientRect();
        const box = {left: Math.max(board.left, picture.left), right: Math.min(board.right, picture.right)};
        const swatches = [...document.querySelectorAll('#board svg rect[width="10"]')].filter(r =>
            /^s\\d$/.test(r.getAttribute('class')));
        if (!swatches.length) return ['no seat swatch: no legend'];
        const words = (r) => { let e = r.nextElementSibling;
            while (e && e.tagName !== 'text') e = e.nextElementSibling; return e; };
        return swatches.flatMap(r => [r, words(r)]).filter(e => e).filter(e => {
            const s = e.getBoundingClientRect(); return s.left < box.left || s.right > box.right; })
            .map(e => e.textContent || e.getAttribute('class')); }""")


@pytest.mark.parametrize("game, sets", GAMES, ids=[g for g, _ in GAMES])
def test_every_games_replay_is_legible_on_a_phone_and_whole_on_a_laptop(browser, tmp_path, game, sets):
    out = _replay_page(tmp_path, game, sets)
    phone = browser.new_page(viewport=PHONE)
    phone.goto(out.as_uri())
    _legible_on_a_phone(phone, tmp_path / f"{game}-390.png")
    phone.locator("#step").fill(str(phone.evaluate("frames.length - 1")))      # the end: the largest board
    assert _legend_off_the_box(phone) == [], "the legend belongs below the board, in view on a phone"
    phone.close()
    laptop = browser.new_page(viewport={"width": 1280, "height": 900})
    laptop.goto(out.as_uri())
    assert laptop.evaluate("() => document.documentElement.scrollWidth") <= 1280
    laptop.locator("#step").fill(str(laptop.evaluate("frames.length - 1")))     # the end: its text is shown
    hidden = laptop.evaluate("() => { const t = document.getElementById('text'); return t.scrollWidth - "
                             "t.clientWidth; }")
    assert laptop.is_visible("#text") and hidden <= 0, f"the position as text is cut by {hidden} px on the right"
    laptop.screenshot(path=tmp_path / f"{game}-1280.png", full_page=True)
    assert_picture(tmp_path / f"{game}-1280.png")
    laptop.close()


def test_a_game_without_a_picture_replays_from_its_text(browser, tmp_path, monkeypatch):
    """A game that declares no picture (picture=False) is drawn from its text view, legible on a phone."""
    import dataclasses

    from simcore import games

    module = games.load("goofspiel")
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, picture=False))
    out = _replay_page(tmp_path, "goofspiel", [])
    phone = browser.new_page(viewport=PHONE)
    phone.goto(out.as_uri())
    assert "prizes face down" in phone.inner_text("#board")
    _legible_on_a_phone(phone, tmp_path / "pictureless-390.png")
    phone.close()


def test_the_report_on_a_phone_keeps_its_first_column_and_legible_plots(browser, tmp_path, cli):
    """At 390 px a wide table scrolls in its box with its first column in view and a shade at the edge with more
    to show; a plot keeps a size at which its smallest labels are 10 px or more, and scrolls in its box."""
    report = _zwergen_report(tmp_path / "sweep", cli)
    phone = browser.new_page(viewport=PHONE)
    phone.goto(report.as_uri())
    _fits_a_phone(phone, tmp_path / "report-390.png")
    sticky = phone.evaluate("() => [...document.querySelectorAll('.table td:first-child')].every(td => "
                            "getComputedStyle(td).position === 'sticky')")
    assert sticky
    scrolling = phone.evaluate("() => [...document.querySelectorAll('.table')].filter(d => d.scrollWidth > "
                               "d.clientWidth).map(d => getComputedStyle(d).backgroundImage)")
    assert scrolling and all("gradient" in cue for cue in scrolling)
    labels = phone.evaluate("() => [...document.querySelectorAll('.plot img')].map(img => "
                            "img.getBoundingClientRect().width / img.naturalWidth)")
    assert labels and min(labels) * SMALLEST_PT * DPI / 72 >= 10, labels
    phone.close()
