/* A recording stand-in for the HIP runtime (soname given at build time), for
 * tests/driver_layer.rs: every call the driver-API layer makes is appended to the file named
 * by WP_STUB_LOG, one line each, with its arguments. Device memory is host memory; modules,
 * functions, streams and events are recorded handles; kernels are not run. WP_STUB_DEVICES
 * (default 1) is the device count; with 0, hipInit answers hipErrorNoDevice (100). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rec(const char *fmt, ...) {
    const char *path = getenv("WP_STUB_LOG");
    FILE *f = path ? fopen(path, "a") : stderr;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    if (f != stderr) fclose(f);
}

static int devices(void) {
    const char *e = getenv("WP_STUB_DEVICES");
    return e ? atoi(e) : 1;
}

int hipInit(unsigned flags) {
    rec("hipInit %u", flags);
    return devices() ? 0 : 100;
}
int hipGetDeviceCount(int *n) {
    *n = devices();
    rec("hipGetDeviceCount -> %d", *n);
    return *n ? 0 : 100;
}
int hipDeviceGet(int *d, int ordinal) {
    *d = ordinal;
    return ordinal < devices() ? 0 : 101;
}
int hipGetDevice(int *d) { *d = 0; return 0; }
int hipDeviceGetName(char *name, int len, int d) {
    snprintf(name, (size_t)len, "wheelport recording stub %d", d);
    return 0;
}
int hipDeviceTotalMem(size_t *b, int d) { (void)d; *b = (size_t)16 << 30; return 0; }
int hipDeviceGetUuid(unsigned char *u, int d) { memset(u, 0x40 + d, 16); return 0; }
/* hipDeviceGetAttribute: 1000 + the HIP attribute number, so a test sees which HIP attribute
 * a CUDA one became; hipDeviceAttributeMaxSharedMemoryPerBlock (HIP 74) answers 65536 and
 * hipDeviceAttributeComputeMode (HIP 6) 0, the default mode. */
int hipDeviceGetAttribute(int *v, int attr, int d) {
    *v = attr == 74 ? 65536 : attr == 6 ? 0 : 1000 + attr; /* 6: compute mode default */
    rec("hipDeviceGetAttribute %d dev %d", attr, d);
    return 0;
}

static __thread void *current;
int hipDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)(uintptr_t)(0x1000 + d); return 0; }
int hipDevicePrimaryCtxRelease(int d) { (void)d; return 0; }
int hipDevicePrimaryCtxReset(int d) { (void)d; return 0; }
int hipDevicePrimaryCtxGetState(int d, unsigned *flags, int *active) {
    (void)d; *flags = 0; *active = 1; return 0;
}
int hipDevicePrimaryCtxSetFlags(int d, unsigned f) { (void)d; (void)f; return 0; }
int hipCtxGetCurrent(void **c) { *c = current; return 0; }
int hipCtxSetCurrent(void *c) { current = c; return 0; }
int hipCtxPushCurrent(void *c) { current = c; return 0; }
int hipCtxPopCurrent(void **c) { if (c) *c = current; return 0; }
int hipCtxGetDevice(int *d) { *d = 0; return 0; }
int hipCtxGetFlags(unsigned *f) { *f = 0; return 0; }
int hipDeviceSynchronize(void) { rec("hipDeviceSynchronize"); return 0; }
int hipDeviceGetLimit(size_t *v, int l) { *v = 1024 + (size_t)l; return 0; }
int hipDeviceSetLimit(int l, size_t v) { rec("hipDeviceSetLimit %d %zu", l, v); return 0; }
int hipDeviceGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -1; return 0; }

