/* The entry points of a compiled game (see reasoner/compiled/machine.py), appended after
 * the game's generated code. Every entry point answers 0 or an error code (E_*); after an
 * error every table is dropped, so the next call starts clean. */

static int ready;
static uint64_t *last_state, *zero_state, *next_buf;
static int has_state;
static int32_t *move_first, *move_next;
static int32_t *legal_buf, *goal_buf, *role_moves, *role_count;

#define WORDS ((N_FLUENTS + 63) / 64)
#define GOAL_CAP (N_ROLES * 101 + 1)

static void drop_all(void) {
    for (int i = 0; i < 3; i++) space_reset(&spaces[i]);
    n_call = n_scc = 0;
    n_sld = 0;
    n_sld_keys = 0;
    if (scc_active) memset(scc_active, 0, (size_t)N_SCC * 4);
    has_state = 0;
    joint_set = 0;
    if (n_terms > n_base_terms) {
        n_args = t_off[n_base_terms];
        n_terms = n_base_terms;
        term_rehash();
    }
}

/* Per kind, at the last error: its tables and their answers, counted before they were
 * dropped, so that a refusal can name what grew (cg_growth); and the bytes then held by
 * the tables and by the terms, and the terms made. */
static int64_t *growth_tables, *growth_answers;
static int64_t growth_totals[3];

/* The bytes a space's tables hold, their answers' room included. */
static int64_t space_bytes(const Space *sp) {
    int64_t bytes = (int64_t)sp->cap * (int64_t)sizeof(Table) + sp->cap_keys * 4
        + sp->map_cap * 8 + sp->aset_cap * 12;
    for (int32_t t = 0; t < sp->cap; t++) bytes += (int64_t)sp->tb[t].cap_ans * 4;
    return bytes;
}

static void tally_growth(void) {
    if (!growth_tables) return;
    memset(growth_tables, 0, (size_t)N_KINDS * 8);
    memset(growth_answers, 0, (size_t)N_KINDS * 8);
    growth_totals[0] = 0;
    for (int s = 0; s < 3; s++) {
        for (int32_t t = 0; t < spaces[s].n; t++) {
            growth_tables[spaces[s].tb[t].kind]++;
            growth_answers[spaces[s].tb[t].kind] += spaces[s].tb[t].n_ans;
        }
        growth_totals[0] += space_bytes(&spaces[s]);
    }
    growth_totals[1] = (int64_t)cap_terms * 12 + t_slot_cap * 4 + (int64_t)cap_args * 4;
    growth_totals[2] = n_terms - n_base_terms;
}

/* The tables' storage freed (after the memory bound: a later call, or another game's
 * code in this process, gets the room back). */
static void release_spaces(void) {
    for (int i = 0; i < 3; i++) {
        Space *sp = &spaces[i];
        int64_t bytes = space_bytes(sp);
        for (int32_t t = 0; t < sp->cap; t++) free(sp->tb[t].ans);
        free(sp->tb); free(sp->keys); free(sp->map); free(sp->map_gen);
        free(sp->aset_t); free(sp->aset_i); free(sp->aset_gen);
        uint32_t gen = sp->gen;
        memset(sp, 0, sizeof(Space));
        sp->gen = gen;
        rt_bytes -= bytes;
    }
}

/* After an error: what grew counted (once: dropping may fail again past the bound), every
 * table dropped, and past the memory bound their storage freed. */
static int failing;
static void fail_clean(int code) {
    if (!failing) {
        failing = 1;
        tally_growth();
        if (code == E_MEMORY) release_spaces();
    }
    drop_all();
    failing = 0;
}

static void *setup_alloc(int64_t bytes) {
    void *p = rt_grow(NULL, 0, bytes > 0 ? bytes : 4);
    memset(p, 0, (size_t)(bytes > 0 ? bytes : 4));
    return p;
}

