/*
 * Kernel-level differential harness for translated device code (docs/verification.md,
 * "Lifted SASS on real libraries"). Verification only: never shipped.
 *
 * Loaded by a statically linked CUDA runtime in place of the identity interposer (the
 * twin's `wpSSSTTT.so` string in the object becomes this file's name, `wpdiff.so`), it hands
 * every driver entry point on to the library named by $WP_DIFF_NEXT (the identity
 * interposer, which hands on to NVIDIA's driver) and wraps the launches. For a launch of a
 * kernel that a reference module of $WP_DIFF_REF (cubins or PTX, `:`-separated: NVIDIA's own
 * compilation of the same kernel, e.g. sm_90 SASS from the library's source compiled for compute_80) also
 * holds, at most $WP_DIFF_PER_SHAPE times per (kernel, grid, block) and $WP_DIFF_PER_KERNEL
 * times per kernel:
 *
 *   1. the device allocations the launch's parameters point to (every 8-byte-aligned word of
 *      the parameter block that is a device address: cuPointerGetAttribute's range) are
 *      copied to the host ("before");
 *   2. the reference kernel runs with the same grid, block, dynamic shared memory, stream
 *      and parameters; the allocations are copied ("reference"), then restored;
 *   3. the launch itself runs (the translated kernel); the allocations are copied
 *      ("translated");
 *   4. one line goes to $WP_DIFF_OUT/launches.tsv: the kernel, grid, block, shared memory,
 *      bytes compared, the verdict (same, differs, reference-error, translated-error,
 *      too-large) and, when they differ, the first differing allocation and offset; for the
 *      first $WP_DIFF_KEEP differing launches of each kernel whose allocations total at most
 *      $WP_DIFF_KEEP_MB (default 8) MiB, the parameter block and all
 *      three copies are written to $WP_DIFF_OUT/NNNNN/ (meta.txt, params.bin, and per
 *      allocation A: A.before, A.ref, A.twin) for replay on the CPU.
 *
 * $WP_DIFF_RENAME: `from=to;from=to` substrings of a kernel's name replaced to find the
 * reference kernel (CUB's and Thrust's ABI namespaces carry the arch list of a build:
 * `43CUB_300102_SM_750_800_860_890_900_1000_1200=17CUB_300102_SM_800`).
 * Launches the reference does not hold, or that pass `extra` instead of `kernelParams`, run
 * unchanged and are counted in the summary ($WP_DIFF_OUT/summary.PID.txt at exit; the lines
 * go to launches.PID.tsv, the records to PID-NNNNN/).
 * Memory a kernel reaches other than through its parameters (module globals, pointers
 * stored in memory) is not captured: such a launch may differ for that reason alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int CUresult;
typedef void *CUfunction;
typedef void *CUkernel;
typedef void *CUmodule;
typedef void *CUlibrary;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

typedef CUresult (*gpa_fn)(const char *, void **, int, uint64_t);
typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, void *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const void *, CUfunction, void **, void **);
typedef CUresult (*get_fn_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*get_kernel_fn)(CUkernel *, CUlibrary, const char *);

enum { PTR_RANGE_START = 11, PTR_RANGE_SIZE = 12, PTR_MEMORY_TYPE = 2, MEMTYPE_DEVICE = 2 };
enum { FUNC_ATTR_MAX_DYN_SMEM = 8 };
enum { MAX_RANGES = 64, MAX_PARAMS = 512 };

static struct {
  CUresult (*func_name)(const char **, CUfunction);
  CUresult (*kernel_name)(const char **, CUkernel);
  CUresult (*func_param)(CUfunction, size_t, size_t *, size_t *);
  CUresult (*kernel_param)(CUkernel, size_t, size_t *, size_t *);
  CUresult (*ptr_attr)(void *, int, CUdeviceptr);
  CUresult (*dtoh)(void *, CUdeviceptr, size_t);
  CUresult (*htod)(CUdeviceptr, const void *, size_t);
  CUresult (*sync)(void);
  CUresult (*load)(CUmodule *, const void *);
  CUresult (*get_function)(CUfunction *, CUmodule, const char *);
  CUresult (*func_attr)(int *, int, CUfunction);
  CUresult (*kernel_attr)(int *, int, CUkernel, int);
  CUresult (*func_set_attr)(CUfunction, int, int);
  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     unsigned, CUstream, void **, void **);
} cu;

static void *next_lib, *driver_lib;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *out_dir;
static FILE *tsv;
static int per_shape = 2, per_kernel = 8, keep = 2;
static size_t max_bytes = (size_t)512 << 20, keep_bytes = (size_t)8 << 20;
#define MAX_REFS 16
static CUmodule ref_modules[MAX_REFS];
static int n_ref;
static int ref_state; /* 0 not loaded, 1 loaded, -1 failed */
static unsigned long n_checked, n_same, n_differ, n_no_ref, n_extra, n_other, n_records;

