/* A small C extension that calls CUDA itself, as PyTorch's or CuPy's do: the
   Python stacks tests build it for each interpreter and expect mixed stacks
   to read Python frames, then ext_memset, then cudaMemset. Declares the few
   runtime functions it needs rather than include the toolkit's headers. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stddef.h>

extern int cudaMalloc(void** pointer, size_t bytes);
extern int cudaMemset(void* pointer, int value, size_t bytes);
extern int cudaFree(void* pointer);

/* noinline: each is a frame the test looks for by name. */
__attribute__((noinline)) int ext_memset(size_t bytes) {
  void* pointer = NULL;
  int rc = cudaMalloc(&pointer, bytes);
  if (rc == 0) rc = cudaMemset(pointer, 0, bytes);
  if (pointer != NULL) cudaFree(pointer);
  return rc;
}

static PyObject* memset_holding_gil(PyObject* self, PyObject* args) {
  Py_ssize_t bytes = 0;
  (void)self;
  if (!PyArg_ParseTuple(args, "n", &bytes)) return NULL;
  return PyLong_FromLong(ext_memset((size_t)bytes));
}

__attribute__((noinline)) static void* c_thread_memset(void* arg) {
  *(int*)arg = ext_memset(256);
  return NULL;
}

/* A thread Python never ran on (a C++ worker's): no Python frames exist. */
static PyObject* memset_in_c_thread(PyObject* self, PyObject* args) {
  pthread_t thread;
  int rc = -1;
  (void)self;
  (void)args;
  Py_BEGIN_ALLOW_THREADS
  if (pthread_create(&thread, NULL, c_thread_memset, &rc) == 0) pthread_join(thread, NULL);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(rc);
}

static PyMethodDef methods[] = {
    {"memset", memset_holding_gil, METH_VARARGS, "cudaMalloc, cudaMemset, cudaFree from C"},
    {"memset_in_c_thread", memset_in_c_thread, METH_NOARGS, "the same from a new C thread"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cudaext", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_cudaext(void) { return PyModule_Create(&module); }
