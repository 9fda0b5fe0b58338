"""MkDocs hooks: the reference pages generated from the code, when the site is built (``make docs``).

A page holds a marker line, ``<!-- simcore:NAME -->``, which is replaced by the Markdown of ``MARKERS[NAME]``:
every game's parameters, agents and result columns read from the registry, the agents' specs, the columns
every result file has. So the reference cannot drift from the code: a new parameter or game appears at the
next build, and ``mkdocs build --strict`` (CI) fails on a marker that names nothing.
"""

import logging
import re
import time

from simcore import agents, cli
from simcore import games as registry
from simcore.io import config as cfg
from simcore.io import results

MARKER = re.compile(r"^<!-- simcore:([a-z_]+) -->$", re.M)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _default(param):
    text = cfg.toml_value(param.default)
    return f"`{text}`" if "\n" not in text else "(a map, see the rules)"


def _kind(kind):
    """A column's Parquet type (simcore.io.results): int32, bool, or a string of the game's labels."""
    if isinstance(kind, tuple):
        return "string: " + ", ".join(f"`{label}`" for label in kind)
    return {"int": "int32"}.get(kind, kind)


def game_section(name):
    """One game's reference: what it is, its agents, parameters, result columns and trace."""
    module = registry.load(name)
    info = module.GAME
    lines = [f"## `{name}`: {info.long_name}", "", info.summary, "",
             f"* **players**: {', '.join(map(str, info.player_counts))}",
             f"* **rulebook**: {info.rulebook}; the rules as simulated: [{info.long_name}](../{name}.md) "
             f"(`{info.doc}`), rules version {info.rules_version}",
             f"* **has**: {info.capabilities()}",
             f"* **policies**: {', '.join(f'`{p}`' for p in info.policies)}"]
    if "ismcts" in info.policies:
        lines.append(f"* **`ismcts` here means** `{agents.parse('ismcts', info)}` (the game's recommended search)")
    lines += ["", "### Parameters", "",
              _table(("parameter", "default", "allowed", "meaning"),
                     [(f"`{p.name}`", _default(p), p.allowed(), p.help) for p in info.params]),
              "", "### Result columns", "",
              "Besides the [columns of every game](parquet.md) (`score_i` here: the rules page says what it counts):",
              "",
              _table(("column", "type", "meaning"),
                     [(f"`{n.format(seat='i')}`", _kind(k), m) for n, k, m in module.EXTRA_COLUMNS]),
              "", "### Trace (`--trace`)", "",
              f"* **standing**: {module.TRACE_STANDING}, after every {module.TRACE_STEP} "
              f"(at most {module.MAX_TRACE_STEPS:,} steps)",
              "* **action kinds**: " + "; ".join(f"`{k}`: {m}" for k, m in module.ACTION_KINDS),
              "* **end conditions**: " + "; ".join(f"`{k}`: {m}" for k, m in module.END_CONDITIONS), ""]
    return "\n".join(lines)


def games():
    return "\n".join(game_section(name) for name in registry.names())


def agent_specs():
    rows = []
    for name, agent in agents.AGENTS.items():
        spec = agents.Spec(name, tuple(agent.defaults().items()))
        rows.append((f"`{spec}`", agent.summary, "<br>".join(
            f"`{p.name}` = `{p.default}`: {p.help} ({p.allowed()})" for p in agent.params) or "none"))
    return _table(("spec, with its defaults", "what it does", "parameters"), rows)


def common_columns():
    rows = list(results.COMMON) + [(f"{name}_i", kind, meaning) for name, kind, meaning in results.SEATS]
    return _table(("column", "type", "meaning"), [(f"`{n}`", str(k), m) for n, k, m in rows])


def commands():
    return _table(("command", "what it does"),
                  [(f"[`simcore {name}`](#simcore-{name})", command.get_short_help_str(100))
                   for name, command in sorted(cli.main.commands.items())])


def statistics():
    """An API entry for every public name of ``analyses``, by module (mkdocstrings renders the ``:::`` lines)."""
    import analyses

    return "\n\n".join(f"::: analyses.{module}.{name}" for module, names in analyses.HOMES.items()
                         for name in names)


def words():
    """The glossary of a verdict's words (analyses.glossary), as the report's "Words" section gives it."""
    from analyses import glossary

    return glossary.markdown()


MARKERS = {"games": games, "statistics": statistics, "agents": agent_specs, "columns": common_columns,
           "commands": commands, "glossary": words}


LOG = logging.getLogger("mkdocs")
_RUNNING = {}       # a notebook's page -> when its cells began


def on_pre_page(page, config, files):
    """A notebook's cells run as its page renders (mkdocs-jupyter, execute: true), half a minute with nothing
    said: say it before, and how long it took after (:func:`on_post_page`)."""
    if page.file.src_uri.endswith(".ipynb"):
        LOG.info(f"running the notebook {page.file.src_uri}: its cells execute now (half a minute on a first build; "
                 "a notebook unchanged since is read from mkdocs-jupyter's cache)")
        _RUNNING[page.file.src_uri] = time.monotonic()
    return page


def on_post_page(output, page, config):
    began = _RUNNING.pop(page.file.src_uri, None)
    if began is not None:
        LOG.info(f"ran the notebook {page.file.src_uri} in {time.monotonic() - began:.0f} s")
    return output


def on_page_markdown(markdown, page, config, files):
    def replace(match):
        if match[1] not in MARKERS:
            raise ValueError(f"{page.file.src_uri}: unknown marker {match[0]}; allowed: {', '.join(MARKERS)}")
        return MARKERS[match[1]]()

    return MARKER.sub(replace, markdown)


ROLE = re.compile(r":(?:class|func|meth|data|attr|mod):(?=<code>)")
# click 8.3 and later mark an option without a default with a sentinel, which mkdocs-click prints as the default
NO_DEFAULT = re.compile(r"<td><code>Sentinel\.UNSET</code></td>")


def on_page_content(html, page, config, files):
    """The docstrings name objects with Sphinx roles (:class:`Game`): the API pages show the name alone. An
    option without a default has an empty Default cell in the command reference."""
    return NO_DEFAULT.sub("<td></td>", ROLE.sub("", html))
