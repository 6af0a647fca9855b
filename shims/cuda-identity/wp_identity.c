/*
 * wheelport's identity interposer for the `cuda` twin (docs/identity.md).
 *
 * A twin runs wheelport's lowering of a module's PTX, built for the twin arch (sm_80 by
 * default), while the host code was written against the PTX's own `.target` (sm_120 for
 * CuPy 14's CUB): CUB, Thrust and CUTLASS pick launch policies from the identity they read
 * on the host, so that identity must be the translated code's. This library answers the
 * identity queries; everything else passes through to NVIDIA's libraries.
 *
 * Its file name and soname carry the identity: `wpSSSTTT.so`, SSS the source PTX `.target`
 * as compute capability x10 (120 = sm_120), TTT the twin arch (080 = sm_80); 11 bytes, so it
 * fits where a static CUDA runtime stores "libcuda.so.1".
 *
 * Driver layer (statically linked runtimes: the twin points their dlopen("libcuda.so.1") at
 * this file, which has DT_NEEDED libcuda.so.1, so dlsym on its handle finds every other
 * entry point in NVIDIA's driver):
 *   cuGetProcAddress, cuGetProcAddress_v2   forward; the entry points below are returned
 *                                          wrapped.
 *   cuDeviceGetAttribute                   COMPUTE_CAPABILITY_MAJOR/MINOR (75/76): SSS/10,
 *                                          SSS%10; WARP_SIZE (10): 32.
 *   cuDeviceComputeCapability              the same major/minor.
 *   cuFuncGetAttribute, cuKernelGetAttribute  PTX_VERSION (5) and BINARY_VERSION (6): SSS
 *                                          for a function whose real PTX_VERSION is TTT (the
 *                                          twin's code); other functions (SASS the twin left
 *                                          alone) keep their real answers.
 *   cuLaunchKernelEx (and its per-thread-stream form)  forward without the programmatic
 *                                          dependent launch attributes (see below).
 *   cuModuleGetFunction, cuLibraryGetKernel  forward; with the log on, each kernel found is
 *                                          logged with its real PTX_VERSION, "twin code" when
 *                                          it is TTT. (Module loading itself goes through the
 *                                          runtime's private CUDART_INTERFACE table, which
 *                                          cannot be wrapped: handed a copy, the driver fails
 *                                          with CUDA error 103, integrity checks failed.)
 * Runtime layer (dynamically linked runtimes: the twin renames the object's imports
 * cudaX -> wpcuNN_X, NN the libcudart major of the import, and adds this file as DT_NEEDED):
 *   wpcuNN_DeviceGetAttribute, wpcuNN_FuncGetAttributes, wpcuNN_GetDeviceProperties_v2,
 *   wpcuNN_GetDeviceProperties             the same rules on cudaDevAttr* / cudaFuncAttributes
 *                                          / cudaDeviceProp (offsets of CUDA 12 and 13's
 *                                          driver_types.h: major 360, minor 364, warpSize 308;
 *                                          ptxVersion 32, binaryVersion 36).
 *   wpcuNN_LaunchKernelExC[_ptsz]           cudaLaunchKernelExC without those attributes.
 * Programmatic dependent launch: host code that reads compute capability 9.0 or more (CUB
 * 3.x for sm_90+) launches kernels with PROGRAMMATIC_STREAM_SERIALIZATION (6) or
 * PROGRAMMATIC_EVENT (7), so that a kernel may start before the one before it in the stream
 * ends and waits for it at `griddepcontrol.wait`. The twin's code is built for an arch with
 * no `griddepcontrol` (it lowers the wait to nothing), so both launch paths drop those two
 * attributes: each launch then starts after the previous one ends, which is what the wait
 * would have ensured (CUB's compute_120 onesweep radix sort read the previous pass's keys
 * unfinished: docs/identity.md).
 * WHEELPORT_IDENTITY_LOG=1 prints each entry point requested through cuGetProcAddress, each
 * answer changed and each kernel found, prefixed "wheelport-identity:", on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUfunction;
typedef void *CUkernel;

enum { CU_DEV_ATTR_WARP_SIZE = 10, CU_DEV_ATTR_CC_MAJOR = 75, CU_DEV_ATTR_CC_MINOR = 76 };
enum { CU_FUNC_ATTR_PTX_VERSION = 5, CU_FUNC_ATTR_BINARY_VERSION = 6 };
enum { PROP_WARP_SIZE = 308, PROP_MAJOR = 360, PROP_MINOR = 364 };
enum { FATTR_PTX_VERSION = 32, FATTR_BINARY_VERSION = 36 };

static int source_cc = -1; /* SSS */
static int twin_cc = -1;   /* TTT */
static int log_on;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void wp_log(const char *fmt, const char *name, int a, int b) {
  if (log_on) {
    fprintf(stderr, "wheelport-identity: ");
    fprintf(stderr, fmt, name, a, b);
    fputc('\n', stderr);
  }
}

