/* Zwai, 2 players, random play: the fastest hand-written C of it we could write, as a speed yardstick.
 *
 *     gcc -O2 -march=native -o zwai_fast benchmarks/c_oracle/zwai_fast.c              # simcore's random streams
 *     gcc -O2 -march=native -DXOSHIRO -o zwai_fast_x benchmarks/c_oracle/zwai_fast.c   # one xoshiro256** a game
 *     ./zwai_fast GAMES SEED OUT     # OUT: 26 bytes a game, see below
 *     ./zwai_fast GAMES SEED --csv   # the rows of zwai.c --csv, to diff against it
 *     ./zwai_fast GAMES SEED         # play only; both print "N games, seat 0 won W" to stderr
 *
 * The game is zwai.c's (simcore's Zwai with its defaults: the 4 x 4 square, 11 cards a hand, fish counts
 * 3 6 6 5 3, 3 rounds, sharks move on strictly more fish, removed cards go back under the pile, the next round
 * begins after the seat that placed the last card). The default build draws exactly simcore's random numbers in
 * simcore's order (SplitMix64 streams keyed by seed, game and stream, Lemire's bounded integers, the same
 * Fisher-Yates shuffles, the k-th card of the sorted hand, the k-th legal cell row-major), so it plays the same
 * games as zwai.c and simcore. With -DXOSHIRO every draw of a game comes from one xoshiro256** stream seeded
 * through SplitMix64 from (seed, game): other games, same rules, to see what the random numbers cost.
 *
 * What makes it fast:
 * - A card is a number 0..22 of its owner's set, numbered in ascending fish order, and a hand a 23-bit mask of
 *   them: the sorted hand is the set bits in order, so the k-th card is one pdep and one count of trailing zeros,
 *   with no loop over fish values. A pile is a stretch of a byte array (its top the end) with room below it, so
 *   putting cards under it writes in place.
 * - The shoal is an 8 x 8 bitboard (bit r * 8 + c; the first card of a round on (3, 3), every reachable cell
 *   in rows and columns 0..6). The cards placed fit a 4 x 4 square exactly when their bounding box does, so a
 *   cell is still allowed when it lies within 3 rows and 3 columns of every card placed: one AND with a
 *   precomputed box per card. The legal cells are the frontier (the occupied mask's neighbours, by shifts; column
 *   7 is never allowed, so what wraps around a row edge lands outside) AND the allowed mask, the k-th of them one
 *   pdep.
 * - The sharks take the row (column) with more fish without a branch; at the round's end the removed cards are
 *   the occupied mask AND the sharks' row and column. A placed card is scored at once and taken back if removed.
 * - No allocation per game or move; only the three streams a 2-player game uses are seeded (zwai.c keys all 14).
 * - Every round fills the square: in rounds 1 and 2 each seat holds 11 cards and places 8, so it banks at most
 *   16 before round 3 and holds at least 7 then; of the 28 or more cards left (a full round banks 9), one seat
 *   has 14 or more, so 11 in hand: 18 or more in hand for 16 cells. So a round never ends on empty hands, the
 *   sharks always remove 7 cards, a game has 48 turns and never times out, and when a seat has no card left
 *   the other one has one (a skip: 5 games in the first 83 million of seed 1).
 *
 * OUT: one row of 26 bytes a game, packed, in the machine's byte order (little-endian on x86):
 *     int64 game index | int32 fish seat 0 | int32 fish seat 1 | int32 cards seat 0 | int32 cards seat 1 |
 *     uint8 win seat 0 | uint8 win seat 1
 * (fish and cards: own colour in the scoring pile; a tie on both is a shared win, both flags 1), written 4096
 * rows to an fwrite.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEATS = 2, HAND = 11, ROUNDS = 3, CELLS = 16, SET = 23, W = 8, C0 = 3 };
enum { BASE = 2 * SET, PILE = 3 * SET };   /* a pile starts at [BASE, PILE); two round ends put <= 2 * SET under */
enum { ROW_BYTES = 26, BUFFERED = 4096 };
static const uint8_t FISH_OF[SET] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4};
#define ROW0 0xFFULL
#define COL0 0x0101010101010101ULL

/* --- random numbers --- */
#define GAMMA 0x9E3779B97F4A7C15ULL
static inline uint64_t finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint64_t mix(uint64_t x) { return finalize(x + GAMMA); }
static inline uint64_t splitmix(uint64_t *s) { *s += GAMMA; return finalize(*s); }