static void arm(double seconds) {
    clock_gettime(CLOCK_MONOTONIC, &rt_deadline);
    int64_t ns = (int64_t)(seconds * 1e9);
    rt_deadline.tv_sec += ns / 1000000000;
    rt_deadline.tv_nsec += ns % 1000000000;
    if (rt_deadline.tv_nsec >= 1000000000) { rt_deadline.tv_sec++; rt_deadline.tv_nsec -= 1000000000; }
}

/* ---- static indexes --------------------------------------------------------------------
 * A static relation whose answers are at most STATIC_ANSWERS names, found within
 * STATIC_SECONDS, is indexed: each argument position ranks its names, a fully bound test
 * reads one bit of the product of the ranks, a partly bound call one run of answers per
 * combination of its bound ranks. */
static void static_index_kind(int32_t k, int32_t s, const T *ans, int32_t n) {
    StaticRel *r = &static_rels[s];
    StaticKind *sk = &static_kinds[k];
    int32_t arity = STATIC_ARITY[s], nf = K_NF[k];
    int64_t mask = KIND_MASK[k], cells = 1;
    for (int32_t i = 0; i < arity; i++)
        if ((mask >> i) & 1) cells *= r->radix[i] ? r->radix[i] : 1;
    int test = K_EVAL[k] == 0;  /* a test: one bit per combination */
    if (cells > (test ? STATIC_BITS : STATIC_CELLS)) { sk->state = -1; return; }
    if (test) {
        sk->bits = setup_alloc((cells + 63) / 64 * 8);
    } else {
        sk->start = setup_alloc((cells + 1) * 8);
        sk->tuples = setup_alloc((int64_t)n * nf * 4 + 4);
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !test) {
            for (int64_t c = cells; c > 0; c--) sk->start[c] = sk->start[c - 1];
            sk->start[0] = 0;
            for (int64_t c = 1; c <= cells; c++) sk->start[c] += sk->start[c - 1];
        }
        for (int32_t a = 0; a < n; a++) {
            const T *tuple = ans + (int64_t)a * arity;
            int64_t at = 0;
            for (int32_t i = 0; i < arity; i++)
                if ((mask >> i) & 1)
                    at = at * r->radix[i] + r->rank[(int64_t)i * N_NAMES + tuple[i]] - 1;
            if (test) { sk->bits[at >> 6] |= (uint64_t)1 << (at & 63); continue; }
            if (pass == 0) { sk->start[at]++; continue; }
            T *dst = sk->tuples + (sk->start[at] + 0) * nf;
            int32_t f = 0;
            for (int32_t i = 0; i < arity; i++) if (!((mask >> i) & 1)) dst[f++] = tuple[i];
            sk->start[at]++;
        }
        if (test) break;
    }
    if (!test) {  /* the second pass moved each start to the next run's: shift back */
        for (int64_t c = cells; c > 0; c--) sk->start[c] = sk->start[c - 1];
        sk->start[0] = 0;
    }
    sk->state = 1;
}

