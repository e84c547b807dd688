/* The run-time of the compiled-rules backend (see reasoner/compiled/__init__.py).
 *
 * The generated code of a game is appended to this text and compiled into one shared
 * object. It defines the game's tables (names, terms, fluents, moves, roles) and one
 * function per relation and binding pattern; this part holds what every game shares:
 *
 * - terms: every ground term is an int32 id; ids below N_NAMES are the game's names used
 *   as constants, larger ids are compound terms, hash-consed, so two terms are equal
 *   exactly when their ids are;
 * - tables: the answers of one call (a relation, a binding pattern and the bound
 *   arguments), kept in one of three spaces that live as long as what they depend on:
 *   the static relations' for the whole game, the state's until the state changes, the
 *   joint move's for one step;
 * - recursion: a table on a cycle is evaluated again, with the answers found so far, until
 *   a pass over its strongly connected component adds none (the component is found as
 *   Tarjan's algorithm finds one, by depth-first numbers on the stack of calls);
 * - bounds: a clock and a memory bound, checked as tables are made; past either, every
 *   table is dropped and the call returns an error code instead of an answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <time.h>

typedef int32_t T;

#define E_MEMORY 1
#define E_TIME 2
#define E_UNSTRATIFIED 3
#define E_FLUENT 4
#define E_MOVE 5
#define E_GOAL 6
#define E_NO_MOVE 7
#define E_DOES 8

static jmp_buf rt_jump;
static int rt_error_detail;
static void rt_fail(int code) { longjmp(rt_jump, code); }

static int64_t rt_bytes, rt_max_bytes = (int64_t)1 << 31;
static struct timespec rt_deadline;
static int64_t rt_ticks;

/* A refused growth counts nothing: the bytes counted are the bytes held. */
static void *rt_grow(void *p, int64_t old_bytes, int64_t new_bytes) {
    int64_t bytes = rt_bytes + new_bytes - old_bytes;
    if (bytes > rt_max_bytes) rt_fail(E_MEMORY);
    void *q = realloc(p, (size_t)new_bytes);
    if (!q) rt_fail(E_MEMORY);
    rt_bytes = bytes;
    return q;
}

static inline void rt_tick(void) {
    if ((++rt_ticks & 4095) == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > rt_deadline.tv_sec ||
            (now.tv_sec == rt_deadline.tv_sec && now.tv_nsec > rt_deadline.tv_nsec))
            rt_fail(E_TIME);
    }
}

static inline uint64_t rt_mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* ---- terms ---------------------------------------------------------------------------- */

static int32_t *t_fun, *t_ar, *t_off, *t_args;
static int32_t n_terms, cap_terms, n_args, cap_args;
static int32_t *t_slots;
static int64_t t_slot_cap;  /* a power of two */
static int32_t n_base_terms;

#define TF(t) (t_fun[t])
#define TA(t) (t_ar[t])
#define TG(t, i) (t_args[t_off[t] + (i)])

static uint64_t term_hash(int32_t f, int32_t n, const T *a) {
    uint64_t h = rt_mix((uint64_t)f, (uint64_t)n);
    for (int32_t i = 0; i < n; i++) h = rt_mix(h, (uint64_t)(uint32_t)a[i]);
    return h;
}

static int term_same(int32_t t, int32_t f, int32_t n, const T *a) {
    if (t_fun[t] != f || t_ar[t] != n) return 0;
    const T *b = t_args + t_off[t];
    for (int32_t i = 0; i < n; i++) if (b[i] != a[i]) return 0;
    return 1;
}

static void term_rehash(void) {
    int64_t cap = t_slot_cap ? t_slot_cap * 2 : 1024;
    while (cap < 2 * (int64_t)n_terms) cap *= 2;
    t_slots = rt_grow(t_slots, t_slot_cap * 4, cap * 4);
    t_slot_cap = cap;
    for (int64_t i = 0; i < cap; i++) t_slots[i] = -1;
    for (int32_t t = 0; t < n_terms; t++) {
        if (t_ar[t] == 0) continue;
        uint64_t s = term_hash(t_fun[t], t_ar[t], t_args + t_off[t]) & (uint64_t)(cap - 1);
        while (t_slots[s] >= 0) s = (s + 1) & (uint64_t)(cap - 1);
        t_slots[s] = t;
    }
}

/* Room for one more term in the term arrays. */
static void term_room(void) {
    if (n_terms < cap_terms) return;
    int32_t cap = cap_terms ? cap_terms * 2 : 1024;
    t_fun = rt_grow(t_fun, cap_terms * 4, (int64_t)cap * 4);
    t_ar = rt_grow(t_ar, cap_terms * 4, (int64_t)cap * 4);
    t_off = rt_grow(t_off, cap_terms * 4, (int64_t)cap * 4);
    cap_terms = cap;
}

