/* A HIP runtime on CUDA, for verification only: it answers to the target's HIP runtime
 * soname (libgalaxyhip.so.5 for dtk, libamdhip64.so.6 for rocm) so that the host side of a
 * `wheelport --target dtk|rocm` output runs on an NVIDIA GPU. HIP's ABI (hipError_t values,
 * hipDeviceProp_tR0600, hipDeviceAttribute_t, hipFuncAttributes) as the shim's HIP tables
 * (shims/hip/tables, from AMD's hip-python bindings) give it; NVIDIA's answers, except where
 * HIP on the target answers otherwise: warpSize 64 (a wavefront), major.minor and
 * gcnArchName of the target's gfx (WP_HIP_STANDIN_ARCH, e.g. "gfx906": 9.0), and
 * hipFuncGetAttributes' ptxVersion 30 and binaryVersion 0 (ROCclr's constant and its kernel
 * signature version).
 *
 * Device code: the gfx code objects cannot run here. Each converted shared object is paired,
 * by file name, with the cuda twin of the same input (`wheelport --target cuda`) in the first
 * folder of $WP_HIP_TWIN_DIR (a colon-separated list) that has one; the twin's PTX fatbin containers (section .nv_fatbin.wheelport) are loaded
 * with the CUDA driver, and every kernel and variable registered through __hipRegister* is
 * resolved there by its name.
 *
 * The rest of HIP's runtime is forwarded: SI_FORWARD (tools/hip-standin/gen.py) lists the
 * renamed functions whose HIP and CUDA prototypes are one, answered by libcudart.so.13;
 * SI_ABSENT lists those the tables reach that are neither: each call is logged ("hip-standin:
 * NAME not provided: WHY") and answers hipErrorNotSupported. $WP_HIP_STANDIN_LOG names a file
 * that receives one line per first call of each exported function (what the run exercised).
 *
 * Build: tools/hip-standin/build.sh (gcc; no CUDA headers needed, CUDA is loaded by soname). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "standin_gen.h"

#define SI_EXPORT __attribute__((visibility("default")))

typedef int hipError_t;
typedef void *hipStream_t;
typedef struct { unsigned int x, y, z; } dim3;
typedef int CUresult;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;

#define HIP_SUCCESS 0
#define HIP_ERROR_INVALID_VALUE 1
#define HIP_ERROR_INVALID_DEVICE_FUNCTION 98
#define HIP_ERROR_INVALID_SYMBOL 13
#define HIP_ERROR_NOT_SUPPORTED 801
#define HIP_ERROR_UNKNOWN 999
#define HIP_ERROR_NO_BINARY_FOR_GPU 209
#define SI_WARP_SIZE 64
#define SI_HIP_ATTR_WARP_SIZE 87
#define SI_HIP_ATTR_CC_MAJOR 23
#define SI_HIP_ATTR_CC_MINOR 61

/* ---- logging ---- */

static FILE *si_log;
static pthread_mutex_t si_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* One line "KIND TEXT" in $WP_HIP_STANDIN_LOG, when it is set; with si_lock held. */
static void si_log_line(const char *kind, const char *text) {
    if (!si_log) {
        const char *p = getenv("WP_HIP_STANDIN_LOG");
        if (p) si_log = fopen(p, "a");
    }
    if (si_log) {
        fprintf(si_log, "%s %s\n", kind, text);
        fflush(si_log);
    }
}

/* The first call of exported function `fn` (its name's address identifies it). */
static void si_note(const char *fn) {
    static const char *seen[1024];
    static int nseen;
    pthread_mutex_lock(&si_lock);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == fn) {
            pthread_mutex_unlock(&si_lock);
            return;
        }
    if (nseen < 1024) seen[nseen++] = fn;
    si_log_line("call", fn);
    pthread_mutex_unlock(&si_lock);
}

