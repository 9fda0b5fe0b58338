"""Statistics over simulated games: seat balance, game shape, variant comparisons and sequential tests.

The names below are imported from their modules on first use, so ``simcore run`` (which needs only the
interval) does not pay for importing scipy.
"""

import importlib

HOMES = {   # module -> its public names (the docs site lists them: docs/hooks.py)
    "balance": ("SeatBalanceResult", "find_teams", "seat_balance"),
    "decisiveness": ("Estimate", "Trace", "DecisivenessResult", "load_trace", "decisiveness"),
    "kinds": ("KindStats", "NotableKind", "kind_stats", "notable"),
    "intervals": ("Interval", "proportion_interval"),
    "fairer": ("SeatShiftResult", "ImbalanceChangeResult", "FairWithinResult", "GamesPlan", "seat_shift",
               "imbalance_change", "fair_within", "games_needed", "detectable_edge"),
    "variants": ("Fairness", "fairness"),
    "planning": ("GuessPlan", "ResultsPlan", "plan_guess", "plan_results"),
    "seat_change": ("SeatChangeResult", "seat_change"),
    "paired": ("PairedBinaryResult", "PairedNumericResult", "UnpairedBinaryResult", "UnpairedNumericResult",
               "holm", "paired_binary", "paired_numeric", "unpaired_binary", "unpaired_numeric"),
    "shape": ("GameShapeResult", "game_shape"),
    "sprt": ("SPRT", "TwoSidedSPRT", "GSPRT", "sprt_first_crossing"),
    "verdict": ("Verdict", "LengthTarget", "verdicts"),
}
_MODULE_OF = {name: module for module, names in HOMES.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name):
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'analyses' has no attribute {name!r}")
    return getattr(importlib.import_module(f"analyses.{_MODULE_OF[name]}"), name)


def __dir__():
    return __all__