static void static_build(int32_t s) {
    StaticRel *r = &static_rels[s];
    jmp_buf outer;
    memcpy(outer, rt_jump, sizeof(jmp_buf));
    struct timespec outer_deadline = rt_deadline;
    arm(STATIC_ENVELOPE[s] ? ENVELOPE_SECONDS : STATIC_SECONDS);
    if (rt_deadline.tv_sec > outer_deadline.tv_sec ||
        (rt_deadline.tv_sec == outer_deadline.tv_sec && rt_deadline.tv_nsec > outer_deadline.tv_nsec))
        rt_deadline = outer_deadline;
    if (setjmp(rt_jump)) {  /* too large or too slow: the tables answer this one */
        memcpy(rt_jump, outer, sizeof(jmp_buf));
        rt_deadline = outer_deadline;
        rt_answer_cap = INT64_MAX;
        space_reset(&spaces[0]);
        n_call = n_scc = 0;
        n_sld = 0;
        n_sld_keys = 0;
        memset(scc_active, 0, (size_t)N_SCC * 4);
        r->state = -1;
        return;
    }
    rt_answer_cap = (int64_t)answers_added + (STATIC_ENVELOPE[s] ? ENVELOPE_ANSWERS
                                                                 : STATIC_ANSWERS);
    int32_t h = call(STATIC_FULL[s], NULL);
    rt_answer_cap = INT64_MAX;
    memcpy(rt_jump, outer, sizeof(jmp_buf));
    rt_deadline = outer_deadline;
    int32_t arity = STATIC_ARITY[s], n = TB(h).n_ans;
    const T *ans = TB(h).ans;
    for (int64_t a = 0; a < (int64_t)n * arity; a++)
        if (ans[a] >= N_NAMES) { r->state = -1; return; }
    r->rank = setup_alloc((int64_t)arity * N_NAMES * 2);
    r->radix = setup_alloc((int64_t)arity * 4);
    for (int64_t a = 0; a < (int64_t)n * arity; a++) {
        int32_t i = (int32_t)(a % arity);
        int16_t *rk = r->rank + (int64_t)i * N_NAMES + ans[a];
        if (!*rk) *rk = (int16_t)++r->radix[i];
    }
    r->state = 1;
    for (int32_t k = 0; k < N_KINDS; k++)
        if (KIND_STATIC[k] == s) static_index_kind(k, s, ans, n);
}

static void static_build_all(void) {
    if (statics_built) return;
    if (N_NAMES <= 32000)
        for (int32_t s = 0; s < N_STATIC; s++) static_build(s);
    statics_built = 1;
}

static void setup(void) {
    if (ready) return;
    K_NB = KIND_NB;
    K_NF = KIND_NF;
    K_SPACE = KIND_SPACE;
    K_EVAL = KIND_EVAL;
    K_SCC = KIND_SCC;
    K_FULL = KIND_FULL;
    K_MASK = KIND_MASK;
    scc_active = setup_alloc((int64_t)N_SCC * 4);
    memo_hits = setup_alloc((int64_t)N_KINDS * 8);
    memo_misses = setup_alloc((int64_t)N_KINDS * 8);
    memo_off = setup_alloc((int64_t)N_KINDS);
    growth_tables = setup_alloc((int64_t)N_KINDS * 8);
    growth_answers = setup_alloc((int64_t)N_KINDS * 8);
    n_names_rt = N_NAMES;
    n_kinds_rt = N_KINDS;
    n_fluents_rt = N_FLUENTS;
    dense = setup_alloc((int64_t)N_KINDS * sizeof(Dense));
    for (int32_t i = 0; i < N_NAMES; i++) {
        term_room();
        t_fun[n_terms] = i;
        t_ar[n_terms] = 0;
        t_off[n_terms] = n_args;
        n_terms++;
    }
    term_rehash();
    int64_t at = 0;
    for (int32_t i = 0; i < N_COMPOUNDS; i++) {
        int32_t n = COMPOUND_AR[i];
        mk(COMPOUND_FUN[i], n, COMPOUND_ARGS + at);
        at += n;
    }
    n_base_terms = n_terms;
    fluent_of = setup_alloc((int64_t)n_base_terms * 4);
    role_of = setup_alloc((int64_t)n_base_terms * 4);
    move_first = setup_alloc((int64_t)n_base_terms * 4);
    move_next = setup_alloc((int64_t)N_MOVES * 4);
    for (int32_t t = 0; t < n_base_terms; t++) fluent_of[t] = role_of[t] = move_first[t] = -1;
    for (int32_t f = 0; f < N_FLUENTS; f++) fluent_of[FLUENT_TERMS[f]] = f;
    for (int32_t r = 0; r < N_ROLES; r++) role_of[ROLE_TERMS[r]] = r;
    for (int32_t m = N_MOVES - 1; m >= 0; m--) {
        move_next[m] = move_first[MOVE_TERMS[m]];
        move_first[MOVE_TERMS[m]] = m;
    }
    for (int32_t i = 0; i < N_INDEXES; i++) index_build(&fluent_indexes[i], FLUENT_TERMS, N_FLUENTS);
    static_kinds = setup_alloc((int64_t)N_KINDS * sizeof(StaticKind));
    last_state = setup_alloc((int64_t)WORDS * 8);
    zero_state = setup_alloc((int64_t)WORDS * 8);
    next_buf = setup_alloc((int64_t)WORDS * 8);
    legal_buf = setup_alloc((int64_t)N_MOVES * 4);
    goal_buf = setup_alloc((int64_t)GOAL_CAP * 2 * 4);
    role_moves = setup_alloc((int64_t)N_MOVES * 4);
    role_count = setup_alloc((int64_t)N_ROLES * 4);
    for (int i = 0; i < 3; i++) spaces[i].gen = 1;
    ready = 1;
}

