/* The CPU build of the playout kernel (kernel.h), and one state at a time.
 *
 * playouts(): bit-parallel random playouts in blocks of 256 lanes, the Python lock
 * released while they run.
 *
 * Single: one state at a time, for the state queries. It keeps the values of every signal
 * for the state and joint move it last saw; a query for another state flips only the
 * inputs that differ and re-evaluates only the nodes those flips reach, in evaluation order
 * (a bitmap of dirty units scanned from the first). A recursive component is one unit,
 * recomputed from empty when anything it reads changes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_WORDS 4
#include "kernel.h"

/* -- checking an image ------------------------------------------------------------------ */

static int check_image(const int *image, Py_ssize_t length) {
    int i;
    if (length < H_SIZE || image[H_MAGIC] != K_MAGIC) {
        PyErr_SetString(PyExc_ValueError, "not a kernel image of this version");
        return -1;
    }
    for (i = H_INFO; i < H_SIZE; i++) {
        if (image[i] < 0 || image[i] > length) {
            PyErr_SetString(PyExc_ValueError, "a kernel image section lies outside it");
            return -1;
        }
    }
    return 0;
}

/* -- batch playouts --------------------------------------------------------------------- */

static PyObject *native_playouts(PyObject *self, PyObject *args) {
    Py_buffer image, start, lengths, terminal, goals, trace = {0}, started = {0};
    PyObject *trace_object = Py_None, *started_object = Py_None;
    int lane_id[64 * KERNEL_WORDS];
    long long playouts, seed;
    int max_steps, park;
    k_net net;
    k_out out;
    k_word *values;
    int *lane_start;
    long long stride = KERNEL_WORDS;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*LLiiw*w*w*|OO", &image, &start, &playouts, &seed,
                          &max_steps, &park, &lengths, &terminal, &goals, &trace_object,
                          &started_object))
        return NULL;
    out.trace = NULL;
    out.started = NULL;
    out.lane_id = lane_id;
    out.trace_cap = 0;
    if (trace_object != Py_None) {
        if (PyObject_GetBuffer(trace_object, &trace, PyBUF_WRITABLE) < 0 ||
            PyObject_GetBuffer(started_object, &started, PyBUF_WRITABLE) < 0)
            goto fail;
        out.trace = (int *)trace.buf;
        out.started = (int *)started.buf;
    }
    if (check_image((const int *)image.buf, image.len / (Py_ssize_t)sizeof(int)) < 0)
        goto fail;
    k_open(&net, (const int *)image.buf);
    if (out.trace) {
        out.trace_cap = trace.len / (Py_ssize_t)sizeof(int) / (2 + net.roles);
        if (started.len < playouts * (Py_ssize_t)sizeof(int)) {
            PyErr_SetString(PyExc_ValueError, "playouts: the started buffer is too small");
            goto fail;
        }
    }
    if (start.len < net.fluents || playouts < 0 || max_steps < 0 ||
        lengths.len < playouts * (Py_ssize_t)sizeof(int) || terminal.len < playouts ||
        goals.len < playouts * net.roles * 2 * (Py_ssize_t)sizeof(k_word)) {
        PyErr_SetString(PyExc_ValueError, "playouts: buffers too small for the playouts");
        goto fail;
    }
    values = (k_word *)malloc((size_t)K_ROWS(&net) * KERNEL_WORDS * sizeof(k_word));
    lane_start = (int *)malloc(64 * KERNEL_WORDS * sizeof(int));
    if (!values || !lane_start) {
        free(values);
        free(lane_start);
        PyErr_NoMemory();
        goto fail;
    }
    memset(values, 0, (size_t)K_ROWS(&net) * KERNEL_WORDS * sizeof(k_word));
    out.lengths = (int *)lengths.buf;
    out.terminal = (unsigned char *)terminal.buf;
    out.goals = (k_word *)goals.buf;
    Py_BEGIN_ALLOW_THREADS
    k_block(&net, (const unsigned char *)start.buf, playouts, max_steps, park, (k_word)seed, values,
            stride, lane_start, &out);
    Py_END_ALLOW_THREADS
    free(values);
    free(lane_start);
    PyBuffer_Release(&image);
    PyBuffer_Release(&start);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&terminal);
    PyBuffer_Release(&goals);
    if (trace.buf) PyBuffer_Release(&trace);
    if (started.buf) PyBuffer_Release(&started);
    return Py_BuildValue("LiiiL", out.updates, out.error, out.error_role, out.error_step,
                         out.trace_len);
