/* A stand-in libnvvm.so: it forwards every call nvlink 12.5 makes to the
 * real library ($NVVMLOG_REAL) and writes each module nvlink hands to
 * __nvvmHandle(0x2080)'s entry, f(prog, buf, size, name), to
 * $NVVMLOG_DIR/mod<N>.bin. Build it as <dir>/lib64/libnvvm.so and link
 * with nvlink -nvvmpath=<dir>. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *real;
static void *sym(const char *name) {
	if (!real)
		real = dlopen(getenv("NVVMLOG_REAL"), RTLD_NOW | RTLD_LOCAL);
	return real ? dlsym(real, name) : NULL;
}

typedef int (*addfn)(void *, const char *, size_t, const char *);
static addfn realadd;
static int count;

static int logadd(void *prog, const char *buf, size_t size, const char *name) {
	char path[4096];
	snprintf(path, sizeof path, "%s/mod%d.bin", getenv("NVVMLOG_DIR"), count++);
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(buf, 1, size, f);
		fclose(f);
	}
	return realadd(prog, buf, size, name);
}

void *__nvvmHandle(int h) {
	void *(*f)(int) = sym("__nvvmHandle");
	void *r = f(h);
	if (h == 0x2080) {
		realadd = r;
		return (void *)logadd;
	}
	return r;
}

#define FORWARD(name)                                                          \
	int name(void *a, void *b, void *c, void *d, void *e) {                \
		int (*f)(void *, void *, void *, void *, void *) = sym(#name); \
		return f(a, b, c, d, e);                                       \
	}
FORWARD(nvvmCompileProgram)
FORWARD(nvvmCreateProgram)
FORWARD(nvvmDestroyProgram)
FORWARD(nvvmGetCompiledResult)
FORWARD(nvvmGetCompiledResultSize)
FORWARD(nvvmGetProgramLog)
FORWARD(nvvmGetProgramLogSize)
FORWARD(nvvmVersion)
FORWARD(nvvmIRVersion)
FORWARD(nvvmAddModuleToProgram)
FORWARD(nvvmLazyAddModuleToProgram)
FORWARD(nvvmVerifyProgram)

const char *nvvmGetErrorString(int r) {
	const char *(*f)(int) = sym("nvvmGetErrorString");
	return f(r);
}
