/* wheelport's CUDA driver-API layer for HIP targets (DTK, ROCm): the libcuda.so.1 that a
 * statically linked CUDA runtime inside a converted object reaches (docs/driver-layer.md).
 *
 * A static runtime (nvcc -cudart static: CuPy, XGBoost, RAPIDS) is private code of its object:
 * it opens the driver with dlopen("libcuda.so.1"), fetches cuGetProcAddress[_v2] with dlsym and
 * every other entry point through it. wheelport re-points that string at this library
 * (`wpSSShip.so`, SSS the source PTX `.target` as compute capability x10: the identity, read
 * from this file's own name as the twin's interposer does) and the object's DT_RUNPATH at the
 * folder it ships in. Every entry point below is implemented on HIP; HIP functions are looked
 * up by name in the loaded runtime at first use, so the library loads with LD_BIND_NOW against
 * any HIP release, and a function the runtime lacks answers CUDA_ERROR_NOT_SUPPORTED.
 *
 * Served names, with the CUDA ABI version each implements, are the table WP_DRIVER_ENTRIES
 * (shims/hip/tables/driver_layer.tsv); cuGetProcAddress serves a name only when the requested
 * version is at least that ABI version and below the next ABI change of the name in CUDA's
 * cudaTypedefs.h (so a caller never gets an implementation of another prototype). Other names
 * answer CUDA_ERROR_NOT_FOUND with CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND.
 *
 * Modules: wheelport re-points each registration wrapper of the object at a driver image,
 * a 16-byte CUDA fatbin container header followed by
 *   +16 "WPDRVIMG", +24 u64 bundle offset, +32 u64 bundle size, +40 u64 notes offset,
 *   +48 u64 notes size (offsets from the image start)
 * where the bundle is the clang offload bundle of the translated code objects (empty when the
 * module was not translated) and the notes are lines "kernel\treason" for every kernel of the
 * module that was not translated. cuModuleLoadData/LoadDataEx/LoadFatBinary and
 * cuLibraryLoadData accept a driver image (or a wrapper pointing at one) and load the bundle
 * with hipModuleLoadData; an image wheelport did not write is CUDA_ERROR_NO_BINARY_FOR_GPU.
 * A kernel looked up by name that the notes list fails with CUDA_ERROR_NOT_FOUND and a line
 * on stderr naming it and the reason.
 *
 * Identity (docs/identity.md): CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR and
 * cuDeviceComputeCapability answer SSS/10, SSS%10; WARP_SIZE answers 32 (the translated code
 * emulates 32-lane warps); CU_FUNC_ATTRIBUTE_PTX_VERSION/BINARY_VERSION answer SSS.
 *
 * Enumerations: device attributes through device_attr.tsv (CUdevice_attribute and
 * cudaDeviceAttr share their numbers); HIP's hipFunction_attribute and hipLimit_t follow
 * CUDA's numbering for the values served here. Results: hipError_t -> CUresult through
 * errors.tsv (the CUDA runtime and driver share the numbers of the codes both have).
 * Streams: CU_STREAM_LEGACY (0x1) is HIP's null stream, CU_STREAM_PER_THREAD (0x2) is
 * hipStreamPerThread (the same value).
 *
 * WHEELPORT_DRIVER_LOG=1 prints, prefixed "wheelport-driver:", every name requested through
 * cuGetProcAddress with whether it is served, every module load and every refusal. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wheelport_shim_tables.h"

#ifndef WP_RUNTIME_SONAME
#define WP_RUNTIME_SONAME "libamdhip64.so.6"
#endif

typedef int CUresult;
typedef int hipError_t;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUevent;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999,
};

/* The CUDA driver version this layer answers (cuDriverGetVersion): 13.0, the oldest driver
 * CUDA 13's runtimes accept (minor-version compatibility) and newer than every CUDA 12. */
#define WP_DRIVER_VERSION 13000

/* ---- run-time state ---- */

static int wp_source_cc = -1; /* SSS: the identity, -1 when the file name carries none */
static int wp_log_on;
static pthread_once_t wp_once = PTHREAD_ONCE_INIT;