fail:
    if (trace.buf) PyBuffer_Release(&trace);
    if (started.buf) PyBuffer_Release(&started);
    PyBuffer_Release(&image);
    PyBuffer_Release(&start);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&terminal);
    PyBuffer_Release(&goals);
    return NULL;
}

/* -- one state at a time ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int *image;
    k_net net;
    const int *all, *unit_off, *body_off, *body_lits, *owner_off, *owners, *read_off,
        *readers, *node_unit;
    int units, bodies;
    unsigned char *val;        /* per signal: 0 or 1 */
    int *count;                /* per body: its literals that hold */
    int *truths;               /* per signal (nodes outside recursion): bodies that hold */
    unsigned char *before;     /* a recursive component's values before it is recomputed */
    unsigned long long *dirty; /* per unit: a recursive component to recompute */
    int dirty_words;
    int *stack;                /* flips to propagate: signal * 2 + new value */
    int depth, capacity, failed;
    int current;               /* the component whose own flips are being propagated */
    unsigned char *state;      /* the fluent inputs, packed as a state's bits */
    unsigned char *incoming;
    int state_bytes;
    int *held;                 /* the move inputs set */
    int held_count;
    unsigned long long rng;
    int *watch;                /* signals read by watched() (GDL-II's percepts) */
    int watch_count;
} Single;

static void push_flip(Single *s, int signal, int value) {
    if (s->depth == s->capacity) {
        int *grown = (int *)realloc(s->stack, sizeof(int) * (size_t)s->capacity * 2);
        if (!grown) { s->failed = 1; return; }
        s->stack = grown;
        s->capacity *= 2;
    }
    s->stack[s->depth++] = signal * 2 + value;
}

/* Apply every pending flip to the bodies that read it: a body whose count crosses its
 * number of literals changes, and so does the count of true bodies of its owners; an owner
 * that changes is flipped in turn. An owner inside a recursive component marks the
 * component instead (its least fixpoint is recomputed whole). Each flip is applied once
 * with its own value, so the order does not matter: the counts end exact. */
static void drain(Single *s) {
    while (s->depth) {
        int entry = s->stack[--s->depth], signal = entry >> 1, value = entry & 1, i, j;
        for (i = s->read_off[signal]; i < s->read_off[signal + 1]; i++) {
            int reader = s->readers[i], b = reader >> 1, negated = reader & 1;
            int need = s->body_off[b + 1] - s->body_off[b];
            int was = s->count[b] == need, is;
            s->count[b] += value != negated ? 1 : -1;
            is = s->count[b] == need;
            if (was == is) continue;
            for (j = s->owner_off[b]; j < s->owner_off[b + 1]; j++) {
                int owner = s->owners[j], unit = s->node_unit[owner], now;
                if (unit >= 0) {
                    if (unit != s->current) s->dirty[unit >> 6] |= 1ULL << (unit & 63);
                    continue;
                }
                s->truths[owner] += is ? 1 : -1;
                now = s->truths[owner] > 0;
                if (now != s->val[owner]) {
                    s->val[owner] = (unsigned char)now;
                    push_flip(s, owner, now);
                }
            }
        }
    }
}

static void flip_input(Single *s, int signal, int value) {
    s->val[signal] = (unsigned char)value;
    push_flip(s, signal, value);
}

/* One OP_NODE over bytes, short-circuiting; sets *next to the following operation. */
static int single_node(const int *c, const unsigned char *val, const int **next) {
    int bodies = c[2], b, i, result = 0;
    c += 3;
    for (b = 0; b < bodies; b++) {
        int n = *c++;
        if (!result) {
            int all = 1;
            for (i = 0; i < n; i++) {
                int lit = c[i];
                if (val[lit >> 1] == (lit & 1)) { all = 0; break; }
            }
            result = all;
        }
        c += n;
    }
    *next = c;
    return result;
}

