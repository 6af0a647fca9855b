/* Stand-ins for ROCm PyTorch's libc10_hip.so and libtorch_hip.so, for verification only: they
 * let a `wheelport --target dtk|rocm` output of a PyTorch extension run on an NVIDIA GPU with
 * the CUDA build of PyTorch, next to the HIP stand-in (hip_standin.c).
 *
 * Built twice from this file (tools/hip-standin/build.sh): -DSI_C10 gives libc10_hip.so,
 * -DSI_TORCH libtorch_hip.so. Each exports the names the target's torch relink table
 * (relink-tables/<target>/torch.tsv) renames imports to in that library, plus the HIP
 * functions the shim calls there (a shim row's `via`):
 *   - a renamed function is a jump to the CUDA build's function of the row's CUDA name
 *     (tools/hip-standin/gen.py: SI_TORCH_FWD; `jmp *slot(%rip)`, so every argument, the
 *     hidden return pointer and the vector registers pass as they are), looked up at load time
 *     in libc10_cuda.so / libtorch_cuda.so (already loaded by `import torch`);
 *   - c10::hip's stream functions answer the CUDA stream with DeviceType::HIP (6), as ROCm's
 *     HIPStream carries, and setCurrentHIPStream takes it back to DeviceType::CUDA (1);
 *   - at::cuda::getCurrentDeviceProperties returns a hipDeviceProp_tR0600 (ROCm PyTorch's
 *     type), filled by the HIP stand-in's hipGetDevicePropertiesR0600;
 *   - c10::hip::HIPCachingAllocator::allocator (an std::atomic<HIPAllocator*>) holds the CUDA
 *     build's allocator pointer, copied at load time.
 * A name the CUDA build lacks prints "torch-standin: NAME not found" and aborts when called. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torch_gen.h"

#define SI_EXPORT __attribute__((visibility("default")))

#if defined(SI_C10)
#define SI_CUDA_LIB "libc10_cuda.so"
#define SI_LIB_FWD SI_C10_FWD
#elif defined(SI_TORCH)
#define SI_CUDA_LIB "libtorch_cuda.so"
#define SI_LIB_FWD SI_TORCH_LIB_FWD
#else
#error "build with -DSI_C10 or -DSI_TORCH"
#endif

static void *si_cuda_lib(void) {
    static void *h;
    if (!h) h = dlopen(SI_CUDA_LIB, RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen(SI_CUDA_LIB, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "torch-standin: %s not loaded (import torch first): %s\n", SI_CUDA_LIB,
                dlerror());
        abort();
    }
    return h;
}

static void *si_sym(const char *name) {
    void *p = dlsym(si_cuda_lib(), name);
    if (!p) fprintf(stderr, "torch-standin: %s not found in %s\n", name, SI_CUDA_LIB);
    return p;
}

/* ---- forwarded names: a slot each, filled at load time ---- */

#define SI_COUNT(hip, cuda, slot) +1
enum { SI_NFWD = 0 SI_LIB_FWD(SI_COUNT) };
#undef SI_COUNT
void *si_slots[SI_NFWD + 1] __attribute__((visibility("hidden")));
static const char *const si_cuda_names[SI_NFWD + 1] = {
#define SI_NAME(hip, cuda, slot) cuda,
    SI_LIB_FWD(SI_NAME)
#undef SI_NAME
        NULL};

static void si_missing(void) {
    fprintf(stderr, "torch-standin: a forwarded function the CUDA build lacks was called\n");
    abort();
}

