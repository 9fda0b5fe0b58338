"""Zwergen Ziehen rules, each in a constructed position; every test quotes what it checks.

RB = the rulebook (Zwergen Ziehen, Philippe des Pallières, Asmodée 2002, in its English translation), DEC = the
rules decisions (restated in docs/zwergen.md, "Decisions").
"""

import numpy as np
import pytest

from simcore.engine import rng
from simcore.games import zwergen as z
from tests.zwergen_positions import Position

R, Y, G, B = z.RED, z.YELLOW, z.GREEN, z.BLUE
A_TEAM, B_TEAM = 0, 1


# --- pull cards -----------------------------------------------------------------

def test_example_1_five_against_three_pulls_two():
    """RB: 'the team on the left team has a strength of 5 and the team on the right has a strength of 3.
    The team on the left pulls the rope two spaces in their direction.'"""
    p = Position()
    p.team(A_TEAM, [R, R, Y])
    p.team(B_TEAM, [G, B, Y])
    p.hand(0, [z.T_PULL_TWO + R])
    front_b = p.front(B_TEAM)
    p.play(0, z.M_PLAY, z.T_PULL_TWO + R)
    assert p.state[z.S_ROPE] == 2
    assert p.front(B_TEAM) == front_b - 2


def test_example_2_equal_strength_moves_nothing():
    """RB: 'In example 2, both teams have a strength of 3. The rope does not move.'"""
    p = Position()
    p.team(A_TEAM, [R, R, Y])
    p.team(B_TEAM, [G, G, Y])
    p.hand(0, [z.T_PULL_TWO + B])
    p.play(0, z.M_PLAY, z.T_PULL_TWO + B)
    assert p.state[z.S_ROPE] == 0


def test_example_3_one_against_five_pulls_four_the_other_way():
    """RB: 'the team on the left has a strength of 1 and the team on the right has a strength of 5.
    The team on the right pulls the rope 4 spaces in their direction.' DEC: a pull card that favours
    the opponent is legal."""
    p = Position()
    p.team(A_TEAM, [R])
    p.team(B_TEAM, [G, G, B])
    p.hand(0, [z.T_PULL_TWO + G])
    front_a = p.front(A_TEAM)
    p.play(0, z.M_PLAY, z.T_PULL_TWO + G)
    assert p.state[z.S_ROPE] == -4
    assert p.front(A_TEAM) == front_a - 4


@pytest.mark.parametrize("card, expected_rope", [
    (z.T_PULL_ZERO + R, 0 + 0 - (0 + 1 + 1)),       # red 0 on both sides: A 0, B 2
    (z.T_PULL_TWO + R, (2 + 2) - (2 + 1 + 1)),      # red 2 on both sides: A 4, B 4
    (z.T_PULL_TWO_NEXT_ZERO + R, (2 + 2) - (2 + 1 + 1)),  # red 2, yellow 0: nobody has yellow
    (z.T_PULL_TWO_NEXT_ZERO + B, (0 + 0) - (0 + 2 + 2)),  # blue 2, red 0
])
def test_modifiers_apply_to_both_teams(card, expected_rope):
    """RB: 'All Gnomes of the same color on both teams get the same strength.' (0 and 2 modifiers);
    DEC: '1x "c counts 2 and the next colour counts 0" (red→yellow→green→blue→red)'."""
    p = Position()
    p.team(A_TEAM, [R, R])
    p.team(B_TEAM, [R, B, B])
    p.hand(0, [card])
    p.play(0, z.M_PLAY, card)
    assert p.state[z.S_ROPE] == expected_rope


def test_a_huge_team_pulls_the_rope_past_what_a_byte_holds():
    """RB: 'The stronger team pulls the opposing team a number of spaces in its direction equal to the
    difference between the two team strengths.' At the largest track and hats, 60 red and 40 yellow gnomes,
    red counting 2, against one blue gnome pull 159 spaces: the rope keeps all of them (the state is int16, a
    byte would wrap) and the blue gnome's team is in the fence."""
    p = Position(track_half=60, hats_per_colour=60, rounds_to_win=1)
    p.team(A_TEAM, [R] * 60 + [Y] * 40)
    p.team(B_TEAM, [B])
    p.rope(50)
    p.hand(0, [z.T_PULL_MULTI_TWO])
    assert p.play(0, z.M_PLAY, z.T_PULL_MULTI_TWO, R) == A_TEAM
    assert p.state[z.S_ROPE] == 50 + (2 * 60 + 40) - 1


