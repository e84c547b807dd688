/* The static indexes' lookups (built by api.h), placed before the game's functions so that
 * each call site is compiled with its kind's constants folded in. */
#define STATIC_ANSWERS (1 << 20)
#define STATIC_SECONDS 2.0
/* An envelope is only a filter: it is not worth a long setup (past these, no filter). */
#define ENVELOPE_ANSWERS (1 << 18)
#define ENVELOPE_SECONDS 0.25
#define STATIC_BITS ((int64_t)1 << 27)
#define STATIC_CELLS ((int64_t)1 << 22)

typedef struct { int8_t state; int16_t *rank; int32_t *radix; } StaticRel;
typedef struct { int8_t state; uint64_t *bits; int64_t *start; T *tuples; } StaticKind;
static StaticRel static_rels[N_STATIC > 0 ? N_STATIC : 1];
static StaticKind *static_kinds;
static int statics_built;

static inline __attribute__((always_inline)) int static_test(int32_t kind, const T *key,
                                                             TestFn body) {
    StaticKind *sk = &static_kinds[kind];
    if (sk->state != 1) return test_memo(kind, key, body);
    StaticRel *r = &static_rels[KIND_STATIC[kind]];
    int32_t arity = STATIC_ARITY[KIND_STATIC[kind]];
    int64_t at = 0;
    for (int32_t i = 0; i < arity; i++) {
        T t = key[i];
        if (t >= N_NAMES) return 0;
        int16_t rk = r->rank[(int64_t)i * N_NAMES + t];
        if (!rk) return 0;
        at = at * r->radix[i] + rk - 1;
    }
    return (int)((sk->bits[at >> 6] >> (at & 63)) & 1);
}

static inline __attribute__((always_inline)) int32_t static_answers(int32_t kind, const T *key,
                                                                   const T **out) {
    StaticKind *sk = &static_kinds[kind];
    if (sk->state != 1) {
        int32_t h = call(kind, key);
        *out = TB(h).ans;
        return TB(h).n_ans;
    }
    int32_t s = KIND_STATIC[kind];
    StaticRel *r = &static_rels[s];
    int64_t mask = KIND_MASK[kind], at = 0;
    int32_t j = 0;
    for (int32_t i = 0; i < STATIC_ARITY[s]; i++) {
        if (!((mask >> i) & 1)) continue;
        T t = key[j++];
        int16_t rk = t < N_NAMES ? r->rank[(int64_t)i * N_NAMES + t] : 0;
        if (!rk) { *out = NULL; return 0; }
        at = at * r->radix[i] + rk - 1;
    }
    *out = sk->tuples + sk->start[at] * K_NF[kind];
    return (int32_t)(sk->start[at + 1] - sk->start[at]);
}


/* Whether a static envelope (see reasoner/compiled/envelopes.py) may hold of key: its
 * index's answer where it was built, else yes (no index: no filter). */
static inline __attribute__((always_inline)) int envelope_holds(int32_t kind, const T *key) {
    if (static_kinds[kind].state != 1) return 1;
    if (K_EVAL[kind] == 0) return static_test(kind, key, NULL);
    const T *a;
    return static_answers(kind, key, &a) > 0;
}