/* Handles the runtime looked up, with their names (a CUkernel or CUfunction). */
#define MAX_HANDLES 65536
static struct handle {
  void *h;
  char *name;
  int is_kernel;
} handles[MAX_HANDLES];
static int n_handles;

/* Per (name, grid, block) and per name counts. */
#define MAX_KEYS 65536
static struct key {
  char *name;
  unsigned g[3], b[3];
  int n;
} keys[MAX_KEYS];
static int n_keys;

static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }

static void summary(void) {
  if (!out_dir) return;
  char p[4096];
  snprintf(p, sizeof p, "%s/summary.%d.txt", out_dir, (int)getpid());
  FILE *f = fopen(p, "w");
  if (!f) return;
  fprintf(f,
          "checked %lu\nsame %lu\ndiffers %lu\nrecords %lu\nno reference kernel %lu\n"
          "launched with extra %lu\nother (error, too large, over the quota) %lu\n",
          n_checked, n_same, n_differ, n_records, n_no_ref, n_extra, n_other);
  fclose(f);
  if (tsv) fflush(tsv);
}

static void init(void) {
  const char *next = getenv("WP_DIFF_NEXT");
  next_lib = next ? dlopen(next, RTLD_NOW | RTLD_GLOBAL) : NULL;
  driver_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!next_lib) next_lib = driver_lib;
  if (!next_lib) fprintf(stderr, "wp_launch_diff: cannot open %s: %s\n", next, dlerror());
  cu.func_name = sym(driver_lib, "cuFuncGetName");
  cu.kernel_name = sym(driver_lib, "cuKernelGetName");
  cu.func_param = sym(driver_lib, "cuFuncGetParamInfo");
  cu.kernel_param = sym(driver_lib, "cuKernelGetParamInfo");
  cu.ptr_attr = sym(driver_lib, "cuPointerGetAttribute");
  cu.dtoh = sym(driver_lib, "cuMemcpyDtoH_v2");
  cu.htod = sym(driver_lib, "cuMemcpyHtoD_v2");
  cu.sync = sym(driver_lib, "cuCtxSynchronize");
  cu.load = sym(driver_lib, "cuModuleLoadData");
  cu.get_function = sym(driver_lib, "cuModuleGetFunction");
  cu.func_attr = sym(driver_lib, "cuFuncGetAttribute");
  cu.kernel_attr = sym(driver_lib, "cuKernelGetAttribute");
  cu.func_set_attr = sym(driver_lib, "cuFuncSetAttribute");
  cu.launch = sym(driver_lib, "cuLaunchKernel");
  const char *e;
  if ((e = getenv("WP_DIFF_PER_SHAPE"))) per_shape = atoi(e);
  if ((e = getenv("WP_DIFF_PER_KERNEL"))) per_kernel = atoi(e);
  if ((e = getenv("WP_DIFF_KEEP"))) keep = atoi(e);
  if ((e = getenv("WP_DIFF_MAX_MB"))) max_bytes = (size_t)atol(e) << 20;
  if ((e = getenv("WP_DIFF_KEEP_MB"))) keep_bytes = (size_t)atol(e) << 20;
  out_dir = getenv("WP_DIFF_OUT");
  if (out_dir) {
    mkdir(out_dir, 0755);
    char p[4096];
    snprintf(p, sizeof p, "%s/launches.%d.tsv", out_dir, (int)getpid());
    tsv = fopen(p, "w");
    atexit(summary);
  }
}

static void remember(void *h, const char *name, int is_kernel) {
  pthread_mutex_lock(&lock);
  if (n_handles < MAX_HANDLES) {
    handles[n_handles].h = h;
    handles[n_handles].name = strdup(name);
    handles[n_handles].is_kernel = is_kernel;
    n_handles++;
  }
  pthread_mutex_unlock(&lock);
}

