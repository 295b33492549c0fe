/*
 * bitboard.c — the textbook special-purpose packing counter, as a yardstick for the
 * kernel (bench/bench_kernel.py compiles it with gcc -O2 and runs it as the "bitboard"
 * solver; never part of tilecensus itself).
 *
 * The classic pentomino program (and the bitmask seed): the board is one 64-bit word,
 * the pieces still to place are a bit mask, and every node fills the FIRST empty cell,
 * trying each unused piece's placements whose lowest cell is that cell — one AND per
 * placement, no bookkeeping.  It only fits problems whose options are "cells (at most
 * 64) plus at most one piece item", which is why the kernel is general and this is not;
 * it shows what the fastest hand-written approach costs per node on this machine.
 *
 * Input on stdin:  n_cells n_pieces n_options, then per option: lead piece mask
 * (lead = lowest cell, piece = -1 for none, mask = the cells in hex).
 * Output: "count nodes seconds".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int n_cells, n_pieces;
static uint64_t full;
static uint64_t *masks;  /* placements grouped by (lowest cell, piece): slot c * (n_pieces + 1) + piece + 1 */
static int *start;       /* CSR over those slots */
static uint64_t nodes;

static uint64_t count(uint64_t board, uint32_t left) {
    nodes++;
    if (board == full) return left == 0;  /* every piece item is primary */
    int c = __builtin_ctzll(~board);
    const int *row = start + (size_t)c * (n_pieces + 1);
    uint64_t total = 0;
    for (int k = row[0]; k < row[1]; k++)  /* placements that use no piece item */
        if (!(masks[k] & board)) total += count(board | masks[k], left);
    for (uint32_t todo = left; todo; todo &= todo - 1) {
        int p = __builtin_ctz(todo);
        for (int k = row[p + 1]; k < row[p + 2]; k++)
            if (!(masks[k] & board)) total += count(board | masks[k], left & ~(1u << p));
    }
    return total;
}

int main(void) {
    int n_opt;
    if (scanf("%d %d %d", &n_cells, &n_pieces, &n_opt) != 3 || n_cells < 1 || n_cells > 64 ||
        n_pieces < 0 || n_pieces > 31 || n_opt < 0) {
        fprintf(stderr, "bad header\n");
        return 2;
    }
    int slots = n_cells * (n_pieces + 1);
    int *lead = malloc(sizeof(int) * (n_opt + 1)), *piece = malloc(sizeof(int) * (n_opt + 1));
    uint64_t *mask = malloc(sizeof(uint64_t) * (n_opt + 1));
    masks = malloc(sizeof(uint64_t) * (n_opt + 1));
    start = calloc((size_t)slots + 1, sizeof(int));
    if (!lead || !piece || !mask || !masks || !start) return 3;
    for (int o = 0; o < n_opt; o++) {
        unsigned long long m;
        if (scanf("%d %d %llx", &lead[o], &piece[o], &m) != 3 || lead[o] < 0 || lead[o] >= n_cells ||
            piece[o] < -1 || piece[o] >= n_pieces) {
            fprintf(stderr, "bad option %d\n", o);
            return 2;
        }
        mask[o] = m;
        start[lead[o] * (n_pieces + 1) + piece[o] + 1 + 1]++;
    }
    for (int s = 0; s < slots; s++) start[s + 1] += start[s];
    int *fill = malloc(sizeof(int) * (size_t)(slots + 1));
    if (!fill) return 3;
    for (int s = 0; s <= slots; s++) fill[s] = start[s];
    for (int o = 0; o < n_opt; o++) masks[fill[lead[o] * (n_pieces + 1) + piece[o] + 1]++] = mask[o];
    full = n_cells == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n_cells) - 1;

    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t total = count(0, n_pieces ? (uint32_t)((1ull << n_pieces) - 1) : 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%llu %llu %.6f\n", (unsigned long long)total, (unsigned long long)nodes,
           (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    return 0;
}
