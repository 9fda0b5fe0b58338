"""Der Herr der Wichtel rules; every test quotes what it checks.

RB = the rulebook (Der Herr der Wichtel, Ralf Sandfuchs, Krimsus Krimskrams Kiste 1998), DEC = our decisions on
Der Herr der Wichtel (each restated in docs/wichtel.md, Decisions), SPEC = docs/wichtel.md.
"""

import itertools
from collections import Counter

import numpy as np
import pytest

from simcore import engine
from simcore.engine import rng
from simcore.games import wichtel as w
from simcore.games.wichtel import best_title, score_retinue
from simcore.io import config as cfg

GREEDY, RANDOM = "greedy", "random"


def choose(state, params, policies, streams):
    """The current player's action under its policy: random a uniform option, greedy the game's greedy."""
    seat = w.current_player(state, params)
    if policies[seat] == RANDOM:
        actions = np.zeros(w.MAX_ACTIONS, np.int64)
        return actions[rng.randint(streams, rng.POLICY + seat, w.legal_actions(state, params, actions))]
    return w.greedy_action(state, params, seat, streams, np.zeros(w.WORK_SIZE, np.int64))


def play_on(state, params, policies, streams, until):
    """Decisions under the seats' policies up to a decision in ``until``. True if a seat ends the round: its
    "yes" is not applied, so the retinues stay as the round is scored."""
    while state[w.S_PHASE] not in until:
        action = choose(state, params, policies, streams)
        if action == w.A_END_YES:
            return True
        w.apply_action(state, params, action, streams)
    return False


def play_move(state, params, policies, mover, streams):
    """One move of ``mover`` from its start event on; True if the round ended in it."""
    state[w.S_MOVER] = mover
    w.decide(state, w.PH_START, mover)
    w.apply_action(state, params, choose(state, params, policies, streams), streams)
    return play_on(state, params, policies, streams, (w.PH_START, w.PH_OVER))

# --- scoring --------------------------------------------------------------------


def test_widow_example():
    """RB: 'when the player has a Retinue of two Keulenschwingers (2 points each), one Holzschieber (1 point)
    and the Häuptlings-Witwe he loses five [2*2+1] points'."""
    assert score_retinue(["KS", "KS", "HS", "HW"]) == -5


def test_widow_doubles_a_negative_result():
    """RB: 'When the scoring shows a negative result before the Häuptlings-Witwe can do her job (for example
    when the player became Family Assessor) the woman doubles the amount the player loses.'"""
    assert score_retinue(["FA", "FA", "FA", "HW"]) == 2 * (0 - 5)
    assert best_title(["FA", "FA", "FA", "HW"]) == "Family Assessor"


def test_family_assessor():
    """RB title table: 'Family Assessor ... FA FA (-5)'."""
    assert score_retinue(["FA"] * 4) == -5 and best_title(["FA"] * 4) == "Family Assessor"


def test_master_and_what_breaks_it():
    """RB: 'To gain the title of Master, a player must have a Vorarbeiter and a Holzfäller ...; the Rest can be
    either Holzfäller or Holzschieber cards. But if you have (for example) a Familie or a Keulenschwinger in
    your Retinue you haven't won the title of Master'."""
    assert best_title(["VA", "HF", "HF", "HS"]) == "Master"
    assert score_retinue(["VA", "HF", "HF", "HS"]) == 4 + 2 + 2 + 1 + 13
    assert best_title(["VA", "HF", "HF", "FA"]) is None
    assert best_title(["VA", "HF", "KS", "HS"]) is None
    assert score_retinue(["VA", "HF", "KS", "HS"]) == 4 + 2 + 2 + 1


def test_meister_and_general_set_aside_cards_below_three():
    """RB (Meister, General): 'all cards with a value of less than 3 are discarded before the player's Retinue
    is evaluated.' DEC: 'a retinue cut below 4 cards by step 1 can qualify on its compulsory cards alone'."""
    assert score_retinue(["ME", "VA", "HF", "HF"]) == 7 + 4 + 23          # HF HF set aside
    assert best_title(["ME", "VA", "HF", "HF"]) == "Power behind the throne"
    assert score_retinue(["GE", "WW", "SW", "FA"]) == 8 + 5 + 3 + 25       # FA set aside
    assert score_retinue(["GE", "KS", "KS", "HS"]) == 8                    # only the General is left