static void set_state(const uint64_t *state) {
    if (!has_state || memcmp(state, last_state, (size_t)WORDS * 8) != 0) {
        memcpy(last_state, state, (size_t)WORDS * 8);
        state_gen++;
        space_reset(&spaces[1]);
        space_reset(&spaces[2]);
        has_state = 1;
        joint_set = 0;
    }
    cur_state = last_state;
}

static void set_joint(const int32_t *joint) {
    T terms[64];
    for (int32_t r = 0; r < N_ROLES; r++) {
        if (joint[r] < 0 || joint[r] >= N_MOVES || MOVE_ROLE[joint[r]] != r) rt_fail(E_MOVE);
        terms[r] = MOVE_TERMS[joint[r]];
    }
    if (!joint_set || memcmp(terms, cur_joint, (size_t)N_ROLES * 4) != 0) {
        memcpy(cur_joint, terms, (size_t)N_ROLES * 4);
        space_reset(&spaces[2]);
        joint_set = 1;
    }
}

static int32_t move_of(int32_t r, T t) {
    if (t >= n_base_terms) return -1;
    int32_t m = move_first[t];
    while (m >= 0 && MOVE_ROLE[m] != r) m = move_next[m];
    return m;
}

static int32_t legal_moves(void) {
    int32_t h = call(K_LEGAL, NULL);
    int32_t n = TB(h).n_ans;
    for (int32_t i = 0; i < n; i++) {
        T rt = ANS(h, i, 0), mt = ANS(h, i, 1);
        int32_t r = rt < n_base_terms ? role_of[rt] : -1;
        int32_t m = r >= 0 ? move_of(r, mt) : -1;
        if (m < 0) { rt_error_detail = i; rt_fail(E_MOVE); }
        legal_buf[i] = m;
    }
    return n;
}

static int is_terminal(void) {
#if TERMINAL_TEST
    return test_memo(K_TERMINAL, NULL, TERMINAL_TEST_FN);
#else
    return TB(call(K_TERMINAL, NULL)).n_ans > 0;
#endif
}

static int32_t goal_pairs(void) {
    int32_t h = call(K_GOAL, NULL);
    int32_t n = TB(h).n_ans < GOAL_CAP ? TB(h).n_ans : GOAL_CAP;
    for (int32_t i = 0; i < n; i++) {
        T rt = ANS(h, i, 0);
        goal_buf[2 * i] = rt < n_base_terms ? role_of[rt] : -1;
        goal_buf[2 * i + 1] = ANS(h, i, 1);
    }
    return n;
}

static void next_state(uint64_t *out) {
    int32_t h = call(K_NEXT, NULL);
    memset(out, 0, (size_t)WORDS * 8);
    for (int32_t i = 0; i < TB(h).n_ans; i++) {
        int32_t f = FLUENT(ANS(h, i, 0));
        if (f < 0) rt_fail(E_FLUENT);
        out[f >> 6] |= (uint64_t)1 << (f & 63);
    }
}