def test_multicolour_pull_lets_the_player_choose_the_colour():
    """RB: 'If the Gnome hat shown on the card is multicolored, the player playing the card
    determines the color involved.'"""
    p = Position()
    p.team(A_TEAM, [R])
    p.team(B_TEAM, [B, B])
    p.hand(0, [z.T_PULL_MULTI_TWO])
    choices = [m for m in p.legal(0) if m[1] == z.T_PULL_MULTI_TWO]
    assert choices == [(z.M_PLAY, z.T_PULL_MULTI_TWO, c) for c in range(4)]
    outcomes = {}
    for c in (R, B):
        q = Position()
        q.team(A_TEAM, [R])
        q.team(B_TEAM, [B, B])
        q.hand(0, [z.T_PULL_MULTI_TWO])
        q.play(0, z.M_PLAY, z.T_PULL_MULTI_TWO, c)
        outcomes[c] = int(q.state[z.S_ROPE])
    assert outcomes == {R: 2 - 2, B: 1 - 4}


def test_squirrel_moves_the_rope_its_number_of_spaces():
    """RB: 'The player who plays a Squirrel card can move the rope as many spaces in his direction as
    shown on the card (1, 2 or 3 spaces).'"""
    p = Position()
    p.hand(1, [z.T_SQUIRREL + 2])
    p.state[z.S_SEAT] = 1
    p.play(1, z.M_PLAY, z.T_SQUIRREL + 2)
    assert p.state[z.S_ROPE] == -3


# --- adding gnomes ---------------------------------------------------------------

def test_add_places_a_gnome_and_the_opponents_pull_two():
    """RB: 'When a new Gnome joins a team ... the opposing team pulls the rope two spaces further toward
    their side.' DEC: 'each new one on the next free space toward the fence'."""
    p = Position()
    p.hand(0, [z.T_ADD + Y])
    assert p.front(A_TEAM) == 8
    yellow, supply = p.view.teams[A_TEAM, Y], p.view.supply[Y]
    p.play(0, z.M_PLAY, z.T_ADD + Y, Y)
    assert p.view.teams[A_TEAM, Y] == yellow + 1 and p.view.supply[Y] == supply - 1
    assert p.view.teams[A_TEAM].sum() == 2
    assert p.state[z.S_ROPE] == -2
    assert p.front(A_TEAM) == 8 - 1 - 2


def test_an_add_can_lose_the_round_for_the_adding_team():
    """DEC: 'the opponents pull the track 2 spaces toward themselves; that can pull the adding team
    into the fence (it loses the round).'"""
    p = Position()
    p.rope(-5)                       # A's front: 8 - 5 = 3: room for a gnome, then pulled 2
    assert p.front(A_TEAM) == 3
    p.hand(0, [z.T_ADD + R, z.T_SQUIRREL])
    p.play(0, z.M_PLAY, z.T_ADD + R, R)
    assert list(p.view.rounds) == [0, 1]


def test_no_add_without_a_free_space():
    """DEC: 'Add a gnome: legal only when the team has a free space between its front gnome and the
    fence (front distance >= 2).'"""
    p = Position()
    p.hand(0, [z.T_ADD + R, z.T_ADD_MULTI, z.T_SQUIRREL])
    p.rope(-7)
    assert p.front(A_TEAM) == 1
    assert all(m[1] not in (z.T_ADD + R, z.T_ADD_MULTI) for m in p.legal(0))
    p.rope(-6)
    assert p.front(A_TEAM) == 2
    assert (z.M_PLAY, z.T_ADD + R, R) in p.legal(0)


def test_add_of_a_colour_out_of_stock_takes_a_colour_of_choice():
    """RB: 'If there is no available Gnome of the color shown on the card in the stock in the box, the
    player adds a Gnome in the color of his choice.'"""
    p = Position()
    p.hand(0, [z.T_ADD + R])
    p.view.supply[R] = 0
    p.view.supply[G] = 0
    assert [m for m in p.legal(0) if m[1] == z.T_ADD + R] == [(z.M_PLAY, z.T_ADD + R, Y),
                                                              (z.M_PLAY, z.T_ADD + R, B)]


def test_no_add_when_the_supply_is_empty():
    """DEC: 'with no hat left at all, no add is legal.'"""
    p = Position()
    p.hand(0, [z.T_ADD_MULTI, z.T_ADD + B])
    p.view.supply[:] = 0
    assert [m[0] for m in p.legal(0)] == [z.M_SWAP]