/* A diagnostic, once per distinct text: on stderr and in the log. */
static void si_say(const char *fmt, const char *a, const char *b) {
    static char *said[256];
    static int nsaid;
    char text[1024];
    snprintf(text, sizeof text, fmt, a, b);
    pthread_mutex_lock(&si_lock);
    for (int i = 0; i < nsaid; i++)
        if (strcmp(said[i], text) == 0) {
            pthread_mutex_unlock(&si_lock);
            return;
        }
    if (nsaid < 256) said[nsaid++] = strdup(text);
    fprintf(stderr, "hip-standin: %s\n", text);
    si_log_line("note", text);
    pthread_mutex_unlock(&si_lock);
}

/* ---- CUDA, loaded by soname ---- */

static void *si_cudart_lib, *si_cuda_lib;

static void *si_sym(void **lib, const char *soname, const char *name) {
    if (!*lib) *lib = dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
    if (!*lib) {
        fprintf(stderr, "hip-standin: cannot load %s: %s\n", soname, dlerror());
        return NULL;
    }
    return dlsym(*lib, name);
}
static void *si_cudart(const char *name) { return si_sym(&si_cudart_lib, "libcudart.so.13", name); }
static void *si_cuda(const char *name) { return si_sym(&si_cuda_lib, "libcuda.so.1", name); }

#define SI_CU(type, name) ((type)si_cuda(#name))
#define SI_RT(type, name) ((type)si_cudart(#name))

/* cudaError_t / CUresult (the values the tables pair are CUDA's) -> hipError_t. */
static hipError_t si_hip_error(int e) {
    if (e == 0) return 0;
#define X(c, h, n) if (e == c) return h;
    SI_ERRORS(X)
#undef X
    return HIP_ERROR_UNKNOWN;
}

/* The HIP runtime's last error of this thread: set by the calls answered here (launches), read
 * with CUDA's by hipGetLastError / hipPeekAtLastError. */
static __thread hipError_t si_last_error;
static hipError_t si_set(hipError_t e) {
    if (e) si_last_error = e;
    return e;
}

/* The primary context current on this thread (the CUDA runtime's own). */
static hipError_t si_context(void) {
    typedef int (*fn_t)(void *);
    static fn_t cuda_free;
    if (!cuda_free) cuda_free = SI_RT(fn_t, cudaFree);
    if (!cuda_free) return HIP_ERROR_NOT_SUPPORTED;
    return si_hip_error(cuda_free(NULL));
}

/* ---- forwarded and absent functions (standin_gen.h) ---- */

/* Compiled with -mgeneral-regs-only (build.sh): the forwarder touches no vector register, so
 * floating-point arguments reach the CUDA function as the caller passed them; up to six
 * stack words are passed on. */
