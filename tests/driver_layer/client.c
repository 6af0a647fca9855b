/* A driver-API caller for tests/driver_layer.rs, as JAX or a Triton launcher is one: it opens
 * the layer (argv[1]) with dlopen, takes every entry point through cuGetProcAddress_v2 and
 * drives a module wheelport wrote (the driver image in file argv[2]); one "key value..." line
 * per result on stdout. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*gpa_t)(const char *, void **, int, unsigned long long, int *);
static gpa_t gpa;

static void *get(const char *name, int version) {
    void *p = NULL;
    int status = -1;
    int r = gpa(name, &p, version, 0, &status);
    printf("proc %s %d %d %d\n", name, version, r, status);
    return p;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) return fprintf(stderr, "%s\n", dlerror()), 2;
    gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    FILE *f = fopen(argv[2], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *image = aligned_alloc(4096, (size_t)(n + 4095) / 4096 * 4096);
    if (fread(image, 1, (size_t)n, f) != (size_t)n) return 2;
    fclose(f);

    /* Versions: the current prototype, a version before the 64-bit one, a name never served,
     * the CUDA 12 and 13 prototypes of cuCtxSynchronize. */
    get("cuMemAlloc", 12000);
    get("cuMemAlloc", 2000);
    get("cuCtxCreate", 12000);
    void *sync12 = get("cuCtxSynchronize", 12000), *sync13 = get("cuCtxSynchronize", 13000);
    printf("sync_differ %d\n", sync12 && sync13 && sync12 != sync13);

    int (*init)(unsigned) = (int (*)(unsigned))get("cuInit", 2000);
    printf("cuInit %d\n", init(0));
    int (*count)(int *) = (int (*)(int *))get("cuDeviceGetCount", 2000);
    int c = -1, r = count(&c);
    printf("count %d %d\n", r, c);
    int (*attr)(int *, int, int) = (int (*)(int *, int, int))get("cuDeviceGetAttribute", 2000);
    /* 1 MAX_THREADS_PER_BLOCK, 10 WARP_SIZE, 75/76 COMPUTE_CAPABILITY_MAJOR/MINOR,
     * 8 MAX_SHARED_MEMORY_PER_BLOCK (cuda.h CUdevice_attribute). */
    int attrs[] = {1, 10, 75, 76, 8};
    for (int i = 0; i < 5; i++) {
        int v = -1;
        r = attr(&v, attrs[i], 0);
        printf("attr %d %d %d\n", attrs[i], r, v);
    }
    void *ctx = NULL;
    int (*retain)(void **, int) = (int (*)(void **, int))get("cuDevicePrimaryCtxRetain", 7000);
    int (*setcur)(void *) = (int (*)(void *))get("cuCtxSetCurrent", 4000);
    printf("ctx %d %d\n", retain(&ctx, 0), setcur(ctx));

    int (*load)(void **, const void *) = (int (*)(void **, const void *))get("cuModuleLoadData", 2000);
    void *mod = NULL;
    printf("load %d\n", load(&mod, image));
    static const unsigned fake_fatbin[8] = {0xBA55ED50u, 0x00100001u, 64, 0};
    void *other = NULL;
    printf("load_foreign %d\n", load(&other, fake_fatbin));
    int (*getfn)(void **, void *, const char *) =
        (int (*)(void **, void *, const char *))get("cuModuleGetFunction", 2000);
    void *fn = NULL, *missing = NULL;
    printf("function %d\n", getfn(&fn, mod, "_Z5saxpyifPKfPf"));
    fflush(stdout);
    printf("untranslated %d\n", getfn(&missing, mod, "_Z9untouchedv"));
    int (*fattr)(int *, int, void *) = (int (*)(int *, int, void *))get("cuFuncGetAttribute", 2020);
    int v = -1;
    r = fattr(&v, 5, fn); /* CU_FUNC_ATTRIBUTE_PTX_VERSION */
    printf("fattr 5 %d %d\n", r, v);
    r = fattr(&v, 0, fn); /* MAX_THREADS_PER_BLOCK: HIP's */
    printf("fattr 0 %d %d\n", r, v);
    int (*setfattr)(void *, int, int) = (int (*)(void *, int, int))get("cuFuncSetAttribute", 9000);
    printf("smem_ok %d\n", setfattr(fn, 8, 65536));
    printf("smem_too_big %d\n", setfattr(fn, 8, 65537));

    typedef int (*launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, void *, void **, void **);
    launch_t launch = (launch_t)get("cuLaunchKernel", 4000);
    int nn = 5;
    void *params[] = {&nn};
    printf("launch %d\n", launch(fn, 3, 2, 1, 64, 1, 1, 128, (void *)0x1, params, NULL));
    /* cuLaunchKernelEx: CUlaunchConfig with one cluster attribute 2x1x1 (refused) */
    struct {
        unsigned g[3], b[3], shmem;
        void *stream;
        void *attrs;
        unsigned n;
    } cfg = {{4, 1, 1}, {32, 1, 1}, 0, NULL, NULL, 0};
    unsigned char a[72] = {0};
    a[0] = 4, a[8] = 2, a[12] = 1, a[16] = 1;
    int (*launch_ex)(void *, void *, void **, void **) =
        (int (*)(void *, void *, void **, void **))get("cuLaunchKernelEx", 11060);
    printf("launch_ex %d\n", launch_ex(&cfg, fn, params, NULL));
    cfg.attrs = a, cfg.n = 1;
    printf("launch_ex_cluster %d\n", launch_ex(&cfg, fn, params, NULL));
    const void *table = NULL;
    static const unsigned char unknown[16] = {1, 2, 3};
    int (*exp)(const void **, const void *) =
        (int (*)(const void **, const void *))get("cuGetExportTable", 3000);
    printf("export_unknown %d\n", exp(&table, unknown));
    const char *s = NULL;
    int (*ename)(int, const char **) = (int (*)(int, const char **))get("cuGetErrorName", 6000);
    ename(209, &s);
    printf("error_name 209 %s\n", s);
    return 0;
}
