"""Statistics over simulated games: seat balance, game shape, variant comparisons and sequential tests."""

from analyses.balance import SeatBalanceResult, seat_balance
from analyses.intervals import Interval, proportion_interval
from analyses.paired import (
    PairedBinaryResult,
    PairedNumericResult,
    UnpairedBinaryResult,
    UnpairedNumericResult,
    holm,
    paired_binary,
    paired_numeric,
    unpaired_binary,
    unpaired_numeric,
)
from analyses.shape import GameShapeResult, game_shape
from analyses.sprt import SPRT, TwoSidedSPRT, sprt_first_crossing

__all__ = [
    "SPRT",
    "GameShapeResult",
    "Interval",
    "PairedBinaryResult",
    "PairedNumericResult",
    "SeatBalanceResult",
    "TwoSidedSPRT",
    "UnpairedBinaryResult",
    "UnpairedNumericResult",
    "game_shape",
    "holm",
    "paired_binary",
    "paired_numeric",
    "proportion_interval",
    "seat_balance",
    "sprt_first_crossing",
    "unpaired_binary",
    "unpaired_numeric",
]