static const int *skip_node(const int *c) {
    int bodies = c[2], b;
    c += 3;
    for (b = 0; b < bodies; b++) c += 1 + *c;
    return c;
}

/* A recursive component's least fixpoint, from empty; its members that changed are
 * flipped for their readers. */
/* Iterate the members of an OP_FIX at `c` until none changes (from their values now). */
static void fixpoint(const int *c, unsigned char *val) {
    const int *p, *body = c + 3;
    int members = c[2], m, changed;
    do {
        changed = 0;
        for (p = body, m = 0; m < members; m++) {
            int dst = p[1];
            int now = single_node(p, val, &p);
            if (now != val[dst]) { val[dst] = (unsigned char)now; changed = 1; }
        }
    } while (changed);
}

static void recompute(Single *s, int u) {
    const int *c = s->all + s->unit_off[u], *p, *body = c + 3;
    int members = c[2], m;
    unsigned char *val = s->val;
    for (p = body, m = 0; m < members; m++) {
        s->before[m] = val[p[1]];
        val[p[1]] = 0;
        p = skip_node(p);
    }
    fixpoint(c, val);
    s->current = u;
    for (p = body, m = 0; m < members; m++) {
        if (val[p[1]] != s->before[m]) push_flip(s, p[1], val[p[1]]);
        p = skip_node(p);
    }
    drain(s);
    s->current = -1;
}

/* Propagate every pending flip, then recompute the marked components in evaluation order
 * (a component's flips mark only later ones). */
static int single_propagate(Single *s) {
    int w;
    drain(s);
    for (w = 0; w < s->dirty_words; w++) {
        unsigned long long bits;
        while ((bits = s->dirty[w]) != 0) {
            int b = __builtin_ctzll(bits);
            s->dirty[w] = bits & (bits - 1);
            recompute(s, w * 64 + b);
        }
    }
    return s->failed ? -1 : 0;
}

/* Propagate, raising MemoryError where the flip stack could not grow. */
static int settle(Single *s) {
    if (single_propagate(s) < 0) {
        PyErr_SetString(PyExc_MemoryError, "the one-state evaluator ran out of memory");
        return -1;
    }
    return 0;
}

/* Flip the fluent inputs to the packed state `next` (state_bytes bytes). */
static void apply_state(Single *s, const unsigned char *next) {
    int i;
    for (i = 0; i < s->state_bytes; i++) {
        unsigned char diff = (unsigned char)(s->state[i] ^ next[i]);
        while (diff) {
            int b = __builtin_ctz(diff);
            diff &= (unsigned char)(diff - 1);
            flip_input(s, i * 8 + b, s->val[i * 8 + b] ^ 1);
        }
        s->state[i] = next[i];
    }
}