def test_hexendoktor_is_a_joker_worth_ten():
    """RB: 'The Hexendoktor can "polymorph" himself into any other card for Scoring purposes. So, whether you need
    a Sergeant or a Wood Cutter, the Hexendoktor as some kind of Joker can stand in for them all ... his value for
    Scoring purposes is always 10.' (The cards Waldwebel = Sergeant, Holzfäller = Wood cutter.)"""
    assert best_title(["HD", "SW", "SW", "KS"]) == "General"               # HD as the Waldwebel (WW)
    assert score_retinue(["HD", "SW", "SW", "KS"]) == 10 + 3 + 3 + 2 + 15
    assert best_title(["VA", "HD", "HS", "HS"]) == "Master"                # HD as the Holzfäller (HF)
    assert score_retinue(["VA", "HD", "HS", "HS"]) == 4 + 10 + 1 + 1 + 13
    assert best_title(["HD", "HF", "HF", "HS"]) == "Master"                # HD as the VA
    assert score_retinue(["HD", "HF", "HF", "HS"]) == 10 + 2 + 2 + 1 + 13


def test_hexendoktor_posing_as_meister_or_general_sets_nothing_aside():
    """DEC step 3: 'step 1 is triggered by a real ME or GE only (an HD posing as ME or GE does not set cards
    aside)'. Posing as ME would give Power behind the throne on VA alone (10+4+23 = 37); the HS stay, so the best
    form is the Holzfäller: Master."""
    assert (score_retinue(["HD", "VA", "HS", "HS"]), best_title(["HD", "VA", "HS", "HS"])) == (29, "Master")
    assert (score_retinue(["HD", "WW", "KS", "KS"]), best_title(["HD", "WW", "KS", "KS"])) == (
        10 + 5 + 2 + 2 + 15, "General")                                    # not Wood Marshal on HD WW alone


def test_with_the_widow_the_hexendoktor_takes_the_title_that_loses_least():
    """DEC step 3: 'The player gets the form, and of the titles that qualify with it the title, that gives the
    highest total after step 4 (... HW HD FA FA = Family Assessor, -5; HW HD HS HS = no title, -12).'"""
    # Points 10 (the widow counts as a Familie, 0). Family Assessor: 10-5 = 5 -> -5; no title: 10 -> -10;
    # Sergeant (HD as SW): 20 -> -20.
    assert score_retinue(["HW", "HD", "FA", "FA"]) == -5
    assert best_title(["HW", "HD", "FA", "FA"]) == "Family Assessor"
    # Points 12. No title: -12; Wood cutter: 15 -> -15; Foreman (HD as HF): 20 -> -20.
    assert score_retinue(["HW", "HD", "HS", "HS"]) == -12
    assert best_title(["HW", "HD", "HS", "HS"]) is None


def test_of_two_equal_totals_the_higher_subtotal_counts():
    """SPEC step 3: 'Two choices can give the same total only with changed card values; then the one with the
    higher subtotal before step 4 counts'. HD worth -1: points -1; no title -1 -> -2, Wood cutter (HD as HS)
    -1+3 = 2 -> -2."""
    params = {"values.HD": -1}
    assert score_retinue(["HW", "HD", "FA", "FA"], params) == -2
    assert best_title(["HW", "HD", "FA", "FA"], params) == "Wood cutter"