static const struct handle *lookup(void *h) {
  for (int i = n_handles - 1; i >= 0; i--)
    if (handles[i].h == h) return &handles[i];
  return NULL;
}

static get_fn_fn next_get_function;
static get_kernel_fn next_get_kernel;

static CUresult wp_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  CUresult r = next_get_function(f, m, name);
  if (r == 0 && f && name) remember(*f, name, 0);
  return r;
}

static CUresult wp_cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *name) {
  CUresult r = next_get_kernel(k, l, name);
  if (r == 0 && k && name) remember(*k, name, 1);
  return r;
}

/* The kernel's name, and whether `f` is a CUkernel. */
static const char *kernel_name(CUfunction f, int *is_kernel) {
  const struct handle *h = lookup(f);
  if (h) {
    *is_kernel = h->is_kernel;
    return h->name;
  }
  const char *n = NULL;
  *is_kernel = 0;
  if (cu.func_name && cu.func_name(&n, f) == 0 && n) return n;
  if (cu.kernel_name && cu.kernel_name(&n, (CUkernel)f) == 0 && n) {
    *is_kernel = 1;
    return n;
  }
  return NULL;
}

/* `name` with the $WP_DIFF_RENAME substitutions, in `buf`. */
static const char *reference_name(const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, "%s", name);
  const char *rules = getenv("WP_DIFF_RENAME");
  if (!rules) return buf;
  char *copy = strdup(rules), *save = NULL;
  for (char *rule = strtok_r(copy, ";", &save); rule; rule = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(rule, '=');
    if (!eq) continue;
    *eq = 0;
    const char *from = rule, *to = eq + 1;
    char *hit = strstr(buf, from);
    if (!hit) continue;
    size_t fl = strlen(from), tl = strlen(to), bl = strlen(buf);
    if (bl - fl + tl + 1 > cap) continue;
    memmove(hit + tl, hit + fl, bl - (size_t)(hit - buf) - fl + 1);
    memcpy(hit, to, tl);
  }
  free(copy);
  return buf;
}

static CUfunction reference(const char *name) {
  if (ref_state == 0) {
    ref_state = -1;
    const char *paths = getenv("WP_DIFF_REF");
    char *copy = strdup(paths ? paths : ""), *save = NULL;
    for (char *path = strtok_r(copy, ":", &save); path && n_ref < MAX_REFS;
         path = strtok_r(NULL, ":", &save)) {
      FILE *f = fopen(path, "rb");
      if (!f) {
        fprintf(stderr, "wp_launch_diff: %s: %s\n", path, strerror(errno));
        continue;
      }
      fseek(f, 0, SEEK_END);
      long n = ftell(f);
      fseek(f, 0, SEEK_SET);
      char *data = malloc((size_t)n + 1);
      if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
        data[n] = 0;
        CUresult r = cu.load(&ref_modules[n_ref], data);
        if (r == 0) n_ref++;
        else fprintf(stderr, "wp_launch_diff: loading %s: CUDA error %d\n", path, r);
      }
      free(data);
      fclose(f);
    }
    free(copy);
    if (n_ref) ref_state = 1;
    else fprintf(stderr, "wp_launch_diff: no reference module ($WP_DIFF_REF)\n");
  }
  if (ref_state != 1) return NULL;
  char buf[8192];
  reference_name(name, buf, sizeof buf);
  for (int i = 0; i < n_ref; i++) {
    CUfunction rf = NULL;
    if (cu.get_function(&rf, ref_modules[i], buf) == 0) return rf;
  }
  return NULL;
}

/* Whether to check this launch (the quotas), counting it. */
static int take(const char *name, const unsigned g[3], const unsigned b[3]) {
  int per_name = 0, shape = -1;
  for (int i = 0; i < n_keys; i++) {
    if (strcmp(keys[i].name, name)) continue;
    per_name += keys[i].n;
    if (!memcmp(keys[i].g, g, sizeof keys[i].g) && !memcmp(keys[i].b, b, sizeof keys[i].b))
      shape = i;
  }
  if (per_name >= per_kernel) return 0;
  if (shape < 0) {
    if (n_keys >= MAX_KEYS) return 0;
    shape = n_keys++;
    keys[shape].name = strdup(name);
    memcpy(keys[shape].g, g, sizeof keys[shape].g);
    memcpy(keys[shape].b, b, sizeof keys[shape].b);
    keys[shape].n = 0;
  }
  if (keys[shape].n >= per_shape) return 0;
  keys[shape].n++;
  return 1;
}