/* The id of the compound term f(a...), made if absent (insert) or -1 (lookup only). */
static T term_find(int32_t f, int32_t n, const T *a, int insert) {
    if (2 * (int64_t)n_terms >= t_slot_cap) term_rehash();
    uint64_t s = term_hash(f, n, a) & (uint64_t)(t_slot_cap - 1);
    for (;;) {
        int32_t t = t_slots[s];
        if (t < 0) break;
        if (term_same(t, f, n, a)) return t;
        s = (s + 1) & (uint64_t)(t_slot_cap - 1);
    }
    if (!insert) return -1;
    term_room();
    if (n_args + n > cap_args) {
        int32_t cap = cap_args ? cap_args * 2 : 4096;
        while (cap < n_args + n) cap *= 2;
        t_args = rt_grow(t_args, cap_args * 4, (int64_t)cap * 4);
        cap_args = cap;
    }
    int32_t t = n_terms++;
    t_fun[t] = f;
    t_ar[t] = n;
    t_off[t] = n_args;
    memcpy(t_args + n_args, a, (size_t)n * 4);
    n_args += n;
    t_slots[s] = t;
    return t;
}

static inline T mk(int32_t f, int32_t n, const T *a) { return term_find(f, n, a, 1); }

/* ---- tables ----------------------------------------------------------------------------- */

enum { S_NEW, S_EVALUATING, S_INCOMPLETE, S_STALE, S_COMPLETE };

typedef struct {
    int32_t kind, key;         /* key: offset of the bound arguments in the space's keys */
    T *ans;                    /* answers, each K_NF[kind] ids */
    int32_t n_ans, cap_ans;    /* answers, and room (in ids) */
    int32_t status, dfs, link;
} Table;

typedef struct {
    Table *tb;
    int32_t n, cap;
    T *keys;
    int64_t n_keys, cap_keys;
    int32_t *map;              /* table index per slot */
    uint32_t *map_gen;
    int64_t map_cap;
    int32_t *aset_t, *aset_i;  /* answer index per slot, with its table */
    uint32_t *aset_gen;
    int64_t aset_cap, aset_n;
    uint32_t gen;
} Space;

static Space spaces[3];
#define TB(h) (spaces[(h) & 3].tb[(h) >> 2])
#define ANS(h, i, j) (TB(h).ans[(int64_t)(i) * K_NF[TB(h).kind] + (j)])

/* Per kind (a relation and a binding pattern), set by the game's code: how many arguments
 * are bound (the key) and free (an answer), the space, and the function evaluating it. */
typedef void (*EvalFn)(int32_t h);
static const int32_t *K_NB, *K_NF;
static const int8_t *K_SPACE;
static const EvalFn *K_EVAL;

static const int32_t *K_SCC;  /* the relation's component of recursive relations, or -1 */
static int32_t *scc_active;    /* per component: its tables being evaluated */
static int32_t *call_stack, *scc_stack;
static int32_t n_call, cap_call, n_scc, cap_scc, dfs_counter;
/* Per frame of call_stack: whether its pass read a table that was not complete (one on
 * the stack, or one a call left incomplete). Only such a pass may need another: a table
 * whose calls all came back complete (every table of a relation off every cycle) is done
 * after one, however many tables of their own those calls went round. */
static uint8_t *frame_reads;
static int32_t cap_frames;
static uint64_t answers_added;

static uint64_t key_hash(int32_t kind, const T *key, int32_t nb) {
    uint64_t h = rt_mix(0x51ed27ULL, (uint64_t)kind);
    for (int32_t i = 0; i < nb; i++) h = rt_mix(h, (uint64_t)(uint32_t)key[i]);
    return h;
}

static void dense_clear(int sp);

static void space_reset(Space *s) {
    s->n = 0;
    s->n_keys = 0;
    s->aset_n = 0;
    if (++s->gen == 0) {  /* wrapped: clear the stamps */
        if (s->map_gen) memset(s->map_gen, 0, (size_t)s->map_cap * 4);
        if (s->aset_gen) memset(s->aset_gen, 0, (size_t)s->aset_cap * 4);
        dense_clear((int)(s - spaces));
        s->gen = 1;
    }
}

static void map_rebuild(Space *s, int64_t cap) {
    s->map = rt_grow(s->map, s->map_cap * 4, cap * 4);
    s->map_gen = rt_grow(s->map_gen, s->map_cap * 4, cap * 4);
    memset(s->map_gen, 0, (size_t)cap * 4);
    s->map_cap = cap;
    if (s->gen == 0) s->gen = 1;
    for (int32_t i = 0; i < s->n; i++) {
        Table *t = &s->tb[i];
        uint64_t x = key_hash(t->kind, s->keys + t->key, K_NB[t->kind]) & (uint64_t)(cap - 1);
        while (s->map_gen[x] == s->gen) x = (x + 1) & (uint64_t)(cap - 1);
        s->map_gen[x] = s->gen;
        s->map[x] = i;
    }
}

/* The handle of the table of (kind, key), -1 where there is none and insert is 0. */
#ifdef RT_STATS
static int64_t rt_kind_lookups[1 << 14], rt_kind_made[1 << 14], rt_kind_hashed[1 << 14];
int64_t cg_stat(int32_t kind, int made) {
    return made == 2 ? rt_kind_hashed[kind] : made ? rt_kind_made[kind] : rt_kind_lookups[kind];
}
#endif
/* A direct cache in front of the hash of tables, per kind: where every bound argument is
 * a name (a constant), each argument position ranks the names it meets (at most R of
 * them), and the ranks index a cell holding the table's handle, stamped with the space's
 * generation. Board games call their helpers with coordinates and pieces: a few array
 * reads instead of a hash and a comparison. */
