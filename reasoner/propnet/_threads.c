/* The GPU build's logic on the CPU: kernel.h with one 64-lane word a thread, as the GPU
 * compiles it, and the threads of a launch run one after another (k_thread, the GPU
 * entry's body). The tests compare it with the CPU build and the Python network; nothing
 * else uses it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_WORDS 1
#include "kernel.h"

static PyObject *threads_playouts(PyObject *self, PyObject *args) {
    Py_buffer image, start, lengths, terminal, goals;
    long long playouts, seed, total = 0;
    int threads, max_steps, park, t, error[3] = {0, 0, 0};
    k_word *values;
    int *lane_start, *errors;
    long long *updates;
    k_net net;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*LiLiiw*w*w*", &image, &start, &playouts, &threads, &seed,
                          &max_steps, &park, &lengths, &terminal, &goals))
        return NULL;
    k_open(&net, (const int *)image.buf);
    if (threads < 1 || image.len < H_SIZE * (Py_ssize_t)sizeof(int) ||
        ((const int *)image.buf)[H_MAGIC] != K_MAGIC || start.len < net.fluents ||
        lengths.len < playouts * (Py_ssize_t)sizeof(int) || terminal.len < playouts ||
        goals.len < playouts * net.roles * 2 * (Py_ssize_t)sizeof(k_word)) {
        PyErr_SetString(PyExc_ValueError, "playouts: a bad image or buffers too small");
        goto done;
    }
    values = (k_word *)calloc((size_t)K_ROWS(&net) * threads, sizeof(k_word));
    lane_start = (int *)calloc((size_t)threads * 64, sizeof(int));
    errors = (int *)calloc((size_t)threads * 3, sizeof(int));
    updates = (long long *)calloc((size_t)threads, sizeof(long long));
    if (values && lane_start && errors && updates) {
        Py_BEGIN_ALLOW_THREADS
        for (t = 0; t < threads; t++)
            k_thread(t, threads, (const int *)image.buf, (const unsigned char *)start.buf,
                     playouts, max_steps, park, (k_word)seed, values, lane_start,
                     (int *)lengths.buf, (unsigned char *)terminal.buf, (k_word *)goals.buf,
                     updates, errors);
        Py_END_ALLOW_THREADS
        for (t = 0; t < threads; t++) {
            total += updates[t];
            if (errors[3 * t] && !error[0]) memcpy(error, errors + 3 * t, sizeof(error));
        }
    } else {
        PyErr_NoMemory();
    }
    free(values);
    free(lane_start);
    free(errors);
    free(updates);
done:
    PyBuffer_Release(&image);
    PyBuffer_Release(&start);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&terminal);
    PyBuffer_Release(&goals);
    if (PyErr_Occurred()) return NULL;
    return Py_BuildValue("Liii", total, error[0], error[1], error[2]);
}

static PyMethodDef threads_methods[] = {
    {"playouts", threads_playouts, METH_VARARGS,
     "playouts(image, start, count, threads, seed, max_steps, park, lengths, terminal, goals)"
     " -> (updates, error, role, step)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef threads_module = {
    PyModuleDef_HEAD_INIT, "_threads", "The GPU build's logic, thread by thread, on the CPU.",
    -1, threads_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__threads(void) { return PyModule_Create(&threads_module); }