typedef unsigned long long u64;
typedef int (*si_fwd_t)(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64);
#define X(hip, cuda)                                                                       \
    static si_fwd_t si_fwd_##hip;                                                          \
    SI_EXPORT hipError_t hip(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f, u64 g, u64 h, u64 i, \
                             u64 j, u64 k, u64 l) {                                        \
        si_fwd_t fn = __atomic_load_n(&si_fwd_##hip, __ATOMIC_ACQUIRE);                     \
        if (!fn) {                                                                         \
            fn = (si_fwd_t)si_cudart(cuda);                                                \
            if (!fn) {                                                                     \
                si_say("%s not provided: libcudart.so.13 has no %s", #hip, cuda);           \
                return HIP_ERROR_NOT_SUPPORTED;                                            \
            }                                                                              \
            __atomic_store_n(&si_fwd_##hip, fn, __ATOMIC_RELEASE);                          \
            si_note(#hip);                                                                 \
        }                                                                                  \
        return si_hip_error(fn(a, b, c, d, e, f, g, h, i, j, k, l));                       \
    }
SI_FORWARD(X)
#undef X

#define X(hip, why)                                                                        \
    SI_EXPORT hipError_t hip(void) {                                                       \
        si_say("%s not provided: %s", #hip, why);                                          \
        return HIP_ERROR_NOT_SUPPORTED;                                                    \
    }
SI_ABSENT(X)
#undef X

/* ---- registration: modules, kernels, variables ---- */

struct si_module {
    const void *wrapper;
    char path[PATH_MAX]; /* the converted shared object holding the wrapper */
    int loaded;          /* 1: twin containers loaded; -1: failed */
    CUmodule mods[256];
    int nmods;
    struct si_module *next;
};
struct si_entry {
    const void *host; /* host stub (kernel) or host shadow (variable) */
    struct si_module *m;
    char *name;
    size_t size;
    CUfunction fn;
    struct si_entry *next;
};
static struct si_module *si_modules;
static struct si_entry *si_kernels, *si_vars;

SI_EXPORT void **__hipRegisterFatBinary(const void *wrapper) {
    si_note("__hipRegisterFatBinary");
    struct si_module *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->wrapper = wrapper;
    Dl_info info;
    if (dladdr(wrapper, &info) && info.dli_fname)
        snprintf(m->path, sizeof m->path, "%s", info.dli_fname);
    pthread_mutex_lock(&si_lock);
    m->next = si_modules;
    si_modules = m;
    pthread_mutex_unlock(&si_lock);
    return (void **)m;
}

SI_EXPORT void __hipUnregisterFatBinary(void **handle) {
    si_note("__hipUnregisterFatBinary");
    (void)handle; /* the twin's modules stay loaded until the context goes */
}

static struct si_entry *si_add(struct si_entry **list, void **handle, const void *host,
                               const char *name, size_t size) {
    struct si_entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->host = host;
    e->m = (struct si_module *)handle;
    e->name = strdup(name);
    e->size = size;
    pthread_mutex_lock(&si_lock);
    e->next = *list;
    *list = e;
    pthread_mutex_unlock(&si_lock);
    return e;
}

SI_EXPORT void __hipRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                     const char *deviceName, unsigned int threadLimit, void *tid,
                                     void *bid, dim3 *blockDim, dim3 *gridDim, int *wSize) {
    (void)deviceFun, (void)threadLimit, (void)tid, (void)bid, (void)blockDim, (void)gridDim,
        (void)wSize;
    si_note("__hipRegisterFunction");
    si_add(&si_kernels, handle, hostFun, deviceName, 0);
}

SI_EXPORT void __hipRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                                const char *deviceName, int ext, size_t size, int constant,
                                int global) {
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    si_note("__hipRegisterVar");
    si_add(&si_vars, handle, hostVar, deviceName, size);
}

SI_EXPORT void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value,
                                       const char *name, size_t size, unsigned align) {
    (void)hipModule, (void)pointer, (void)init_value, (void)size, (void)align;
    si_say("%s not provided: managed variable %s", "__hipRegisterManagedVar", name);
}

/* The twin's PTX fatbin containers of module `m`, loaded once. */
static int si_load(struct si_module *m) {
    if (m->loaded) return m->loaded;
    m->loaded = -1;
    const char *dirs = getenv("WP_HIP_TWIN_DIR");
    const char *base = strrchr(m->path, '/');
    base = base ? base + 1 : m->path;
    char twin[2 * PATH_MAX];
    if (!dirs || !*base) {
        si_say("%s: no twin (set WP_HIP_TWIN_DIR)%s", m->path, "");
        return -1;
    }
    /* The first folder of the list holding a file of that name. */
    int fd = -1;
    for (const char *d = dirs; fd < 0 && *d;) {
        size_t n = strcspn(d, ":");
        snprintf(twin, sizeof twin, "%.*s/%s", (int)n, d, base);
        fd = open(twin, O_RDONLY);
        d += n + (d[n] == ':');
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        si_say("%s: no twin named so in WP_HIP_TWIN_DIR (%s)", m->path, dirs);
        if (fd >= 0) close(fd);
        return -1;
    }
    const unsigned char *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return -1;
    const Elf64_Ehdr *eh = (const void *)p;
    if ((size_t)st.st_size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > (size_t)st.st_size) {
        si_say("%s: twin %s is not an ELF file", m->path, twin);
        return -1;
    }
    const Elf64_Shdr *sh = (const void *)(p + eh->e_shoff);
    const char *names = (const char *)p + sh[eh->e_shstrndx].sh_offset;
    if (si_context()) return -1;
    typedef CUresult (*load_t)(CUmodule *, const void *);
    load_t load = SI_CU(load_t, cuModuleLoadData);
    for (int i = 0; load && i < eh->e_shnum; i++) {
        if (strcmp(names + sh[i].sh_name, ".nv_fatbin.wheelport") != 0) continue;
        const unsigned char *s = p + sh[i].sh_offset, *end = s + sh[i].sh_size;
        while (s + 16 <= end && m->nmods < 256) {
            uint32_t magic;
            uint16_t hdr;
            uint64_t size;
            memcpy(&magic, s, 4);
            memcpy(&hdr, s + 6, 2);
            memcpy(&size, s + 8, 8);
            if (magic != 0xBA55ED50u) break;
            CUmodule mod;
            CUresult r = load(&mod, s);
            if (r == 0)
                m->mods[m->nmods++] = mod;
            else {
                char n[32];
                snprintf(n, sizeof n, "%d", r);
                si_say("cuModuleLoadData of a twin container failed (CUresult %s)%s", n, "");
            }
            /* The next container: 8-aligned, after zero padding (the twin's are 4096-aligned). */
            s += (hdr + size + 7) & ~(uint64_t)7;
            while (s + 16 <= end && memcmp(s, "\x50\xed\x55\xba", 4) != 0) s += 8;
        }
    }
    if (m->nmods == 0) {
        si_say("%s: twin %s has no loadable .nv_fatbin.wheelport container", m->path, twin);
        return -1;
    }
    return m->loaded = 1;
}

static struct si_entry *si_find(struct si_entry *list, const void *host) {
    pthread_mutex_lock(&si_lock);
    struct si_entry *e = list;
    while (e && e->host != host) e = e->next;
    pthread_mutex_unlock(&si_lock);
    return e;
}

/* The CUDA function of the kernel whose host stub is `host`. */
static hipError_t si_function(const void *host, CUfunction *out) {
    struct si_entry *e = si_find(si_kernels, host);
    if (!e) return HIP_ERROR_INVALID_DEVICE_FUNCTION;
    if (!e->fn) {
        pthread_mutex_lock(&si_lock);
        if (!e->fn && si_load(e->m) == 1) {
            typedef CUresult (*get_t)(CUfunction *, CUmodule, const char *);
            get_t get = SI_CU(get_t, cuModuleGetFunction);
            for (int i = 0; get && i < e->m->nmods && !e->fn; i++)
                if (get(&e->fn, e->m->mods[i], e->name) != 0) e->fn = NULL;
            if (!e->fn) si_say("kernel %s: not in the twin of %s", e->name, e->m->path);
        }
        pthread_mutex_unlock(&si_lock);
    }
    if (!e->fn) return HIP_ERROR_NO_BINARY_FOR_GPU;
    *out = e->fn;
    return 0;
}

/* The device address and size of the variable whose host shadow is `host`. */
static hipError_t si_variable(const void *host, CUdeviceptr *dptr, size_t *size) {
    struct si_entry *e = si_find(si_vars, host);
    if (!e) return HIP_ERROR_INVALID_SYMBOL;
    pthread_mutex_lock(&si_lock);
    int ok = si_load(e->m) == 1;
    pthread_mutex_unlock(&si_lock);
    if (!ok) return HIP_ERROR_INVALID_SYMBOL;
    typedef CUresult (*get_t)(CUdeviceptr *, size_t *, CUmodule, const char *);
    get_t get = SI_CU(get_t, cuModuleGetGlobal_v2);
    for (int i = 0; get && i < e->m->nmods; i++)
        if (get(dptr, size, e->m->mods[i], e->name) == 0) return 0;
    si_say("variable %s: not in the twin of %s", e->name, e->m->path);
    return HIP_ERROR_INVALID_SYMBOL;
}

/* ---- launches ---- */

#define SI_STREAM_PER_THREAD ((hipStream_t)2)

static hipError_t si_launch(const void *host, dim3 g, dim3 b, void **args, size_t shmem,
                            hipStream_t stream) {
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return si_set(r);
    typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, hipStream_t, void **, void **);
    static launch_t launch;
    if (!launch) launch = SI_CU(launch_t, cuLaunchKernel);
    if (!launch) return si_set(HIP_ERROR_NOT_SUPPORTED);
    return si_set(si_hip_error(
        launch(f, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shmem, stream, args, NULL)));
}

SI_EXPORT hipError_t hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shmem,
                                     hipStream_t stream) {
    si_note("hipLaunchKernel");
    return si_launch(f, g, b, args, shmem, stream);
}

