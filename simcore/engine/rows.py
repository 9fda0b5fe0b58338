"""The result of one game: one row of an ``int64`` matrix laid out as::

    | first_seat | n_turns | timeout | win_0 .. win_{M-1} | score_0 .. score_{M-1} | extras ... |

with ``M = module.MAX_SEATS`` and the extras named by ``module.EXTRA_COLUMNS``. A game's ``write_row`` fills
it (``from simcore.engine import O_WIN, score_offset, ...``); the engine and the result files read it."""

O_FIRST_SEAT = 0
O_N_TURNS = 1
O_TIMEOUT = 2
O_WIN = 3


def score_offset(max_seats):
    return O_WIN + max_seats


def extra_offset(max_seats):
    return O_WIN + 2 * max_seats