static void info_into(int32_t *legal, int32_t *n_legal, int32_t *terminal, int32_t *goals,
                      int32_t *n_goals) {
    int32_t n = legal_moves();
    memcpy(legal, legal_buf, (size_t)n * 4);
    *n_legal = n;
    *terminal = is_terminal();
    int32_t g = goal_pairs();
    memcpy(goals, goal_buf, (size_t)g * 8);
    *n_goals = g;
}

int cg_words(void) { return WORDS; }
int cg_moves(void) { return N_MOVES; }
int cg_goal_cap(void) { return GOAL_CAP; }
int cg_error_detail(void) { return rt_error_detail; }
int64_t cg_terms(void) { return n_terms; }
int64_t cg_bytes(void) { return rt_bytes; }
/* At the last error, kind ``kind``'s tables (``which`` 0) or their answers (1); for kind
 * -1, the bytes of the tables (0) and of the terms (1), and the terms made (2). */
int64_t cg_growth(int32_t kind, int which) {
    if (kind == -1) return which >= 0 && which < 3 ? growth_totals[which] : 0;
    if (!growth_tables || kind < 0 || kind >= N_KINDS) return 0;
    return which ? growth_answers[kind] : growth_tables[kind];
}

int cg_start(double seconds, int64_t max_bytes, uint64_t *out) {
    rt_max_bytes = max_bytes;
    int code = setjmp(rt_jump);
    if (code) { fail_clean(code); return code; }
    arm(seconds);
    setup();
    static_build_all();
    set_state(zero_state);
    int32_t h = call(K_INIT, NULL);
    memset(out, 0, (size_t)WORDS * 8);
    for (int32_t i = 0; i < TB(h).n_ans; i++) {
        int32_t f = FLUENT(ANS(h, i, 0));
        if (f < 0) rt_fail(E_FLUENT);
        out[f >> 6] |= (uint64_t)1 << (f & 63);
    }
    return 0;
}

int cg_info(double seconds, const uint64_t *state, int32_t *legal, int32_t *n_legal,
            int32_t *terminal, int32_t *goals, int32_t *n_goals) {
    int code = setjmp(rt_jump);
    if (code) { fail_clean(code); return code; }
    arm(seconds);
    set_state(state);
    info_into(legal, n_legal, terminal, goals, n_goals);
    return 0;
}

int cg_transition(double seconds, const uint64_t *state, const int32_t *joint, uint64_t *out,
                  int32_t *legal, int32_t *n_legal, int32_t *terminal, int32_t *goals,
                  int32_t *n_goals) {
    int code = setjmp(rt_jump);
    if (code) { fail_clean(code); return code; }
    arm(seconds);
    set_state(state);
    set_joint(joint);
    next_state(next_buf);
    memcpy(out, next_buf, (size_t)WORDS * 8);
    set_state(next_buf);
    info_into(legal, n_legal, terminal, goals, n_goals);
    return 0;
}

/* Seeded random playouts from state, each role's move drawn uniformly; per playout its
 * length, whether it ended terminal, and each role's goal value (-1: none or several). */