/* Bring the fluent inputs to the state `bits`. */
static int single_state(Single *s, PyObject *bits) {
    int i;
    if (!s->image) {
        PyErr_SetString(PyExc_RuntimeError, "Single was not initialised");
        return -1;
    }
    if (!PyLong_Check(bits)) {
        PyErr_SetString(PyExc_TypeError, "a state is an int of fluent bits");
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    {
        Py_ssize_t need = PyLong_AsNativeBytes(bits, s->incoming, s->state_bytes,
                                               Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                               Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                               Py_ASNATIVEBYTES_REJECT_NEGATIVE);
        if (need < 0) return -1;
        if (need > s->state_bytes) {
            PyErr_SetString(PyExc_ValueError, "the state has bits beyond the game's fluents");
            return -1;
        }
    }
#else
    if (_PyLong_Sign(bits) < 0) {
        PyErr_SetString(PyExc_ValueError, "a state's bits are not negative");
        return -1;
    }
    if (_PyLong_AsByteArray((PyLongObject *)bits, s->incoming, (size_t)s->state_bytes, 1, 0) < 0)
        return -1;
#endif
    for (i = s->net.fluents >> 3; i < s->state_bytes; i++) {  /* checked before any flip */
        int first = i * 8 < s->net.fluents ? s->net.fluents - i * 8 : 0;
        if (s->incoming[i] >> first) {
            PyErr_SetString(PyExc_ValueError, "the state has bits beyond the game's fluents");
            return -1;
        }
    }
    apply_state(s, s->incoming);
    return 0;
}

static void single_moves(Single *s, const int *moves, int count) {
    int i;
    for (i = 0; i < s->held_count; i++) {
        int signal = s->net.fluents + s->held[i];
        if (s->val[signal]) flip_input(s, signal, 0);
    }
    for (i = 0; i < count; i++) {
        int signal = s->net.fluents + moves[i];
        if (!s->val[signal]) flip_input(s, signal, 1);
        s->held[i] = moves[i];
    }
    s->held_count = count;
}

static PyObject *single_legal(Single *s) {
    PyObject *roles = PyTuple_New(s->net.roles);
    int r, i;
    if (!roles) return NULL;
    for (r = 0; r < s->net.roles; r++) {
        int from = s->net.role_off[r], to = s->net.role_off[r + 1], n = 0, j = 0;
        PyObject *legal;
        for (i = from; i < to; i++) n += s->val[s->net.legal[s->net.role_moves[i]]];
        legal = PyTuple_New(n);
        if (!legal) { Py_DECREF(roles); return NULL; }
        for (i = from; i < to && j < n; i++) {
            int m = s->net.role_moves[i];
            if (s->val[s->net.legal[m]]) {
                PyObject *id = PyLong_FromLong(m);
                if (!id) { Py_DECREF(legal); Py_DECREF(roles); return NULL; }
                PyTuple_SET_ITEM(legal, j++, id);
            }
        }
        PyTuple_SET_ITEM(roles, r, legal);
    }
    return roles;
}

static PyObject *Single_info(Single *s, PyObject *bits) {
    PyObject *legal;
    if (single_state(s, bits) < 0 || settle(s) < 0) return NULL;
    legal = single_legal(s);
    if (!legal) return NULL;
    return Py_BuildValue("(NO)", legal, s->val[s->net.terminal] ? Py_True : Py_False);
}

static PyObject *Single_goals(Single *s, PyObject *bits) {
    PyObject *roles;
    int r, i;
    if (single_state(s, bits) < 0 || settle(s) < 0) return NULL;
    roles = PyTuple_New(s->net.roles);
    if (!roles) return NULL;
    for (r = 0; r < s->net.roles; r++) {
        int n = 0, j = 0;
        PyObject *values;
        for (i = s->net.goal_off[r]; i < s->net.goal_off[r + 1]; i++)
            n += s->val[s->net.goal_sig[i]];
        values = PyTuple_New(n);
        if (!values) { Py_DECREF(roles); return NULL; }
        for (i = s->net.goal_off[r]; i < s->net.goal_off[r + 1] && j < n; i++) {
            if (s->val[s->net.goal_sig[i]]) {
                PyObject *value = PyLong_FromLong(s->net.goal_val[i]);
                if (!value) { Py_DECREF(values); Py_DECREF(roles); return NULL; }
                PyTuple_SET_ITEM(values, j++, value);
            }
        }
        PyTuple_SET_ITEM(roles, r, values);
    }
    return roles;
}

static PyObject *output_bits(Single *s, const int *signals) {
    int f;
    memset(s->incoming, 0, (size_t)s->state_bytes);
    for (f = 0; f < s->net.fluents; f++)
        if (s->val[signals[f]]) s->incoming[f >> 3] |= (unsigned char)(1 << (f & 7));
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(s->incoming, (size_t)s->state_bytes,
                                          Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(s->incoming, (size_t)s->state_bytes, 1, 0);
#endif
}

static PyObject *Single_initial(Single *s, PyObject *unused) {
    PyObject *zero = PyLong_FromLong(0);
    int r;
    (void)unused;
    if (!zero) return NULL;
    r = single_state(s, zero);
    Py_DECREF(zero);
    if (r < 0 || settle(s) < 0) return NULL;
    return output_bits(s, s->image + s->image[H_INIT]);
}

/* The move ids of a joint move (one per role) into `moves` (64 at most). */
static int joint_moves(Single *s, PyObject *joint, int *moves) {
    PyObject *seq = PySequence_Fast(joint, "a joint move is a sequence of move ids");
    int count, i;
    if (!seq) return -1;
    count = (int)PySequence_Fast_GET_SIZE(seq);
    if (count != s->net.roles || count > 64) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a joint move has one move id per role");
        return -1;
    }
    for (i = 0; i < count; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        if (m < 0 || m >= s->net.moves) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a move id outside the game's moves");
            return -1;
        }
        moves[i] = (int)m;
    }
    Py_DECREF(seq);
    return count;
}