struct range {
  CUdeviceptr start;
  size_t size;
  unsigned char *before, *ref, *twin;
};

static int add_range(struct range *r, int n, CUdeviceptr v) {
  if (v < 0x10000) return n;
  for (int i = 0; i < n; i++)
    if (v >= r[i].start && v < r[i].start + r[i].size) return n;
  CUdeviceptr start = 0;
  size_t size = 0;
  unsigned type = 0;
  if (cu.ptr_attr(&type, PTR_MEMORY_TYPE, v) != 0 || type != MEMTYPE_DEVICE) return n;
  if (cu.ptr_attr(&start, PTR_RANGE_START, v) != 0) return n;
  if (cu.ptr_attr(&size, PTR_RANGE_SIZE, v) != 0) return n;
  if (n >= MAX_RANGES) return n;
  r[n].start = start;
  r[n].size = size;
  r[n].before = r[n].ref = r[n].twin = NULL;
  return n + 1;
}

static int copy_out(struct range *r, int n, int which) {
  for (int i = 0; i < n; i++) {
    unsigned char **dst = which == 0 ? &r[i].before : which == 1 ? &r[i].ref : &r[i].twin;
    if (!*dst) *dst = malloc(r[i].size);
    if (!*dst || cu.dtoh(*dst, r[i].start, r[i].size) != 0) return -1;
  }
  return 0;
}

static void write_file(const char *dir, const char *name, const void *data, size_t n) {
  char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (!f) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

static void keep_record(const char *name, const unsigned g[3], const unsigned b[3],
                        unsigned smem, const unsigned char *params, size_t psize,
                        const size_t *offs, const size_t *sizes, int np, struct range *r,
                        int n) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%d-%05lu", out_dir, (int)getpid(), n_records++);
  mkdir(dir, 0755);
  char p[4200];
  snprintf(p, sizeof p, "%s/meta.txt", dir);
  FILE *f = fopen(p, "w");
  if (!f) return;
  fprintf(f, "kernel %s\ngrid %u %u %u\nblock %u %u %u\nshared %u\n", name, g[0], g[1], g[2],
          b[0], b[1], b[2], smem);
  for (int i = 0; i < np; i++) fprintf(f, "param %zu %zu\n", offs[i], sizes[i]);
  for (int i = 0; i < n; i++) fprintf(f, "range %d 0x%llx %zu\n", i, r[i].start, r[i].size);
  fclose(f);
  write_file(dir, "params.bin", params, psize);
  for (int i = 0; i < n; i++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%d.before", i);
    write_file(dir, nm, r[i].before, r[i].size);
    snprintf(nm, sizeof nm, "%d.ref", i);
    write_file(dir, nm, r[i].ref, r[i].size);
    snprintf(nm, sizeof nm, "%d.twin", i);
    write_file(dir, nm, r[i].twin, r[i].size);
  }
}

/* Count of kept records per kernel name. */
static int kept_for(const char *name) {
  static struct {
    char *name;
    int n;
  } k[MAX_KEYS];
  static int nk;
  for (int i = 0; i < nk; i++)
    if (!strcmp(k[i].name, name)) return k[i].n++;
  if (nk < MAX_KEYS) {
    k[nk].name = strdup(name);
    k[nk].n = 1;
    nk++;
  }
  return 0;
}

