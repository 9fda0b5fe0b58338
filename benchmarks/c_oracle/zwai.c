/* Zwai, 2 players, random play, written by hand in C: the yardstick of simcore's hot loop.
 *
 *     gcc -O2 -march=native -o zwai benchmarks/c_oracle/zwai.c
 *     ./zwai GAMES SEED [OUT]        # OUT: the rows as int16 (every value fits), laid out as simcore's
 *                                    # (simcore/engine/rows.py): 44 bytes a game, as compact as simcore's Parquet
 *     ./zwai GAMES SEED --csv        # the rows as text, for tests/test_c_oracle.py
 *
 * The rules and defaults are simcore's Zwai (docs/zwai.md): the square 4 x 4 formation, 11 cards a hand,
 * fish counts 3 6 6 5 3, 3 rounds, sharks move on strictly more fish, removed cards go back under the pile,
 * the next round begins after the seat that placed the last card. It draws the same random numbers in the same
 * order as simcore (SplitMix64 streams keyed by seed, game and stream; Lemire's bounded integers; the same
 * Fisher-Yates shuffles; the k-th card of the sorted hand, the k-th legal cell in row-major order), so it plays
 * the same games and writes the same rows: tests/test_c_oracle.py checks that, which keeps the comparison of
 * speeds honest (the same work on both sides).
 *
 * Where it differs is layout, as a C programmer would write it: every cell a 4 x 4 formation can reach from the
 * centre lies in a 7 x 7 window, so the shoal, the frontier and what feasible translations reach are each one
 * 64-bit word (bit r * 8 + c of the window), and the 16 translations one 16-bit mask.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEATS = 2, N_FISH = 5, HAND = 11, ROUNDS = 3, CELLS = 16, SET = 23, MAX_TURNS = 1000 };
enum { W = 8, C0 = 3, GRID = 15, CENTRE = 7 };   /* window cell (r, c) is grid cell (r + 4, c + 4) */
enum { DECK = 0, POLICY = 2, N_STREAMS = 14 };
enum { MAX_SEATS = 4, MAX_ROUNDS = 5, WIDTH = 3 + 2 * MAX_SEATS + MAX_SEATS + MAX_ROUNDS + 2 };
static const int FISH_COUNTS[N_FISH] = {3, 6, 6, 5, 3};

/* --- SplitMix64 streams, as simcore/engine/rng.py --- */
#define GAMMA 0x9E3779B97F4A7C15ULL
static inline uint64_t finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint64_t mix(uint64_t x) { return finalize(x + GAMMA); }
static inline uint64_t next_u64(uint64_t *s) { *s += GAMMA; return finalize(*s); }
static inline int randint(uint64_t *s, uint64_t n) {   /* Lemire: uniform in [0, n) */
    uint64_t m = (next_u64(s) >> 32) * n, low = m & 0xFFFFFFFFULL;
    if (low < n) {
        uint64_t threshold = ((1ULL << 32) - n) % n;
        while (low < threshold) { m = (next_u64(s) >> 32) * n; low = m & 0xFFFFFFFFULL; }
    }
    return (int)(m >> 32);
}
static inline void shuffle(uint64_t *s, int8_t *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = randint(s, (uint64_t)(i + 1));
        int8_t t = items[i]; items[i] = items[j]; items[j] = t;
    }
}

/* --- the formation: per window cell the translations covering it, per translation its cells --- */
static uint16_t covers[W * W];
static uint64_t spans[CELLS];
static uint64_t inside;   /* cells of the window some translation covers */

static void build_tables(void) {
    int cell[CELLS][2], n = 0;
    for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) { cell[n][0] = r; cell[n][1] = c; n++; }
    for (int k = 0; k < CELLS; k++)   /* translation k lays formation cell k on the centre */
        for (int j = 0; j < CELLS; j++) {
            int b = (cell[j][0] - cell[k][0] + C0) * W + cell[j][1] - cell[k][1] + C0;
            covers[b] |= (uint16_t)(1u << k);
            spans[k] |= 1ULL << b;
        }
    for (int k = 0; k < CELLS; k++) inside |= spans[k];
}

typedef struct {
    int8_t hand[SEATS][N_FISH], held[SEATS], held_all;
    int8_t pile[SEATS][64], pile_n[SEATS];
    int8_t owner_fish[W * W];            /* owner * 16 + fish of each placed window cell */
    int8_t shoal[CELLS], placed;
    int16_t row_fish[W], col_fish[W];
    uint64_t occupied, front, reach;
    uint32_t feasible;                   /* bit k: translation k still fits; all 32 set before the first card */
    int8_t shark_row, shark_col, seat, round_starter, last_placer, n_rounds, over;
    int16_t turn, skips, score[SEATS], cards[SEATS], removed[MAX_ROUNDS];
} Game;