/* The successor under a joint move with the successor's legal moves and terminal flag,
 * in one call: the successor's bits never leave C before it is evaluated. */
static PyObject *Single_step(Single *s, PyObject *args) {
    PyObject *bits, *joint, *successor, *legal;
    int moves[64], count;
    if (!PyArg_ParseTuple(args, "OO", &bits, &joint)) return NULL;
    if ((count = joint_moves(s, joint, moves)) < 0) return NULL;
    if (single_state(s, bits) < 0) return NULL;
    single_moves(s, moves, count);
    if (settle(s) < 0) return NULL;
    successor = output_bits(s, s->net.next_sig);  /* leaves its bytes in s->incoming */
    if (!successor) return NULL;
    apply_state(s, s->incoming);
    if (settle(s) < 0 || !(legal = single_legal(s))) {
        Py_DECREF(successor);
        return NULL;
    }
    return Py_BuildValue("(NNO)", successor, legal,
                         s->val[s->net.terminal] ? Py_True : Py_False);
}

/* The signals watched() reads, set once (any signal row, the constants' rows included). */
static PyObject *Single_watch(Single *s, PyObject *signals) {
    PyObject *seq = PySequence_Fast(signals, "watch takes a sequence of signals");
    Py_ssize_t n, i;
    int *chosen;
    if (!seq) return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    chosen = (int *)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!chosen) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v >= s->net.signals) {
            free(chosen);
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a watched signal outside the network");
            return NULL;
        }
        chosen[i] = (int)v;
    }
    Py_DECREF(seq);
    free(s->watch);
    s->watch = chosen;
    s->watch_count = (int)n;
    Py_RETURN_NONE;
}

/* Which watched signals hold once a state and a joint move are set (indices into the
 * watched list, ascending): GDL-II's percepts, read as outputs of the network. */
static PyObject *Single_watched(Single *s, PyObject *args) {
    PyObject *bits, *joint, *found;
    int moves[64], count, i, n = 0, j = 0;
    if (!PyArg_ParseTuple(args, "OO", &bits, &joint)) return NULL;
    if ((count = joint_moves(s, joint, moves)) < 0) return NULL;
    if (single_state(s, bits) < 0) return NULL;
    single_moves(s, moves, count);
    if (settle(s) < 0) return NULL;
    for (i = 0; i < s->watch_count; i++) n += s->val[s->watch[i]];
    found = PyTuple_New(n);
    if (!found) return NULL;
    for (i = 0; i < s->watch_count && j < n; i++) {
        if (s->val[s->watch[i]]) {
            PyObject *index = PyLong_FromLong(i);
            if (!index) { Py_DECREF(found); return NULL; }
            PyTuple_SET_ITEM(found, j++, index);
        }
    }
    return found;
}

static unsigned long long single_random(Single *s) {
    return k_random(&s->rng);
}

/* Random playouts one state at a time, as a player's loop would make them: the bench's
 * measure of the one-state path without Python between the steps. */