SI_EXPORT hipError_t hipLaunchKernel_spt(const void *f, dim3 g, dim3 b, void **args,
                                         size_t shmem, hipStream_t stream) {
    si_note("hipLaunchKernel_spt");
    return si_launch(f, g, b, args, shmem, stream ? stream : SI_STREAM_PER_THREAD);
}

struct si_config {
    dim3 g, b;
    size_t shmem;
    hipStream_t stream;
};
static __thread struct si_config si_configs[16];
static __thread int si_nconfigs;

SI_EXPORT hipError_t __hipPushCallConfiguration(dim3 g, dim3 b, size_t shmem,
                                                hipStream_t stream) {
    si_note("__hipPushCallConfiguration");
    if (si_nconfigs == 16) return HIP_ERROR_INVALID_VALUE;
    si_configs[si_nconfigs++] = (struct si_config){g, b, shmem, stream};
    return 0;
}

SI_EXPORT hipError_t __hipPopCallConfiguration(dim3 *g, dim3 *b, size_t *shmem,
                                               hipStream_t *stream) {
    si_note("__hipPopCallConfiguration");
    if (si_nconfigs == 0) return 52; /* hipErrorMissingConfiguration */
    struct si_config c = si_configs[--si_nconfigs];
    *g = c.g, *b = c.b, *shmem = c.shmem, *stream = c.stream;
    return 0;
}