static void wp_init(void) {
    const char *e = getenv("WHEELPORT_DRIVER_LOG");
    wp_log_on = e && *e && strcmp(e, "0") != 0;
    Dl_info info;
    if (dladdr((void *)&wp_init, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        unsigned s;
        if (sscanf(base, "wp%3uhip.so", &s) == 1) wp_source_cc = (int)s;
    }
}

#define WP_LOG(...)                                                                         \
    do {                                                                                    \
        pthread_once(&wp_once, wp_init);                                                    \
        if (wp_log_on) {                                                                    \
            fprintf(stderr, "wheelport-driver: " __VA_ARGS__);                              \
            fputc('\n', stderr);                                                            \
        }                                                                                   \
    } while (0)

/* A function of the loaded HIP runtime (the global scope as fallback), or NULL. */
static void *wp_hip_symbol(const char *name) {
    void *rt = dlopen(WP_RUNTIME_SONAME, RTLD_LAZY | RTLD_NOLOAD);
    void *p = rt ? dlsym(rt, name) : NULL;
    if (rt) dlclose(rt);
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

/* `type var` bound to HIP's `name` at first use; a runtime without it: NOT_SUPPORTED. */
#define HIP(type, var, name)                                                                \
    static type var;                                                                        \
    if (!var) var = (type)wp_hip_symbol(name);                                              \
    if (!var) {                                                                             \
        WP_LOG("the HIP runtime has no %s", name);                                         \
        return CUDA_ERROR_NOT_SUPPORTED;                                                    \
    }

/* hipError_t -> CUresult (errors.tsv pairs; HIP codes CUDA lacks: CUDA_ERROR_UNKNOWN). */
static CUresult wp_result(hipError_t e) {
    if (e == 0) return CUDA_SUCCESS;
    for (size_t i = 0; i < WP_N(wp_error_pairs); i++)
        if (wp_error_pairs[i].hip == e) return wp_error_pairs[i].cuda;
    return CUDA_ERROR_UNKNOWN;
}

/* CUresult -> hipError_t, for the message functions. */
static hipError_t wp_hip_error(CUresult e) {
    for (size_t i = 0; i < WP_N(wp_error_pairs); i++)
        if (wp_error_pairs[i].cuda == e) return wp_error_pairs[i].hip;
    return e;
}

static CUstream wp_stream(CUstream s) { return s == (CUstream)0x1 ? (CUstream)0 : s; }

/* ---- initialisation, version, errors ---- */

typedef hipError_t (*fn_u)(unsigned);
typedef hipError_t (*fn_pi)(int *);

/* cuInit(unsigned flags): hipInit; a runtime that finds no GPU answers CUDA_ERROR_NO_DEVICE,
 * as CUDA's driver does (HIP returns hipErrorNoDevice, or hipErrorInvalidDevice / a driver
 * error when no device node exists). */
CUresult wpdrv_cuInit(unsigned flags) {
    HIP(fn_u, init, "hipInit");
    hipError_t r = init(flags);
    if (r != 0) {
        int n = 0;
        HIP(fn_pi, count, "hipGetDeviceCount");
        if (count(&n) != 0 || n == 0) {
            WP_LOG("hipInit answered %d with no device: CUDA_ERROR_NO_DEVICE", r);
            return CUDA_ERROR_NO_DEVICE;
        }
        return wp_result(r);
    }
    return CUDA_SUCCESS;
}

CUresult wpdrv_cuDriverGetVersion(int *v) {
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = WP_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

typedef const char *(*fn_str)(hipError_t);

CUresult wpdrv_cuGetErrorString(CUresult e, const char **s) {
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    HIP(fn_str, str, "hipGetErrorString");
    *s = str(wp_hip_error(e));
    return CUDA_SUCCESS;
}

CUresult wpdrv_cuGetErrorName(CUresult e, const char **s) {
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    HIP(fn_str, name, "hipGetErrorName");
    *s = name(wp_hip_error(e));
    return CUDA_SUCCESS;
}

/* ---- cuGetExportTable ----
 * The CUDA runtime reaches private driver interfaces through cuGetExportTable(table, uuid):
 * tables of function pointers whose slot 0 is the table's size in bytes. Their layout is not
 * documented by NVIDIA; the slots served here follow what public reimplementations of the
 * driver (ZLUDA, others) record from real runtimes. Served: CUDART_INTERFACE
 * (6bd5fb6c-5bf4-e74a-8987-d93912fd9df9), without which a static runtime does not start:
 *   [1] get_module_from_cubin(CUmodule *, const __fatBinC_Wrapper_t *)
 *   [2] get_primary_context(CUcontext *, CUdevice): cuDevicePrimaryCtxRetain
 *   [6] get_module_from_cubin_ext1(CUmodule *, const wrapper *, void *, void *, unsigned)
 *   [7] (size_t): success
 *   [8] get_module_from_cubin_ext2(const fatbin header *, CUmodule *, void *, void *, unsigned)
 * Every module goes through wp_load (a wrapper or a header, see "modules" below). Any other
 * table is CUDA_ERROR_NOT_SUPPORTED (listed with WHEELPORT_DRIVER_LOG=1): CUDA 12.9's and
 * 13.5's static runtimes tolerate that for f8cff951-2146-8b4e-b9e2-fb469e7c0dd9 and stop at
 * TOOLS_RUNTIME_CALLBACK_HOOKS (a094798c-2e74-2e74-93f2-0800200c0a66), whose contract is not
 * known well enough to serve (buffers handed out as recorded elsewhere make the runtime's
 * exit handler crash), with cudaErrorNotSupported (tests/driver_layer.rs). */
struct wp_module;
static CUresult wp_load(struct wp_module **out, const void *image);
CUresult wpdrv_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);

static void wp_rt_module(struct wp_module **m, const void *wrapper) { wp_load(m, wrapper); }
static CUresult wp_rt_module_ext1(struct wp_module **m, const void *wrapper, void *a3,
                                  void *a4, unsigned a5) {
    (void)a3, (void)a4, (void)a5;
    return wp_load(m, wrapper);
}
static CUresult wp_rt_fn7(size_t a) {
    (void)a;
    return CUDA_SUCCESS;
}
static CUresult wp_rt_module_ext2(const void *header, struct wp_module **m, void *a3, void *a4,
                                  unsigned a5) {
    (void)a3, (void)a4, (void)a5;
    return wp_load(m, header);
}

static const void *const wp_cudart_interface[10] = {
    (const void *)(10 * sizeof(void *)), (const void *)&wp_rt_module,
    (const void *)&wpdrv_cuDevicePrimaryCtxRetain, NULL, NULL, NULL,
    (const void *)&wp_rt_module_ext1, (const void *)&wp_rt_fn7, (const void *)&wp_rt_module_ext2,
    NULL};

static const struct {
    unsigned char uuid[16];
    const void *const *table;
} wp_export_tables[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9},
     wp_cudart_interface},
};