/* The identity from this library's own file name (wpSSSTTT.so). */
static void init(void) {
  Dl_info info;
  const char *e = getenv("WHEELPORT_IDENTITY_LOG");
  log_on = e && *e && strcmp(e, "0") != 0;
  if (dladdr((void *)&init, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    unsigned s, t;
    if (sscanf(base, "wp%3u%3u.so", &s, &t) == 2) {
      source_cc = (int)s;
      twin_cc = (int)t;
    }
  }
  wp_log("%s: source %d, twin %d", "identity", source_cc, twin_cc);
}

static void *driver(void) {
  static void *h;
  if (!h) {
    h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
  }
  return h;
}

static void *runtime(int major) {
  static void *h[32];
  if (major < 0 || major >= 32) return NULL;
  if (!h[major]) {
    char name[32];
    snprintf(name, sizeof name, "libcudart.so.%d", major);
    h[major] = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (!h[major]) h[major] = dlopen(name, RTLD_NOW);
  }
  return h[major];
}

/* ------------------------------------------------------------------ driver layer */

typedef CUresult (*dev_attr_fn)(int *, int, CUdevice);
typedef CUresult (*func_attr_fn)(int *, int, CUfunction);
typedef CUresult (*kernel_attr_fn)(int *, int, CUkernel, CUdevice);
typedef CUresult (*cc_fn)(int *, int *, CUdevice);
typedef CUresult (*gpa_fn)(const char *, void **, int, uint64_t);
typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, void *);

static dev_attr_fn real_dev_attr;
static func_attr_fn real_func_attr;
static kernel_attr_fn real_kernel_attr;
static cc_fn real_cc;

#define REAL(var, type, name)                                                                \
  do {                                                                                       \
    if (!var && driver()) var = (type)dlsym(driver(), name);                                 \
  } while (0)

static int device_answer(int attrib, int *value) {
  pthread_once(&once, init);
  if (source_cc < 0) return 0;
  int v;
  switch (attrib) {
  case CU_DEV_ATTR_CC_MAJOR: v = source_cc / 10; break;
  case CU_DEV_ATTR_CC_MINOR: v = source_cc % 10; break;
  case CU_DEV_ATTR_WARP_SIZE: v = 32; break;
  default: return 0;
  }
  if (*value != v) wp_log("%s %d -> %d", "device attribute", *value, v);
  *value = v;
  return 1;
}

CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev) {
  REAL(real_dev_attr, dev_attr_fn, "cuDeviceGetAttribute");
  if (!real_dev_attr) return 3; /* CUDA_ERROR_NOT_INITIALIZED */
  CUresult r = real_dev_attr(pi, attrib, dev);
  if (r == 0 && pi) device_answer(attrib, pi);
  return r;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  REAL(real_cc, cc_fn, "cuDeviceComputeCapability");
  if (!real_cc) return 3;
  CUresult r = real_cc(major, minor, dev);
  if (r == 0 && major && minor) {
    device_answer(CU_DEV_ATTR_CC_MAJOR, major);
    device_answer(CU_DEV_ATTR_CC_MINOR, minor);
  }
  return r;
}

/* PTX_VERSION / BINARY_VERSION of twin code: the source's. `real_ptx` is the function's
 * real PTX_VERSION. */
static void function_answer(int attrib, int real_ptx, int *value) {
  pthread_once(&once, init);
  if (source_cc < 0 || real_ptx != twin_cc) return;
  if (attrib == CU_FUNC_ATTR_PTX_VERSION || attrib == CU_FUNC_ATTR_BINARY_VERSION) {
    if (*value != source_cc) wp_log("%s %d -> %d", "function version", *value, source_cc);
    *value = source_cc;
  }
}

CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction f) {
  REAL(real_func_attr, func_attr_fn, "cuFuncGetAttribute");
  if (!real_func_attr) return 3;
  CUresult r = real_func_attr(pi, attrib, f);
  if (r == 0 && pi && (attrib == CU_FUNC_ATTR_PTX_VERSION || attrib == CU_FUNC_ATTR_BINARY_VERSION)) {
    int ptx = *pi;
    if (attrib != CU_FUNC_ATTR_PTX_VERSION && real_func_attr(&ptx, CU_FUNC_ATTR_PTX_VERSION, f) != 0)
      return r;
    function_answer(attrib, ptx, pi);
  }
  return r;
}

CUresult cuKernelGetAttribute(int *pi, int attrib, CUkernel k, CUdevice dev) {
  REAL(real_kernel_attr, kernel_attr_fn, "cuKernelGetAttribute");
  if (!real_kernel_attr) return 3;
  CUresult r = real_kernel_attr(pi, attrib, k, dev);
  if (r == 0 && pi && (attrib == CU_FUNC_ATTR_PTX_VERSION || attrib == CU_FUNC_ATTR_BINARY_VERSION)) {
    int ptx = *pi;
    if (attrib != CU_FUNC_ATTR_PTX_VERSION &&
        real_kernel_attr(&ptx, CU_FUNC_ATTR_PTX_VERSION, k, dev) != 0)
      return r;
    function_answer(attrib, ptx, pi);
  }
  return r;
}

/* Kernel lookups: which code each kernel the runtime resolves comes from. */
typedef void *CUmodule;
typedef void *CUlibrary;
typedef CUresult (*get_fn_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*get_kernel_fn)(CUkernel *, CUlibrary, const char *);
static get_fn_fn real_get_function;
static get_kernel_fn real_get_kernel;

static void log_kernel(const char *via, const char *name, int ptx) {
  pthread_once(&once, init);
  if (!log_on) return;
  fprintf(stderr, "wheelport-identity: kernel lookup via %s: %s: PTX version %d (%s)\n", via,
          name ? name : "?", ptx, ptx == twin_cc ? "twin code" : "not twin code");
}

static CUresult wp_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  CUresult r = real_get_function(f, m, name);
  if (r == 0 && f && log_on) {
    int ptx = -1;
    REAL(real_func_attr, func_attr_fn, "cuFuncGetAttribute");
    if (real_func_attr) real_func_attr(&ptx, CU_FUNC_ATTR_PTX_VERSION, *f);
    log_kernel("cuModuleGetFunction", name, ptx);
  }
  return r;
}

static CUresult wp_cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *name) {
  CUresult r = real_get_kernel(k, l, name);
  if (r == 0 && k && log_on) {
    int ptx = -1;
    REAL(real_kernel_attr, kernel_attr_fn, "cuKernelGetAttribute");
    if (real_kernel_attr) real_kernel_attr(&ptx, CU_FUNC_ATTR_PTX_VERSION, *k, 0);
    log_kernel("cuLibraryGetKernel", name, ptx);
  }
  return r;
}

/* Launches: CUlaunchConfig / cudaLaunchConfig_t (cuda.h, driver_types.h of CUDA 12 and 13)
 * share the attribute list's layout: `attrs` at byte 40, `numAttrs` at 48 (driver: six
 * uints, sharedMemBytes, stream at 32; runtime: two dim3, size_t, stream at 32); each
 * attribute is 72 bytes, its id (an enum) first. */
enum { LAUNCH_ATTRS = 40, LAUNCH_NUM_ATTRS = 48, LAUNCH_CONFIG_SIZE = 56, ATTR_SIZE = 72 };
enum { ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6, ATTR_PROGRAMMATIC_EVENT = 7 };
enum { MAX_ATTRS = 32 };

/* `config` without the programmatic-launch attributes, in `copy` and `attrs` (NULL when it
 * has none of them, or more attributes than fit: then it is used as it is). */