/* ---- kernel attributes and occupancy (host stubs -> CUDA functions) ---- */

/* hipFuncAttributes (structs.tsv: HIP's members in alphabetical order, 56 bytes). */
struct si_hipFuncAttributes {
    int binaryVersion, cacheModeCA;
    size_t constSizeBytes, localSizeBytes;
    int maxDynamicSharedSizeBytes, maxThreadsPerBlock, numRegs, preferredShmemCarveout,
        ptxVersion;
    size_t sharedSizeBytes;
};
_Static_assert(sizeof(struct si_hipFuncAttributes) == 56, "hipFuncAttributes size");

SI_EXPORT hipError_t hipFuncGetAttributes(struct si_hipFuncAttributes *a, const void *host) {
    si_note("hipFuncGetAttributes");
    if (!a) return HIP_ERROR_INVALID_VALUE;
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return r;
    typedef CUresult (*attr_t)(int *, int, CUfunction);
    attr_t get = SI_CU(attr_t, cuFuncGetAttribute);
    if (!get) return HIP_ERROR_NOT_SUPPORTED;
    /* CUfunction_attribute: 0 max threads, 1 shared, 2 const, 3 local, 4 regs, 5 ptx,
     * 6 binary, 7 cache mode CA, 8 max dynamic shared, 9 carveout. */
    int v[10] = {0};
    for (int i = 0; i < 10; i++)
        if ((r = si_hip_error(get(&v[i], i, f)))) return r;
    memset(a, 0, sizeof *a);
    a->maxThreadsPerBlock = v[0];
    a->sharedSizeBytes = (size_t)v[1];
    a->constSizeBytes = (size_t)v[2];
    a->localSizeBytes = (size_t)v[3];
    a->numRegs = v[4];
    /* As ROCclr answers (hipamd's hipFuncGetAttributes): ptxVersion a constant 30, and
     * binaryVersion its kernel signature's version, not an architecture (here 0). */
    a->ptxVersion = 30;
    a->binaryVersion = 0;
    a->cacheModeCA = v[7];
    a->maxDynamicSharedSizeBytes = v[8];
    a->preferredShmemCarveout = v[9];
    return 0;
}