def test_multicolour_add_offers_every_colour_in_stock():
    """RB: 'If the card is multicolored, the player adds a Gnome in the color of his choice.'"""
    p = Position()
    p.hand(0, [z.T_ADD_MULTI])
    p.view.supply[B] = 0
    assert [m for m in p.legal(0) if m[1] == z.T_ADD_MULTI] == [(z.M_PLAY, z.T_ADD_MULTI, c) for c in (R, Y, G)]


# --- the fence, rounds, the match --------------------------------------------------

def test_a_gnome_in_front_of_the_fence_pulled_one_more_space_loses_the_round():
    """RB: 'A round ends as soon as a Gnome is pulled into the fence.' DEC: 'A team whose front gnome
    reaches 0 or less is pulled into the fence and loses the round at once'."""
    p = Position()
    p.rope(7)                        # B's front gnome directly in front of the fence
    assert p.front(B_TEAM) == 1
    p.hand(0, [z.T_SQUIRREL, z.T_SQUIRREL + 1])
    assert p.play(0, z.M_PLAY, z.T_SQUIRREL) == -1
    assert list(p.view.rounds) == [1, 0]
    assert p.state[z.S_N_ROUNDS] == 2


def test_best_of_three_and_the_loser_starts_the_next_round():
    """RB: 'The team that first wins two rounds wins the game.' 'The loser of the previous round begins
    the next round.'"""
    p = Position()
    p.rope(7)
    p.hand(0, [z.T_SQUIRREL, z.T_SQUIRREL])
    assert p.play(0, z.M_PLAY, z.T_SQUIRREL) == -1      # round 1 to A; B (seat 1) starts round 2
    assert p.state[z.S_SEAT] == 1
    assert p.state[z.S_ROPE] == 0 and p.view.teams.sum() == 2
    p.rope(-7)
    p.hand(1, [z.T_SQUIRREL, z.T_SQUIRREL])
    assert p.play(1, z.M_PLAY, z.T_SQUIRREL) == -1      # round 2 to B: 1-1, A starts round 3
    assert p.state[z.S_SEAT] == 0
    p.rope(7)
    p.hand(0, [z.T_SQUIRREL, z.T_SQUIRREL])
    assert p.play(0, z.M_PLAY, z.T_SQUIRREL) == A_TEAM  # round 3 to A: match won 2-1
    assert list(p.view.rounds) == [2, 1]


# (card the mover plays, does the mover's own team lose): a squirrel throws the other team into the fence, an
# add or a swap costs the mover's own team its last space.
FOUR_PLAYER_ENDINGS = {"squirrel": (z.T_SQUIRREL, False), "add": (z.T_ADD + R, True), "swap": (-1, True)}


@pytest.mark.parametrize("mover, kind, expected_starter", [
    (1, "squirrel", 2),   # B throws A into the fence: A's first seat after seat 1 is seat 2
    (3, "squirrel", 0),   # ... after seat 3 it is seat 0 (turn order wraps)
    (2, "squirrel", 3),   # A throws B into the fence: B's first seat after seat 2 is seat 3
    (0, "add", 2),        # seat 0's own add loses: not seat 0 again but its teammate, seat 2
    (3, "swap", 1),       # seat 3's swap costs B the round: B's first seat after seat 3 is seat 1
])
def test_four_players_the_losing_team_starts(mover, kind, expected_starter):
    """RB: 'The loser of the previous round begins the next round.' DEC (Pro rules): 'In a 4-player match the
    next round is begun by the first seat of the losing team after the seat that made the last move.'"""
    p = Position(players=4)
    card, own_loss = FOUR_PLAYER_ENDINGS[kind]
    losing = z.team_of(mover) if own_loss else 1 - z.team_of(mover)
    room = 2 if kind == "add" else 1      # the add's gnome and the opponents' pull of 2 take 3 spaces
    p.rope((room - 7) * z.toward(losing))  # the losing team (2 gnomes) stands `room` spaces from the fence
    assert p.front(losing) == room
    p.hand(mover, [z.T_SQUIRREL, z.T_ADD + R, z.T_SQUIRREL + 1])
    p.state[z.S_SEAT] = mover
    if kind == "swap":
        p.play(mover, z.M_SWAP, mask=1)
    else:
        p.play(mover, z.M_PLAY, card, R if kind == "add" else -1)
    assert p.view.rounds[1 - losing] == 1 and p.view.rounds[losing] == 0
    assert p.state[z.S_N_ROUNDS] == 2
    assert p.state[z.S_SEAT] == expected_starter