CUresult wpdrv_cuGetExportTable(const void **table, const void *id) {
    const unsigned char *u = id;
    if (!table || !u) return CUDA_ERROR_INVALID_VALUE;
    *table = NULL;
    for (size_t i = 0; i < WP_N(wp_export_tables); i++)
        if (!memcmp(u, wp_export_tables[i].uuid, 16)) {
            *table = wp_export_tables[i].table;
            return CUDA_SUCCESS;
        }
    WP_LOG("cuGetExportTable %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x:"
           " not served",
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
           u[13], u[14], u[15]);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- devices ---- */

typedef hipError_t (*fn_dev_get)(int *, int);
typedef hipError_t (*fn_name)(char *, int, int);
typedef hipError_t (*fn_total)(size_t *, int);
typedef hipError_t (*fn_attr)(int *, int, int);
typedef hipError_t (*fn_uuid)(void *, int);
typedef hipError_t (*fn_pci)(char *, int, int);
typedef hipError_t (*fn_bypci)(int *, const char *);
typedef hipError_t (*fn_peer)(int *, int, int);

CUresult wpdrv_cuDeviceGetCount(int *n) {
    HIP(fn_pi, count, "hipGetDeviceCount");
    hipError_t r = count(n);
    if (r != 0 && n) *n = 0;
    return r == 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

CUresult wpdrv_cuDeviceGet(CUdevice *d, int ordinal) {
    HIP(fn_dev_get, get, "hipDeviceGet");
    return wp_result(get(d, ordinal));
}

CUresult wpdrv_cuDeviceGetName(char *name, int len, CUdevice d) {
    HIP(fn_name, f, "hipDeviceGetName");
    return wp_result(f(name, len, d));
}

CUresult wpdrv_cuDeviceTotalMem(size_t *bytes, CUdevice d) {
    HIP(fn_total, f, "hipDeviceTotalMem");
    return wp_result(f(bytes, d));
}

CUresult wpdrv_cuDeviceGetUuid(void *uuid, CUdevice d) {
    HIP(fn_uuid, f, "hipDeviceGetUuid");
    return wp_result(f(uuid, d));
}

CUresult wpdrv_cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    HIP(fn_pci, f, "hipDeviceGetPCIBusId");
    return wp_result(f(id, len, d));
}

CUresult wpdrv_cuDeviceGetByPCIBusId(CUdevice *d, const char *id) {
    HIP(fn_bypci, f, "hipDeviceGetByPCIBusId");
    return wp_result(f(d, id));
}

CUresult wpdrv_cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b) {
    HIP(fn_peer, f, "hipDeviceCanAccessPeer");
    return wp_result(f(can, a, b));
}

enum { CU_DEV_ATTR_WARP_SIZE = 10, CU_DEV_ATTR_CC_MAJOR = 75, CU_DEV_ATTR_CC_MINOR = 76 };

/* The identity's answer for device attribute `attr`, when it has one. */
static int wp_identity_attr(int attr, int *v) {
    pthread_once(&wp_once, wp_init);
    if (attr == CU_DEV_ATTR_WARP_SIZE) return *v = 32, 1;
    if (wp_source_cc < 0) return 0;
    if (attr == CU_DEV_ATTR_CC_MAJOR) return *v = wp_source_cc / 10, 1;
    if (attr == CU_DEV_ATTR_CC_MINOR) return *v = wp_source_cc % 10, 1;
    return 0;
}

/* cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev). */
CUresult wpdrv_cuDeviceGetAttribute(int *pi, int attr, CUdevice d) {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    HIP(fn_attr, f, "hipDeviceGetAttribute");
    int v = 0;
    for (size_t i = 0; i < WP_N(wp_attr_pairs); i++) {
        if (wp_attr_pairs[i].cuda != attr) continue;
        hipError_t r = f(&v, wp_attr_pairs[i].hip, d);
        if (r != 0) return wp_result(r);
        wp_identity_attr(attr, &v);
        *pi = v;
        return CUDA_SUCCESS;
    }
    if (wp_identity_attr(attr, &v)) return *pi = v, CUDA_SUCCESS;
    WP_LOG("device attribute %d has no HIP counterpart: answered 0", attr);
    *pi = 0;
    return CUDA_SUCCESS;
}

CUresult wpdrv_cuDeviceComputeCapability(int *major, int *minor, CUdevice d) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = wpdrv_cuDeviceGetAttribute(major, CU_DEV_ATTR_CC_MAJOR, d);
    return r ? r : wpdrv_cuDeviceGetAttribute(minor, CU_DEV_ATTR_CC_MINOR, d);
}

/* ---- contexts ---- */

typedef hipError_t (*fn_retain)(CUcontext *, int);
typedef hipError_t (*fn_dev)(int);
typedef hipError_t (*fn_state)(int, unsigned *, int *);
typedef hipError_t (*fn_setflags)(int, unsigned);
typedef hipError_t (*fn_ctxp)(CUcontext *);
typedef hipError_t (*fn_ctx)(CUcontext);
typedef hipError_t (*fn_void)(void);
typedef hipError_t (*fn_limit_get)(size_t *, int);
typedef hipError_t (*fn_limit_set)(int, size_t);
typedef hipError_t (*fn_prio)(int *, int *);
typedef hipError_t (*fn_pu)(unsigned *);

CUresult wpdrv_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    HIP(fn_retain, f, "hipDevicePrimaryCtxRetain");
    return wp_result(f(c, d));
}

CUresult wpdrv_cuDevicePrimaryCtxRelease(CUdevice d) {
    HIP(fn_dev, f, "hipDevicePrimaryCtxRelease");
    return wp_result(f(d));
}

CUresult wpdrv_cuDevicePrimaryCtxReset(CUdevice d) {
    HIP(fn_dev, f, "hipDevicePrimaryCtxReset");
    return wp_result(f(d));
}

CUresult wpdrv_cuDevicePrimaryCtxGetState(CUdevice d, unsigned *flags, int *active) {
    HIP(fn_state, f, "hipDevicePrimaryCtxGetState");
    return wp_result(f(d, flags, active));
}

CUresult wpdrv_cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned flags) {
    HIP(fn_setflags, f, "hipDevicePrimaryCtxSetFlags");
    return wp_result(f(d, flags));
}

CUresult wpdrv_cuCtxGetCurrent(CUcontext *c) {
    HIP(fn_ctxp, f, "hipCtxGetCurrent");
    return wp_result(f(c));
}

CUresult wpdrv_cuCtxSetCurrent(CUcontext c) {
    HIP(fn_ctx, f, "hipCtxSetCurrent");
    return wp_result(f(c));
}

CUresult wpdrv_cuCtxPushCurrent(CUcontext c) {
    HIP(fn_ctx, f, "hipCtxPushCurrent");
    return wp_result(f(c));
}

CUresult wpdrv_cuCtxPopCurrent(CUcontext *c) {
    HIP(fn_ctxp, f, "hipCtxPopCurrent");
    return wp_result(f(c));
}