#ifdef XOSHIRO
typedef struct { uint64_t s[4]; } Rng;
enum { N_RNG = 1 };
#define DECK 0
#define POLICY(seat) 0
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t next_u64(Rng *r) {
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return out;
}
static void seed_game(Rng *rng, uint64_t key, uint64_t game) {
    uint64_t sm = mix(key + game);
    for (int k = 0; k < 4; k++) rng->s[k] = splitmix(&sm);
}
#else
typedef uint64_t Rng;   /* simcore's streams: DECK = 0, POLICY + seat = 2 + seat; ours 0, 1, 2 */
enum { N_RNG = 3 };
#define DECK 0
#define POLICY(seat) (1 + (seat))
static inline uint64_t next_u64(Rng *r) { return splitmix(r); }
static void seed_game(Rng *rng, uint64_t key, uint64_t game) {
    uint64_t base = mix(key + game);
    rng[0] = mix(base + 0); rng[1] = mix(base + 2); rng[2] = mix(base + 3);
}
#endif

static inline uint32_t randint(Rng *r, uint32_t n) {   /* Lemire: uniform in [0, n) */
    uint64_t m = (next_u64(r) >> 32) * n;
    if (__builtin_expect((uint32_t)m < n, 0)) {
        uint32_t threshold = -n % n;   /* (2^32 - n) % n */
        while ((uint32_t)m < threshold) m = (next_u64(r) >> 32) * n;
    }
    return (uint32_t)(m >> 32);
}
static inline void shuffle(Rng *r, int8_t *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)randint(r, (uint32_t)(i + 1));
        int8_t t = items[i]; items[i] = items[j]; items[j] = t;
    }
}

/* the k-th (from 0) set bit of x: one pdep where the CPU has BMI2, else a loop clearing k bits */
#ifdef __BMI2__
#include <immintrin.h>
static inline int kth_bit(uint64_t x, uint32_t k) { return __builtin_ctzll(_pdep_u64(1ULL << k, x)); }
#else
static inline int kth_bit(uint64_t x, uint32_t k) { for (; k; k--) x &= x - 1; return __builtin_ctzll(x); }
#endif

static uint64_t BOX[W * W];   /* the cells of rows and columns 0..6 within 3 rows and 3 columns of a cell */
static void build_tables(void) {
    for (int r = 0; r < W - 1; r++)
        for (int c = 0; c < W - 1; c++)
            for (int r2 = 0; r2 < W - 1; r2++)
                for (int c2 = 0; c2 < W - 1; c2++)
                    if (abs(r2 - r) <= 3 && abs(c2 - c) <= 3) BOX[r * W + c] |= 1ULL << (r2 * W + c2);
}

typedef struct { int score[SEATS], cards[SEATS], removed[ROUNDS], skips; } Result;

static inline uint32_t draw(const int8_t *pile, int *top, int bottom) {   /* up to HAND cards off the top */
    uint32_t hand = 0;
    for (int i = 0; i < HAND && *top > bottom; i++) hand |= 1u << pile[--*top];
    return hand;
}