# The rulebook's leprechauns (Components) and title table (Scoring), and the decisions' card values, written out
# here so that the brute force below shares nothing with the module.
DECK = {"FA": 6, "HS": 6, "HF": 4, "VA": 2, "ME": 1, "KS": 5, "SW": 3, "WW": 2, "GE": 1, "HD": 1, "HW": 1}
VALUE = {"FA": 0, "HS": 1, "HF": 2, "VA": 4, "ME": 7, "KS": 2, "SW": 3, "WW": 5, "GE": 8, "HD": 10, "HW": 4}
TITLE_TABLE = {                     # title: compulsory, rest, value
    "Family Assessor": ("FA", "FA", -5),
    "Wood cutter": ("HS", "HS FA", 3),
    "Foreman": ("HF", "HF HS FA", 8),
    "Master": ("VA HF", "HF HS", 13),
    "Power behind the throne": ("ME VA", "VA HF", 23),
    "Spear Thrower": ("KS", "KS FA", 5),
    "Sergeant": ("SW", "SW KS FA", 10),
    "General": ("WW SW", "SW KS", 15),
    "Wood Marshal": ("GE WW", "WW SW", 25),
}
CAREER_TABLE = {"Wood-Chief": ("HW HD ME VA", 40), "War-Chief": ("HW HD GE WW", 45), "Chieftain": ("HW HD ME GE", 65)}


def _fits(cards, compulsory, rest):
    """RB: 'the player must have the cards mentioned under the header Compulsory ...; the other cards must be
    several of those that are mentioned as Rest'."""
    left = Counter(cards)
    left.subtract(compulsory)
    return all(n >= 0 for n in left.values()) and all(c in rest for c in left.elements())


def brute_force_score(cards):
    """DEC Scoring, steps 1 to 4, by trying every form of the HD and every title: (best total, its titles)."""
    if "ME" in cards or "GE" in cards:                               # 1. a real ME or GE: below 3 goes
        cards = [c for c in cards if VALUE[c] >= 3]
    for name, (four, value) in CAREER_TABLE.items():                 # 2. exactly a career
        if sorted(cards) == sorted(four.split()):
            return sum(VALUE[c] for c in cards) + value, {name}
    widow = "HW" in cards                                            # 3. the widow is a Familie (0, FA)
    points = sum(0 if c == "HW" else VALUE[c] for c in cards)       # the HD is worth 10 in any form
    as_titles = ["FA" if c == "HW" else c for c in cards]
    forms = [c for c in DECK if c != "HW"] if "HD" in as_titles else ["HD"]   # form HD: it stays itself, none
    outcomes = []
    for form in forms:
        posed = [form if c == "HD" else c for c in as_titles]
        fitting = [name for name, (compulsory, rest, _) in TITLE_TABLE.items()
                   if _fits(posed, compulsory.split(), rest.split())]
        for title in fitting or [None]:
            subtotal = points + (TITLE_TABLE[title][2] if title else 0)
            if widow:                                                # 4. positive turns negative, negative doubles
                subtotal = -subtotal if subtotal > 0 else 2 * subtotal
            outcomes.append((subtotal, title))
    best = max(total for total, _ in outcomes)
    return best, {title for total, title in outcomes if total == best}


def test_every_retinue_of_the_deck_scores_as_the_decision_says():
    """DEC Scoring steps 1-4 (as revised: the HD's player chooses form and title, or none, for the highest total
    after step 4) against a brute force over every multiset of 4 of the 32 leprechauns."""
    assert w.COUNTS == tuple(DECK[c] for c in w.CARDS)
    retinues = [r for r in itertools.combinations_with_replacement(DECK, 4)
                if all(r.count(c) <= DECK[c] for c in r)]
    assert len(retinues) == 720
    for retinue in retinues:
        total, titles = brute_force_score(list(retinue))
        assert len(titles) == 1, retinue                     # at the default values the best choice is unique
        assert (score_retinue(list(retinue)), best_title(list(retinue))) == (total, titles.pop()), retinue


@pytest.mark.parametrize("cards, title, total", [
    (["HW", "HD", "ME", "VA"], "Wood-Chief", 4 + 10 + 7 + 4 + 40),
    (["HW", "HD", "GE", "WW"], "War-Chief", 4 + 10 + 8 + 5 + 45),
    (["HW", "HD", "ME", "GE"], "Chieftain", 94),
])
def test_chieftain_careers(cards, title, total):
    """RB title table: 'Wood-Chief HW,HD,ME,VA (+40) ... War-Chief HW,HD,GE,WW (+45) ... Chieftain HW,HD,ME,GE
    (+65)'; DEC: 'Chieftain HW HD ME GE = 4+10+7+8+65 = 94'."""
    assert best_title(cards) == title and score_retinue(cards) == total