#define DENSE_CELLS (1 << 20)  /* a fluent index's dense form */
/* A kind's cells: small enough to stay in the cache (past this, the hash is as quick). */
#define KIND_CELLS (1 << 12)
typedef struct { uint32_t stamp; int32_t handle; } Cell;
typedef struct {
    int32_t on;           /* 0: not set up, 1: on, -1: no cache (too many names) */
    int16_t *rank;        /* per position and name: rank + 1, 0 where unseen */
    int32_t *count;       /* per position: ranks given */
    int32_t *radix;       /* per position: ranks the cells have room for */
    Cell *cell;
    int64_t cells;
} Dense;
static Dense *dense;
static int32_t n_names_rt, n_kinds_rt;

/* (Re)makes the cells for the radixes; they only cache the hash, so they start empty. */
static int dense_cells(Dense *d, int32_t nb) {
    int64_t cells = 1;
    for (int32_t i = 0; i < nb; i++) {  /* past the bound at once: 32 radixes of 4 wrap */
        cells *= d->radix[i];
        if (cells > KIND_CELLS) return 0;
    }
    d->cell = rt_grow(d->cell, d->cells * (int64_t)sizeof(Cell), cells * (int64_t)sizeof(Cell));
    memset(d->cell, 0, (size_t)cells * sizeof(Cell));
    d->cells = cells;
    return 1;
}

static void dense_init(int32_t kind) {
    Dense *d = &dense[kind];
    int32_t nb = K_NB[kind];
    if (n_names_rt > 32000) { d->on = -1; return; }
    d->rank = rt_grow(NULL, 0, (int64_t)nb * n_names_rt * 2 + 2);
    memset(d->rank, 0, (size_t)nb * (size_t)n_names_rt * 2);
    d->count = rt_grow(NULL, 0, (int64_t)nb * 4 + 4);
    d->radix = rt_grow(NULL, 0, (int64_t)nb * 4 + 4);
    for (int32_t i = 0; i < nb; i++) { d->count[i] = 0; d->radix[i] = 4; }
    d->on = dense_cells(d, nb) ? 1 : -1;
}

static inline int64_t dense_slot(int32_t kind, const T *key) {
    Dense *d = &dense[kind];
    if (d->on <= 0) {
        if (d->on < 0) return -1;
        dense_init(kind);
        if (d->on < 0) return -1;
    }
    int32_t nb = K_NB[kind];
    int64_t at = 0;
    for (int32_t i = 0; i < nb; i++) {
        T t = key[i];
        if (t >= n_names_rt) return -1;
        int16_t *rank = d->rank + (int64_t)i * n_names_rt + t;
        if (*rank == 0) {
            if (d->count[i] == d->radix[i]) {  /* room for twice as many, or no cache */
                d->radix[i] *= 2;
                if (!dense_cells(d, nb)) { d->on = -1; return -1; }
            }
            *rank = (int16_t)++d->count[i];
        }
        at = at * d->radix[i] + (*rank - 1);
    }
    return at;
}

static void dense_clear(int sp) {  /* a space's stamps wrapped: forget its cells */
    if (!dense) return;
    for (int32_t k = 0; k < n_kinds_rt; k++) {
        Dense *d = &dense[k];
        if (K_SPACE[k] == sp && d->on > 0) memset(d->cell, 0, (size_t)d->cells * sizeof(Cell));
    }
}

static int32_t table_hashed(int32_t kind, const T *key, int insert);

static int32_t table_of(int32_t kind, const T *key, int insert) {
#ifdef RT_STATS
    rt_kind_lookups[kind]++;
#endif
    int64_t slot = dense_slot(kind, key);
    if (slot >= 0) {
        uint32_t gen = spaces[K_SPACE[kind]].gen;
        Cell *c = &dense[kind].cell[slot];
        if (c->stamp == gen) return c->handle;
        int32_t h = table_hashed(kind, key, insert);
        if (h >= 0) {
            c = &dense[kind].cell[slot];
            c->stamp = gen;
            c->handle = h;
        }
        return h;
    }
    return table_hashed(kind, key, insert);
}

