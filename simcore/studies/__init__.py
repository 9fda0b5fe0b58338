"""The studies: many games at once, run, swept, raced and ranked (run, sweep, duel, versus, ladder,
tune, bench), and how their games are handed out (executors)."""
