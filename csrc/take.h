/* Buffer checks shared by privcheck's C extensions: a numpy array is read only after its dtype, number of
 * dimensions and shape have been checked. */
#ifndef PRIVCHECK_TAKE_H
#define PRIVCHECK_TAKE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A buffer of the stated kind ('d': float64, 'q': int64, 'Q': uint64), C-contiguous, with ndim dimensions of the stated
 * sizes (a size of -1 is read from the buffer and returned through the pointer): the dtype and the shape are
 * checked, not merely the byte length, so that an int32 array or a transposed shape is refused, never read. */
static int take(PyObject *obj, Py_buffer *b, int writable, char kind, int ndim, Py_ssize_t *shape,
                const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, b, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous%s array", name, writable ? " writable" : "");
        return 0;
    }
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok_kind = b->itemsize == 8 && f[1] == '\0' &&
                  (kind == 'd'   ? f[0] == 'd'
                   : kind == 'Q' ? (f[0] == 'Q' || f[0] == 'L')
                                 : (f[0] == 'q' || f[0] == 'l'));
    if (!ok_kind) {
        PyErr_Format(PyExc_ValueError, "%s: expected %s, got format '%s' of %zd bytes", name,
                     kind == 'd' ? "float64" : kind == 'Q' ? "uint64" : "int64",
                     b->format ? b->format : "B", b->itemsize);
        PyBuffer_Release(b);
        b->obj = NULL;
        return 0;
    }
    if (b->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d dimensions, got %d", name, ndim, b->ndim);
        PyBuffer_Release(b);
        b->obj = NULL;
        return 0;
    }
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) {
            shape[d] = b->shape[d];
        } else if (b->shape[d] != shape[d]) {
            PyErr_Format(PyExc_ValueError, "%s: dimension %d is %zd, expected %zd", name, d, b->shape[d], shape[d]);
            PyBuffer_Release(b);
            b->obj = NULL;
            return 0;
        }
    }
    return 1;
}

#endif
