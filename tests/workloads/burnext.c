// SPDX-License-Identifier: MIT
/* A C extension for ext.py: burn(n) spends its time in ext_burn, a named C function. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void ext_burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * i;
}

static PyObject *burn(PyObject *self, PyObject *args)
{
	long n;

	(void)self;
	if (!PyArg_ParseTuple(args, "l", &n))
		return NULL;
	ext_burn(n);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = { { "burn", burn, METH_VARARGS, "" }, { NULL, NULL, 0, NULL } };
static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "burnext", NULL, -1, methods,
				     NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit_burnext(void)
{
	return PyModule_Create(&module);
}