def test_hands_are_kept_and_not_refilled_between_rounds():
    """RB: 'They keep the cards remaining in their hands. No cards are drawn to supplement their
    existing hands'."""
    p = Position()
    p.rope(7)
    p.hand(0, [z.T_SQUIRREL, z.T_PULL_ZERO + G, z.T_ADD + B])
    p.hand(1, [z.T_PULL_TWO + R])
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert p.state[z.S_N_ROUNDS] == 2
    assert p.view.hands[0].sum() == 2 and p.view.hands[0, z.T_ADD + B] == 1
    assert p.view.hands[1].sum() == 1 and p.view.hands[1, z.T_PULL_TWO + R] == 1


def test_four_players_each_place_a_starting_gnome():
    """RB: 'At the beginning of each round, each player secretly selects a Gnome in the color of his
    choice'. DEC: '1 gnome per team with 2 players, 2 with 4'."""
    assert Position(players=4).view.teams.sum(axis=1).tolist() == [2, 2]
    assert Position(players=2).view.teams.sum(axis=1).tolist() == [1, 1]


# --- hands, swaps, the draw pile ---------------------------------------------------

def test_swap_draws_as_many_and_the_opponents_pull_one():
    """RB: 'a player with 3 cards in his hand discards two of them and draws two new cards in their
    place ... the opponent may move the track one space in his direction.' DEC: swap_penalty 1."""
    p = Position()
    p.hand(0, [z.T_SQUIRREL, z.T_ADD + R, z.T_PULL_ZERO + G])
    discard = p.view.discard.sum()
    p.play(0, z.M_SWAP, mask=0b101)                 # sorted hand: add red, pull-zero green, squirrel
    assert p.view.hands[0].sum() == 3
    assert p.view.hands[0, z.T_ADD + R] + p.view.hands[0, z.T_SQUIRREL] <= 2
    assert p.view.discard.sum() == discard + 2
    assert p.state[z.S_ROPE] == -1


@pytest.mark.parametrize("penalty", [0, 3])
def test_swap_penalty_is_a_parameter(penalty):
    """DEC: 'Swap instead of playing (swap_penalty, default 1, published)'."""
    p = Position(swap_penalty=penalty)
    p.state[z.S_SEAT] = 1
    p.play(1, z.M_SWAP, mask=1)
    assert p.state[z.S_ROPE] == penalty


def test_draw_only_when_the_hand_is_empty():
    """RB: 'As soon as a player has played his last card, he draws five new cards.'"""
    p = Position()
    p.hand(0, [z.T_SQUIRREL, z.T_SQUIRREL])
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert p.view.hands[0].sum() == 1
    p.state[z.S_SEAT] = 0
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert p.view.hands[0].sum() == 5


def test_an_empty_draw_pile_is_refilled_from_the_shuffled_discard_pile():
    """DEC: 'An empty draw pile is refilled by shuffling the discard pile'."""
    p = Position()
    p.hand(0, [z.T_SQUIRREL])
    for t in p.view.draw_pile:               # move the whole draw pile to the discard pile
        p.view.discard[t] += 1
    p.state[z.S_DRAW_N] = 0
    in_discard = p.view.discard.sum()
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert p.view.hands[0].sum() == 5
    assert p.state[z.S_DRAW_N] == in_discard + 1 - 5   # the squirrel just played was shuffled in too
    assert p.view.discard.sum() == 0
    assert p.cards() == 55


def test_with_both_piles_empty_a_player_draws_what_there_is():
    """DEC: 'if both are empty the player draws what there is.'"""
    p = Position()
    p.hand(0, [z.T_SQUIRREL])
    p.view.hands[1] += p.view.discard             # park every other card in seat 1's hand
    p.view.discard[:] = 0
    for t in p.view.draw_pile:
        p.view.hands[1, t] += 1
    p.state[z.S_DRAW_N] = 0
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert p.view.hands[0].sum() == 1            # only the squirrel it just played came back
    assert p.cards() == 55