/* hipFuncSetAttribute(func, hipFuncAttribute attr, int value): hipFuncAttribute's two values
 * (8 max dynamic shared memory, 9 preferred carveout) are CUfunction_attribute's. */
SI_EXPORT hipError_t hipFuncSetAttribute(const void *host, int attr, int value) {
    si_note("hipFuncSetAttribute");
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return r;
    if (attr != 8 && attr != 9) return HIP_ERROR_INVALID_VALUE;
    typedef CUresult (*set_t)(CUfunction, int, int);
    set_t set = SI_CU(set_t, cuFuncSetAttribute);
    return set ? si_hip_error(set(f, attr, value)) : HIP_ERROR_NOT_SUPPORTED;
}

SI_EXPORT hipError_t hipFuncSetCacheConfig(const void *host, int config) {
    si_note("hipFuncSetCacheConfig");
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return r;
    typedef CUresult (*set_t)(CUfunction, int);
    set_t set = SI_CU(set_t, cuFuncSetCacheConfig);
    return set ? si_hip_error(set(f, config)) : HIP_ERROR_NOT_SUPPORTED;
}

SI_EXPORT hipError_t hipFuncSetSharedMemConfig(const void *host, int config) {
    si_note("hipFuncSetSharedMemConfig");
    (void)config;
    CUfunction f;
    return si_function(host, &f);
}

SI_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *n, const void *host, int block, size_t shmem, unsigned int flags) {
    si_note("hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return r;
    typedef CUresult (*occ_t)(int *, CUfunction, int, size_t, unsigned);
    occ_t occ = SI_CU(occ_t, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    return occ ? si_hip_error(occ(n, f, block, shmem, flags)) : HIP_ERROR_NOT_SUPPORTED;
}

SI_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *host,
                                                                  int block, size_t shmem) {
    si_note("hipOccupancyMaxActiveBlocksPerMultiprocessor");
    return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, host, block, shmem, 0);
}

SI_EXPORT hipError_t hipOccupancyMaxPotentialBlockSize(int *grid, int *block, const void *host,
                                                       size_t shmem, int limit) {
    si_note("hipOccupancyMaxPotentialBlockSize");
    CUfunction f;
    hipError_t r = si_function(host, &f);
    if (r) return r;
    typedef CUresult (*occ_t)(int *, int *, CUfunction, void *, size_t, int);
    occ_t occ = SI_CU(occ_t, cuOccupancyMaxPotentialBlockSize);
    return occ ? si_hip_error(occ(grid, block, f, NULL, shmem, limit)) : HIP_ERROR_NOT_SUPPORTED;
}

/* ---- variables ---- */

SI_EXPORT hipError_t hipGetSymbolAddress(void **dptr, const void *symbol) {
    si_note("hipGetSymbolAddress");
    CUdeviceptr p;
    size_t n;
    hipError_t r = si_variable(symbol, &p, &n);
    if (!r) *dptr = (void *)(uintptr_t)p;
    return r;
}

SI_EXPORT hipError_t hipGetSymbolSize(size_t *size, const void *symbol) {
    si_note("hipGetSymbolSize");
    CUdeviceptr p;
    return si_variable(symbol, &p, size);
}

typedef int (*si_memcpy_t)(void *, const void *, size_t, int);
typedef int (*si_memcpy_async_t)(void *, const void *, size_t, int, hipStream_t);

/* hipMemcpyKind is cudaMemcpyKind (0 host-host .. 4 default). */
static hipError_t si_symbol_copy(const void *symbol, size_t offset, size_t count, void *other,
                                 int to_symbol, int kind, int async, hipStream_t stream) {
    CUdeviceptr p;
    size_t n;
    hipError_t r = si_variable(symbol, &p, &n);
    if (r) return r;
    if (offset > n || count > n - offset) return HIP_ERROR_INVALID_VALUE;
    void *d = (void *)(uintptr_t)(p + offset);
    void *dst = to_symbol ? d : other;
    const void *src = to_symbol ? other : d;
    if (async) {
        si_memcpy_async_t f = SI_RT(si_memcpy_async_t, cudaMemcpyAsync);
        return f ? si_hip_error(f(dst, src, count, kind, stream)) : HIP_ERROR_NOT_SUPPORTED;
    }
    si_memcpy_t f = SI_RT(si_memcpy_t, cudaMemcpy);
    return f ? si_hip_error(f(dst, src, count, kind)) : HIP_ERROR_NOT_SUPPORTED;
}

