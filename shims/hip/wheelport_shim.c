/* wheelport's shim library for HIP targets (DTK, ROCm): the CUDA runtime entry points that a
 * rename cannot serve. The relink tables (relink-tables/<target>/cudart12.tsv, kind shim or
 * noop) rename each such import to the name defined here: the CUDA name with its first "cuda"
 * replaced by "wpcu" (same length, so the rewritten .dynstr fits).
 *
 * Built by wheelport with the host C compiler; no target SDK is needed: the HIP functions are
 * declared here with the prototypes of HIP's public headers (hip/hip_runtime_api.h) and bound at
 * load time through the runtime library named in DT_NEEDED.
 *
 * Implemented: the registration no-op and the CUDA 12.x/13 kernel-handle launch path.
 * Not yet: the struct and enum translations (cudaGetDeviceProperties_v2, device attributes,
 * function attributes, pointer attributes, driver entry points, managed variables); their
 * rows stay in the tables and are reported as unresolved until they are written. */
#include <stddef.h>

typedef struct { unsigned int x, y, z; } dim3; /* same layout in CUDA and HIP */
typedef int hipError_t;
typedef void *hipStream_t;

extern hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                                  void **args, size_t sharedMemBytes, hipStream_t stream);
extern hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks,
                                      dim3 dimBlocks, void **args, size_t sharedMemBytes,
                                      hipStream_t stream);

/* __cudaRegisterFatBinaryEnd(void **handle): HIP has no counterpart; registration is
 * complete after __hipRegisterFatBinary. */
void __wpcuRegisterFatBinaryEnd(void **handle) { (void)handle; }

/* __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) (CUDA 12.x/13 launch stubs,
 * crt/device_functions.h): HIP identifies a kernel by the host stub's address, which is also
 * the key given to __hipRegisterFunction, so the handle is that address. */
int __wpcuGetKernel(void **kernel, const void *hostFun) {
    *kernel = (void *)hostFun;
    return 0;
}

/* __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t). */
int __wpcuLaunchKernel(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                       hipStream_t stream) {
    return hipLaunchKernel(kernel, grid, block, args, shmem, stream);
}

/* Per-thread default stream form. */
int __wpcuLaunchKernel_ptsz(const void *kernel, dim3 grid, dim3 block, void **args,
                            size_t shmem, hipStream_t stream) {
    return hipLaunchKernel_spt(kernel, grid, block, args, shmem, stream);
}