static PyObject *Single_playouts(Single *s, PyObject *args) {
    PyObject *bits;
    long long playouts, seed, updates = 0, n;
    int max_steps, moves[64], error = 0;
    if (!PyArg_ParseTuple(args, "OLLi", &bits, &playouts, &seed, &max_steps)) return NULL;
    if (s->net.roles > 64) { PyErr_SetString(PyExc_ValueError, "too many roles"); return NULL; }
    if (single_state(s, bits) < 0) return NULL;
    memcpy(s->incoming, s->state, (size_t)s->state_bytes);
    s->rng = k_mix((unsigned long long)seed);
    {
        unsigned char *start = (unsigned char *)malloc((size_t)s->state_bytes);
        if (!start) return PyErr_NoMemory();
        memcpy(start, s->state, (size_t)s->state_bytes);
        Py_BEGIN_ALLOW_THREADS
        for (n = 0; n < playouts && !error; n++) {
            int step, f, i;
            apply_state(s, start);  /* back to the start */
            for (step = 0; step < max_steps; step++) {
                int r;
                if (single_propagate(s) < 0) { error = 2; break; }
                if (s->val[s->net.terminal]) break;
                for (r = 0; r < s->net.roles; r++) {
                    int from = s->net.role_off[r], to = s->net.role_off[r + 1], count = 0, pick;
                    for (i = from; i < to; i++) count += s->val[s->net.legal[s->net.role_moves[i]]];
                    if (!count) { error = 1; break; }
                    pick = (int)(((single_random(s) >> 32) * (unsigned long long)count) >> 32);
                    for (i = from; i < to; i++) {
                        int m = s->net.role_moves[i];
                        if (s->val[s->net.legal[m]] && pick-- == 0) { moves[r] = m; break; }
                    }
                }
                if (error) break;
                single_moves(s, moves, s->net.roles);
                if (single_propagate(s) < 0) { error = 2; break; }
                memcpy(s->incoming, s->state, (size_t)s->state_bytes);
                for (f = 0; f < s->net.fluents; f++) {  /* the successor, flipped in */
                    int now = s->val[s->net.next_sig[f]];
                    if (((s->state[f >> 3] >> (f & 7)) & 1) != now)
                        s->incoming[f >> 3] ^= (unsigned char)(1 << (f & 7));
                }
                apply_state(s, s->incoming);
                updates++;
            }
        }
        Py_END_ALLOW_THREADS
        free(start);
    }
    if (error == 2) return PyErr_NoMemory();
    if (error) {
        PyErr_SetString(PyExc_RuntimeError, "a role has no legal move in a non-terminal state");
        return NULL;
    }
    return PyLong_FromLongLong(updates);
}