SI_EXPORT hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                       size_t offset, int kind) {
    si_note("hipMemcpyToSymbol");
    return si_symbol_copy(symbol, offset, count, (void *)src, 1, kind, 0, NULL);
}
SI_EXPORT hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t count,
                                           size_t offset, int kind) {
    si_note("hipMemcpyToSymbol_spt");
    return si_symbol_copy(symbol, offset, count, (void *)src, 1, kind, 1, SI_STREAM_PER_THREAD);
}
SI_EXPORT hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                            size_t offset, int kind, hipStream_t stream) {
    si_note("hipMemcpyToSymbolAsync");
    return si_symbol_copy(symbol, offset, count, (void *)src, 1, kind, 1, stream);
}
SI_EXPORT hipError_t hipMemcpyToSymbolAsync_spt(const void *symbol, const void *src,
                                                size_t count, size_t offset, int kind,
                                                hipStream_t stream) {
    si_note("hipMemcpyToSymbolAsync_spt");
    return si_symbol_copy(symbol, offset, count, (void *)src, 1, kind, 1,
                          stream ? stream : SI_STREAM_PER_THREAD);
}
SI_EXPORT hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                         size_t offset, int kind) {
    si_note("hipMemcpyFromSymbol");
    return si_symbol_copy(symbol, offset, count, dst, 0, kind, 0, NULL);
}
SI_EXPORT hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t count,
                                             size_t offset, int kind) {
    si_note("hipMemcpyFromSymbol_spt");
    return si_symbol_copy(symbol, offset, count, dst, 0, kind, 1, SI_STREAM_PER_THREAD);
}
SI_EXPORT hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                              size_t offset, int kind, hipStream_t stream) {
    si_note("hipMemcpyFromSymbolAsync");
    return si_symbol_copy(symbol, offset, count, dst, 0, kind, 1, stream);
}
SI_EXPORT hipError_t hipMemcpyFromSymbolAsync_spt(void *dst, const void *symbol, size_t count,
                                                  size_t offset, int kind, hipStream_t stream) {
    si_note("hipMemcpyFromSymbolAsync_spt");
    return si_symbol_copy(symbol, offset, count, dst, 0, kind, 1,
                          stream ? stream : SI_STREAM_PER_THREAD);
}

/* ---- device identity ---- */

/* The target's gfx (WP_HIP_STANDIN_ARCH, default from the build) and its HIP major.minor:
 * gfx906 -> 9.0, gfx942 -> 9.4, gfx1100 -> 11.0 (the digits HIP reports for gfxMMmS). */
static const char *si_arch(void) {
    const char *a = getenv("WP_HIP_STANDIN_ARCH");
    return a && *a ? a : SI_DEFAULT_ARCH;
}
static void si_arch_version(int *major, int *minor) {
    const char *d = si_arch() + 3;
    size_t n = strspn(d, "0123456789abcdef");
    *major = 0, *minor = 0;
    if (n < 3) return;
    char m[8] = {0};
    memcpy(m, d, n - 2 < sizeof m - 1 ? n - 2 : sizeof m - 1);
    *major = atoi(m);
    *minor = (int)strtol((char[]){d[n - 2], 0}, NULL, 16);
}