def test_card_values_are_parameters():
    """DEC: 'Card values (values), chosen'."""
    assert score_retinue(["KS", "KS", "KS", "KS"], {"values.KS": 3}) == 12 + 5


def test_the_jitted_lookup_agrees_with_score_retinue_for_every_retinue():
    params = w.params_array(w.GAME.defaults())
    state = w.new_state()
    for combo in itertools.combinations_with_replacement(range(w.N_TYPES), 4):
        state[w.S_RET:w.S_RET + w.N_TYPES] = np.bincount(combo, minlength=w.N_TYPES)
        w.refresh(state, params, 0)
        cards = [w.CARDS[c] for c in combo]
        assert w.retinue_score(state, params, 0, -1, -1) == score_retinue(cards)
        title = w.retinue_title(state, params, 0)
        assert (w.TITLE_NAMES[title] if title >= 0 else None) == best_title(cards)


# --- a constructed round ----------------------------------------------------------


class Round:
    """A round set up by the real ``setup_round``, then edited by the test."""

    def __init__(self, seed=1, policies=(GREEDY,) * 5, **params):
        values = {**w.GAME.defaults(), **params}
        self.params = w.params_array(values)
        self.players = values["players"]
        self.policies = tuple(policies)
        self.state = w.new_state()
        self.streams = np.zeros(rng.N_STREAMS, np.uint64)
        rng.seed_streams(self.streams, seed, 0)
        w.setup_round(self.state, self.params, self.streams)
        self.view = w.View(self.state)

    def retinue(self, seat, cards):
        """Give the seat this retinue (the test's own accounting: conservation is not checked here)."""
        self.view.retinues[seat] = 0
        for c in cards:
            self.view.retinues[seat, w.CARDS.index(c)] += 1
        w.refresh(self.state, self.params, seat)

    def events(self, seat, kinds):
        self.view.events[seat] = 0
        for k in kinds:
            self.view.events[seat, w.EVENTS.index(k)] += 1

    def next_roll(self):
        """The die roll the DICE stream will give next (read from a copy)."""
        return 1 + rng.randint(self.streams.copy(), rng.DICE, 6)

    def enlist(self, mover, slot):
        """The mover enlists the slot's card; the bribe round and the rest run under the policies up to the
        mover's end event. True if a seat ended the round."""
        self.state[w.S_MOVER] = mover
        w.decide(self.state, w.PH_ACTION, mover)
        w.apply_action(self.state, self.params, w.A_ENLIST + slot, self.streams)
        return play_on(self.state, self.params, self.policies, self.streams, (w.PH_END_EVENT,))


@pytest.mark.parametrize("ranking", [list(w.BRIBES), ["2", "3", "4", "5", "ich", "der", "6"],
                                     ["der", "ich", "6", "5", "4", "3", "2"]])
@pytest.mark.parametrize("tie", ["last", "first"])
def test_bribe_ranking_and_tie_rule_for_every_pair(ranking, tie):
    """RB: 'Only the highest Bribe is used ... The ranking list of the Bribes is as follows: (a) 2 Rindentaler
    ... (g) Der bin der Beste! If several players play the same Bribe, the last one to be played counts as the
    highest ranking card.' DEC: bribe_ranking and bribe_tie decide."""
    params = w.params_array({**w.GAME.defaults(), "bribe_ranking": ranking, "bribe_tie": tie})
    for first, later in itertools.product(range(w.N_BRIBES), repeat=2):
        a, b = ranking.index(w.BRIBES[first]), ranking.index(w.BRIBES[later])
        expected = b > a or (b == a and tie == "last")
        assert w.bribe_beats(params, later, first) == expected, (w.BRIBES[first], w.BRIBES[later])


