//! The twin's identity interposer (`shims/cuda-identity/wp_identity.c`, built by
//! [`wheelport::twin::identity::build`]) run against recording stand-ins of NVIDIA's driver
//! (`libcuda.so.1`) and runtime (`libcudart.so.12`): launches through `cuLaunchKernelEx`
//! (both forms `cuGetProcAddress` hands out) and `cudaLaunchKernelExC` reach them without
//! the programmatic dependent launch attributes (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`
//! = 6, `..._PROGRAMMATIC_EVENT` = 7, cuda.h of CUDA 12.9) and with every other attribute
//! and field as given; the identity answers are those of docs/identity.md.

mod common;

use std::process::Command;

/// Stand-in driver: `cuGetProcAddress_v2` hands out recording entry points; each launch
/// prints its geometry, stream and attribute ids.
const DRIVER: &str = r#"
#include <stdio.h>
#include <string.h>
#include <stdint.h>
typedef struct { int id; char pad[4]; char value[64]; } Attr;
typedef struct { unsigned g[3], b[3], smem; void *stream; Attr *attrs; unsigned n; } Config;
static void show(const char *via, const Config *c) {
  printf("%s grid %u block %u smem %u stream %p attrs", via, c->g[0], c->b[0], c->smem, c->stream);
  for (unsigned i = 0; i < c->n; i++) printf(" %d:%d", c->attrs[i].id, *(int *)c->attrs[i].value);
  printf("\n");
}
static int launch(const Config *c, void *f, void **p, void **e) { show("driver", c); return 0; }
static int launch_ptsz(const Config *c, void *f, void **p, void **e) { show("driver-ptsz", c); return 0; }
static int dev_attr(int *v, int a, int d) { *v = a == 75 ? 9 : a == 76 ? 0 : a == 10 ? 32 : -1; return 0; }
int cuGetProcAddress_v2(const char *s, void **pfn, int ver, uint64_t flags, void *st) {
  if (!strcmp(s, "cuLaunchKernelEx")) *pfn = (flags & 2) ? (void *)launch_ptsz : (void *)launch;
  else if (!strcmp(s, "cuDeviceGetAttribute")) *pfn = (void *)dev_attr;
  else { *pfn = 0; return 500; }
  return 0;
}
int cuGetProcAddress(const char *s, void **pfn, int ver, uint64_t flags) {
  return cuGetProcAddress_v2(s, pfn, ver, flags, 0);
}
"#;

/// Stand-in runtime: `cudaLaunchKernelExC[_ptsz]` print what they were given.
const RUNTIME: &str = r#"
#include <stdio.h>
#include <stddef.h>
typedef struct { int id; char pad[4]; char value[64]; } Attr;
typedef struct { unsigned g[3], b[3]; size_t smem; void *stream; Attr *attrs; unsigned n; } Config;
static void show(const char *via, const Config *c) {
  printf("%s grid %u block %u smem %zu stream %p attrs", via, c->g[0], c->b[0], c->smem, c->stream);
  for (unsigned i = 0; i < c->n; i++) printf(" %d:%d", c->attrs[i].id, *(int *)c->attrs[i].value);
  printf("\n");
}
int cudaLaunchKernelExC(const Config *c, const void *f, void **a) { show("runtime", c); return 0; }
int cudaLaunchKernelExC_ptsz(const Config *c, const void *f, void **a) { show("runtime-ptsz", c); return 0; }
"#;

/// The host code: launches with attributes (6, 1, 7) = (PDL, access policy, PDL event), then
/// with none, through each path, and reads the compute capability.
const CLIENT: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
typedef struct { int id; char pad[4]; char value[64]; } Attr;
typedef struct { unsigned g[3], b[3], smem; void *stream; Attr *attrs; unsigned n; } DConfig;
typedef struct { unsigned g[3], b[3]; size_t smem; void *stream; Attr *attrs; unsigned n; } RConfig;
typedef int (*gpa_t)(const char *, void **, int, uint64_t, void *);
typedef int (*dl_t)(const DConfig *, void *, void **, void **);
typedef int (*rl_t)(const RConfig *, const void *, void **);
typedef int (*attr_t)(int *, int, int);
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) { printf("dlopen: %s\n", dlerror()); return 1; }
  gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
  Attr a[3] = {{6}, {1}, {7}};
  *(int *)a[0].value = 1; *(int *)a[1].value = 42; *(int *)a[2].value = 3;
  DConfig d = {{640, 1, 1}, {384, 1, 1}, 4096, (void *)0x1234, a, 3};
  DConfig d0 = d; d0.attrs = 0; d0.n = 0;
  for (int flags = 0; flags <= 2; flags += 2) {
    dl_t launch = 0;
    if (gpa("cuLaunchKernelEx", (void **)&launch, 12000, flags, 0) || !launch) return 2;
    launch(&d, 0, 0, 0);
    launch(&d0, 0, 0, 0);
  }
  RConfig r = {{640, 1, 1}, {384, 1, 1}, 4096, (void *)0x1234, a, 3};
  ((rl_t)dlsym(h, "wpcu12_LaunchKernelExC"))(&r, 0, 0);
  ((rl_t)dlsym(h, "wpcu12_LaunchKernelExC_ptsz"))(&r, 0, 0);
  printf("caller attrs %d %d %d n %u\n", a[0].id, a[1].id, a[2].id, d.n);
  attr_t attr = 0;
  gpa("cuDeviceGetAttribute", (void **)&attr, 12000, 0, 0);
  int major = 0, minor = 0, warp = 0;
  attr(&major, 75, 0); attr(&minor, 76, 0); attr(&warp, 10, 0);
  printf("cc %d.%d warp %d\n", major, minor, warp);
  return 0;
}
"#;

#[test]
fn launches_lose_the_programmatic_launch_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let rt = common::stub_runtime(dir.path(), "libcuda.so.1", DRIVER);
    let rt2 = common::stub_runtime(&dir.path().join("cudart"), "libcudart.so.12", RUNTIME);
    std::fs::copy(rt2.join("libcudart.so.12"), rt.join("libcudart.so.12")).unwrap();
    let id = wheelport::twin::identity::Identity::of(&["compute_120"], "sm_80").unwrap();
    let so = wheelport::twin::identity::build(&wheelport::shim::host_cc(), &id, &rt).unwrap();
    std::fs::write(dir.path().join("client.c"), CLIENT).unwrap();
    let exe = dir.path().join("client");
    let (c, _, e) = common::run(
        Command::new("gcc")
            .arg("-o")
            .arg(&exe)
            .arg(dir.path().join("client.c"))
            .arg("-ldl"),
    );
    assert_eq!(c, 0, "{e}");
    let (c, out, e) = common::run(Command::new(&exe).arg(&so).env("LD_LIBRARY_PATH", &rt));
    assert_eq!(c, 0, "{out}{e}");
    let kept = "grid 640 block 384 smem 4096 stream 0x1234 attrs 1:42";
    let none = "grid 640 block 384 smem 4096 stream 0x1234 attrs";
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            format!("driver {kept}"),
            format!("driver {none}"),
            format!("driver-ptsz {kept}"),
            format!("driver-ptsz {none}"),
            format!("runtime {kept}"),
            format!("runtime-ptsz {kept}"),
            // the caller's own list is left as it was
            "caller attrs 6 1 7 n 3".to_string(),
            // the source PTX's compute capability (compute_120), warpSize 32
            "cc 12.0 warp 32".to_string(),
        ]
    );
}