static void play(Rng *rng, Result *res) {
    int8_t pile[SEATS][PILE];
    int bottom[SEATS], top[SEATS];
    uint32_t hand[SEATS], back[SEATS];
    uint8_t cell_card[W * W];   /* seat * 32 + card of each placed cell */
    memset(res, 0, sizeof *res);
    for (int s = 0; s < SEATS; s++) {
        for (int id = 0; id < SET; id++) pile[s][BASE + id] = (int8_t)id;
        shuffle(&rng[DECK], pile[s] + BASE, SET);
        bottom[s] = BASE; top[s] = BASE + SET;
    }
    for (int s = 0; s < SEATS; s++) hand[s] = draw(pile[s], &top[s], bottom[s]);
    int seat = 0;
    for (int round = 0;; round++) {
        uint64_t occupied = 0, front = 1ULL << (C0 * W + C0), allowed = BOX[C0 * W + C0];
        uint8_t row_fish[W] = {0}, col_fish[W] = {0};
        int shark_row = C0, shark_col = C0;   /* where the first card goes */
        for (int placed = 0; placed < CELLS; placed++) {
            if (!hand[seat]) { res->skips++; seat ^= 1; }
            Rng *policy = &rng[POLICY(seat)];
            uint32_t h = hand[seat];   /* the k-th card of the sorted hand */
            int id = kth_bit(h, randint(policy, (uint32_t)__builtin_popcount(h)));
            hand[seat] = h & ~(1u << id);
            uint64_t legal = front & allowed;   /* the k-th legal cell, row-major */
            int b = kth_bit(legal, randint(policy, (uint32_t)__builtin_popcountll(legal)));
            int r = b / W, c = b % W, fish = FISH_OF[id];
            row_fish[r] += fish; col_fish[c] += fish;
            shark_row = row_fish[r] > row_fish[shark_row] ? r : shark_row;
            shark_col = col_fish[c] > col_fish[shark_col] ? c : shark_col;
            uint64_t bit = 1ULL << b;
            occupied |= bit;
            front = (front | bit << 1 | bit >> 1 | bit << W | bit >> W) & ~occupied;
            allowed &= BOX[b];
            cell_card[b] = (uint8_t)(seat * 32 + id);
            res->score[seat] += fish; res->cards[seat]++;
            seat ^= 1;   /* and the next round begins with the seat after the last placer */
        }
        uint64_t removed = occupied & (ROW0 << (W * shark_row) | COL0 << shark_col);
        res->removed[round] = __builtin_popcountll(removed);
        back[0] = hand[0]; back[1] = hand[1];
        for (; removed; removed &= removed - 1) {
            int v = cell_card[__builtin_ctzll(removed)], s = v >> 5, id = v & 31;
            res->score[s] -= FISH_OF[id]; res->cards[s]--; back[s] |= 1u << id;
        }
        if (round == ROUNDS - 1) return;
        for (int s = 0; s < SEATS; s++) {   /* hand and removed cards, ascending, shuffled under the pile */
            int n = __builtin_popcount(back[s]), at = bottom[s] - n;
            for (uint32_t m = back[s]; m; m &= m - 1) pile[s][at++] = (int8_t)__builtin_ctz(m);
            bottom[s] -= n;
            shuffle(&rng[DECK], pile[s] + bottom[s], n);
        }
        for (int s = 0; s < SEATS; s++) hand[s] = draw(pile[s], &top[s], bottom[s]);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s GAMES SEED [OUT | --csv]\n", argv[0]); return 2; }
    long games = atol(argv[1]);
    uint64_t key = mix(strtoull(argv[2], NULL, 10));
    int csv = argc > 3 && strcmp(argv[3], "--csv") == 0;
    FILE *out = NULL;
    if (argc > 3 && !csv && !(out = fopen(argv[3], "wb"))) {
        fprintf(stderr, "zwai_fast: cannot write %s\n", argv[3]); return 1;
    }
    build_tables();
    static unsigned char buffer[BUFFERED * ROW_BYTES];
    long wins0 = 0, buffered = 0;
    for (long i = 0; i < games; i++) {
        Rng rng[N_RNG];
        Result g;
        seed_game(rng, key, (uint64_t)i);
        play(rng, &g);
        int tie = g.score[0] == g.score[1];
        uint8_t win[SEATS] = {g.score[0] > g.score[1] || (tie && g.cards[0] >= g.cards[1]),
                              g.score[1] > g.score[0] || (tie && g.cards[1] >= g.cards[0])};
        wins0 += win[0];
        /* csv as zwai.c: first seat, turns, timeout, wins, fish, cards of 4 seats, removed 1..5, skips, rounds */
        if (csv) {
            printf("0,%d,0,%d,%d,0,0,%d,%d,0,0,%d,%d,0,0,%d,%d,%d,0,0,%d,%d\n", ROUNDS * CELLS, win[0], win[1],
                   g.score[0], g.score[1], g.cards[0], g.cards[1], g.removed[0], g.removed[1], g.removed[2],
                   g.skips, ROUNDS);
        } else if (out) {
            unsigned char *p = buffer + buffered * ROW_BYTES;
            int64_t index = i;
            int32_t counts[4] = {g.score[0], g.score[1], g.cards[0], g.cards[1]};
            memcpy(p, &index, 8); memcpy(p + 8, counts, 16); memcpy(p + 24, win, 2);
            if (++buffered == BUFFERED || i + 1 == games) {
                if (fwrite(buffer, ROW_BYTES, (size_t)buffered, out) != (size_t)buffered) {
                    fprintf(stderr, "zwai_fast: cannot write %s\n", argv[3]); return 1;
                }
                buffered = 0;
            }
        }
    }
    if (out && fclose(out) != 0) { fprintf(stderr, "zwai_fast: cannot write %s\n", argv[3]); return 1; }
    fprintf(stderr, "%ld games, seat 0 won %ld\n", games, wins0);
    return 0;
}
