/* The playout kernel: a network's gate program interpreted over bit-parallel lanes.
 *
 * One source for every target. The CPU extension (_native.c) includes it with
 * KERNEL_WORDS 4 (256 lanes a block, the word loops vectorised by the compiler); the GPU
 * build (gpu.py) prepends the CUDA qualifiers and compiles it at run time with
 * KERNEL_WORDS 1, one thread per 64-lane word. Nothing here allocates, calls the C
 * library, or knows which target it runs on.
 *
 * The image (built by reasoner/propnet/flat.py) is one int32 array: a header of section
 * offsets, then the sections. Signals are numbered as in the network (fluent inputs, move
 * inputs, nodes), then the constants ZERO and ONES, then scratch rows. A program is a list
 * of operations:
 *
 *   OP_NODE  dst nbodies { nlits lit... } x nbodies      dst = OR of ANDs of literals
 *   OP_FIX   length nmembers { OP_NODE ... } x nmembers   least fixpoint of a recursive
 *                                                        component (positive cycles only)
 *
 * where a literal is signal * 2 + negated. The image also carries the outputs (legal per
 * move, next per fluent, terminal, goals per role), the moves of each role, and what the
 * one-state evaluator of _native.c reads (every node as a unit in evaluation order, the
 * bodies with their literals and owners, the bodies that read each signal).
 */

#ifndef KERNEL_WORDS
#define KERNEL_WORDS 4
#endif
#ifndef KFN
#define KFN static inline
#endif

#define K_MAGIC 0x4b4e4554 /* image format version 1 */

enum {
    H_MAGIC, H_SIGNALS, H_FLUENTS, H_MOVES, H_ROLES, H_TERMINAL, H_ZERO, H_ONES,
    H_INFO, H_INFO_LEN, H_NEXT, H_NEXT_LEN, H_GOAL, H_GOAL_LEN,
    H_LEGAL, H_NEXT_SIG, H_ROLE_OFF, H_ROLE_MOVES, H_GOAL_OFF, H_GOAL_VAL, H_GOAL_SIG,
    H_UNITS, H_UNIT_COUNT, H_ALL, H_ALL_LEN, H_ROWS, H_INIT,
    H_BODIES, H_BODY_OFF, H_BODY_LITS, H_OWNER_OFF, H_OWNERS, H_READ_OFF, H_READERS,
    H_NODE_UNIT,
    H_SIZE
};

enum { OP_NODE = 0, OP_FIX = 1 };

/* Error codes of a block (its first error wins). */
enum { K_OK = 0, K_NO_LEGAL_MOVE = 1, K_TRACE_FULL = 2 };

typedef unsigned long long k_word;

typedef struct {
    const int *image;
    int signals, fluents, moves, roles, terminal, zero, ones, rows;
    const int *info, *next, *goal;
    int info_len, next_len, goal_len;
    const int *legal, *next_sig, *role_off, *role_moves, *goal_off, *goal_val, *goal_sig;
} k_net;

KFN void k_open(k_net *net, const int *image) {
    net->image = image;
    net->signals = image[H_SIGNALS];
    net->fluents = image[H_FLUENTS];
    net->moves = image[H_MOVES];
    net->roles = image[H_ROLES];
    net->terminal = image[H_TERMINAL];
    net->zero = image[H_ZERO];
    net->ones = image[H_ONES];
    net->rows = image[H_ROWS];
    net->info = image + image[H_INFO];
    net->info_len = image[H_INFO_LEN];
    net->next = image + image[H_NEXT];
    net->next_len = image[H_NEXT_LEN];
    net->goal = image + image[H_GOAL];
    net->goal_len = image[H_GOAL_LEN];
    net->legal = image + image[H_LEGAL];
    net->next_sig = image + image[H_NEXT_SIG];
    net->role_off = image + image[H_ROLE_OFF];
    net->role_moves = image + image[H_ROLE_MOVES];
    net->goal_off = image + image[H_GOAL_OFF];
    net->goal_val = image + image[H_GOAL_VAL];
    net->goal_sig = image + image[H_GOAL_SIG];
}

/* Row r, word k of the value table: rows are signals and scratch, `stride` words apart. */
#define KV(r, k) v[(long long)(r) * stride + (k)]