int cg_playouts(double seconds, const uint64_t *state, int32_t count, uint64_t seed,
                int32_t max_steps, int32_t *lengths, int8_t *terminal, int32_t *goals,
                int32_t *joints) {
    static uint64_t *a, *b;
    static int32_t joint[64];
    int code = setjmp(rt_jump);
    if (code) { fail_clean(code); return code; }
    arm(seconds);
    if (!a) {
        a = setup_alloc((int64_t)WORDS * 8 + 8);
        b = setup_alloc((int64_t)WORDS * 8 + 8);
    }
    rng_state = seed;
    int64_t written = 0;
    for (int32_t p = 0; p < count; p++) {
        memcpy(a, state, (size_t)WORDS * 8);
        int32_t steps = 0, ended = 0;
        for (;;) {
            set_state(a);
            /* the legal moves first: a terminal test that asks for them reads their table */
            int32_t n = legal_moves();
            if (is_terminal()) { ended = 1; break; }
            if (steps >= max_steps) break;
            memset(role_count, 0, (size_t)N_ROLES * 4);
            for (int32_t r = 0; r < N_ROLES; r++) {
                int32_t c = 0;
                for (int32_t i = 0; i < n; i++)
                    if (MOVE_ROLE[legal_buf[i]] == r) role_moves[c++] = legal_buf[i];
                if (c == 0) { rt_error_detail = r; rt_fail(E_NO_MOVE); }
                joint[r] = role_moves[rng_next() % (uint64_t)c];
            }
            if (joints) {
                memcpy(joints + written, joint, (size_t)N_ROLES * 4);
                written += N_ROLES;
            }
            set_joint(joint);
            next_state(b);
            uint64_t *swap = a; a = b; b = swap;
            steps++;
        }
        set_state(a);
        int32_t g = goal_pairs();
        for (int32_t r = 0; r < N_ROLES; r++) {
            int32_t value = -1, seen = 0;
            for (int32_t i = 0; i < g; i++) {
                if (goal_buf[2 * i] != r) continue;
                T v = goal_buf[2 * i + 1];
                int32_t number = v < N_NAMES ? NAME_NUM[v] : -1;
                if (number < 0) { rt_error_detail = r; rt_fail(E_GOAL); }
                value = number;
                seen++;
            }
            goals[(int64_t)p * N_ROLES + r] = seen == 1 ? value : -1;
        }
        lengths[p] = steps;
        terminal[p] = (int8_t)ended;
    }
    return 0;
}

/* Evaluates root relation ``root`` (see ROOT_KIND, a table's kind) with no argument bound in
 * ``state``; its tables, and those of every call it made, stay for cg_dump. */
int cg_root(double seconds, const uint64_t *state, int32_t root) {
    int code = setjmp(rt_jump);
    if (code) { fail_clean(code); return code; }
    arm(seconds);
    set_state(state);
    call(ROOT_KIND[root], NULL);
    return 0;
}

/* A term's name (its functor's for a compound) and, in args, its arguments when they fit
 * in cap; the answer is its arity. */
int32_t cg_term(int32_t t, int32_t *name, int32_t *args, int32_t cap) {
    *name = TF(t);
    int32_t n = TA(t);
    for (int32_t i = 0; i < n && i < cap; i++) args[i] = TG(t, i);
    return n;
}

/* Every table's atoms, as records of a kind and the relation's arguments (the call's bound
 * ones and an answer's free ones, in the relation's order; a fully bound call's record when
 * it held): n_out ids, written to out when they fit in cap (else -1). ``kinds``: NULL for
 * every kind's tables, else a flag per kind (only those whose flag is set). */
int cg_dump(const uint8_t *kinds, int32_t *out, int64_t cap, int64_t *n_out) {
    int64_t n = 0;
    for (int s = 0; s < 3; s++) {
        Space *sp = &spaces[s];
        for (int32_t t = 0; t < sp->n; t++) {
            Table *tb = &sp->tb[t];
            int32_t k = tb->kind, nb = K_NB[k], nf = K_NF[k];
            if (tb->status != S_COMPLETE || (kinds && !kinds[k])) continue;
            const T *key = sp->keys + tb->key;
            for (int32_t i = 0; i < tb->n_ans; i++) {
                if (n + 1 + nb + nf <= cap) {
                    int32_t *rec = out + n;
                    rec[0] = k;
                    int32_t b = 0, f = 0;
                    for (int32_t j = 0; j < nb + nf; j++)
                        rec[1 + j] = (K_MASK[k] >> j) & 1 ? key[b++]
                                                          : tb->ans[(int64_t)i * nf + f++];
                }
                n += 1 + nb + nf;
            }
        }
    }
    *n_out = n;
    return n > cap ? -1 : 0;
}