@pytest.mark.parametrize("players, pro", [(2, False), (4, True)])
def test_cards_and_hats_are_conserved_in_random_games(players, pro):
    """RB: '55 cards, and 28 playing pieces (7 in each color)': after every decision of random games, hands +
    draw pile + discard pile hold 55 cards, supply + track hold 28 hats, and no hand is empty or over 5."""
    params = z.params_array({**z.GAME.defaults(), "players": players, "pro": pro})
    state, streams = z.new_state(), np.zeros(rng.N_STREAMS, np.uint64)
    actions, work = np.zeros(z.MAX_ACTIONS, np.int64), np.zeros(z.WORK_SIZE, np.int64)
    view = z.View(state)
    checked = 0
    for game in range(150):
        rng.seed_streams(streams, 99, game)
        z.begin(state, params, streams)
        while (seat := z.current_player(state, params)) >= 0:
            hand = view.hands[:players].sum(axis=1)
            assert hand[seat] >= 1 and hand.max() <= 5
            if seat == 1:                                   # greedy, the others random
                action = z.greedy_action(state, params, seat, streams, work)
            else:
                action = actions[rng.randint(streams, rng.POLICY + seat, z.legal_actions(state, params, actions))]
            z.apply_action(state, params, action, streams)
            assert view.hands.sum() + view.discard.sum() + state[z.S_DRAW_N] == 55
            assert view.supply.sum() + view.teams.sum() == 28 and view.supply.min() >= 0
            checked += 1
        assert z.match_winner(state, params) >= 0
    assert checked > 3000


# --- Pro rules ---------------------------------------------------------------------

def _after_red_add(**params):
    p = Position(pro=True, **params)
    p.hand(0, [z.T_ADD + R, z.T_ADD_MULTI, z.T_SQUIRREL])
    p.hand(1, [z.T_ADD + R, z.T_ADD + B, z.T_SQUIRREL])
    p.play(0, z.M_PLAY, z.T_ADD + R, R)
    return p


def test_contra_removes_the_added_gnome_and_the_track_stays():
    """RB (Contra): 'you have the same card in your hand (or you have an multicolored "add a new Gnome"
    card) ... The opposing team immediately loses the newly added Gnome but the track remains in place.'"""
    p = _after_red_add()
    red_before = p.view.teams[A_TEAM, R]
    legal = p.legal(1)
    assert (z.M_CONTRA, z.T_ADD + R, R) in legal
    assert (z.M_CONTRA, z.T_ADD + B, R) not in legal          # a blue add card is not 'the same card'
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    assert p.view.teams[A_TEAM, R] == red_before - 1
    assert p.state[z.S_ROPE] == -2                             # A lost its two spaces
    assert p.state[z.S_CONTRAS] == 1


def test_no_contra_without_the_pro_rules_or_after_the_next_turn():
    """DEC: 'Contra/Re/Herbert can be announced only on the responding side's very next turn'; RB: 'These
    rules should be used only after players have played several games' (pro = false by default)."""
    p = Position(pro=False)
    p.hand(0, [z.T_ADD + R, z.T_SQUIRREL])
    p.hand(1, [z.T_ADD + R, z.T_SQUIRREL])
    p.play(0, z.M_PLAY, z.T_ADD + R, R)
    assert all(m[0] == z.M_PLAY or m[0] == z.M_SWAP for m in p.legal(1))
    q = _after_red_add()
    q.play(1, z.M_PLAY, z.T_SQUIRREL)
    q.hand(0, [z.T_ADD + R, z.T_SQUIRREL])
    q.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert all(m[0] != z.M_CONTRA for m in q.legal(1))


@pytest.mark.parametrize("re_moves_rope, rope_after", [(False, -2), (True, 0)])
def test_re_adds_two_gnomes(re_moves_rope, rope_after):
    """RB (Re): 'you can play that card and announce "Re" on your next turn. You may then add two Gnomes of
    that color to your team and move the rope two spaces in your direction**.' Translator: 'in a "Re", the
    player ends up gaining two Gnomes but only loses 2 spaces' (DEC: re_moves_rope, default false)."""
    p = _after_red_add(re_moves_rope=re_moves_rope)
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    size, red = p.view.teams[A_TEAM].sum(), p.view.teams[A_TEAM, R]
    assert (z.M_RE, z.T_ADD_MULTI, R) in p.legal(0)           # the multicolour add card qualifies
    p.play(0, z.M_RE, z.T_ADD_MULTI, R)
    assert p.view.teams[A_TEAM].sum() == size + 2
    assert p.view.teams[A_TEAM, R] == red + 2
    assert p.state[z.S_ROPE] == rope_after
    assert p.state[z.S_RES] == 1