/* cuCtxGetDevice(CUdevice *) before CUDA 13; CUDA 13 adds the context (NULL: the current
 * one). HIP answers for the current context only: another context is made current for the
 * query. */
CUresult wpdrv_cuCtxGetDevice_v2000(CUdevice *d) {
    HIP(fn_pi, f, "hipCtxGetDevice");
    return wp_result(f(d));
}

CUresult wpdrv_cuCtxGetDevice(CUdevice *d, CUcontext c) {
    if (!c) return wpdrv_cuCtxGetDevice_v2000(d);
    HIP(fn_ctx, push, "hipCtxPushCurrent");
    HIP(fn_ctxp, pop, "hipCtxPopCurrent");
    hipError_t r = push(c);
    if (r != 0) return wp_result(r);
    CUresult out = wpdrv_cuCtxGetDevice_v2000(d);
    CUcontext old;
    pop(&old);
    return out;
}

CUresult wpdrv_cuCtxGetFlags(unsigned *flags) {
    HIP(fn_pu, f, "hipCtxGetFlags");
    return wp_result(f(flags));
}

/* cuCtxSynchronize(void) before CUDA 13, (CUcontext) since: the context's device. */
CUresult wpdrv_cuCtxSynchronize_v2000(void) {
    HIP(fn_void, f, "hipDeviceSynchronize");
    return wp_result(f());
}

CUresult wpdrv_cuCtxSynchronize(CUcontext c) {
    if (!c) return wpdrv_cuCtxSynchronize_v2000();
    HIP(fn_ctx, push, "hipCtxPushCurrent");
    HIP(fn_ctxp, pop, "hipCtxPopCurrent");
    hipError_t r = push(c);
    if (r != 0) return wp_result(r);
    CUresult out = wpdrv_cuCtxSynchronize_v2000();
    CUcontext old;
    pop(&old);
    return out;
}

/* CUlimit 0 STACK_SIZE, 1 PRINTF_FIFO_SIZE, 2 MALLOC_HEAP_SIZE: hipLimit_t has the same
 * numbers; other limits are CUDA_ERROR_NOT_SUPPORTED, as CUDA answers a limit a device lacks. */
CUresult wpdrv_cuCtxGetLimit(size_t *v, int limit) {
    if (limit < 0 || limit > 2) return CUDA_ERROR_NOT_SUPPORTED;
    HIP(fn_limit_get, f, "hipDeviceGetLimit");
    return wp_result(f(v, limit));
}

CUresult wpdrv_cuCtxSetLimit(int limit, size_t v) {
    if (limit < 0 || limit > 2) return CUDA_ERROR_NOT_SUPPORTED;
    HIP(fn_limit_set, f, "hipDeviceSetLimit");
    return wp_result(f(limit, v));
}

CUresult wpdrv_cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    HIP(fn_prio, f, "hipDeviceGetStreamPriorityRange");
    return wp_result(f(least, greatest));
}

CUresult wpdrv_cuCtxGetApiVersion(CUcontext c, unsigned *v) {
    (void)c;
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = 3020; /* the context API of every CUDA since 3.2 */
    return CUDA_SUCCESS;
}

/* ---- memory ---- */

typedef hipError_t (*fn_malloc)(void **, size_t);
typedef hipError_t (*fn_hmalloc)(void **, size_t, unsigned);
typedef hipError_t (*fn_free)(void *);
typedef hipError_t (*fn_info)(size_t *, size_t *);
typedef hipError_t (*fn_copy)(void *, const void *, size_t, int);
typedef hipError_t (*fn_copy_async)(void *, const void *, size_t, int, CUstream);
typedef hipError_t (*fn_set8)(void *, unsigned char, size_t);
typedef hipError_t (*fn_set16)(void *, unsigned short, size_t);
typedef hipError_t (*fn_set32)(void *, int, size_t);
typedef hipError_t (*fn_set8a)(void *, unsigned char, size_t, CUstream);
typedef hipError_t (*fn_set16a)(void *, unsigned short, size_t, CUstream);
typedef hipError_t (*fn_set32a)(void *, int, size_t, CUstream);
typedef hipError_t (*fn_hostdev)(void **, void *, unsigned);
typedef hipError_t (*fn_hostreg)(void *, size_t, unsigned);
typedef hipError_t (*fn_range)(void **, size_t *, void *);
typedef hipError_t (*fn_malloc_async)(void **, size_t, CUstream);
typedef hipError_t (*fn_free_async)(void *, CUstream);

#define WP_MEMCPY_DEFAULT 4 /* hipMemcpyDefault: the direction from the pointers */

CUresult wpdrv_cuMemAlloc(CUdeviceptr *p, size_t n) {
    HIP(fn_malloc, f, "hipMalloc");
    return wp_result(f((void **)p, n));
}

CUresult wpdrv_cuMemFree(CUdeviceptr p) {
    HIP(fn_free, f, "hipFree");
    return wp_result(f((void *)p));
}

CUresult wpdrv_cuMemAllocHost(void **p, size_t n) {
    HIP(fn_hmalloc, f, "hipHostMalloc");
    return wp_result(f(p, n, 0));
}

/* CU_MEMHOSTALLOC_PORTABLE 1, DEVICEMAP 2, WRITECOMBINED 4 = hipHostMallocPortable,
 * Mapped, WriteCombined. */
CUresult wpdrv_cuMemHostAlloc(void **p, size_t n, unsigned flags) {
    HIP(fn_hmalloc, f, "hipHostMalloc");
    return wp_result(f(p, n, flags));
}

CUresult wpdrv_cuMemFreeHost(void *p) {
    HIP(fn_free, f, "hipHostFree");
    return wp_result(f(p));
}

CUresult wpdrv_cuMemHostGetDevicePointer(CUdeviceptr *d, void *h, unsigned flags) {
    HIP(fn_hostdev, f, "hipHostGetDevicePointer");
    return wp_result(f((void **)d, h, flags));
}