static int32_t table_hashed(int32_t kind, const T *key, int insert) {
#ifdef RT_STATS
    rt_kind_hashed[kind]++;
#endif
    int sp = K_SPACE[kind];
    Space *s = &spaces[sp];
    int32_t nb = K_NB[kind];
    if (2 * (int64_t)(s->n + 1) > s->map_cap) map_rebuild(s, s->map_cap ? s->map_cap * 2 : 1024);
    uint64_t x = key_hash(kind, key, nb) & (uint64_t)(s->map_cap - 1);
    while (s->map_gen[x] == s->gen) {
        Table *t = &s->tb[s->map[x]];
        if (t->kind == kind) {
            const T *k2 = s->keys + t->key;
            int32_t i = 0;
            while (i < nb && k2[i] == key[i]) i++;
            if (i == nb) return (s->map[x] << 2) | sp;
        }
        x = (x + 1) & (uint64_t)(s->map_cap - 1);
    }
    if (!insert) return -1;
    rt_tick();
#ifdef RT_STATS
    rt_kind_made[kind]++;
#endif
    if (s->n == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 256;
        s->tb = rt_grow(s->tb, (int64_t)s->cap * sizeof(Table), (int64_t)cap * sizeof(Table));
        memset(s->tb + s->cap, 0, (size_t)(cap - s->cap) * sizeof(Table));
        s->cap = cap;
    }
    if (s->n_keys + nb > s->cap_keys) {
        int64_t cap = s->cap_keys ? s->cap_keys * 2 : 4096;
        while (cap < s->n_keys + nb) cap *= 2;
        s->keys = rt_grow(s->keys, s->cap_keys * 4, cap * 4);
        s->cap_keys = cap;
    }
    int32_t i = s->n++;
    Table *t = &s->tb[i];
    t->kind = kind;
    t->key = (int32_t)s->n_keys;
    memcpy(s->keys + s->n_keys, key, (size_t)nb * 4);
    s->n_keys += nb;
    t->n_ans = 0;
    t->status = S_NEW;
    s->map_gen[x] = s->gen;
    s->map[x] = i;
    return (i << 2) | sp;
}

static void aset_rebuild(Space *s, int64_t cap) {
    s->aset_t = rt_grow(s->aset_t, s->aset_cap * 4, cap * 4);
    s->aset_i = rt_grow(s->aset_i, s->aset_cap * 4, cap * 4);
    s->aset_gen = rt_grow(s->aset_gen, s->aset_cap * 4, cap * 4);
    memset(s->aset_gen, 0, (size_t)cap * 4);
    s->aset_cap = cap;
    if (s->gen == 0) s->gen = 1;
    for (int32_t i = 0; i < s->n; i++) {
        Table *t = &s->tb[i];
        int32_t nf = K_NF[t->kind];
        if (nf == 0) continue;
        for (int32_t a = 0; a < t->n_ans; a++) {
            uint64_t x = key_hash(i, t->ans + (int64_t)a * nf, nf) & (uint64_t)(cap - 1);
            while (s->aset_gen[x] == s->gen) x = (x + 1) & (uint64_t)(cap - 1);
            s->aset_gen[x] = s->gen;
            s->aset_t[x] = i;
            s->aset_i[x] = a;
        }
    }
}

/* Adds an answer to table h unless it has it already. */
static int64_t rt_answer_cap = INT64_MAX;  /* while a static index is built */
#define E_CAP 9

static void add_answer(int32_t h, const T *vals) {
    if ((int64_t)answers_added > rt_answer_cap) rt_fail(E_CAP);
    Space *s = &spaces[h & 3];
    int32_t i = h >> 2;
    Table *t = &s->tb[i];
    int32_t nf = K_NF[t->kind];
    if (nf == 0) {
        if (t->n_ans == 0) { t->n_ans = 1; answers_added++; }
        return;
    }
    if (2 * (s->aset_n + 1) > s->aset_cap) {
        aset_rebuild(s, s->aset_cap ? s->aset_cap * 2 : 1024);
        t = &s->tb[i];
    }
    uint64_t x = key_hash(i, vals, nf) & (uint64_t)(s->aset_cap - 1);
    while (s->aset_gen[x] == s->gen) {
        if (s->aset_t[x] == i &&
            memcmp(t->ans + (int64_t)s->aset_i[x] * nf, vals, (size_t)nf * 4) == 0)
            return;
        x = (x + 1) & (uint64_t)(s->aset_cap - 1);
    }
    if ((int64_t)(t->n_ans + 1) * nf > t->cap_ans) {  /* the room is in ids: a slot's
                                                         * buffer outlives its kind */
        int64_t cap = t->cap_ans ? (int64_t)t->cap_ans * 2 : 8;
        while (cap < (int64_t)(t->n_ans + 1) * nf) cap *= 2;
        t->ans = rt_grow(t->ans, (int64_t)t->cap_ans * 4, cap * 4);
        t->cap_ans = (int32_t)cap;
    }
    memcpy(t->ans + (int64_t)t->n_ans * nf, vals, (size_t)nf * 4);
    s->aset_gen[x] = s->gen;
    s->aset_t[x] = i;
    s->aset_i[x] = t->n_ans;
    s->aset_n++;
    t->n_ans++;
    answers_added++;
}

static void push(int32_t **stack, int32_t *n, int32_t *cap, int32_t v) {
    if (*n == *cap) {
        int32_t c = *cap ? *cap * 2 : 256;
        *stack = rt_grow(*stack, (int64_t)*cap * 4, (int64_t)c * 4);
        *cap = c;
    }
    (*stack)[(*n)++] = v;
}

/* Tables evaluated one inside another recurse in C: deeper than this, the call is refused
 * as past the memory bound rather than overflowing the thread's stack. */