def test_herbert_takes_the_two_gnomes_of_the_re_and_the_track_stays():
    """RB (Herbert): 'The two Gnomes which your opponent just added to his team come over to your team ...
    The rope is not moved. The player who lost the two spaces at the beginning ... doesn't get them back.'"""
    p = _after_red_add()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    p.play(0, z.M_RE, z.T_ADD_MULTI, R)
    p.hand(1, [z.T_ADD_MULTI, z.T_SQUIRREL])
    a_red, b_red = p.view.teams[A_TEAM, R], p.view.teams[B_TEAM, R]
    p.play(1, z.M_HERBERT, z.T_ADD_MULTI, R)
    assert p.view.teams[A_TEAM, R] == a_red - 2
    assert p.view.teams[B_TEAM, R] == b_red + 2
    assert p.state[z.S_ROPE] == -2
    assert p.state[z.S_HERBERTS] == 1
    assert all(m[0] == z.M_PLAY or m[0] == z.M_SWAP for m in p.legal(0))   # nothing answers a Herbert


def test_re_needs_room_for_two_gnomes():
    """DEC: 'Re needs room for two gnomes (at least 2 free spaces between the team's front gnome and the
    fence)': with one free space a plain add is still legal, the Re is not."""
    p = _after_red_add()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    p.rope(-5)
    assert p.front(A_TEAM) == 3                                # 2 free spaces
    assert (z.M_RE, z.T_ADD_MULTI, R) in p.legal(0)
    p.rope(-6)
    assert p.front(A_TEAM) == 2                                # 1 free space
    legal = p.legal(0)
    assert (z.M_PLAY, z.T_ADD_MULTI, R) in legal
    assert all(m[0] != z.M_RE for m in legal)


@pytest.mark.parametrize("red_in_stock, re_legal", [(2, True), (1, False), (0, False)])
def test_re_needs_two_hats_of_its_colour_and_takes_no_other(red_in_stock, re_legal):
    """DEC: 'Re needs ... two hats of that colour in stock; the out-of-stock rule of plain adds does not apply
    to Re.' With fewer than two red hats no Re is offered, in red or in any colour in stock."""
    p = _after_red_add()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    p.view.supply[R] = red_in_stock
    assert min(p.view.supply[Y], p.view.supply[G], p.view.supply[B]) >= 2   # other colours have two hats
    res = [m for m in p.legal(0) if m[0] == z.M_RE]
    assert res == ([(z.M_RE, z.T_ADD_MULTI, R)] if re_legal else [])


def test_herbert_needs_room_for_two_gnomes():
    """docs/zwergen.md (Pro rules, our choice where DEC is silent): Herbert, which brings two gnomes to the
    announcing team, needs the same room as a Re."""
    p = _after_red_add()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    p.play(0, z.M_RE, z.T_ADD_MULTI, R)
    p.hand(1, [z.T_ADD_MULTI, z.T_SQUIRREL])
    p.rope(5)
    assert p.front(B_TEAM) == 3
    assert (z.M_HERBERT, z.T_ADD_MULTI, R) in p.legal(1)
    p.rope(6)
    assert p.front(B_TEAM) == 2
    assert all(m[0] != z.M_HERBERT for m in p.legal(1))


def test_contra_after_a_multicolour_add_answers_the_colour_chosen():
    """RB (Contra): 'you have the same card in your hand (or you have an multicolored "add a new Gnome" card)';
    DEC: 'with a same-colour or multicolour add card: Contra removes the gnome just added'. The colour is the
    one the adder chose for the multicolour card (yellow here): a yellow or a multicolour add card answers it,
    a red one does not."""
    p = Position(pro=True)
    p.hand(0, [z.T_ADD_MULTI, z.T_SQUIRREL])
    p.hand(1, [z.T_ADD + R, z.T_ADD + Y, z.T_ADD_MULTI])
    p.play(0, z.M_PLAY, z.T_ADD_MULTI, Y)
    contras = [m for m in p.legal(1) if m[0] == z.M_CONTRA]
    assert contras == [(z.M_CONTRA, z.T_ADD + Y, Y), (z.M_CONTRA, z.T_ADD_MULTI, Y)]
    yellow, supply = p.view.teams[A_TEAM, Y], p.view.supply[Y]
    p.play(1, z.M_CONTRA, z.T_ADD + Y, Y)
    assert p.view.teams[A_TEAM, Y] == yellow - 1 and p.view.supply[Y] == supply + 1
    assert p.state[z.S_ROPE] == -2