/* CU_MEMHOSTREGISTER_PORTABLE 1, DEVICEMAP 2, IOMEMORY 4, READ_ONLY 8 = hipHostRegister*. */
CUresult wpdrv_cuMemHostRegister(void *p, size_t n, unsigned flags) {
    HIP(fn_hostreg, f, "hipHostRegister");
    return wp_result(f(p, n, flags));
}

CUresult wpdrv_cuMemHostUnregister(void *p) {
    HIP(fn_free, f, "hipHostUnregister");
    return wp_result(f(p));
}

CUresult wpdrv_cuMemGetInfo(size_t *free_, size_t *total) {
    HIP(fn_info, f, "hipMemGetInfo");
    return wp_result(f(free_, total));
}

CUresult wpdrv_cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
    HIP(fn_range, f, "hipMemGetAddressRange");
    return wp_result(f((void **)base, size, (void *)p));
}

CUresult wpdrv_cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s) {
    HIP(fn_malloc_async, f, "hipMallocAsync");
    return wp_result(f((void **)p, n, wp_stream(s)));
}

CUresult wpdrv_cuMemFreeAsync(CUdeviceptr p, CUstream s) {
    HIP(fn_free_async, f, "hipFreeAsync");
    return wp_result(f((void *)p, wp_stream(s)));
}

/* Every copy goes through hipMemcpy[Async] with hipMemcpyDefault (unified addressing: HIP
 * tells the direction from the pointers, as cuMemcpy does). */
static CUresult wp_copy(void *d, const void *s, size_t n) {
    HIP(fn_copy, f, "hipMemcpy");
    return wp_result(f(d, s, n, WP_MEMCPY_DEFAULT));
}

static CUresult wp_copy_async(void *d, const void *s, size_t n, CUstream st) {
    HIP(fn_copy_async, f, "hipMemcpyAsync");
    return wp_result(f(d, s, n, WP_MEMCPY_DEFAULT, wp_stream(st)));
}

CUresult wpdrv_cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) {
    return wp_copy((void *)d, (const void *)s, n);
}
CUresult wpdrv_cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
    return wp_copy_async((void *)d, (const void *)s, n, st);
}
CUresult wpdrv_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
    return wp_copy((void *)d, s, n);
}
CUresult wpdrv_cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) {
    return wp_copy(d, (const void *)s, n);
}
CUresult wpdrv_cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
    return wp_copy((void *)d, (const void *)s, n);
}
CUresult wpdrv_cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream st) {
    return wp_copy_async((void *)d, s, n, st);
}
CUresult wpdrv_cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream st) {
    return wp_copy_async(d, (const void *)s, n, st);
}
CUresult wpdrv_cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
    return wp_copy_async((void *)d, (const void *)s, n, st);
}

CUresult wpdrv_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
    HIP(fn_set8, f, "hipMemsetD8");
    return wp_result(f((void *)d, v, n));
}
CUresult wpdrv_cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) {
    HIP(fn_set16, f, "hipMemsetD16");
    return wp_result(f((void *)d, v, n));
}
CUresult wpdrv_cuMemsetD32(CUdeviceptr d, unsigned v, size_t n) {
    HIP(fn_set32, f, "hipMemsetD32");
    return wp_result(f((void *)d, (int)v, n));
}
CUresult wpdrv_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
    HIP(fn_set8a, f, "hipMemsetD8Async");
    return wp_result(f((void *)d, v, n, wp_stream(s)));
}
CUresult wpdrv_cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
    HIP(fn_set16a, f, "hipMemsetD16Async");
    return wp_result(f((void *)d, v, n, wp_stream(s)));
}
CUresult wpdrv_cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
    HIP(fn_set32a, f, "hipMemsetD32Async");
    return wp_result(f((void *)d, (int)v, n, wp_stream(s)));
}

/* ---- streams and events ---- */

typedef hipError_t (*fn_screate)(CUstream *, unsigned);
typedef hipError_t (*fn_screate_prio)(CUstream *, unsigned, int);
typedef hipError_t (*fn_s)(CUstream);
typedef hipError_t (*fn_s_wait)(CUstream, CUevent, unsigned);
typedef hipError_t (*fn_s_flags)(CUstream, unsigned *);
typedef hipError_t (*fn_s_prio)(CUstream, int *);
typedef hipError_t (*fn_ecreate)(CUevent *, unsigned);
typedef hipError_t (*fn_e)(CUevent);
typedef hipError_t (*fn_erecord)(CUevent, CUstream);
typedef hipError_t (*fn_elapsed)(float *, CUevent, CUevent);

/* CU_STREAM_NON_BLOCKING 1 = hipStreamNonBlocking. */
CUresult wpdrv_cuStreamCreate(CUstream *s, unsigned flags) {
    HIP(fn_screate, f, "hipStreamCreateWithFlags");
    return wp_result(f(s, flags));
}
CUresult wpdrv_cuStreamCreateWithPriority(CUstream *s, unsigned flags, int prio) {
    HIP(fn_screate_prio, f, "hipStreamCreateWithPriority");
    return wp_result(f(s, flags, prio));
}
CUresult wpdrv_cuStreamDestroy(CUstream s) {
    HIP(fn_s, f, "hipStreamDestroy");
    return wp_result(f(s));
}
CUresult wpdrv_cuStreamSynchronize(CUstream s) {
    HIP(fn_s, f, "hipStreamSynchronize");
    return wp_result(f(wp_stream(s)));
}
CUresult wpdrv_cuStreamQuery(CUstream s) {
    HIP(fn_s, f, "hipStreamQuery");
    return wp_result(f(wp_stream(s)));
}
CUresult wpdrv_cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
    HIP(fn_s_wait, f, "hipStreamWaitEvent");
    return wp_result(f(wp_stream(s), e, flags));
}
CUresult wpdrv_cuStreamGetFlags(CUstream s, unsigned *flags) {
    HIP(fn_s_flags, f, "hipStreamGetFlags");
    return wp_result(f(wp_stream(s), flags));
}
CUresult wpdrv_cuStreamGetPriority(CUstream s, int *prio) {
    HIP(fn_s_prio, f, "hipStreamGetPriority");
    return wp_result(f(wp_stream(s), prio));
}