static const void *without_pdl(const void *config, unsigned char copy[LAUNCH_CONFIG_SIZE],
                               unsigned char attrs[MAX_ATTRS * ATTR_SIZE]) {
  if (!config) return config;
  const unsigned char *c = config;
  const unsigned char *list;
  unsigned n;
  memcpy(&list, c + LAUNCH_ATTRS, sizeof list);
  memcpy(&n, c + LAUNCH_NUM_ATTRS, sizeof n);
  if (!list || n == 0 || n > MAX_ATTRS) return config;
  unsigned kept = 0;
  for (unsigned i = 0; i < n; i++) {
    int id;
    memcpy(&id, list + (size_t)i * ATTR_SIZE, sizeof id);
    if (id == ATTR_PROGRAMMATIC_STREAM_SERIALIZATION || id == ATTR_PROGRAMMATIC_EVENT) {
      wp_log("%s: attribute %d dropped (of %d)", "launch", id, (int)n);
      continue;
    }
    memcpy(attrs + (size_t)kept++ * ATTR_SIZE, list + (size_t)i * ATTR_SIZE, ATTR_SIZE);
  }
  if (kept == n) return config;
  memcpy(copy, c, LAUNCH_CONFIG_SIZE);
  const unsigned char *p = kept ? attrs : NULL;
  memcpy(copy + LAUNCH_ATTRS, &p, sizeof p);
  memcpy(copy + LAUNCH_NUM_ATTRS, &kept, sizeof kept);
  return copy;
}

typedef CUresult (*launch_ex_fn)(const void *, CUfunction, void **, void **);
static launch_ex_fn real_launch_ex[2]; /* [per-thread default stream] */

static CUresult launch_ex(int ptds, const void *config, CUfunction f, void **params,
                          void **extra) {
  unsigned char copy[LAUNCH_CONFIG_SIZE], attrs[MAX_ATTRS * ATTR_SIZE];
  return real_launch_ex[ptds](without_pdl(config, copy, attrs), f, params, extra);
}
static CUresult wp_cuLaunchKernelEx(const void *c, CUfunction f, void **p, void **e) {
  return launch_ex(0, c, f, p, e);
}
static CUresult wp_cuLaunchKernelEx_ptsz(const void *c, CUfunction f, void **p, void **e) {
  return launch_ex(1, c, f, p, e);
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             void *status);

/* Replace the driver's answer for the entry points wrapped here (`flags`: cuGetProcAddress's;
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2 asks for the per-thread-stream form). */
static void wrap(const char *symbol, void **pfn, uint64_t flags) {
  pthread_once(&once, init);
  if (log_on) fprintf(stderr, "wheelport-identity: requested %s\n", symbol);
  if (!pfn || !*pfn) return;
  if (!strcmp(symbol, "cuDeviceGetAttribute")) {
    real_dev_attr = (dev_attr_fn)*pfn;
    *pfn = (void *)&cuDeviceGetAttribute;
  } else if (!strcmp(symbol, "cuDeviceComputeCapability")) {
    real_cc = (cc_fn)*pfn;
    *pfn = (void *)&cuDeviceComputeCapability;
  } else if (!strcmp(symbol, "cuFuncGetAttribute")) {
    real_func_attr = (func_attr_fn)*pfn;
    *pfn = (void *)&cuFuncGetAttribute;
  } else if (!strcmp(symbol, "cuKernelGetAttribute")) {
    real_kernel_attr = (kernel_attr_fn)*pfn;
    *pfn = (void *)&cuKernelGetAttribute;
  } else if (!strcmp(symbol, "cuGetProcAddress")) {
    *pfn = (void *)&cuGetProcAddress_v2;
  } else if (!strcmp(symbol, "cuModuleGetFunction")) {
    real_get_function = (get_fn_fn)*pfn;
    *pfn = (void *)&wp_cuModuleGetFunction;
  } else if (!strcmp(symbol, "cuLibraryGetKernel")) {
    real_get_kernel = (get_kernel_fn)*pfn;
    *pfn = (void *)&wp_cuLibraryGetKernel;
  } else if (!strcmp(symbol, "cuLaunchKernelEx")) {
    int ptds = (flags & 2) != 0;
    real_launch_ex[ptds] = (launch_ex_fn)*pfn;
    *pfn = ptds ? (void *)&wp_cuLaunchKernelEx_ptsz : (void *)&wp_cuLaunchKernelEx;
  }
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
  static gpa_fn real;
  REAL(real, gpa_fn, "cuGetProcAddress");
  if (!real) return 3;
  CUresult r = real(symbol, pfn, version, flags);
  if (r == 0 && symbol) wrap(symbol, pfn, flags);
  return r;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             void *status) {
  static gpa2_fn real;
  REAL(real, gpa2_fn, "cuGetProcAddress_v2");
  if (!real) return 3;
  CUresult r = real(symbol, pfn, version, flags, status);
  if (r == 0 && symbol) wrap(symbol, pfn, flags);
  return r;
}