def test_contra_after_an_out_of_stock_substitute_answers_the_gnome_added():
    """RB: 'If there is no available Gnome of the color shown on the card in the stock in the box, the player
    adds a Gnome in the color of his choice.' DEC: Contra 'with a same-colour or multicolour add card' removes
    'the gnome just added'. A red card that brought a blue gnome is answered by a blue (or multicolour) add
    card, not by a red one."""
    p = Position(pro=True, hats_per_colour=1)
    p.team(A_TEAM, [])
    p.team(B_TEAM, [])
    p.team(A_TEAM, [G])
    p.team(B_TEAM, [R])                        # the only red hat is on the track
    p.hand(0, [z.T_ADD + R, z.T_SQUIRREL])
    p.hand(1, [z.T_ADD + R, z.T_ADD + B, z.T_ADD_MULTI])
    assert [m for m in p.legal(0) if m[1] == z.T_ADD + R] == [(z.M_PLAY, z.T_ADD + R, Y),
                                                              (z.M_PLAY, z.T_ADD + R, B)]
    p.play(0, z.M_PLAY, z.T_ADD + R, B)
    assert p.view.teams[A_TEAM].tolist() == [0, 0, 1, 1] and p.view.supply[B] == 0
    contras = [m for m in p.legal(1) if m[0] == z.M_CONTRA]
    assert contras == [(z.M_CONTRA, z.T_ADD + B, B), (z.M_CONTRA, z.T_ADD_MULTI, B)]
    p.play(1, z.M_CONTRA, z.T_ADD + B, B)
    assert p.view.teams[A_TEAM].tolist() == [0, 0, 1, 0] and p.view.supply[B] == 1


def _four_player_chain():
    """4 players, Pro rules; every seat holds a red and a multicolour add card and two squirrels; seat 0 has
    just added a red gnome."""
    p = Position(players=4, pro=True)
    for seat in range(4):
        p.hand(seat, [])
    for seat in range(4):
        p.hand(seat, [z.T_ADD + R, z.T_ADD_MULTI, z.T_SQUIRREL, z.T_SQUIRREL + 1])
    p.play(0, z.M_PLAY, z.T_ADD + R, R)
    return p


def _announcements(p, seat):
    return [m[0] for m in p.legal(seat) if m[0] in (z.M_CONTRA, z.M_RE, z.M_HERBERT)]


def test_four_players_contra_only_by_the_next_seat():
    """DEC: 'Contra/Re/Herbert can be announced only on the responding side's very next turn'; 4 players:
    'turns alternate 0,1,2,3'. Seat 0's add is answered by seat 1 or not at all: seat 3, the other member of
    the responding team, may not."""
    p = _four_player_chain()
    assert _announcements(p, 1) == [z.M_CONTRA, z.M_CONTRA]    # with the red card or the multicolour one
    p.play(1, z.M_PLAY, z.T_SQUIRREL)
    p.play(2, z.M_PLAY, z.T_SQUIRREL)
    assert _announcements(p, 3) == []


def test_four_players_re_by_the_adders_teammate_not_the_adder():
    """DEC: Contra/Re/Herbert 'only on the responding side's very next turn': after seat 1's Contra the
    answer is seat 2's (team A's next turn), not seat 0's, who made the add."""
    p = _four_player_chain()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    assert _announcements(p, 2) == [z.M_RE, z.M_RE]
    p.play(2, z.M_PLAY, z.T_SQUIRREL)
    p.play(3, z.M_PLAY, z.T_SQUIRREL)
    assert _announcements(p, 0) == []


def test_four_players_herbert_by_the_next_seat_not_the_one_that_said_contra():
    """DEC: Contra/Re/Herbert 'only on the responding side's very next turn': seat 2's Re is answered by seat 3,
    not by seat 1, who announced the Contra."""
    p = _four_player_chain()
    p.play(1, z.M_CONTRA, z.T_ADD + R, R)
    p.play(2, z.M_RE, z.T_ADD + R, R)
    assert _announcements(p, 3) == [z.M_HERBERT, z.M_HERBERT]
    p.play(3, z.M_PLAY, z.T_SQUIRREL)
    p.play(0, z.M_PLAY, z.T_SQUIRREL)
    assert _announcements(p, 1) == []