/* One OP_NODE at `c`; ORs what changed into *changed when it is given. Returns the next
 * operation. */
KFN const int *k_node(const int *c, k_word *v, long long stride, k_word *changed) {
    int dst = c[1], bodies = c[2];
    k_word acc[KERNEL_WORDS];
    int k, b, i;
    c += 3;
    for (k = 0; k < KERNEL_WORDS; k++) acc[k] = 0;
    for (b = 0; b < bodies; b++) {
        int n = *c++;
        k_word all[KERNEL_WORDS];
        for (k = 0; k < KERNEL_WORDS; k++) all[k] = ~(k_word)0;
        for (i = 0; i < n; i++) {
            int lit = c[i];
            k_word flip = (k_word)0 - (k_word)(lit & 1);
            long long row = lit >> 1;
            for (k = 0; k < KERNEL_WORDS; k++) all[k] &= KV(row, k) ^ flip;
        }
        c += n;
        for (k = 0; k < KERNEL_WORDS; k++) acc[k] |= all[k];
    }
    if (changed) {
        for (k = 0; k < KERNEL_WORDS; k++) *changed |= acc[k] ^ KV(dst, k);
    }
    for (k = 0; k < KERNEL_WORDS; k++) KV(dst, k) = acc[k];
    return c;
}

/* A recursive component's least fixpoint: its nodes start empty and grow until nothing
 * changes (its cycles are positive, so a round adds a lane to some node or ends it: at
 * most one round per member and lane, and one more that changes nothing). */
KFN const int *k_fix(const int *c, k_word *v, long long stride) {
    int length = c[1], members = c[2];
    const int *body = c + 3, *end = c + length, *p;
    int m, k, b;
    k_word changed;
    for (p = body, m = 0; m < members; m++) {
        int bodies = p[2];
        for (k = 0; k < KERNEL_WORDS; k++) KV(p[1], k) = 0;
        p += 3;
        for (b = 0; b < bodies; b++) p += 1 + *p;
    }
    do {
        changed = 0;
        for (p = body, m = 0; m < members; m++) p = k_node(p, v, stride, &changed);
    } while (changed);
    return end;
}

/* Run a program over the value table. */
KFN void k_run(const int *code, int length, k_word *v, long long stride) {
    const int *c = code, *end = code + length;
    while (c < end) {
        if (c[0] == OP_NODE) c = k_node(c, v, stride, 0);
        else c = k_fix(c, v, stride);
    }
}

/* A seed spread over the whole generator: splitmix64's finaliser, so that the streams of
 * nearby seeds (a caller's seed + 1, the next thread) do not overlap. */