#define CALL_DEPTH 20000

static void evaluate(int32_t h) {
    if (n_call >= CALL_DEPTH) rt_fail(E_MEMORY);
    int32_t component = K_SCC[TB(h).kind];
    if (component >= 0) scc_active[component]++;
    int32_t dfs = ++dfs_counter;
    TB(h).dfs = dfs;
    TB(h).link = dfs;
    TB(h).status = S_EVALUATING;
    push(&scc_stack, &n_scc, &cap_scc, h);
    int32_t base = n_scc - 1;
    push(&call_stack, &n_call, &cap_call, h);
    if (cap_frames < cap_call) {
        frame_reads = rt_grow(frame_reads, cap_frames, cap_call);
        cap_frames = cap_call;
    }
    int32_t frame = n_call - 1;
    for (;;) {
        uint64_t added = answers_added;
        frame_reads[frame] = 0;
        K_EVAL[TB(h).kind](h);
        if (TB(h).link < dfs) { TB(h).status = S_INCOMPLETE; break; }
        if (frame_reads[frame] && answers_added != added) {
            for (int32_t i = n_scc - 1; i > base; i--) TB(scc_stack[i]).status = S_STALE;
            n_scc = base + 1;
            continue;
        }
        for (int32_t i = n_scc - 1; i >= base; i--) TB(scc_stack[i]).status = S_COMPLETE;
        n_scc = base;
        break;
    }
    n_call--;
    if (component >= 0) scc_active[component]--;
    if (n_call > 0 && TB(h).status != S_COMPLETE) {
        int32_t up = call_stack[n_call - 1];
        if (TB(h).link < TB(up).link) TB(up).link = TB(h).link;
    }
}

/* Where the relation's table with every argument free is complete already (legal moves,
 * asked again for one role by a terminal test), a call's answers are read from it. */
static const int32_t *K_FULL;  /* the kind with every argument free, or -1 */
static const int64_t *K_MASK;  /* the bound argument positions */

static int from_full(int32_t kind, const T *key, int32_t h) {
    int32_t full = K_FULL[kind];
    if (full < 0 || K_SPACE[kind] == 0 || K_NF[full] > 62) return 0;
    int32_t hf = table_of(full, NULL, 0);
    if (hf < 0 || TB(hf).status != S_COMPLETE) return 0;
    int32_t arity = K_NF[full], nf = K_NF[kind];
    int64_t mask = K_MASK[kind];
    T vals[64];
    for (int32_t a = 0; a < TB(hf).n_ans; a++) {
        const T *tuple = TB(hf).ans + (int64_t)a * arity;
        int32_t j = 0, f = 0, same = 1;
        for (int32_t i = 0; i < arity && same; i++) {
            if ((mask >> i) & 1) same = tuple[i] == key[j++];
            else vals[f++] = tuple[i];
        }
        if (!same) continue;
        if (h < 0) return 1;  /* a test: one match answers it */
        add_answer(h, nf ? vals : NULL);
        if (nf == 0) break;
    }
    if (h < 0) return -1;
    TB(h).status = S_COMPLETE;
    return 1;
}

/* The table of the call (kind, key), evaluated unless it is on the stack already. */
static int32_t call(int32_t kind, const T *key) {
    int32_t h = table_of(kind, key, 1);
    if (TB(h).status == S_NEW && from_full(kind, key, h)) return h;
    switch (TB(h).status) {
    case S_COMPLETE:
        return h;
    case S_EVALUATING:
    case S_INCOMPLETE:
        if (n_call > 0) {
            frame_reads[n_call - 1] = 1;
            int32_t up = call_stack[n_call - 1];
            if (TB(h).dfs < TB(up).link) TB(up).link = TB(h).dfs;
        }
        return h;
    default:
        evaluate(h);
        if (n_call > 0 && TB(h).status != S_COMPLETE) frame_reads[n_call - 1] = 1;
        return h;
    }
}

/* A fully bound call's truth: complete tables only (the negation of a relation whose
 * table is still being evaluated would need the rules to be stratified). */
static int negated_call(int32_t kind, const T *key) {
    int32_t h = call(kind, key);
    if (TB(h).status != S_COMPLETE) rt_fail(E_UNSTRATIFIED);
    return TB(h).n_ans == 0;
}

/* A fully bound call of a relation off every cycle: the first proof answers, and the
 * answer is kept in the table as its status. */
typedef int (*TestFn)(const T *key);
/* A test's answers are kept while they are asked again: a kind whose first MEMO_TRIAL
 * misses met fewer than one hit in sixty-four (each key asked once: is this ray clear
 * between these squares, ignoring that one?) is answered without its tables from then on,
 * the hash and the table costing more than they save. */
#define MEMO_TRIAL 4096
static int64_t *memo_hits, *memo_misses;
static int8_t *memo_off;

