// The copy button of a console block copies its commands alone, ready to paste into a shell: not the "$ "
// prompts, not what the commands print. The page keeps showing the whole session (tests/test_pages.py runs it
// as written). mkdocs-material copies a block's data-copy attribute where it has one, else the block's text.
function commands(code) {
  const copy = code.cloneNode(true);
  copy.querySelectorAll(".gp, .go").forEach((span) => span.remove());   // the console lexer's prompt, output
  return copy.textContent.split("\n").filter((line) => line.trim()).join("\n");
}

document$.subscribe(() => {
  document.querySelectorAll(".highlight code").forEach((code) => {
    if (code.querySelector(".gp")) code.dataset.copy = commands(code);
  });
});