static void Single_dealloc(Single *s) {
    free(s->image);
    free(s->val);
    free(s->before);
    free(s->count);
    free(s->truths);
    free(s->stack);
    free(s->dirty);
    free(s->state);
    free(s->incoming);
    free(s->held);
    free(s->watch);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int Single_init(Single *s, PyObject *args, PyObject *kwargs) {
    Py_buffer image;
    int *copy;
    (void)kwargs;
    if (!PyArg_ParseTuple(args, "y*", &image)) return -1;
    if (check_image((const int *)image.buf, image.len / (Py_ssize_t)sizeof(int)) < 0) {
        PyBuffer_Release(&image);
        return -1;
    }
    copy = (int *)malloc((size_t)image.len);
    if (!copy) { PyBuffer_Release(&image); PyErr_NoMemory(); return -1; }
    memcpy(copy, image.buf, (size_t)image.len);
    PyBuffer_Release(&image);
    s->image = copy;
    k_open(&s->net, copy);
    s->all = copy + copy[H_ALL];
    s->unit_off = copy + copy[H_UNITS];
    s->units = copy[H_UNIT_COUNT];
    s->read_off = copy + copy[H_READ_OFF];
    s->readers = copy + copy[H_READERS];
    s->body_off = copy + copy[H_BODY_OFF];
    s->body_lits = copy + copy[H_BODY_LITS];
    s->owner_off = copy + copy[H_OWNER_OFF];
    s->owners = copy + copy[H_OWNERS];
    s->node_unit = copy + copy[H_NODE_UNIT];
    s->bodies = copy[H_BODIES];
    s->current = -1;
    s->val = (unsigned char *)calloc((size_t)s->net.signals, 1);
    s->before = (unsigned char *)calloc((size_t)s->net.signals, 1);
    s->count = (int *)calloc((size_t)s->bodies + 1, sizeof(int));
    s->truths = (int *)calloc((size_t)s->net.signals, sizeof(int));
    s->capacity = s->net.signals + 64;
    s->stack = (int *)malloc(sizeof(int) * (size_t)s->capacity);
    s->dirty_words = (s->units + 63) / 64;
    s->dirty = (unsigned long long *)calloc((size_t)s->dirty_words + 1, sizeof(unsigned long long));
    s->state_bytes = (s->net.fluents + 7) / 8 + 1;
    s->state = (unsigned char *)calloc((size_t)s->state_bytes, 1);
    s->incoming = (unsigned char *)calloc((size_t)s->state_bytes, 1);
    s->held = (int *)calloc((size_t)s->net.roles + 1, sizeof(int));
    if (!s->val || !s->before || !s->count || !s->truths || !s->stack || !s->dirty ||
        !s->state || !s->incoming || !s->held) {
        PyErr_NoMemory();
        return -1;
    }
    s->val[s->net.ones] = 1;
    {   /* every node evaluated once, in order, then the counters from the values */
        const int *c = s->all, *end = s->all + copy[H_ALL_LEN];
        int b, i;
        while (c < end) {
            if (c[0] == OP_NODE) {
                int dst = c[1];
                s->val[dst] = (unsigned char)single_node(c, s->val, &c);
            } else {  /* members start empty: calloc */
                fixpoint(c, s->val);
                c += c[1];
            }
        }
        for (b = 0; b < s->bodies; b++) {
            int need = s->body_off[b + 1] - s->body_off[b];
            for (i = s->body_off[b]; i < s->body_off[b + 1]; i++) {
                int lit = s->body_lits[i];
                s->count[b] += s->val[lit >> 1] != (lit & 1);
            }
            if (s->count[b] == need)
                for (i = s->owner_off[b]; i < s->owner_off[b + 1]; i++) s->truths[s->owners[i]]++;
        }
    }
    return 0;
}

static PyMethodDef Single_methods[] = {
    {"info", (PyCFunction)Single_info, METH_O,
     "info(bits) -> (legal move ids per role, terminal)"},
    {"initial", (PyCFunction)Single_initial, METH_NOARGS, "initial() -> the initial state's bits"},
    {"goals", (PyCFunction)Single_goals, METH_O, "goals(bits) -> goal values per role"},
    {"step", (PyCFunction)Single_step, METH_VARARGS,
     "step(bits, joint) -> (successor bits, its legal move ids per role, its terminal)"},
    {"playouts", (PyCFunction)Single_playouts, METH_VARARGS,
     "playouts(bits, count, seed, max_steps) -> state updates (one state at a time)"},
    {"watch", (PyCFunction)Single_watch, METH_O,
     "watch(signals) -> None: the signals watched() reads"},
    {"watched", (PyCFunction)Single_watched, METH_VARARGS,
     "watched(bits, joint) -> indices of the watched signals that hold"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject SingleType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "reasoner.propnet._native.Single",
    .tp_basicsize = sizeof(Single),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One state at a time over a kernel image; not for concurrent use.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Single_init,
    .tp_dealloc = (destructor)Single_dealloc,
    .tp_methods = Single_methods,
};

static PyMethodDef native_methods[] = {
    {"playouts", native_playouts, METH_VARARGS,
     "playouts(image, start, count, seed, max_steps, park, lengths, terminal, goals"
     "[, trace, started]) -> (updates, error, role, step, trace entries)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "The CPU build of the playout kernel.", -1,
    native_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *module;
    if (PyType_Ready(&SingleType) < 0) return NULL;
    module = PyModule_Create(&native_module);
    if (!module) return NULL;
    Py_INCREF(&SingleType);
    if (PyModule_AddObject(module, "Single", (PyObject *)&SingleType) < 0) {
        Py_DECREF(&SingleType);
        Py_DECREF(module);
        return NULL;
    }
    PyModule_AddIntConstant(module, "WORDS", KERNEL_WORDS);
    PyModule_AddIntConstant(module, "MAGIC", K_MAGIC);
    return module;
}