/* CU_EVENT_BLOCKING_SYNC 1, DISABLE_TIMING 2, INTERPROCESS 4 = hipEvent*. */
CUresult wpdrv_cuEventCreate(CUevent *e, unsigned flags) {
    HIP(fn_ecreate, f, "hipEventCreateWithFlags");
    return wp_result(f(e, flags));
}
CUresult wpdrv_cuEventDestroy(CUevent e) {
    HIP(fn_e, f, "hipEventDestroy");
    return wp_result(f(e));
}
CUresult wpdrv_cuEventRecord(CUevent e, CUstream s) {
    HIP(fn_erecord, f, "hipEventRecord");
    return wp_result(f(e, wp_stream(s)));
}
CUresult wpdrv_cuEventSynchronize(CUevent e) {
    HIP(fn_e, f, "hipEventSynchronize");
    return wp_result(f(e));
}
CUresult wpdrv_cuEventQuery(CUevent e) {
    HIP(fn_e, f, "hipEventQuery");
    return wp_result(f(e));
}
CUresult wpdrv_cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
    HIP(fn_elapsed, f, "hipEventElapsedTime");
    return wp_result(f(ms, a, b));
}

/* ---- modules, libraries, kernels ---- */

#define WP_FATBIN_MAGIC 0xBA55ED50u
#define WP_WRAPPER_MAGIC 0x466243B1u
static const char WP_IMAGE_TAG[8] = {'W', 'P', 'D', 'R', 'V', 'I', 'M', 'G'};

/* A loaded module: the HIP module (NULL for a module that was not translated) and the
 * image's notes. CUmodule and CUlibrary are pointers to it. */
struct wp_module {
    void *hip;
    const char *notes;
    size_t notes_len;
};

/* A kernel: CUfunction and CUkernel are pointers to it. */
struct wp_function {
    void *hip; /* hipFunction_t */
    struct wp_module *module;
};

static uint64_t wp_u64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The driver image at `image` (or at the data pointer of a wrapper there), else NULL. */
static const unsigned char *wp_driver_image(const void *image) {
    const unsigned char *p = image;
    uint32_t m;
    if (!p) return NULL;
    memcpy(&m, p, 4);
    if (m == WP_WRAPPER_MAGIC) {
        memcpy(&p, p + 8, sizeof p);
        if (!p) return NULL;
        memcpy(&m, p, 4);
    }
    if (m != WP_FATBIN_MAGIC || memcmp(p + 16, WP_IMAGE_TAG, 8) != 0) return NULL;
    return p;
}

typedef hipError_t (*fn_load)(void **, const void *);
typedef hipError_t (*fn_getfn)(void **, void *, const char *);
typedef hipError_t (*fn_unload)(void *);
typedef hipError_t (*fn_global)(void **, size_t *, void *, const char *);

static CUresult wp_load(struct wp_module **out, const void *image) {
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    const unsigned char *p = wp_driver_image(image);
    if (!p) {
        WP_LOG("refused a module image wheelport did not write (not translated code)");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    struct wp_module *m = calloc(1, sizeof *m);
    if (!m) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    uint64_t boff = wp_u64(p + 24), bsize = wp_u64(p + 32);
    m->notes = (const char *)p + wp_u64(p + 40);
    m->notes_len = wp_u64(p + 48);
    if (bsize) {
        static fn_load load;
        if (!load) load = (fn_load)wp_hip_symbol("hipModuleLoadData");
        if (!load) return free(m), CUDA_ERROR_NOT_SUPPORTED;
        hipError_t r = load(&m->hip, p + boff);
        WP_LOG("module image %p: bundle of %llu bytes -> hipModuleLoadData %d", (void *)p,
               (unsigned long long)bsize, r);
        if (r != 0) return free(m), wp_result(r);
    } else {
        WP_LOG("module image %p: not translated (%llu bytes of notes)", (void *)p,
               (unsigned long long)m->notes_len);
    }
    *out = m;
    return CUDA_SUCCESS;
}

/* The reason the notes of `m` give for kernel `name`, printed; 1 when listed. */
static int wp_untranslated(const struct wp_module *m, const char *name) {
    size_t n = strlen(name);
    const char *p = m->notes, *end = m->notes + m->notes_len;
    while (p && p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if ((size_t)(eol - p) > n && !memcmp(p, name, n) && p[n] == '\t') {
            fprintf(stderr, "wheelport-driver: kernel %s was not translated: %.*s\n", name,
                    (int)(eol - p - (ptrdiff_t)n - 1), p + n + 1);
            return 1;
        }
        p = eol + 1;
    }
    return 0;
}

static CUresult wp_get_function(struct wp_function **out, struct wp_module *m,
                                const char *name) {
    if (!out || !m || !name) return CUDA_ERROR_INVALID_VALUE;
    if (wp_untranslated(m, name)) return CUDA_ERROR_NOT_FOUND;
    if (!m->hip) return CUDA_ERROR_NOT_FOUND;
    HIP(fn_getfn, f, "hipModuleGetFunction");
    void *h = NULL;
    hipError_t r = f(&h, m->hip, name);
    WP_LOG("function %s -> %d", name, r);
    if (r != 0) return wp_result(r);
    struct wp_function *fn = calloc(1, sizeof *fn);
    if (!fn) return 2;
    fn->hip = h;
    fn->module = m;
    *out = fn;
    return CUDA_SUCCESS;
}

CUresult wpdrv_cuModuleLoadData(struct wp_module **m, const void *image) {
    return wp_load(m, image);
}
CUresult wpdrv_cuModuleLoadDataEx(struct wp_module **m, const void *image, unsigned n,
                                  void *opts, void **vals) {
    (void)n, (void)opts, (void)vals; /* JIT options: there is no JIT */
    return wp_load(m, image);
}
CUresult wpdrv_cuModuleLoadFatBinary(struct wp_module **m, const void *image) {
    return wp_load(m, image);
}
CUresult wpdrv_cuModuleUnload(struct wp_module *m) {
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (m->hip) {
        HIP(fn_unload, f, "hipModuleUnload");
        hipError_t r = f(m->hip);
        if (r != 0) return wp_result(r);
    }
    free(m);
    return CUDA_SUCCESS;
}
CUresult wpdrv_cuModuleGetFunction(struct wp_function **f, struct wp_module *m,
                                   const char *name) {
    return wp_get_function(f, m, name);
}
CUresult wpdrv_cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, struct wp_module *m,
                                 const char *name) {
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!m->hip) return CUDA_ERROR_NOT_FOUND;
    HIP(fn_global, f, "hipModuleGetGlobal");
    return wp_result(f((void **)p, bytes, m->hip, name));
}

/* cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jitOptions,
 * void **jitOptionsValues, unsigned numJitOptions, CUlibraryOption *libraryOptions,
 * void **libraryOptionValues, unsigned numLibraryOptions): a library is a module here. */
CUresult wpdrv_cuLibraryLoadData(struct wp_module **lib, const void *code, void *jo, void **jv,
                                 unsigned nj, void *lo, void **lv, unsigned nl) {
    (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
    return wp_load(lib, code);
}
CUresult wpdrv_cuLibraryUnload(struct wp_module *lib) { return wpdrv_cuModuleUnload(lib); }
CUresult wpdrv_cuLibraryGetKernel(struct wp_function **k, struct wp_module *lib,
                                  const char *name) {
    return wp_get_function(k, lib, name);
}
CUresult wpdrv_cuLibraryGetModule(struct wp_module **m, struct wp_module *lib) {
    if (!m || !lib) return CUDA_ERROR_INVALID_VALUE;
    *m = lib;
    return CUDA_SUCCESS;
}
CUresult wpdrv_cuLibraryGetGlobal(CUdeviceptr *p, size_t *bytes, struct wp_module *lib,
                                  const char *name) {
    return wpdrv_cuModuleGetGlobal(p, bytes, lib, name);
}
CUresult wpdrv_cuKernelGetFunction(struct wp_function **f, struct wp_function *k) {
    if (!f || !k) return CUDA_ERROR_INVALID_VALUE;
    *f = k;
    return CUDA_SUCCESS;
}

enum { CU_FUNC_ATTR_PTX_VERSION = 5, CU_FUNC_ATTR_BINARY_VERSION = 6,
       CU_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8, CU_FUNC_ATTR_HIP_LAST = 9 };

typedef hipError_t (*fn_fattr)(int *, int, void *);

/* cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc): attributes
 * 0..9 have the same numbers in hipFunction_attribute; the cluster attributes (10..) are 0,
 * as on a device without clusters; PTX and binary version are the identity. */
CUresult wpdrv_cuFuncGetAttribute(int *pi, int attr, struct wp_function *fn) {
    if (!pi || !fn) return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&wp_once, wp_init);
    if ((attr == CU_FUNC_ATTR_PTX_VERSION || attr == CU_FUNC_ATTR_BINARY_VERSION) &&
        wp_source_cc >= 0)
        return *pi = wp_source_cc, CUDA_SUCCESS;
    if (attr < 0) return CUDA_ERROR_INVALID_VALUE;
    if (attr > CU_FUNC_ATTR_HIP_LAST) return *pi = 0, CUDA_SUCCESS;
    HIP(fn_fattr, f, "hipFuncGetAttribute");
    return wp_result(f(pi, attr, fn->hip));
}

CUresult wpdrv_cuKernelGetAttribute(int *pi, int attr, struct wp_function *k, CUdevice d) {
    (void)d;
    return wpdrv_cuFuncGetAttribute(pi, attr, k);
}

/* cuFuncSetAttribute(CUfunction, CUfunction_attribute, int): HIP's module functions have no
 * settable attributes. MAX_DYNAMIC_SHARED_SIZE_BYTES is accepted up to the device's shared
 * memory per block (AMD GPUs need no opt-in); others are accepted as hints. */