def test_kinds_left_out_of_the_ranking_cannot_bribe():
    """DEC: 'bribe_ranking (default 2 < 3 < ... < Der bin der Beste)': a variant without the Beste cards."""
    r = Round(players=4, policies=(RANDOM,) * 5, bribe_ranking="2,3,4,5,6")
    r.events(1, ["ich", "der"])
    r.state[w.S_CARD] = w.HD
    w.decide(r.state, w.PH_BRIBE, 1)
    for _ in range(30):
        assert choose(r.state, r.params, r.policies, r.streams) == w.A_NO_BRIBE


def _bribed_enlist(seed, kind, rerolls=False):
    """Seat 1 (greedy, wants the HD) bribes with ``kind`` against mover 0; returns (round, first roll)."""
    r = Round(seed=seed, players=4)
    r.view.square[2] = w.HD
    for seat in range(4):
        r.retinue(seat, ["FA", "FA", "KS", "HS"])
        r.events(seat, [])
    r.events(1, [kind])
    if rerolls:
        r.events(0, ["guck_nochmal"])
    first = r.next_roll()
    r.enlist(0, 2)
    return r, first


@pytest.mark.parametrize("kind", ["2", "3", "4", "5", "6"])
def test_rindentaler_bribe_against_each_die_roll(kind):
    """RB: 'He has to roll as many pips as the Bribe in Bark Coins to receive the Leprechaun in question; if he
    doesn't succeed, the bribing player receives the card from the Village Square.'"""
    need = int(kind)
    seen = set()
    for seed in range(200):
        r, roll = _bribed_enlist(seed, "r" + kind)
        seen.add(roll)
        mover_got = r.view.retinues[0, w.HD] == 1
        assert mover_got == (roll >= need) and (r.view.retinues[1, w.HD] == 1) == (roll < need)
        assert r.state[w.S_BRIBES_WON + 1] == (roll < need)
        assert r.state[w.S_DICE] == 1
    assert seen == {1, 2, 3, 4, 5, 6}


def test_unbribed_enlist_fails_only_on_a_one():
    """RB: 'if no one wants to play a Bribe, the player nevertheless has to roll the die; if he rolls a One, the
    courted Leprechaun is so insulted by the lousy offer that he refuses to join the player's Retinue.'"""
    rolls = set()
    for seed in range(80):
        r = Round(seed=seed, players=3)
        r.view.square[1] = w.HD
        for seat in range(3):
            r.retinue(seat, ["FA", "FA", "KS", "HS"])
            r.events(seat, [])
        roll = r.next_roll()
        rolls.add(roll)
        r.enlist(0, 1)
        assert (r.view.retinues[0, w.HD] == 1) == (roll != 1)
        assert (r.view.square[1] == w.HD) == (roll == 1)
    assert 1 in rolls and len(rolls) == 6


def test_ich_guck_nochmal_rerolls_a_failed_roll_once():
    """RB: 'This card can be played after a failed die roll. The candidate may re-roll the die but must accept
    the result of that roll.'"""
    checked = 0
    for seed in range(200):
        r, first = _bribed_enlist(seed, "r6", rerolls=True)
        if first < 6:
            assert r.state[w.S_DICE] == 2 and r.view.events[0, w.GUCK_NOCHMAL] == 0
            checked += 1
        else:
            assert r.state[w.S_DICE] == 1 and r.view.events[0, w.GUCK_NOCHMAL] == 1
    assert checked > 100


def test_nix_da_negates_the_bribe():
    """RB: 'This card can be played against a Bribe card. Both Events are then discarded, and the Bribe is
    negated (i.e. the rolling player will get the Leprechaun unless he rolls a 1).'"""
    for seed in range(40):
        r = Round(seed=seed, players=4)
        r.view.square[2] = w.HD
        for seat in range(4):
            r.retinue(seat, ["FA", "FA", "KS", "HS"])
            r.events(seat, [])
        r.events(1, ["ich"])
        r.events(0, ["nix_da"])
        roll = r.next_roll()
        aside = r.state[w.S_ASIDE]
        r.enlist(0, 2)
        assert r.view.events[0].sum() == 0 and r.view.events[1].sum() == 0
        assert r.state[w.S_ASIDE] == aside + 2
        assert r.view.retinues[0, w.HD] == (roll != 1) and r.view.retinues[1, w.HD] == 0