/* Check one launch: `real` launches it (the translated kernel). Returns its result. */
static CUresult check(CUfunction f, const unsigned g[3], const unsigned b[3], unsigned smem,
                      CUstream stream, void **params, void **extra,
                      CUresult (*real)(void *), void *ctx) {
  pthread_once(&once, init);
  int is_kernel = 0;
  const char *name = f ? kernel_name(f, &is_kernel) : NULL;
  if (!name || !params || extra) {
    if (extra) n_extra++;
    return real(ctx);
  }
  pthread_mutex_lock(&lock);
  CUfunction rf = reference(name);
  if (!rf) {
    n_no_ref++;
    pthread_mutex_unlock(&lock);
    if (tsv) fprintf(tsv, "%s\t%u,%u,%u\t%u,%u,%u\t%u\t0\tno-reference\t\n", name, g[0], g[1],
                     g[2], b[0], b[1], b[2], smem);
    return real(ctx);
  }
  if (!take(name, g, b)) {
    pthread_mutex_unlock(&lock);
    return real(ctx);
  }
  /* The parameter block, as the kernel sees it. */
  size_t offs[MAX_PARAMS], sizes[MAX_PARAMS];
  int np = 0;
  for (; np < MAX_PARAMS; np++) {
    CUresult r = is_kernel ? (cu.kernel_param ? cu.kernel_param((CUkernel)f, (size_t)np,
                                                                &offs[np], &sizes[np])
                                              : 1)
                           : (cu.func_param ? cu.func_param(f, (size_t)np, &offs[np],
                                                            &sizes[np])
                                            : 1);
    if (r != 0) break;
  }
  size_t psize = np ? offs[np - 1] + sizes[np - 1] : 0;
  unsigned char *pblock = calloc(1, psize + 8);
  for (int i = 0; i < np; i++) memcpy(pblock + offs[i], params[i], sizes[i]);
  struct range r[MAX_RANGES];
  int n = 0;
  cu.sync();
  for (size_t o = 0; o + 8 <= psize; o += 8) {
    CUdeviceptr v;
    memcpy(&v, pblock + o, 8);
    n = add_range(r, n, v);
  }
  size_t total = 0;
  for (int i = 0; i < n; i++) total += r[i].size;
  const char *verdict = "same";
  char where[128] = "";
  size_t compared = 0;
  CUresult res;
  if (total > max_bytes || n == 0) {
    verdict = n == 0 ? "no-memory" : "too-large";
    n_other++;
    res = real(ctx);
  } else if (copy_out(r, n, 0) != 0) {
    verdict = "copy-error";
    n_other++;
    res = real(ctx);
  } else {
    int dyn = 0;
    if (is_kernel) {
      if (cu.kernel_attr) cu.kernel_attr(&dyn, FUNC_ATTR_MAX_DYN_SMEM, (CUkernel)f, 0);
    } else if (cu.func_attr) {
      cu.func_attr(&dyn, FUNC_ATTR_MAX_DYN_SMEM, f);
    }
    if (dyn > 0) cu.func_set_attr(rf, FUNC_ATTR_MAX_DYN_SMEM, dyn);
    CUresult rr = cu.launch(rf, g[0], g[1], g[2], b[0], b[1], b[2], smem, stream, params, NULL);
    CUresult rs = rr == 0 ? cu.sync() : rr;
    int ref_ok = rs == 0 && copy_out(r, n, 1) == 0;
    for (int i = 0; i < n; i++) cu.htod(r[i].start, r[i].before, r[i].size);
    cu.sync();
    res = real(ctx);
    CUresult ts = res == 0 ? cu.sync() : res;
    int twin_ok = ts == 0 && copy_out(r, n, 2) == 0;
    n_checked++;
    if (!ref_ok) {
      verdict = "reference-error";
      snprintf(where, sizeof where, "CUDA error %d", rs);
      n_other++;
    } else if (!twin_ok) {
      verdict = "translated-error";
      snprintf(where, sizeof where, "CUDA error %d", ts);
      n_differ++;
    } else {
      for (int i = 0; i < n && !*where; i++) {
        compared += r[i].size;
        for (size_t k = 0; k < r[i].size; k++)
          if (r[i].ref[k] != r[i].twin[k]) {
            size_t diff = 0;
            for (size_t j = k; j < r[i].size; j++) diff += r[i].ref[j] != r[i].twin[j];
            snprintf(where, sizeof where, "range %d (0x%llx, %zu bytes) at +%zu, %zu bytes", i,
                     r[i].start, r[i].size, k, diff);
            verdict = "differs";
            break;
          }
      }
      if (*where) n_differ++;
      else n_same++;
    }
    if (strcmp(verdict, "same") && out_dir && ref_ok && total <= keep_bytes &&
        kept_for(name) < keep)
      keep_record(name, g, b, smem, pblock, psize, offs, sizes, np, r, n);
  }
  if (tsv) {
    fprintf(tsv, "%s\t%u,%u,%u\t%u,%u,%u\t%u\t%zu\t%s\t%s\n", name, g[0], g[1], g[2], b[0], b[1],
            b[2], smem, compared, verdict, where);
    fflush(tsv);
  }
  for (int i = 0; i < n; i++) {
    free(r[i].before);
    free(r[i].ref);
    free(r[i].twin);
  }
  free(pblock);
  pthread_mutex_unlock(&lock);
  return res;
}