CUresult wpdrv_cuFuncSetAttribute(struct wp_function *fn, int attr, int value) {
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (attr == CU_FUNC_ATTR_MAX_DYNAMIC_SHARED) {
        int dev = 0, max = 0;
        HIP(fn_pi, getdev, "hipGetDevice");
        HIP(fn_attr, attrf, "hipDeviceGetAttribute");
        /* hipDeviceAttributeMaxSharedMemoryPerBlock, from device_attr.tsv (CUDA 8). */
        int hip_attr = -1;
        for (size_t i = 0; i < WP_N(wp_attr_pairs); i++)
            if (wp_attr_pairs[i].cuda == 8) hip_attr = wp_attr_pairs[i].hip;
        if (getdev(&dev) != 0 || hip_attr < 0 || attrf(&max, hip_attr, dev) != 0)
            return CUDA_ERROR_INVALID_VALUE;
        return value >= 0 && value <= max ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult wpdrv_cuKernelSetAttribute(int attr, int value, struct wp_function *k, CUdevice d) {
    (void)d;
    return wpdrv_cuFuncSetAttribute(k, attr, value);
}
CUresult wpdrv_cuFuncSetCacheConfig(struct wp_function *fn, int config) {
    (void)fn, (void)config; /* a preference; AMD GPUs have no L1/shared split to set */
    return CUDA_SUCCESS;
}
CUresult wpdrv_cuKernelSetCacheConfig(struct wp_function *k, int config, CUdevice d) {
    (void)k, (void)config, (void)d;
    return CUDA_SUCCESS;
}

typedef hipError_t (*fn_launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream, void **, void **);

/* cuLaunchKernel(f, gridDimX..Z, blockDimX..Z, sharedMemBytes, hStream, kernelParams, extra)
 * -> hipModuleLaunchKernel, the same parameters. */
CUresult wpdrv_cuLaunchKernel(struct wp_function *fn, unsigned gx, unsigned gy, unsigned gz,
                              unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                              CUstream s, void **params, void **extra) {
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    HIP(fn_launch, f, "hipModuleLaunchKernel");
    return wp_result(f(fn->hip, gx, gy, gz, bx, by, bz, shmem, wp_stream(s), params, extra));
}

/* CUlaunchConfig (cuda.h): gridDimX, Y, Z, blockDimX, Y, Z, sharedMemBytes (u32 each),
 * hStream at 32, attrs at 40, numAttrs at 48 (56 bytes). CUlaunchAttribute: id (u32) at 0,
 * value at 8, 72 bytes. */
struct wp_launch_config {
    unsigned grid[3], block[3], shmem;
    CUstream stream;
    const unsigned char *attrs;
    unsigned nattrs;
};

/* cuLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **kernelParams, void **extra):
 * attributes a CTA-only target honours trivially are accepted (1 access policy window,
 * 2 cooperative, 3 synchronization policy, 5 priority, 6 programmatic stream serialization,
 * 7 programmatic event, 8 priority, 10 launch completion event, 4 cluster dimension 1x1x1);
 * any other is CUDA_ERROR_NOT_SUPPORTED. */
CUresult wpdrv_cuLaunchKernelEx(const struct wp_launch_config *c, struct wp_function *fn,
                                void **params, void **extra) {
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < c->nattrs; i++) {
        const unsigned char *a = c->attrs + 72 * (size_t)i;
        unsigned id, x, y, z;
        memcpy(&id, a, 4);
        if (id == 4) {
            memcpy(&x, a + 8, 4), memcpy(&y, a + 12, 4), memcpy(&z, a + 16, 4);
            if (x * y * z > 1) {
                WP_LOG("cuLaunchKernelEx: cluster %ux%ux%u not supported", x, y, z);
                return CUDA_ERROR_NOT_SUPPORTED;
            }
        } else if (!(id == 1 || id == 2 || id == 3 || id == 5 || id == 6 || id == 7 ||
                     id == 8 || id == 10)) {
            WP_LOG("cuLaunchKernelEx: launch attribute %u not supported", id);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    return wpdrv_cuLaunchKernel(fn, c->grid[0], c->grid[1], c->grid[2], c->block[0],
                                c->block[1], c->block[2], c->shmem, c->stream, params, extra);
}

typedef hipError_t (*fn_occ)(int *, void *, int, size_t);
typedef hipError_t (*fn_occ_flags)(int *, void *, int, size_t, unsigned);
typedef hipError_t (*fn_occ_size)(int *, int *, void *, size_t, int);

CUresult wpdrv_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, struct wp_function *fn,
                                                           int block, size_t shmem) {
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    HIP(fn_occ, f, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
    return wp_result(f(n, fn->hip, block, shmem));
}
CUresult wpdrv_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n,
                                                                    struct wp_function *fn,
                                                                    int block, size_t shmem,
                                                                    unsigned flags) {
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    HIP(fn_occ_flags, f, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    return wp_result(f(n, fn->hip, block, shmem, flags));
}
/* cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction,
 * CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit):
 * HIP takes no per-block-size callback; with one, NOT_SUPPORTED. */
CUresult wpdrv_cuOccupancyMaxPotentialBlockSize(int *grid, int *block, struct wp_function *fn,
                                                void *b2smem, size_t shmem, int limit) {
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (b2smem) return CUDA_ERROR_NOT_SUPPORTED;
    HIP(fn_occ_size, f, "hipModuleOccupancyMaxPotentialBlockSize");
    return wp_result(f(grid, block, fn->hip, shmem, limit));
}

/* ---- cuGetProcAddress ---- */

struct wp_entry {
    const char *name;
    int abi;  /* the CUDA version whose prototype the implementation follows */
    int next; /* the next version that changed the prototype, 0 when none */
    void *fn;
};

CUresult wpdrv_cuGetProcAddress_v11030(const char *symbol, void **pfn, int version,
                                       unsigned long long flags);
CUresult wpdrv_cuGetProcAddress(const char *symbol, void **pfn, int version,
                                unsigned long long flags, int *status);

#define WP_ENTRY(name, abi, next, fn) {name, abi, next, (void *)&fn},
static const struct wp_entry wp_entries[] = {WP_DRIVER_ENTRIES(WP_ENTRY)};
#undef WP_ENTRY

/* CUdriverProcAddressQueryResult: 0 success, 1 symbol not found, 2 version not sufficient. */
CUresult wpdrv_cuGetProcAddress(const char *symbol, void **pfn, int version,
                                unsigned long long flags, int *status) {
    (void)flags;
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    int found = 0;
    for (size_t i = 0; i < WP_N(wp_entries); i++) {
        const struct wp_entry *e = &wp_entries[i];
        if (strcmp(e->name, symbol) != 0) continue;
        found = 1;
        if (version >= e->abi && (e->next == 0 || version < e->next)) *pfn = e->fn;
    }
    WP_LOG("requested %s (version %d): %s", symbol, version,
           *pfn ? "served" : found ? "another prototype" : "not served");
    if (status) *status = *pfn ? 0 : found ? 2 : 1;
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult wpdrv_cuGetProcAddress_v11030(const char *symbol, void **pfn, int version,
                                       unsigned long long flags) {
    return wpdrv_cuGetProcAddress(symbol, pfn, version, flags, NULL);
}

/* The names a static runtime looks up with dlsym (cuDriverGetVersion first, then
 * cuGetProcAddress_v2); cuInit for callers of the driver API itself. */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                          unsigned long long flags) {
    return wpdrv_cuGetProcAddress(symbol, pfn, version, flags, NULL);
}
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             unsigned long long flags, int *status) {
    return wpdrv_cuGetProcAddress(symbol, pfn, version, flags, status);
}
CUresult cuDriverGetVersion(int *v) { return wpdrv_cuDriverGetVersion(v); }
CUresult cuInit(unsigned flags) { return wpdrv_cuInit(flags); }