static int test_memo(int32_t kind, const T *key, TestFn body) {
    if (memo_off[kind]) {
        int known = from_full(kind, key, -1);
        return known ? known > 0 : body(key);
    }
    int32_t h = table_of(kind, key, 1);
    if (TB(h).status == S_COMPLETE) {
        memo_hits[kind]++;
        return TB(h).n_ans;
    }
    if (++memo_misses[kind] == MEMO_TRIAL && memo_hits[kind] * 64 < MEMO_TRIAL &&
        K_SPACE[kind] != 0)  /* a static test's answers are kept for the whole game */
        memo_off[kind] = 1;
    int known = from_full(kind, key, -1);
    int r = known ? known > 0 : body(key);  /* off every cycle: this table is not asked
                                               * for again while it is evaluated */
    TB(h).n_ans = r;
    TB(h).status = S_COMPLETE;
    return r;
}

/* Static relations are read through indexes built at setup (indexes.h, api.h): a bitset
 * for a fully bound test, runs of answers for a partly bound call; the tables where there
 * is none. */

/* ---- resolution of fully bound recursive calls -------------------------------------------
 * A fully bound call of a recursive relation (is this ray clear?) is first answered by
 * resolution: depth first, no tables, a goal that is its own ancestor failing on that
 * branch. A proof is an answer; a failure is one only where no branch was cut that way and
 * the work stayed within SLD_BUDGET calls; otherwise, and wherever a table of the same
 * component is being evaluated (its answers are not all there yet), the tables answer. */
#define SLD_BUDGET 100000
#define SLD_DEPTH 2000
typedef int (*SldFn)(const T *key);
static int32_t *sld_kinds, n_sld, cap_sld;
static T *sld_keys;
static int64_t n_sld_keys, cap_sld_keys;
static int64_t sld_budget;
static int sld_cut, sld_spent;

static int sld_enter(int32_t kind, const T *key) {
    if (sld_spent) return 1;
    /* past the budget, or deeper than SLD_DEPTH (the C stack's): the tables answer */
    if (--sld_budget < 0 || n_sld >= SLD_DEPTH) { sld_spent = 1; return 1; }
    int32_t nb = K_NB[kind];
    int64_t at = n_sld_keys;
    for (int32_t i = n_sld - 1; i >= 0; i--) {
        at -= K_NB[sld_kinds[i]];
        if (sld_kinds[i] != kind) continue;
        int32_t j = 0;
        while (j < nb && sld_keys[at + j] == key[j]) j++;
        if (j == nb) { sld_cut = 1; return 1; }
    }
    push(&sld_kinds, &n_sld, &cap_sld, kind);
    if (n_sld_keys + nb > cap_sld_keys) {
        int64_t cap = cap_sld_keys ? cap_sld_keys * 2 : 1024;
        while (cap < n_sld_keys + nb) cap *= 2;
        sld_keys = rt_grow(sld_keys, cap_sld_keys * 4, cap * 4);
        cap_sld_keys = cap;
    }
    memcpy(sld_keys + n_sld_keys, key, (size_t)nb * 4);
    n_sld_keys += nb;
    return 0;
}

static void sld_leave(void) {
    n_sld--;
    n_sld_keys -= K_NB[sld_kinds[n_sld]];
}

static int rec_test(int32_t kind, const T *key, SldFn resolve) {
    if (scc_active[K_SCC[kind]] == 0) {
        int saved_cut = sld_cut, saved_spent = sld_spent;
        int64_t saved_budget = sld_budget;
        sld_cut = sld_spent = 0;
        sld_budget = SLD_BUDGET;
        int r = resolve(key);
        int known = r || (!sld_cut && !sld_spent);
        sld_cut = saved_cut;
        sld_spent = saved_spent;
        sld_budget = saved_budget;
        if (known) return r;
    }
    return TB(call(kind, key)).n_ans > 0;
}

/* ---- the state and the joint move ---------------------------------------------------- */

static const uint64_t *cur_state;
static T cur_joint[64];
static int joint_set;
static int32_t *fluent_of;  /* per base term: its fluent id, or -1 */
static int32_t *role_of;    /* per base term: its role number, or -1 */

#define BIT(f) ((cur_state[(f) >> 6] >> ((f) & 63)) & 1)

/* The state's number (set_state counts states), and the fluents it holds, listed when an
 * index first asks for them. */
static uint32_t state_gen = 1;
static int32_t n_fluents_rt;
static int32_t *held_list, n_held;
static uint32_t held_list_gen;

static void held_fluents(void) {
    if (held_list_gen == state_gen) return;
    if (!held_list) held_list = calloc((size_t)n_fluents_rt + 1, 4);
    n_held = 0;
    int32_t words = (n_fluents_rt + 63) / 64;
    for (int32_t w = 0; w < words; w++) {
        uint64_t bits = cur_state[w];
        while (bits) {
            held_list[n_held++] = w * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
        }
    }
    held_list_gen = state_gen;
}
static inline int32_t FLUENT(T t) { return t < n_base_terms ? fluent_of[t] : -1; }
static inline int32_t rt_role(T t) { return t < n_base_terms ? role_of[t] : -1; }
static inline int rt_true(T t) {
    int32_t f = FLUENT(t);
    return f >= 0 && BIT(f);
}
static inline int rt_does(T role, T move) {
    if (!joint_set) rt_fail(E_DOES);
    int32_t r = rt_role(role);
    return r >= 0 && cur_joint[r] == move;
}