/* cuLaunchKernel[_ptsz] */
static launch_fn next_launch[2];
struct plain {
  int ptds;
  CUfunction f;
  unsigned g[3], b[3], smem;
  CUstream s;
  void **p, **e;
};
static CUresult run_plain(void *c) {
  struct plain *x = c;
  return next_launch[x->ptds](x->f, x->g[0], x->g[1], x->g[2], x->b[0], x->b[1], x->b[2],
                              x->smem, x->s, x->p, x->e);
}
static CUresult plain(int ptds, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s,
                      void **p, void **e) {
  struct plain x = {ptds, f, {gx, gy, gz}, {bx, by, bz}, smem, s, p, e};
  return check(f, x.g, x.b, smem, s, p, e, run_plain, &x);
}
static CUresult wp_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                  CUstream s, void **p, void **e) {
  return plain(0, f, gx, gy, gz, bx, by, bz, smem, s, p, e);
}
static CUresult wp_cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                       unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                       CUstream s, void **p, void **e) {
  return plain(1, f, gx, gy, gz, bx, by, bz, smem, s, p, e);
}

/* cuLaunchKernelEx[_ptsz]: CUlaunchConfig is six uints (grid, block), sharedMemBytes at 24,
 * hStream at 32 (cuda.h of CUDA 12 and 13). */
static launch_ex_fn next_launch_ex[2];
struct ex {
  int ptds;
  const void *config;
  CUfunction f;
  void **p, **e;
};
static CUresult run_ex(void *c) {
  struct ex *x = c;
  return next_launch_ex[x->ptds](x->config, x->f, x->p, x->e);
}
static CUresult launch_ex(int ptds, const void *config, CUfunction f, void **p, void **e) {
  struct ex x = {ptds, config, f, p, e};
  if (!config) return run_ex(&x);
  const unsigned *u = config;
  unsigned g[3] = {u[0], u[1], u[2]}, b[3] = {u[3], u[4], u[5]};
  CUstream s;
  memcpy(&s, (const char *)config + 32, sizeof s);
  return check(f, g, b, u[6], s, p, e, run_ex, &x);
}
static CUresult wp_cuLaunchKernelEx(const void *c, CUfunction f, void **p, void **e) {
  return launch_ex(0, c, f, p, e);
}
static CUresult wp_cuLaunchKernelEx_ptsz(const void *c, CUfunction f, void **p, void **e) {
  return launch_ex(1, c, f, p, e);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             void *status);

static void wrap(const char *symbol, void **pfn, uint64_t flags) {
  if (!pfn || !*pfn) return;
  int ptds = (flags & 2) != 0;
  if (!strcmp(symbol, "cuLaunchKernel")) {
    next_launch[ptds] = (launch_fn)*pfn;
    *pfn = ptds ? (void *)&wp_cuLaunchKernel_ptsz : (void *)&wp_cuLaunchKernel;
  } else if (!strcmp(symbol, "cuLaunchKernelEx")) {
    next_launch_ex[ptds] = (launch_ex_fn)*pfn;
    *pfn = ptds ? (void *)&wp_cuLaunchKernelEx_ptsz : (void *)&wp_cuLaunchKernelEx;
  } else if (!strcmp(symbol, "cuModuleGetFunction")) {
    next_get_function = (get_fn_fn)*pfn;
    *pfn = (void *)&wp_cuModuleGetFunction;
  } else if (!strcmp(symbol, "cuLibraryGetKernel")) {
    next_get_kernel = (get_kernel_fn)*pfn;
    *pfn = (void *)&wp_cuLibraryGetKernel;
  } else if (!strcmp(symbol, "cuGetProcAddress")) {
    *pfn = (void *)&cuGetProcAddress_v2;
  }
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
  pthread_once(&once, init);
  gpa_fn next = (gpa_fn)sym(next_lib, "cuGetProcAddress");
  if (!next) return 3;
  CUresult r = next(symbol, pfn, version, flags);
  if (r == 0 && symbol) wrap(symbol, pfn, flags);
  return r;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             void *status) {
  pthread_once(&once, init);
  gpa2_fn next = (gpa2_fn)sym(next_lib, "cuGetProcAddress_v2");
  if (!next) return 3;
  CUresult r = next(symbol, pfn, version, flags, status);
  if (r == 0 && symbol) wrap(symbol, pfn, flags);
  return r;
}