/* The trampolines: `hip` jumps through its slot. */
#define SI_TRAMPOLINE(hip, cuda, slot)                                                      \
    __asm__(".globl " #hip "\n.type " #hip ",@function\n" #hip ":\n"                        \
            "  jmp *si_slots+8*" #slot "(%rip)\n.size " #hip ",.-" #hip "\n");
SI_LIB_FWD(SI_TRAMPOLINE)

__attribute__((constructor)) static void si_init(void) {
    for (int i = 0; i < SI_NFWD; i++) {
        si_slots[i] = si_sym(si_cuda_names[i]);
        if (!si_slots[i]) si_slots[i] = (void *)si_missing;
    }
#if defined(SI_C10)
    void **cuda_alloc = si_sym("_ZN3c104cuda20CUDACachingAllocator9allocatorE");
    extern void *_ZN3c103hip19HIPCachingAllocator9allocatorE;
    if (cuda_alloc) _ZN3c103hip19HIPCachingAllocator9allocatorE = *cuda_alloc;
#endif
}

#if defined(SI_C10)

SI_EXPORT void *_ZN3c103hip19HIPCachingAllocator9allocatorE;

/* c10::Stream: DeviceType (int8), DeviceIndex (int8), StreamId (int64): returned in two
 * registers (System V AMD64, INTEGER class). */
struct si_stream {
    int8_t type, index;
    int64_t id;
};
enum { SI_DEVICE_CUDA = 1, SI_DEVICE_HIP = 6 };

static struct si_stream si_hip(struct si_stream s) {
    if (s.type == SI_DEVICE_CUDA) s.type = SI_DEVICE_HIP;
    return s;
}

#define SI_CALL(type, name) ((type)si_sym(name))

SI_EXPORT struct si_stream _ZN3c103hip19getCurrentHIPStreamEa(int8_t d) {
    typedef struct si_stream (*f)(int8_t);
    return si_hip(SI_CALL(f, "_ZN3c104cuda20getCurrentCUDAStreamEa")(d));
}

SI_EXPORT struct si_stream _ZN3c103hip19getDefaultHIPStreamEa(int8_t d) {
    typedef struct si_stream (*f)(int8_t);
    return si_hip(SI_CALL(f, "_ZN3c104cuda20getDefaultCUDAStreamEa")(d));
}

SI_EXPORT struct si_stream _ZN3c103hip17getStreamFromPoolEba(_Bool high, int8_t d) {
    typedef struct si_stream (*f)(_Bool, int8_t);
    return si_hip(SI_CALL(f, "_ZN3c104cuda17getStreamFromPoolEba")(high, d));
}

SI_EXPORT struct si_stream _ZN3c103hip17getStreamFromPoolEia(int prio, int8_t d) {
    typedef struct si_stream (*f)(int, int8_t);
    return si_hip(SI_CALL(f, "_ZN3c104cuda17getStreamFromPoolEia")(prio, d));
}

SI_EXPORT void _ZN3c103hip19setCurrentHIPStreamENS0_9HIPStreamE(struct si_stream s) {
    typedef void (*f)(struct si_stream);
    if (s.type == SI_DEVICE_HIP) s.type = SI_DEVICE_CUDA;
    SI_CALL(f, "_ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE")(s);
}

#else /* SI_TORCH */

/* at::cuda::getCurrentDeviceProperties() of ROCm PyTorch: hipDeviceProp_t* (R0600, 1472
 * bytes), one per device, from the HIP stand-in. */
SI_EXPORT const void *_ZN2at4cuda26getCurrentDevicePropertiesEv(void) {
    static unsigned char props[64][1472];
    typedef int (*get_t)(void *, int);
    typedef int (*dev_t)(int *);
    static get_t get;
    static dev_t dev;
    if (!get) get = (get_t)dlsym(RTLD_DEFAULT, "hipGetDevicePropertiesR0600");
    if (!dev) dev = (dev_t)dlsym(RTLD_DEFAULT, "hipGetDevice");
    int d = 0;
    if (!get || !dev || dev(&d) != 0 || d < 0 || d >= 64 || get(props[d], d) != 0) {
        fprintf(stderr, "torch-standin: hipGetDevicePropertiesR0600 failed\n");
        abort();
    }
    return props[d];
}

#endif