KFN k_word k_mix(k_word z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The block's random numbers: splitmix64 over a counter. */
KFN k_word k_random(k_word *state) {
    k_word z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#if defined(__CUDACC__)
#define K_POPCOUNT(x) __popcll(x)
#define K_LOWEST(x) (__ffsll((long long)(x)) - 1)
#elif defined(__GNUC__)
#define K_POPCOUNT(x) __builtin_popcountll(x)
#define K_LOWEST(x) __builtin_ctzll(x)
#endif

KFN int k_popcount(k_word x) {
#ifdef K_POPCOUNT
    return K_POPCOUNT(x);
#else
    int n = 0;
    while (x) { x &= x - 1; n++; }
    return n;
#endif
}

KFN int k_lowest(k_word x) {  /* index of the lowest set bit of a nonzero word */
#ifdef K_LOWEST
    return K_LOWEST(x);
#else
    int n = 0;
    if (!(x & 0xFFFFFFFFULL)) { n += 32; x >>= 32; }
    if (!(x & 0xFFFFULL)) { n += 16; x >>= 16; }
    if (!(x & 0xFFULL)) { n += 8; x >>= 8; }
    if (!(x & 0xFULL)) { n += 4; x >>= 4; }
    if (!(x & 0x3ULL)) { n += 2; x >>= 2; }
    if (!(x & 0x1ULL)) { n += 1; }
    return n;
#endif
}

/* Uniform choice of one legal move per lane of `live` (word k) for `role`, written to the
 * move inputs: a tournament of random keys drawn bit by bit, most significant first, until
 * one candidate is left in every lane (i.i.d. keys: each legal move equally likely). The
 * rows `scratch + m` hold each move's candidate lanes meanwhile, and the moves still in
 * the running are listed (up to K_LISTED of them; more are scanned in full), so that a
 * round costs what is left, not the role's every move. Returns the live lanes without
 * any legal move (0 when every lane has one). */
#define K_LISTED 256
KFN k_word k_choose(const k_net *net, int role, k_word live, k_word *v, long long stride,
                    int k, k_word *rng) {
    const int *moves = net->role_moves + net->role_off[role];
    int count = net->role_off[role + 1] - net->role_off[role], i, n = 0;
    int inputs = net->fluents;
    int scratch = net->signals;  /* the first scratch rows: one per move */
    int listed[K_LISTED];
    k_word covered, once = 0, twice = 0;
    for (i = 0; i < count; i++) {
        int m = moves[i];
        k_word c = KV(net->legal[m], k) & live;
        KV(scratch + m, k) = c;
        KV(inputs + m, k) = 0;
        if (c) {
            if (n < K_LISTED) listed[n] = m;
            n++;
        }
        twice |= once & c;
        once |= c;
    }
    covered = once;
    if (n <= K_LISTED) {
        while (twice) {
            k_word any = 0;
            int kept = 0;
            for (i = 0; i < n; i++) {
                int m = listed[i];
                k_word h = KV(scratch + m, k) & k_random(rng);
                KV(inputs + m, k) = h;  /* the move's row holds the bit plane meanwhile */
                any |= h;
            }
            once = 0;
            twice = 0;
            for (i = 0; i < n; i++) {
                int m = listed[i];
                k_word c = KV(scratch + m, k) & (KV(inputs + m, k) | ~any);
                KV(scratch + m, k) = c;
                KV(inputs + m, k) = 0;
                if (c) listed[kept++] = m;
                twice |= once & c;
                once |= c;
            }
            n = kept;
        }
        for (i = 0; i < n; i++) KV(inputs + listed[i], k) = KV(scratch + listed[i], k);
        return live & ~covered;
    }
    while (twice) {
        k_word any = 0;
        for (i = 0; i < count; i++) {
            int m = moves[i];
            k_word c = KV(scratch + m, k);
            if (c) {
                k_word h = c & k_random(rng);
                KV(inputs + m, k) = h;
                any |= h;
            }
        }
        once = 0;
        twice = 0;
        for (i = 0; i < count; i++) {
            int m = moves[i];
            k_word c = KV(scratch + m, k);
            if (c) {
                c &= KV(inputs + m, k) | ~any;
                KV(scratch + m, k) = c;
                twice |= once & c;
                once |= c;
            }
        }
    }
    for (i = 0; i < count; i++) {
        int m = moves[i];
        KV(inputs + m, k) = KV(scratch + m, k);
    }
    return live & ~covered;
}

/* What a block's playouts report, in the block's own region of the output columns. */
typedef struct {
    int *lengths;        /* per playout */
    unsigned char *terminal;
    k_word *goals;       /* per playout and role: two words, values 0..63 and 64..100 */
    long long updates;
    int error, error_role, error_step;
    /* Recording (trace not null): every move made, as (playout, step, move id per role),
     * playouts numbered in the order they started; started[i] is the number of the i-th
     * playout to end; lane_id holds 64 * KERNEL_WORDS ints of scratch. */
    int *trace, *started, *lane_id;
    long long trace_cap, trace_len;
} k_out;

/* Append the moves of the lanes `moving` (word k) to the trace: per lane, the move of each
 * role whose row holds the lane. */
KFN void k_record(const k_net *net, k_word moving, int k, int step, k_word *v,
                  long long stride, const int *lane_start, k_out *out) {
    int entry = 2 + net->roles, r, i;
    while (moving) {
        int lane = k_lowest(moving);
        k_word bit = (k_word)1 << lane;
        int *at;
        moving &= moving - 1;
        if (out->trace_len >= out->trace_cap) {
            if (out->error == K_OK) out->error = K_TRACE_FULL;
            return;
        }
        at = out->trace + out->trace_len * entry;
        at[0] = out->lane_id[k * 64 + lane];
        at[1] = step - lane_start[k * 64 + lane];
        for (r = 0; r < net->roles; r++) {
            at[2 + r] = -1;
            for (i = net->role_off[r]; i < net->role_off[r + 1]; i++) {
                int m = net->role_moves[i];
                if (KV(net->fluents + m, k) & bit) { at[2 + r] = m; break; }
            }
        }
        out->trace_len++;
    }
}

/* The rows a block needs: signals, one scratch row per move, one per fluent (the successor
 * is written there before it replaces the state). */
#define K_ROWS(net) ((net)->signals + (net)->moves + (net)->fluents)

/* `playouts` random playouts from `start` (one byte per fluent) in one block of
 * 64 * KERNEL_WORDS lanes: a lane whose playout ends starts the next one at once.
 * `v` is the block's value table (K_ROWS rows, `stride` words apart) and `lane_start`
 * 64 * KERNEL_WORDS ints of its own. Lanes end when terminal or after `max_steps` steps.
 *
 * Where the goal program is costly (reversi counts the discs), ended lanes are parked,
 * their states kept, until `park` of them wait: one evaluation of the goals then serves
 * them all, and they start their next playouts together. */
KFN void k_block(const k_net *net, const unsigned char *start, long long playouts,
                 int max_steps, int park, k_word seed, k_word *v, long long stride,
                 int *lane_start, k_out *out) {
    k_word active[KERNEL_WORDS], parked[KERNEL_WORDS], ending[KERNEL_WORDS],
        fill[KERNEL_WORDS];
    k_word rng = k_mix(seed);
    long long begun = 0, done = 0;
    int step = 0, waiting = 0, k, f, r, i;
    int scratch_next = net->signals + net->moves;
    out->updates = 0;
    out->error = K_OK;
    out->error_role = 0;
    out->error_step = 0;
    out->trace_len = 0;
    for (k = 0; k < KERNEL_WORDS; k++) {
        active[k] = 0;
        parked[k] = 0;
        KV(net->zero, k) = 0;
        KV(net->ones, k) = ~(k_word)0;
    }
    for (f = 0; f < net->fluents + net->moves; f++)
        for (k = 0; k < KERNEL_WORDS; k++) KV(f, k) = 0;
    for (;;) {
        /* Start playouts in the idle lanes. */
        int any = 0, moving = 0;
        for (k = 0; k < KERNEL_WORDS; k++) {
            k_word idle = ~(active[k] | parked[k]);
            fill[k] = 0;
            while (idle && begun < playouts) {
                int lane = k_lowest(idle);
                idle &= idle - 1;
                fill[k] |= (k_word)1 << lane;
                lane_start[k * 64 + lane] = step;
                if (out->trace) out->lane_id[k * 64 + lane] = (int)begun;
                begun++;
            }
            if (fill[k]) any = 1;
            active[k] |= fill[k];
        }
        if (any) {
            for (f = 0; f < net->fluents; f++) {
                k_word keep = start[f] ? ~(k_word)0 : 0;
                for (k = 0; k < KERNEL_WORDS; k++)
                    KV(f, k) = (KV(f, k) & ~fill[k]) | (keep & fill[k]);
            }
        }
        any = 0;
        for (k = 0; k < KERNEL_WORDS; k++) if (active[k] | parked[k]) any = 1;
        if (!any) break;

        k_run(net->info, net->info_len, v, stride);
        for (k = 0; k < KERNEL_WORDS; k++) {
            k_word stop = 0, lanes;
            ending[k] = KV(net->terminal, k) & active[k];
            lanes = active[k] & ~ending[k];
            while (lanes) {
                int lane = k_lowest(lanes);
                lanes &= lanes - 1;
                if (step - lane_start[k * 64 + lane] >= max_steps) stop |= (k_word)1 << lane;
            }
            ending[k] |= stop;
            lanes = ending[k];
            while (lanes) {  /* lane_start holds the length from now on */
                int lane = k_lowest(lanes);
                lanes &= lanes - 1;
                lane_start[k * 64 + lane] = step - lane_start[k * 64 + lane];
                waiting++;
            }
            parked[k] |= ending[k];
            active[k] &= ~ending[k];
            if (active[k]) moving = 1;
        }
        if (waiting && (waiting >= park || !moving)) {
            k_run(net->goal, net->goal_len, v, stride);
            for (k = 0; k < KERNEL_WORDS; k++) {
                k_word lanes = parked[k];
                while (lanes) {
                    int lane = k_lowest(lanes);
                    k_word bit = (k_word)1 << lane;
                    lanes &= lanes - 1;
                    out->lengths[done] = lane_start[k * 64 + lane];
                    if (out->trace) out->started[done] = out->lane_id[k * 64 + lane];
                    out->terminal[done] = (KV(net->terminal, k) & bit) ? 1 : 0;
                    for (r = 0; r < net->roles; r++) {
                        k_word low = 0, high = 0;
                        for (i = net->goal_off[r]; i < net->goal_off[r + 1]; i++) {
                            if (KV(net->goal_sig[i], k) & bit) {
                                int value = net->goal_val[i];
                                if (value < 64) low |= (k_word)1 << value;
                                else high |= (k_word)1 << (value - 64);
                            }
                        }
                        out->goals[(done * net->roles + r) * 2] = low;
                        out->goals[(done * net->roles + r) * 2 + 1] = high;
                    }
                    done++;
                }
                parked[k] = 0;
            }
            waiting = 0;
        }
        if (!moving) { step++; continue; }
        for (k = 0; k < KERNEL_WORDS; k++) {
            for (r = 0; r < net->roles; r++) {
                k_word missing = k_choose(net, r, active[k], v, stride, k, &rng);
                if (missing && out->error == K_OK) {
                    out->error = K_NO_LEGAL_MOVE;
                    out->error_role = r;
                    out->error_step = step - lane_start[k * 64 + k_lowest(missing)];
                }
            }
            out->updates += k_popcount(active[k]);
            if (out->trace) k_record(net, active[k], k, step, v, stride, lane_start, out);
        }
        if (out->error != K_OK) return;
        k_run(net->next, net->next_len, v, stride);
        for (f = 0; f < net->fluents; f++)
            for (k = 0; k < KERNEL_WORDS; k++) KV(scratch_next + f, k) = KV(net->next_sig[f], k);
        for (f = 0; f < net->fluents; f++)
            for (k = 0; k < KERNEL_WORDS; k++)
                KV(f, k) = (KV(scratch_next + f, k) & ~parked[k]) | (KV(f, k) & parked[k]);
        step++;
    }
}

/* Thread `t` of `threads`, each with one block: the GPU's entry calls it with the thread's
 * index, the CPU's emulation of the GPU (_threads.c) in a loop. Thread t takes its share
 * of the playouts and writes its columns from the share's offset; its rows of `values`
 * are `threads * KERNEL_WORDS` words apart (with one word a thread, row r of thread t is
 * at r * threads + t: a warp's reads of a row are adjacent); `lane_start` has
 * 64 * KERNEL_WORDS ints a thread, `updates` one count and `errors` three ints (code,
 * role, step). */
KFN void k_thread(int t, int threads, const int *image, const unsigned char *start,
                  long long playouts, int max_steps, int park, k_word seed, k_word *values,
                  int *lane_start, int *lengths, unsigned char *terminal, k_word *goals,
                  long long *updates, int *errors) {
    k_net net;
    k_out out;
    long long base, extra, count, offset;
    k_open(&net, image);
    base = playouts / threads;
    extra = playouts % threads;
    count = base + (t < extra ? 1 : 0);
    offset = (long long)t * base + (t < extra ? t : extra);
    out.lengths = lengths + offset;
    out.terminal = terminal + offset;
    out.goals = goals + offset * net.roles * 2;
    out.trace = 0;
    out.started = 0;
    out.lane_id = 0;
    out.trace_cap = 0;
    k_block(&net, start, count, max_steps, park,
            seed ^ ((k_word)(t + 1) * 0xD1B54A32D192ED03ULL),
            values + (long long)t * KERNEL_WORDS, (long long)threads * KERNEL_WORDS,
            lane_start + (long long)t * 64 * KERNEL_WORDS, &out);
    updates[t] = out.updates;
    errors[3 * t] = out.error;
    errors[3 * t + 1] = out.error_role;
    errors[3 * t + 2] = out.error_step;
}
