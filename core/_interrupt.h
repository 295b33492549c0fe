/*
 * _interrupt.h — how a C search that released the GIL hears a signal.
 *
 * Python runs its signal handlers only between bytecodes, so a long C call would hold a
 * Ctrl-C (or a SIGTERM) until it returned — minutes on a big count.  A search released
 * through interrupt_release() instead calls interrupt_check() every INTERRUPT_EVERY nodes
 * (or states): it takes the GIL back for a moment and lets Python run the handlers of the
 * signals that came (PyErr_CheckSignals; a no-op check of one flag when none came, and
 * nothing at all outside the main thread).  A handler that raises — KeyboardInterrupt for
 * Ctrl-C, or whatever the program installed for SIGTERM — makes the check return 1: the
 * search unwinds the way a budget stop does, frees what it holds, and its Python function
 * returns NULL with that exception, so the caller sees the exception and no result.
 *
 * Cost: a GIL round trip (well under a microsecond when no other thread wants it) per
 * INTERRUPT_EVERY nodes; the slowest node the searches know takes some tens of
 * microseconds, so a signal is heard within a fraction of a second.
 */
#ifndef TILECENSUS_INTERRUPT_H
#define TILECENSUS_INTERRUPT_H

#include <Python.h>

/* nodes (or states) between two checks: a power of two, tested with a mask */
#define INTERRUPT_EVERY 16384u

typedef struct {
    PyThreadState *released; /* this thread's state while the GIL is released, else NULL */
    int raised;              /* a handler raised: the exception is set, the search must end */
} Interrupt;

/* Release the GIL for a search (instead of Py_BEGIN_ALLOW_THREADS). */
static inline void interrupt_release(Interrupt *it) {
    it->raised = 0;
    it->released = PyEval_SaveThread();
}

/* Take the GIL back after the search (instead of Py_END_ALLOW_THREADS). */
static inline void interrupt_reacquire(Interrupt *it) {
    PyEval_RestoreThread(it->released);
    it->released = NULL;
}

/* The GIL round trip of interrupt_check(), kept out of line so that the search loops
 * that call it stay as tight as they were. */
static __attribute__((noinline, cold)) int interrupt_poll(Interrupt *it) {
    if (it->released == NULL) return 0; /* the GIL is held: Python hears signals itself */
    PyEval_RestoreThread(it->released);
    it->raised = PyErr_CheckSignals() < 0;
    it->released = PyEval_SaveThread();
    return it->raised;
}

/* 1 when a signal handler raised (now or at an earlier check): the search must stop. */
static inline int interrupt_check(Interrupt *it) {
    return it->raised || interrupt_poll(it);
}

#endif