SI_EXPORT hipError_t hipGetDevicePropertiesR0600(struct si_hipDeviceProp *h, int device) {
    si_note("hipGetDevicePropertiesR0600");
    if (!h) return HIP_ERROR_INVALID_VALUE;
    typedef int (*props_t)(void *, int);
    props_t get = SI_RT(props_t, cudaGetDeviceProperties);
    if (!get) return HIP_ERROR_NOT_SUPPORTED;
    static unsigned char c[4096]; /* CUDA 13's cudaDeviceProp (1008 bytes) */
    pthread_mutex_lock(&si_lock);
    memset(c, 0, sizeof c);
    int r = get(c, device);
    if (r) {
        pthread_mutex_unlock(&si_lock);
        return si_hip_error(r);
    }
    memset(h, 0, sizeof *h);
#define X(field, off, size)                                                               \
    _Static_assert(sizeof h->field == size, "size of " #field);                             \
    memcpy(&h->field, c + off, size);
    SI_PROP_COPY(X)
#undef X
    pthread_mutex_unlock(&si_lock);
    h->warpSize = SI_WARP_SIZE;
    si_arch_version(&h->major, &h->minor);
    snprintf(h->gcnArchName, sizeof h->gcnArchName, "%s", si_arch());
    return 0;
}

SI_EXPORT hipError_t hipDeviceGetAttribute(int *value, int attr, int device) {
    si_note("hipDeviceGetAttribute");
    if (!value) return HIP_ERROR_INVALID_VALUE;
    if (attr == SI_HIP_ATTR_WARP_SIZE) return *value = SI_WARP_SIZE, 0;
    if (attr == SI_HIP_ATTR_CC_MAJOR || attr == SI_HIP_ATTR_CC_MINOR) {
        int major, minor;
        si_arch_version(&major, &minor);
        *value = attr == SI_HIP_ATTR_CC_MAJOR ? major : minor;
        return 0;
    }
    typedef int (*attr_t)(int *, int, int);
    attr_t get = SI_RT(attr_t, cudaDeviceGetAttribute);
    if (!get) return HIP_ERROR_NOT_SUPPORTED;
    for (size_t i = 0; i < sizeof si_attrs / sizeof si_attrs[0]; i++)
        if (si_attrs[i].hip == attr) return si_hip_error(get(value, si_attrs[i].cuda, device));
    return HIP_ERROR_INVALID_VALUE;
}

/* ---- errors ---- */

SI_EXPORT const char *hipGetErrorName(hipError_t e) {
    si_note("hipGetErrorName");
#define X(c, h, n) if (e == h) return n;
    SI_ERRORS(X)
#undef X
    return "hipErrorUnknown";
}

SI_EXPORT const char *hipGetErrorString(hipError_t e) {
    si_note("hipGetErrorString");
    typedef const char *(*str_t)(int);
    str_t str = SI_RT(str_t, cudaGetErrorString);
#define X(c, h, n) if (e == h && c >= 0 && str) return str(c);
    SI_ERRORS(X)
#undef X
    return hipGetErrorName(e);
}

SI_EXPORT hipError_t hipGetLastError(void) {
    si_note("hipGetLastError");
    typedef int (*last_t)(void);
    last_t last = SI_RT(last_t, cudaGetLastError);
    hipError_t mine = si_last_error, cuda = last ? si_hip_error(last()) : 0;
    si_last_error = 0;
    return mine ? mine : cuda;
}

SI_EXPORT hipError_t hipPeekAtLastError(void) {
    si_note("hipPeekAtLastError");
    typedef int (*last_t)(void);
    last_t peek = SI_RT(last_t, cudaPeekAtLastError);
    return si_last_error ? si_last_error : peek ? si_hip_error(peek()) : 0;
}

/* hipMemPrefetchAsync(ptr, count, int device, stream): HIP keeps CUDA 12's form; CUDA 13's
 * takes a cudaMemLocation {type, id} (1 device, 3 host for hipCpuDeviceId -1) and flags. */
SI_EXPORT hipError_t hipMemPrefetchAsync(const void *p, size_t n, int device, hipStream_t s) {
    si_note("hipMemPrefetchAsync");
    struct loc {
        int type, id;
    } l = {device == -1 ? 3 : 1, device == -1 ? 0 : device};
    typedef int (*pf_t)(const void *, size_t, struct loc, unsigned, hipStream_t);
    pf_t pf = SI_RT(pf_t, cudaMemPrefetchAsync);
    return pf ? si_hip_error(pf(p, n, l, 0, s)) : HIP_ERROR_NOT_SUPPORTED;
}