def _beste_round(seed, kind, policies):
    r = Round(seed=seed, players=4, policies=policies)
    r.view.square[0] = w.HD
    for seat in range(4):
        r.retinue(seat, ["FA", "FA", "KS", "HS"])
        r.events(seat, [])
    r.events(3, [kind])
    r.enlist(0, 0)
    return r


def test_ich_bin_der_beste_takes_without_a_roll():
    """RB: 'When card (f) or (g) comes into play, the Leprechaun is taken by that player without the need of a
    dice roll'."""
    r = _beste_round(1, "ich", (GREEDY,) * 5)
    assert r.view.retinues[3, w.HD] == 1 and r.state[w.S_DICE] == 0 and r.state[w.S_BRIBES_WON + 3] == 1


def test_der_bin_der_beste_must_be_given_to_another_player():
    """RB: 'The one who played the card gets the respective Leprechaun but must give it to another player; he's
    not allowed to keep it for himself. The receiving player must not decline'."""
    recipients = set()
    for seed in range(200):
        r = _beste_round(seed, "der", (RANDOM,) * 5)
        if r.state[w.S_BRIBES_PLAYED + 3] == 0:       # the random seat 3 passed
            continue
        assert r.state[w.S_DICE] == 0 and r.view.retinues[3, w.HD] == 0
        holders = [s for s in range(4) if r.view.retinues[s, w.HD] == 1]
        assert len(holders) == 1
        recipients.add(holders[0])
    assert recipients == {0, 1, 2}


# --- walks ---------------------------------------------------------------------------


def test_walk_forward_and_the_reversal():
    """RB: 'At the beginning of each move the Leprechaun next to the discard stack has to leave the Village
    Square ... All other cards then "walk" up to the discard stack, the first place in the line being filled by
    a new Leprechaun from the drawing stack. ... After the last Leprechaun from the drawing stack has reached the
    Village Square, the line starts to move back (the former discard stack becomes the new drawing stack).'"""
    r = Round(players=3)
    square = list(r.view.square[:3])
    a = list(r.view.stack("A"))
    w.walk(r.state, r.params, r.streams)
    assert list(r.view.stack("B"))[-1] == square[2]
    assert list(r.view.square[:3]) == [a[-1], square[0], square[1]]
    while r.state[w.S_DRAW_SIDE] == 0:
        w.walk(r.state, r.params, r.streams)
    assert r.state[w.S_A_N] == 0                       # A ran out: B draws now, walks go toward A
    b_top = r.view.stack("B")[-1]
    square = list(r.view.square[:3])
    w.walk(r.state, r.params, r.streams)
    assert list(r.view.square[:3]) == [square[1], square[2], b_top]
    assert list(r.view.stack("A")) == [square[0]]


def test_komm_mal_zurueck_walks_the_other_way_once():
    """RB: 'After this card has been played the Leprechauns in the Village Square take a walk in the opposite
    direction (i.e. from the discard stack towards the drawing stack) at the next opportunity.'"""
    r = Round(players=4)
    w.walk(r.state, r.params, r.streams)          # the discard stack now holds 2 cards
    square = list(r.view.square[:4])
    b = list(r.view.stack("B"))
    a = list(r.view.stack("A"))
    r.events(0, ["komm_zurueck"])
    w.square_event(r.state, r.params, 0, w.KOMM_ZURUECK, r.streams)
    w.walk(r.state, r.params, r.streams)
    assert list(r.view.square[:4]) == square[1:] + [b[-1]]
    assert list(r.view.stack("A")) == a + [square[0]] and list(r.view.stack("B")) == b[:-1]
    w.walk(r.state, r.params, r.streams)          # the modifier is spent: forward again
    assert list(r.view.stack("B"))[-1] == b[-1]