int hipMalloc(void **p, size_t n) {
    *p = aligned_alloc(256, (n + 255) / 256 * 256 + 256);
    rec("hipMalloc %zu", n);
    return *p ? 0 : 2;
}
int hipFree(void *p) { free(p); return 0; }
int hipHostMalloc(void **p, size_t n, unsigned f) { (void)f; *p = malloc(n ? n : 1); return 0; }
int hipHostFree(void *p) { free(p); return 0; }
int hipMemGetInfo(size_t *free_, size_t *total) { *free_ = (size_t)8 << 30; *total = (size_t)16 << 30; return 0; }
int hipMemcpy(void *d, const void *s, size_t n, int kind) {
    rec("hipMemcpy %zu kind %d", n, kind);
    memcpy(d, s, n);
    return 0;
}
int hipMemcpyAsync(void *d, const void *s, size_t n, int kind, void *st) {
    rec("hipMemcpyAsync %zu kind %d stream %p", n, kind, st);
    memcpy(d, s, n);
    return 0;
}
int hipMemsetD8(void *d, unsigned char v, size_t n) { memset(d, v, n); return 0; }
int hipMemsetD32(void *d, int v, size_t n) { for (size_t i = 0; i < n; i++) ((int *)d)[i] = v; return 0; }
int hipMemsetD8Async(void *d, unsigned char v, size_t n, void *s) { (void)s; memset(d, v, n); return 0; }
int hipMemsetD32Async(void *d, int v, size_t n, void *s) { (void)s; return hipMemsetD32(d, v, n); }

static int handles;
int hipStreamCreateWithFlags(void **s, unsigned f) { *s = (void *)(uintptr_t)(0x5000 + ++handles); rec("hipStreamCreateWithFlags %u", f); return 0; }
int hipStreamCreateWithPriority(void **s, unsigned f, int p) { (void)p; return hipStreamCreateWithFlags(s, f); }
int hipStreamDestroy(void *s) { (void)s; return 0; }
int hipStreamSynchronize(void *s) { rec("hipStreamSynchronize %p", s); return 0; }
int hipStreamQuery(void *s) { (void)s; return 0; }
int hipStreamWaitEvent(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; return 0; }
int hipEventCreateWithFlags(void **e, unsigned f) { (void)f; *e = (void *)(uintptr_t)(0x6000 + ++handles); return 0; }
int hipEventDestroy(void *e) { (void)e; return 0; }
int hipEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
int hipEventSynchronize(void *e) { (void)e; return 0; }
int hipEventQuery(void *e) { (void)e; return 0; }

/* A module: the bundle's entry ids are recorded. */
int hipModuleLoadData(void **m, const void *image) {
    const unsigned char *p = image;
    if (memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) {
        rec("hipModuleLoadData not-a-bundle");
        return 200; /* hipErrorInvalidImage */
    }
    uint64_t n;
    memcpy(&n, p + 24, 8);
    const unsigned char *e = p + 32;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off, size, len;
        memcpy(&off, e, 8), memcpy(&size, e + 8, 8), memcpy(&len, e + 16, 8);
        const unsigned char *obj = p + off;
        rec("hipModuleLoadData entry %.*s size %llu elf %d", (int)len, (const char *)e + 24,
            (unsigned long long)size, size >= 4 && !memcmp(obj, "\x7f" "ELF", 4));
        e += 24 + len;
    }
    *m = (void *)(uintptr_t)(0x7000 + ++handles);
    return 0;
}
int hipModuleUnload(void *m) { (void)m; return 0; }
int hipModuleGetFunction(void **f, void *m, const char *name) {
    rec("hipModuleGetFunction %s", name);
    (void)m;
    *f = strdup(name);
    return 0;
}
int hipModuleGetGlobal(void **p, size_t *b, void *m, const char *name) {
    (void)m;
    rec("hipModuleGetGlobal %s", name);
    static char g[4096];
    *p = g;
    if (b) *b = sizeof g;
    return 0;
}
int hipFuncGetAttribute(int *v, int attr, void *f) {
    (void)f;
    *v = 2000 + attr;
    return 0;
}
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shmem, void *s, void **params,
                          void **extra) {
    rec("hipModuleLaunchKernel %s grid %u,%u,%u block %u,%u,%u shmem %u stream %p params %d",
        (const char *)f, gx, gy, gz, bx, by, bz, shmem, s, params != NULL);
    (void)extra;
    return 0;
}
int hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int b, size_t s) {
    (void)f; (void)s;
    *n = b ? 2048 / b : 0;
    rec("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor %s %d", (const char *)f, b);
    return 0;
}
int hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, void *f, int b,
                                                                size_t s, unsigned fl) {
    (void)fl;
    return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, s);
}
const char *hipGetErrorString(int e) { return e ? "stub error" : "no error"; }
const char *hipGetErrorName(int e) { return e ? "hipErrorStub" : "hipSuccess"; }
