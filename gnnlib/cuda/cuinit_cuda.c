//go:build cuda

// cuInit interposer. gorgonia.org/cu calls cuInit(0) in its package
// initialiser and exits the process when it fails, which would kill a
// notebook kernel on a machine that has the NVIDIA driver library but no
// usable GPU. This file defines cuInit in the executable; the static linker
// binds cu's reference to a definition in a linked object before one in a
// shared library, so cu's call lands here. The interposer calls the
// driver's cuInit (the next definition in lookup order, from libcuda.so.1),
// records its result for openDriver and reports success, so that cu's
// initialiser returns and Open reports the failure as an error instead.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <cuda.h>

static int initState;
static CUresult initResult;
static char initDlerror[256];

CUresult CUDAAPI cuInit(unsigned int flags) {
	CUresult (*real)(unsigned int);
	const char *msg;

	dlerror();
	real = (CUresult (*)(unsigned int))dlsym(RTLD_NEXT, "cuInit");
	if (real == NULL) {
		msg = dlerror();
		strncpy(initDlerror, msg != NULL ? msg : "symbol not found", sizeof initDlerror - 1);
		initState = 2;
		return CUDA_SUCCESS;
	}
	initResult = real(flags);
	initState = 1;
	return CUDA_SUCCESS;
}

// gnnlabInitStatus reports what the interposed cuInit saw: 0 if it was
// never called, 1 if it called the driver's cuInit, whose result is in *res,
// and 2 if it found no cuInit to call; *dlerr then holds dlerror's message.
int gnnlabInitStatus(CUresult *res, const char **dlerr) {
	*res = initResult;
	*dlerr = initDlerror;
	return initState;
}