def test_stehenbleiben_skips_the_next_walk():
    """RB: 'After this card has been played the Leprechauns remain motionless the next time they should walk.'"""
    r = Round(players=5)
    r.events(1, ["stehenbleiben"])
    before = r.state.copy()
    w.square_event(r.state, r.params, 1, w.STEHENBLEIBEN, r.streams)
    w.walk(r.state, r.params, r.streams)
    assert np.array_equal(r.view.square, w.View(before).square)
    assert r.state[w.S_STAND] == 0 and r.view.events[1].sum() == 0


def test_komm_mal_her_forces_a_walk_at_once():
    """RB: 'This card can be used at the beginning or end of a player's move to force another Leprechaun walk at
    once.'"""
    r = Round(players=3)
    b = r.state[w.S_B_N]
    r.events(2, ["komm_her"])
    w.square_event(r.state, r.params, 2, w.KOMM_HER, r.streams)
    assert r.state[w.S_B_N] == b + 1


# --- the Wahlleiter -------------------------------------------------------------------


def test_no_round_end_before_the_wahlleiter_is_free_and_not_in_the_freeing_move():
    """RB: 'Liberating the Wahlleiter and finishing the round in one single move is not allowed'; DEC: 'the mover
    may free him at the end of its move; from then on any player who receives a new leprechaun ... may end the
    round'."""
    r = Round(players=3, policies=(RANDOM,) * 5)
    for _ in range(200):
        w.received(r.state, 0, w.AFTER_EVENT)
        assert r.state[w.S_PHASE] != w.PH_END_ROUND                      # tied: never asked
    ended_in_freeing_move = 0
    for seed in range(300):
        q = Round(seed=seed, players=3, policies=(RANDOM,) * 5)
        ended = play_move(q.state, q.params, q.policies, 0, q.streams)
        ended_in_freeing_move += ended
    assert ended_in_freeing_move == 0


def test_a_player_who_is_not_the_mover_can_end_the_round():
    """RB: 'Every time a player receives a new Leprechaun for his Retinue he can finish the round (even when it's
    not his own turn but only if the Wahlleiter is liberated before).'"""
    r = Round(players=4)
    r.view.square[0] = w.HD
    for seat in range(4):
        r.retinue(seat, ["FA", "FA", "KS", "HS"])
        r.events(seat, [])
    r.retinue(2, ["VA", "HF", "HF", "HS"])      # seat 2 is ahead and bribes with Ich bin der Beste!
    r.events(2, ["ich"])
    r.state[w.S_FREE] = 1
    assert r.enlist(0, 0)
    assert r.view.retinues[2, w.HD] == 1


# --- whole games -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_cards_are_conserved_and_games_end(players, policy):
    """RB: '32 Leprechauns ... 21 Events'; 'every retinue holds 4 cards between moves'; a game always ends or
    times out (marked)."""
    params = w.params_array({**w.GAME.defaults(), "players": players})
    policies = (policy,) * 5
    state, streams = w.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    view = w.View(state)
    for game in range(25):
        rng.seed_streams(streams, 11, game)
        w.begin(state, params, streams)
        while w.current_player(state, params) >= 0:
            if state[w.S_PHASE] == w.PH_START:                           # between moves
                assert (view.retinues[:players].sum(axis=1) == 4).all()
                assert view.retinues.sum() + players + state[w.S_A_N] + state[w.S_B_N] == 32
                assert view.events.sum() + state[w.S_ASIDE] == 21
            w.apply_action(state, params, choose(state, params, policies, streams), streams)
        over = view.totals[:players].max() >= 99
        assert over and state[w.S_OVER] == 1
    run = cfg.resolve("wichtel", sets=[("players", players)], policies=[("all", policy)], games=2000)
    rows = engine.run(run.module, run.params_array(), run.policies_array(), 5, 2000)
    assert rows[:, engine.O_TIMEOUT].sum() == 0
    short = cfg.resolve("wichtel", sets=[("players", players), ("max_turns", 1)], policies=[("all", policy)])
    rows = engine.run(short.module, short.params_array(), short.policies_array(), 5, 500)
    assert rows[:, engine.O_TIMEOUT].all() and not rows[:, engine.O_WIN:engine.O_WIN + players].any()