static void draw(Game *g, int seat, int k) {
    int left = g->pile_n[seat];
    if (k > left) k = left;
    for (int i = left - k; i < left; i++) g->hand[seat][g->pile[seat][i]]++;
    g->pile_n[seat] = (int8_t)(left - k);
    g->held[seat] += k; g->held_all += k;
}

static void clear_shoal(Game *g) {
    memset(g->row_fish, 0, sizeof g->row_fish); memset(g->col_fish, 0, sizeof g->col_fish);
    g->occupied = 0; g->front = 1ULL << (C0 * W + C0); g->reach = g->front; g->feasible = 0xFFFFFFFF;
    g->placed = 0; g->shark_row = g->shark_col = -1;
}

static void setup(Game *g, uint64_t *streams) {
    memset(g, 0, sizeof *g);
    for (int seat = 0; seat < SEATS; seat++) {
        int n = 0;
        for (int v = 0; v < N_FISH; v++) for (int i = 0; i < FISH_COUNTS[v]; i++) g->pile[seat][n++] = (int8_t)v;
        shuffle(&streams[DECK], g->pile[seat], n);
        g->pile_n[seat] = (int8_t)n;
    }
    for (int seat = 0; seat < SEATS; seat++) draw(g, seat, HAND);
    clear_shoal(g);
    g->seat = g->round_starter = 0; g->last_placer = -1;
}

static void hand_under_pile(Game *g, int seat, uint64_t *streams) {
    int old = g->pile_n[seat], n = g->held[seat];
    memmove(g->pile[seat] + n, g->pile[seat], (size_t)old);
    int at = 0;
    for (int v = 0; v < N_FISH; v++) for (int i = 0; i < g->hand[seat][v]; i++) g->pile[seat][at++] = (int8_t)v;
    memset(g->hand[seat], 0, N_FISH);
    g->held_all -= n; g->held[seat] = 0;
    shuffle(&streams[DECK], g->pile[seat], n);
    g->pile_n[seat] = (int8_t)(old + n);
}

static int end_round(Game *g, uint64_t *streams) {   /* 1 when that was the last round */
    int removed = 0;
    for (int k = 0; k < g->placed; k++) {
        int b = g->shoal[k], owner = g->owner_fish[b] >> 4, fish = g->owner_fish[b] & 15;
        if (b / W == g->shark_row || b % W == g->shark_col) {
            removed++;
            g->hand[owner][fish]++; g->held[owner]++; g->held_all++;
        } else {
            g->score[owner] += fish; g->cards[owner]++;
        }
    }
    g->removed[g->n_rounds++] = (int16_t)removed;
    int placed = g->placed;
    clear_shoal(g);
    if (g->n_rounds >= ROUNDS) return 1;
    for (int seat = 0; seat < SEATS; seat++) hand_under_pile(g, seat, streams);
    for (int seat = 0; seat < SEATS; seat++) draw(g, seat, HAND);
    if (placed > 0) g->round_starter = (int8_t)((g->last_placer + 1) % SEATS);
    g->seat = g->round_starter;
    return 0;
}

static void advance(Game *g, uint64_t *streams) {
    while (!g->over && g->turn < MAX_TURNS) {
        if (g->held_all == 0) { if (end_round(g, streams)) g->over = 1; }
        else if (g->held[g->seat] == 0) { g->skips++; g->seat = (int8_t)((g->seat + 1) % SEATS); }
        else return;
    }
}

static void place(Game *g, int seat, int fish, int b) {
    int r = b / W, c = b % W;
    uint32_t kept = g->feasible & covers[b];   /* the first card always narrows: reach = every span */
    if (kept != g->feasible) {
        g->feasible = kept;
        uint64_t reach = 0;
        for (uint32_t m = kept; m; m &= m - 1) reach |= spans[__builtin_ctz(m)];
        g->reach = reach;
    }
    /* sharks: a shark marking nothing moves; else only to strictly more fish */
    int row = g->shark_row, col = g->shark_col;
    if (row < 0 || r == row || g->row_fish[r] + fish > g->row_fish[row]) g->shark_row = (int8_t)r;
    if (col < 0 || c == col || g->col_fish[c] + fish > g->col_fish[col]) g->shark_col = (int8_t)c;
    uint64_t bit = 1ULL << b;
    g->occupied |= bit;
    g->front = (g->front | (bit << 1) | (bit >> 1) | (bit << W) | (bit >> W)) & ~g->occupied & inside;
    g->owner_fish[b] = (int8_t)(seat * 16 + fish);
    g->row_fish[r] += fish; g->col_fish[c] += fish;
    g->shoal[g->placed++] = (int8_t)b;
}