/* ------------------------------------------------------------------ runtime layer */

typedef int (*rt_dev_attr_fn)(int *, int, int);
typedef int (*rt_func_attr_fn)(void *, const void *);
typedef int (*rt_props_fn)(void *, int);

static void *rt_sym(int major, const char *name) {
  void *h = runtime(major);
  return h ? dlsym(h, name) : NULL;
}

static int rt_device_attribute(int major, int *value, int attr, int dev) {
  rt_dev_attr_fn f = (rt_dev_attr_fn)rt_sym(major, "cudaDeviceGetAttribute");
  if (!f) return 35; /* cudaErrorInsufficientDriver */
  int r = f(value, attr, dev);
  if (r == 0 && value) device_answer(attr, value);
  return r;
}

static int rt_func_attributes(int major, void *attr, const void *func) {
  rt_func_attr_fn f = (rt_func_attr_fn)rt_sym(major, "cudaFuncGetAttributes");
  if (!f) return 35;
  int r = f(attr, func);
  if (r == 0 && attr) {
    int *ptx = (int *)((char *)attr + FATTR_PTX_VERSION);
    int *bin = (int *)((char *)attr + FATTR_BINARY_VERSION);
    int real_ptx = *ptx;
    function_answer(CU_FUNC_ATTR_BINARY_VERSION, real_ptx, bin);
    function_answer(CU_FUNC_ATTR_PTX_VERSION, real_ptx, ptx);
  }
  return r;
}

static int rt_properties(int major, const char *name, void *prop, int dev) {
  rt_props_fn f = (rt_props_fn)rt_sym(major, name);
  if (!f) return 35;
  int r = f(prop, dev);
  if (r == 0 && prop) {
    device_answer(CU_DEV_ATTR_CC_MAJOR, (int *)((char *)prop + PROP_MAJOR));
    device_answer(CU_DEV_ATTR_CC_MINOR, (int *)((char *)prop + PROP_MINOR));
    device_answer(CU_DEV_ATTR_WARP_SIZE, (int *)((char *)prop + PROP_WARP_SIZE));
  }
  return r;
}

typedef int (*rt_launch_ex_fn)(const void *, const void *, void **);

static int rt_launch_ex(int major, const char *name, const void *config, const void *func,
                        void **args) {
  rt_launch_ex_fn f = (rt_launch_ex_fn)rt_sym(major, name);
  if (!f) return 35;
  unsigned char copy[LAUNCH_CONFIG_SIZE], attrs[MAX_ATTRS * ATTR_SIZE];
  return f(without_pdl(config, copy, attrs), func, args);
}

#define RUNTIME_LAYER(NN)                                                                    \
  int wpcu##NN##_DeviceGetAttribute(int *v, int a, int d) {                                  \
    return rt_device_attribute(NN, v, a, d);                                                 \
  }                                                                                          \
  int wpcu##NN##_FuncGetAttributes(void *attr, const void *func) {                           \
    return rt_func_attributes(NN, attr, func);                                               \
  }                                                                                          \
  int wpcu##NN##_GetDeviceProperties_v2(void *p, int d) {                                    \
    return rt_properties(NN, "cudaGetDeviceProperties_v2", p, d);                            \
  }                                                                                          \
  int wpcu##NN##_GetDeviceProperties(void *p, int d) {                                       \
    return rt_properties(NN, "cudaGetDeviceProperties", p, d);                               \
  }                                                                                          \
  int wpcu##NN##_LaunchKernelExC(const void *c, const void *f, void **a) {                   \
    return rt_launch_ex(NN, "cudaLaunchKernelExC", c, f, a);                                 \
  }                                                                                          \
  int wpcu##NN##_LaunchKernelExC_ptsz(const void *c, const void *f, void **a) {              \
    return rt_launch_ex(NN, "cudaLaunchKernelExC_ptsz", c, f, a);                            \
  }

RUNTIME_LAYER(12)
RUNTIME_LAYER(13)