/* The fluents of one functor with some top-level arguments given: a hash from the key to a
 * run of fluent ids. */
typedef struct {
    int32_t fun, ar, nb;
    const int32_t *pos;
    int32_t *slot_start, *slot_count;
    T *slot_key;
    int64_t cap;
    int32_t *ids;
    /* Where every key is names (as board coordinates are): ranks per position and a run
     * per combination of ranks. */
    int16_t *rank;
    int32_t *radix, *dense_start, *dense_count;
    /* The runs of the fluents the state holds (a board's few pieces, not every piece each
     * cell could hold), made again for each state where the index is first read: per
     * fluent its run's cell (dense) or slot, or -1. */
    int32_t *fluent_cell, *held_ids, *held_start, *held_count, *touched, n_touched;
    uint32_t held_gen;
} FluentIndex;

/* The index's held runs for the current state. */
static void index_refresh(FluentIndex *ix) {
    for (int32_t i = 0; i < ix->n_touched; i++) ix->held_count[ix->touched[i]] = 0;
    ix->n_touched = 0;
    held_fluents();
    for (int32_t i = 0; i < n_held; i++) {
        int32_t c = ix->fluent_cell[held_list[i]];
        if (c >= 0 && ix->held_count[c]++ == 0) ix->touched[ix->n_touched++] = c;
    }
    int32_t at = 0;
    for (int32_t i = 0; i < ix->n_touched; i++) {
        int32_t c = ix->touched[i];
        ix->held_start[c] = at;
        at += ix->held_count[c];
        ix->held_count[c] = 0;
    }
    for (int32_t i = 0; i < n_held; i++) {
        int32_t c = ix->fluent_cell[held_list[i]];
        if (c >= 0) ix->held_ids[ix->held_start[c] + ix->held_count[c]++] = held_list[i];
    }
    ix->held_gen = state_gen;
}

static const int32_t empty_run[1] = {0};

/* The dense cell of key, or -1 where a name of it has no rank (no fluent has that key). */
static inline int64_t index_cell(FluentIndex *ix, const T *key) {
    int64_t at = 0;
    for (int32_t i = 0; i < ix->nb; i++) {
        T t = key[i];
        int16_t r = t < n_names_rt ? ix->rank[(int64_t)i * n_names_rt + t] : 0;
        if (r == 0) return -1;
        at = at * ix->radix[i] + (r - 1);
    }
    return at;
}

static inline int32_t index_run(FluentIndex *ix, const T *key, const int32_t **run) {
    if (ix->dense_start) {
        int64_t at = index_cell(ix, key);
        if (at < 0) { *run = empty_run; return 0; }
        if (ix->fluent_cell) {
            if (ix->held_gen != state_gen) index_refresh(ix);
            *run = ix->held_ids + ix->held_start[at];
            return ix->held_count[at];
        }
        *run = ix->ids + ix->dense_start[at];
        return ix->dense_count[at];
    }
    uint64_t x = key_hash(0, key, ix->nb) & (uint64_t)(ix->cap - 1);
    while (ix->slot_count[x] > 0) {
        if (memcmp(ix->slot_key + x * ix->nb, key, (size_t)ix->nb * 4) == 0) {
            if (ix->fluent_cell) {
                if (ix->held_gen != state_gen) index_refresh(ix);
                *run = ix->held_ids + ix->held_start[x];
                return ix->held_count[x];
            }
            *run = ix->ids + ix->slot_start[x];
            return ix->slot_count[x];
        }
        x = (x + 1) & (uint64_t)(ix->cap - 1);
    }
    *run = empty_run;
    return 0;
}

/* Whether a fluent of the index's run for key holds in the state. */
static inline int index_true(FluentIndex *ix, const T *key) {
    const int32_t *run;
    int32_t n = index_run(ix, key, &run);
    for (int32_t j = 0; j < n; j++) if (BIT(run[j])) return 1;
    return 0;
}

#define HELD_CELLS ((int64_t)1 << 24)
#define HELD_RUN 8
static int64_t held_cells;

static void index_dense(FluentIndex *ix, const T *fluent_terms, int32_t n_fluents);
static void index_hold(FluentIndex *ix, const T *fluent_terms, int32_t n_fluents,
                       const int32_t *slot_of);