static void play(Game *g, uint64_t *streams) {
    setup(g, streams);
    advance(g, streams);
    while (!g->over && g->turn < MAX_TURNS) {
        int seat = g->seat;
        uint64_t *policy = &streams[POLICY + seat];
        int k = randint(policy, (uint64_t)g->held[seat]), fish = 0;   /* the k-th card of the sorted hand */
        while (k >= g->hand[seat][fish]) k -= g->hand[seat][fish++];
        g->hand[seat][fish]--; g->held[seat]--; g->held_all--;
        uint64_t legal = g->front & g->reach;                         /* the k-th legal cell, row-major */
        k = randint(policy, (uint64_t)__builtin_popcountll(legal));
        for (; k > 0; k--) legal &= legal - 1;
        place(g, seat, fish, __builtin_ctzll(legal));
        g->turn++; g->last_placer = (int8_t)seat; g->seat = (int8_t)((seat + 1) % SEATS);
        if (g->placed == CELLS && end_round(g, streams)) g->over = 1;
        if (g->held[g->seat] == 0) advance(g, streams);
    }
}

static void write_row(const Game *g, int64_t *row) {
    int best_fish = -1, best_cards = -1;
    for (int s = 0; s < SEATS; s++)
        if (g->score[s] > best_fish || (g->score[s] == best_fish && g->cards[s] > best_cards)) {
            best_fish = g->score[s]; best_cards = g->cards[s];
        }
    memset(row, 0, WIDTH * sizeof *row);
    row[1] = g->turn; row[2] = !g->over;
    for (int s = 0; s < SEATS; s++) {
        row[3 + s] = g->over && g->score[s] == best_fish && g->cards[s] == best_cards;
        row[3 + MAX_SEATS + s] = g->score[s];
        row[3 + 2 * MAX_SEATS + s] = g->cards[s];
    }
    for (int k = 0; k < MAX_ROUNDS; k++) row[3 + 3 * MAX_SEATS + k] = g->removed[k];
    row[3 + 3 * MAX_SEATS + MAX_ROUNDS] = g->skips;
    row[3 + 3 * MAX_SEATS + MAX_ROUNDS + 1] = g->n_rounds;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s GAMES SEED [OUT | --csv]\n", argv[0]); return 2; }
    long games = atol(argv[1]);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    build_tables();
    int64_t *rows = malloc((size_t)games * WIDTH * sizeof *rows);
    if (!rows) { fprintf(stderr, "zwai: no memory for %ld rows\n", games); return 1; }
    Game g;
    uint64_t streams[N_STREAMS];
    for (long i = 0; i < games; i++) {
        uint64_t base = mix(mix(seed) + (uint64_t)i);
        for (int k = 0; k < N_STREAMS; k++) streams[k] = mix(base + (uint64_t)k);
        play(&g, streams);
        write_row(&g, rows + i * WIDTH);
    }
    if (argc > 3 && strcmp(argv[3], "--csv") == 0) {
        for (long i = 0; i < games; i++)
            for (int j = 0; j < WIDTH; j++) printf("%lld%c", (long long)rows[i * WIDTH + j], j + 1 < WIDTH ? ',' : '\n');
    } else if (argc > 3) {
        int16_t *narrow = malloc((size_t)games * WIDTH * sizeof *narrow);
        for (long i = 0; narrow && i < games * WIDTH; i++) narrow[i] = (int16_t)rows[i];
        FILE *f = fopen(argv[3], "wb");
        if (!narrow || !f || fwrite(narrow, sizeof *narrow, (size_t)games * WIDTH, f) != (size_t)games * WIDTH) {
            fprintf(stderr, "zwai: cannot write %s\n", argv[3]); return 1;
        }
        fclose(f);
        free(narrow);
    }
    long wins0 = 0;
    for (long i = 0; i < games; i++) wins0 += rows[i * WIDTH + 3];
    fprintf(stderr, "%ld games, seat 0 won %ld\n", games, wins0);
    free(rows);
    return 0;
}