static void index_build(FluentIndex *ix, const T *fluent_terms, int32_t n_fluents) {
    int64_t cap = 16;
    while (cap < 2 * (int64_t)n_fluents + 2) cap *= 2;
    ix->cap = cap;
    ix->slot_start = calloc((size_t)cap, 4);
    ix->slot_count = calloc((size_t)cap, 4);
    ix->slot_key = calloc((size_t)(cap * (ix->nb ? ix->nb : 1)), 4);
    ix->ids = calloc((size_t)n_fluents + 1, 4);
    int32_t *slot_of = calloc((size_t)n_fluents + 1, 4);
    T key[64];
    for (int pass = 0; pass < 2; pass++) {
        int32_t at = 0;
        if (pass == 1) {
            for (int64_t x = 0; x < cap; x++) {
                if (ix->slot_count[x] > 0) {
                    ix->slot_start[x] = at;
                    at += ix->slot_count[x];
                    ix->slot_count[x] = 0;
                }
            }
        }
        for (int32_t f = 0; f < n_fluents; f++) {
            T t = fluent_terms[f];
            if (TF(t) != ix->fun || TA(t) != ix->ar) continue;
            if (pass == 1) {
                int64_t x = slot_of[f];
                ix->ids[ix->slot_start[x] + ix->slot_count[x]++] = f;
                continue;
            }
            for (int32_t i = 0; i < ix->nb; i++) key[i] = TG(t, ix->pos[i]);
            uint64_t x = key_hash(0, key, ix->nb) & (uint64_t)(cap - 1);
            while (ix->slot_count[x] > 0 &&
                   memcmp(ix->slot_key + x * ix->nb, key, (size_t)ix->nb * 4) != 0)
                x = (x + 1) & (uint64_t)(cap - 1);
            if (ix->slot_count[x] == 0) memcpy(ix->slot_key + x * ix->nb, key, (size_t)ix->nb * 4);
            ix->slot_count[x]++;
            slot_of[f] = (int32_t)x;
        }
    }
    index_dense(ix, fluent_terms, n_fluents);
    index_hold(ix, fluent_terms, n_fluents, slot_of);
    free(slot_of);
}

/* The dense form of an index, where its keys are names and their ranks' product fits. */
static void index_dense(FluentIndex *ix, const T *fluent_terms, int32_t n_fluents) {
    if (ix->nb == 0 || n_names_rt > 32000) return;
    int16_t *rank = calloc((size_t)ix->nb * (size_t)n_names_rt, 2);
    int32_t *radix = calloc((size_t)ix->nb, 4);
    int64_t cells = 1;
    int fits = 1;
    for (int32_t i = 0; i < ix->nb && fits; i++) {
        for (int32_t f = 0; f < n_fluents; f++) {
            T t = fluent_terms[f];
            if (TF(t) != ix->fun || TA(t) != ix->ar) continue;
            T v = TG(t, ix->pos[i]);
            if (v >= n_names_rt) { fits = 0; break; }
            int16_t *r = rank + (int64_t)i * n_names_rt + v;
            if (*r == 0) *r = (int16_t)++radix[i];
        }
        cells *= radix[i] ? radix[i] : 1;
        if (cells > DENSE_CELLS) fits = 0;
    }
    if (!fits) { free(rank); free(radix); return; }
    int32_t *start = calloc((size_t)cells, 4), *count = calloc((size_t)cells, 4);
    for (int64_t x = 0; x < ix->cap; x++) {
        if (ix->slot_count[x] == 0) continue;
        int64_t at = 0;
        for (int32_t i = 0; i < ix->nb; i++)
            at = at * radix[i] + (rank[(int64_t)i * n_names_rt + ix->slot_key[x * ix->nb + i]] - 1);
        start[at] = ix->slot_start[x];
        count[at] = ix->slot_count[x];
    }
    ix->rank = rank;
    ix->radix = radix;
    ix->dense_start = start;
    ix->dense_count = count;
}

/* The held runs, where a key leaves HELD_RUN candidates or more on average (a few
 * candidates are read as quickly as a list is made), while a cell per fluent in every index
 * stays within HELD_CELLS: each fluent's run is its dense cell, or else its slot. */
static void index_hold(FluentIndex *ix, const T *fluent_terms, int32_t n_fluents,
                       const int32_t *slot_of) {
    int32_t members = 0, keys = 0;
    for (int64_t x = 0; x < ix->cap; x++) {
        members += ix->slot_count[x];
        keys += ix->slot_count[x] > 0;
    }
    if (members < (int64_t)HELD_RUN * keys || held_cells + n_fluents > HELD_CELLS) return;
    held_cells += n_fluents;
    int64_t cells = ix->cap;
    if (ix->dense_start) {
        cells = 1;
        for (int32_t i = 0; i < ix->nb; i++) cells *= ix->radix[i] ? ix->radix[i] : 1;
    }
    ix->fluent_cell = malloc((size_t)n_fluents * 4 + 4);
    T key[64];
    for (int32_t f = 0; f < n_fluents; f++) {
        T t = fluent_terms[f];
        ix->fluent_cell[f] = -1;
        if (TF(t) != ix->fun || TA(t) != ix->ar) continue;
        for (int32_t i = 0; i < ix->nb; i++) key[i] = TG(t, ix->pos[i]);
        ix->fluent_cell[f] = ix->dense_start ? (int32_t)index_cell(ix, key) : slot_of[f];
    }
    ix->held_ids = calloc((size_t)members + 1, 4);
    ix->touched = calloc((size_t)members + 1, 4);
    ix->held_start = calloc((size_t)cells, 4);
    ix->held_count = calloc((size_t)cells, 4);
}

/* ---- a small seeded generator for playouts ------------------------------------------- */

static uint64_t rng_state;
static inline uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
