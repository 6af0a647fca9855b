#!/usr/bin/env python3
"""Regenerate wheelport's relink tables (relink-tables/{dtk,rocm,musa}/*.tsv).

Standard library only; it also runs `nm` (GNU binutils) to read symbol tables and
`c++filt` to check that every computed C++ target name demangles.

Inputs (all from PyPI, fetched with the ordinary pip client):

    pip download --no-deps nvidia-cuda-runtime-cu12==12.9.79 -d IN
    pip download --no-deps rocm-bindings-hip==10.0.0.0.1.2 -d IN
    pip download --no-deps hip-python-interop==10.0.0.0.1.2 -d IN
    pip download --no-deps torchada==0.1.103 -d IN

and the corpus wheels (autoawq_kernels 0.0.9, vllm_flash_attn 2.6.2, xformers 0.0.35;
see shared/corpus/fetch.sh) in one folder.

    python3 relink-tables/tools/gen_relink_tables.py --inputs IN --corpus CORPUS \
        [--out relink-tables] [--date YYYY-MM-DD]

What each input gives:

* nvidia-cuda-runtime-cu12 12.9.79: `nm -D --defined-only --with-symbol-versions` on
  libcudart.so.12 is the row list of cudart12.tsv (every exported FUNC, all at version
  node libcudart.so.12); the headers in the same wheel give each function's parameter
  count (from the `CUDARTAPI name(...)` prototypes).
* hip-python-interop 10.0.0.0.1.2 (AMD): `cuda/bindings/cyruntime.pxd` holds lines
  `from rocm.bindings.cyhip cimport hipX as cudaY`, i.e. AMD's own CUDA-runtime to HIP
  name map. Only those name pairs are read.
* rocm-bindings-hip 10.0.0.0.1.2 (AMD): `rocm/bindings/cyhip.pxd` declares the HIP
  runtime functions (`cdef <ret> hipX(params) ...`). A HIP name counts as existing only
  when declared there, and a rename is only emitted when the CUDA and HIP parameter
  counts agree.
* torchada 0.1.103 (Moore Threads' CUDA->MUSA porting layer): the dict literals of
  `torchada/_mappings/*.py` (read with ast.literal_eval, merged in the order of its
  `__init__.py`), applied the way its source porting applies them (longest key first,
  plain substring replacement). Every musa row's notes end with the cross-check
  (`torchada@0.1.103: agrees` / `no entry` / `maps it to X; resolved: ...` /
  `maps it to X; VERIFY: ...`); a disagreement without a decision in
  TORCHADA_DECISIONS stops the script. Name-for-name mappings of exported symbols that
  the musa tables lack (cuBLAS, cuBLASLt, driver) are added as rows.
* the corpus wheels: `nm -D --undefined-only` on their `.so` members lists the torch
  CUDA symbols (c10::cuda, at::cuda, at::CUDAGeneratorImpl and the unmangled stable-ABI
  C names) and the cuBLAS entry points they import.

Everything else (sonames, the ABI exceptions, the torch renaming rules) is written
below as facts with their source: shared/reference/relink-tables.md (§ numbers cited in
the notes), which records where each was measured or read.
"""

import argparse
import ast
import collections
import datetime
import os
import re
import subprocess
import sys
import tempfile
import zipfile

CUDART_WHEEL = "nvidia_cuda_runtime_cu12-12.9.79"
HIP_BINDINGS_WHEEL = "rocm_bindings_hip-10.0.0.0.1.2"
HIP_INTEROP_WHEEL = "hip_python_interop-10.0.0.0.1.2"
CORPUS_PREFIXES = ("autoawq_kernels-0.0.9", "torchvision-0.26.0", "vllm_flash_attn-2.6.2", "xformers-0.0.35")

TARGETS = ("dtk", "rocm", "musa")
SHIM_LIB = "@shim"  # the wheelport shim library, whatever its file name in the output

# Runtime library per target (the symbol tables' target_library for cudart rows).
RUNTIME_LIB = {
    # reference §0.3 and §2: DTK's HIP runtime is libgalaxyhip.so.5 in <dtk>/hip/lib;
    # <dtk>/lib/libamdhip64.so also exists. We pick libgalaxyhip.so.5 (the library
    # DTK's own HIP runtime is; its symbols are unversioned, §0.2).
    "dtk": "libgalaxyhip.so.5",
    "rocm": "libamdhip64.so.6",
    "musa": "libmusart.so.4",
}

# ---------------------------------------------------------------------------------
# Sonames (reference §2). Columns: cuda soname, sdk, target soname, kind, notes.
# `sdk` is the target SDK major version the row applies to ('-' = any).
# kind unsupported rows carry a candidate name where one is known, else '-'.
# ---------------------------------------------------------------------------------
V = "VERIFY on a real install"
SONAMES = {
    "rocm": [
        ("libcudart.so.12", "6", "libamdhip64.so.6", "rename", "HIP runtime; AMD versions its symbols hip_4.2..hip_6.3 (ROCm/clr hip_hcc.map.in); rewritten imports are emitted unversioned (reference §0.2)"),
        ("libcudart.so.12", "7", "libamdhip64.so.7", "rename", "ROCm 7.x soname (reference §2)"),
        ("libcudart.so.13", "6", "libamdhip64.so.6", "rename", "same HIP runtime; CUDA 13 struct layouts differ (cudaDeviceProp), shims key by cudart major"),
        ("libcudart.so.13", "7", "libamdhip64.so.7", "rename", "ROCm 7.x soname"),
        ("libcuda.so.1", "6", "libamdhip64.so.6", "rename", "the driver API lives in HIP (reference §2)"),
        ("libcuda.so.1", "7", "libamdhip64.so.7", "rename", "the driver API lives in HIP"),
        ("libcublas.so.12", "6", "libhipblas.so.2", "rename", "hipBLAS (+ librocblas.so.4 underneath); enum arguments need the BLAS shim (reference §4 row 4)"),
        ("libcublas.so.12", "7", "libhipblas.so.3", "rename", "ROCm 7 hipBLAS soname inferred: " + V),
        ("libcublasLt.so.12", "6", "libhipblaslt.so.0", "rename", "hipBLASLt"),
        ("libcublasLt.so.12", "7", "libhipblaslt.so.1", "rename", "hipBLASLt, ROCm 7"),
        ("libcurand.so.10", "6", "libhiprand.so.1", "rename", "hipRAND (+ librocrand.so.1)"),
        ("libcusparse.so.12", "6", "libhipsparse.so.1", "rename", "hipSPARSE (+ librocsparse.so.1)"),
        ("libcufft.so.11", "6", "libhipfft.so.0", "rename", "hipFFT (+ librocfft.so.0)"),
        ("libcusolver.so.11", "6", "libhipsolver.so.0", "rename", "hipSOLVER (+ librocsolver.so.0)"),
        ("libnccl.so.2", "*", "librccl.so.1", "rename", "RCCL keeps the nccl* names; only the soname changes"),
        ("libnvrtc.so.12", "6", "libhiprtc.so.6", "rename", "nvrtc* -> hiprtc* names (HIPIFY RTC map)"),
        ("libnvToolsExt.so.1", "*", "libroctx64.so.4", "rename", "symbols differ: nvtxRangePushA/Pop/MarkA -> roctxRangePushA/roctxRangePop/roctxMarkA; NVTX3 is header-only and dlopen-based, usually no DT_NEEDED"),
        ("libnvidia-ml.so.1", "6", "librocm_smi64.so.7", "unsupported", "different API (rocm_smi); listed for attribution only"),
        ("libcudnn.so.9", "*", "libMIOpen.so.1", "unsupported", "MIOpen has a different API: no rename"),
        ("libnvJitLink.so.12", "*", "-", "unsupported", "no counterpart (comgr libamd_comgr.so.2 is a different API)"),
        ("libc10_cuda.so", "*", "libc10_hip.so", "rename", "ROCm PyTorch: c10::cuda -> c10::hip (reference §0.5)"),
        ("libtorch_cuda.so", "*", "libtorch_hip.so", "rename", "ROCm PyTorch keeps at::cuda names here (reference §0.5)"),
    ],
    "dtk": [
        ("libcudart.so.12", "*", "libgalaxyhip.so.5", "rename", "DTK's HIP runtime in <dtk>/hip/lib (chosen over <dtk>/lib/libamdhip64.so); DTK lacks AMD's hip_4.2 version nodes, so imports are unversioned (reference §0.2, §0.3). The CUDA-compat <dtk>/cuda/cuda-12/lib64/libcudart.so.12 is not used: " + V),
        ("libcudart.so.13", "*", "libgalaxyhip.so.5", "rename", "as libcudart.so.12; CUDA 13 layouts differ"),
        ("libcuda.so.1", "*", "libgalaxyhip.so.5", "rename", "driver API in HIP; HSA runtime in <dtk>/.hyhal/lib"),
        ("libcublas.so.12", "*", "libhipblas.so", "unsupported", "DTK hipBLAS/rocBLAS soname not verified (candidate shown): " + V),
        ("libcublasLt.so.12", "*", "libhipblaslt.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libcurand.so.10", "*", "libhiprand.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libcusparse.so.12", "*", "libhipsparse.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libcufft.so.11", "*", "libhipfft.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libcusolver.so.11", "*", "libhipsolver.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libnccl.so.2", "*", "librccl.so.1", "rename", "<dtk>/lib/librccl.so.1, NCCL-API compatible (nccl* names)"),
        ("libnvrtc.so.12", "*", "libhiprtc.so", "unsupported", "DTK soname not verified (candidate shown): " + V),
        ("libnvToolsExt.so.1", "*", "libroctx64.so", "unsupported", "roctx on DTK; soname not verified (candidate shown): " + V),
        ("libnvidia-ml.so.1", "*", "librocm_smi64.so.2", "unsupported", "different API (rocm_smi); listed for attribution only"),
        ("libcudnn.so.9", "*", "libMIOpen.so", "unsupported", "MIOpen has a different API: no rename"),
        ("libnvJitLink.so.12", "*", "-", "unsupported", "no counterpart (libamd_comgr.so.2 is a different API)"),
        ("libc10_cuda.so", "*", "libc10_hip.so", "rename", "DAS torch (torch-2.7.1+das.opt1.dtk2604) follows ROCm PyTorch naming; exports " + V),
        ("libtorch_cuda.so", "*", "libtorch_hip.so", "rename", "DAS torch, as ROCm PyTorch; exports " + V),
    ],
    "musa": [
        ("libcudart.so.12", "4", "libmusart.so.4", "rename", "MUSA SDK 4.x; SDK 1.x used libmusart.so.1.0/.so.1.5 and 5.x uses .so.5.* (reference §0.4)"),
        ("libcudart.so.13", "4", "libmusart.so.4", "rename", "MUSA SDK 4.x"),
        ("libcuda.so.1", "4", "libmusa.so.1", "rename", "MUSA driver API; .so.1.0 and .so.1.5.4 also seen"),
        ("libcublas.so.12", "4", "libmublas.so.1", "rename", "muBLAS; no _v2/_64 variants per a third-party doc (reference §4 row 4)"),
        ("libcublasLt.so.12", "4", "libmublasLt.so.1", "rename", "muBLASLt"),
        ("libcurand.so.10", "4", "libmurand.so", "rename", "soname " + V),
        ("libcusparse.so.12", "4", "libmusparse.so", "rename", "unversioned soname"),
        ("libcufft.so.11", "4", "libmufft.so.1", "rename", "muFFT"),
        ("libcusolver.so.11", "4", "libmusolver.so.1", "rename", "muSOLVER"),
        ("libnccl.so.2", "4", "libmccl.so.2", "rename", "MCCL uses mccl* symbol names: the symbols need their own rows"),
        ("libnvrtc.so.12", "4", "-", "unsupported", "not mapped by MUSIFY/torchada"),
        ("libnvToolsExt.so.1", "4", "-", "unsupported", "MUSIFY maps NVTX -> MTTX; soname unknown: " + V),
        ("libnvidia-ml.so.1", "4", "-", "unsupported", "no counterpart recorded"),
        ("libcudnn.so.9", "4", "libmudnn.so.3", "unsupported", "muDNN is a C++ API, not cuDNN-shaped"),
        ("libnvJitLink.so.12", "4", "-", "unsupported", "no counterpart"),
        ("libc10_cuda.so", "4", "libmusa_python.so", "rename", "torch_musa builds c10::musa (core/*.cpp) into musa_python; soname may be versioned (.so.1): " + V),
        ("libtorch_cuda.so", "4", "libmusa_kernels.so", "rename", "torch_musa aten/musa/*.cpp (MUSAContext, Generator, Blas); soname " + V),
    ],
}

# ---------------------------------------------------------------------------------
# libcudart: exceptions to the name rules, per target family (hip = dtk and rocm).
# Each entry: cuda name -> (kind, via, notes). For shim/noop rows `via` is the target
# function the shim calls ('-' for none); for rename rows it is the target name.
# ---------------------------------------------------------------------------------
PRINTF_DRAIN = "same parameters as the HIP function; the shim prints the device printf FIFOs of amdgpu modules that call vprintf (kernels-ir/printf.py, shims/hip/wp_printf.h)"
PER_THREAD = "per-thread default stream form; HIP has no _spt variant: the shim calls the HIP function with hipStreamPerThread for stream 0, as the _ptsz form means (CUDA 12.x parameters; looked up at first use)"
RUNTIME_MODULE = "loads a module handed over at run time (PTX, cubin or fatbin as data or a file): wheelport translates device code ahead of time only, so the target runtime would be given CUDA code it cannot load; the module is not translated"
CUDART_HIP = {
    "__cudaRegisterFatBinary": ("shim", "__hipRegisterFatBinary", "the shim registers a wrapper that wheelport rewrote to HIP's {HIPF 0x48495046, 1, offload bundle, 0} (src/rewrite Registration; reference §3.1, §3.2) and skips one that still carries the CUDA magic (a SASS-only module), returning a handle that makes the module's later registration calls no-ops"),
    "__cudaRegisterFatBinaryEnd": ("noop", "-", "no HIP counterpart; called after registration since CUDA 10.1 (reference §3, §4 row 9)"),
    "__cudaRegisterFunction": ("shim", "__hipRegisterFunction", "same parameter list as __hipRegisterFunction (reference §3), forwarded unless the handle is the shim's skipped-module handle (SASS-only module); exported per ROCm/clr hip_hcc.map.in"),
    "__cudaRegisterVar": ("shim", "__hipRegisterVar", "same parameter list (reference §3), forwarded unless the handle is the skipped-module handle; exported per ROCm/clr hip_hcc.map.in"),
    "__cudaUnregisterFatBinary": ("shim", "__hipUnregisterFatBinary", "forwarded unless the handle is the skipped-module handle (reference §3); exported per ROCm/clr hip_hcc.map.in"),
    "__cudaPushCallConfiguration": ("rename", "__hipPushCallConfiguration", "CUDA returns unsigned, HIP hipError_t: both 32-bit (reference §3)"),
    "__cudaPopCallConfiguration": ("rename", "__hipPopCallConfiguration", "CUDA returns unsigned, HIP hipError_t: both 32-bit (reference §3)"),
    "__cudaRegisterManagedVar": ("shim", "__hipRegisterManagedVar", "parameter lists differ (CUDA: handle, host var address, device address, name, ext, size, constant, global; HIP: module, pointer, init value, name, size, align): the shim passes a zeroed initial value (CUDA keeps the initializer in the device image) and the largest power-of-two alignment dividing the size, at most 16"),
    "__cudaRegisterHostVar": ("unsupported", "-", "no HIP counterpart known"),
    "__cudaRegisterUnifiedTable": ("unsupported", "-", "no HIP counterpart known"),
    "__cudaInitModule": ("shim", "-", "lazy-loading module init before the first use of a managed variable (crt/host_runtime.h: returns char, non-zero = loaded); HIP loads a module at registration, so the shim returns 1 for a registered module and 0 for a skipped (SASS-only) one"),
    "__cudaGetKernel": ("shim", "-", "kernel-handle lookup used by CUDA 12.x/13 launch stubs; shim maps the host stub to the registered HIP function"),
    "__cudaLaunchKernel": ("shim", "hipLaunchKernel", "CUDA 12.x/13 launch through a kernel handle from __cudaGetKernel"),
    "__cudaLaunchKernel_ptsz": ("shim", "hipLaunchKernel_spt", "per-thread default stream form of __cudaLaunchKernel"),
    "cudaGetDeviceProperties_v2": ("shim", "hipGetDevicePropertiesR0600", "cudaDeviceProp is 1032 B, hipDeviceProp_tR0600 1472 B with the same prefix: call into a 1472 B temporary and copy 1032 B; major/minor may need overriding (reference §4 row 1)"),
    "cudaGetDeviceProperties": ("shim", "hipGetDevicePropertiesR0600", "legacy export of libcudart.so.12 (CUDA 12 headers #define the name to _v2); the shim fills the same CUDA 12.x layout as _v2 (which layout the legacy export writes is not checked on a CUDA 12 install: " + V + "); plain hipGetDeviceProperties is the R0000 layout (reference §4 row 1)"),
    "cudaChooseDevice": ("shim", "hipChooseDeviceR0600", "takes a cudaDeviceProp*: layout translation as cudaGetDeviceProperties_v2"),
    "cudaDeviceGetAttribute": ("shim", "hipDeviceGetAttribute", "cudaDeviceAttr and hipDeviceAttribute_t numberings differ (MultiProcessorCount 16 vs 63): value table (reference §4 row 2)"),
    "cudaFuncSetAttribute": ("shim", "hipFuncSetAttribute", "attribute numbers through shims/hip/tables/runtime_enums.tsv (8-15 numbered alike in ROCm's hipFuncAttribute; DTK's HIP may lack the cluster ones: " + V + "); an unknown attribute is cudaErrorInvalidValue (reference §3)"),
    "cudaFuncGetAttributes": ("shim", "hipFuncGetAttributes", "cudaFuncAttributes and hipFuncAttributes differ in field order and size: field-wise copy (reference §4 row 7)"),
    "cudaPointerGetAttributes": ("shim", "hipPointerGetAttributes", "24 B cudaPointerAttributes vs 32 B hipPointerAttribute_t: a rename overflows the caller's struct; the shim copies by field and translates the memory type (shims/hip/tables/runtime_enums.tsv; ROCm 6 numbers 0-3 alike, older HIP and DTK number hipMemoryType differently: " + V + ") (reference §4 row 8)"),
    "cudaGetDriverEntryPoint": ("shim", "hipGetProcAddress", "driver function looked up by string; hipGetProcAddress adds an int hipVersion parameter and expects hip* names: translate the string through the driver table, unknown -> cudaErrorSymbolNotFound (reference §4 row 11)"),
    "cudaGetDriverEntryPoint_ptsz": ("shim", "hipGetProcAddress", "as cudaGetDriverEntryPoint (reference §4 row 11)"),
    "cudaGetDriverEntryPointByVersion": ("shim", "hipGetProcAddress", "as cudaGetDriverEntryPoint, with an explicit CUDA version argument (reference §4 row 11)"),
    "cudaGetDriverEntryPointByVersion_ptsz": ("shim", "hipGetProcAddress", "as cudaGetDriverEntryPointByVersion (reference §4 row 11)"),
    "cudaGetExportTable": ("unsupported", "-", "NVIDIA's undocumented export-table (dark) API; no HIP counterpart"),
    "cudaLibraryLoadData": ("unsupported", "hipLibraryLoadData", RUNTIME_MODULE),
    "cudaLibraryLoadFromFile": ("unsupported", "hipLibraryLoadFromFile", RUNTIME_MODULE),
    "cudaEventElapsedTime_v2": ("unsupported", "-", "not in HIP's headers (rocm-bindings-hip); hipEventElapsedTime may serve if the CUDA 12.8 _v2 semantics allow: " + V),
    "cudaGetErrorString": ("shim", "hipGetErrorString", "takes a cudaError_t: mapped to hipError_t through shims/hip/tables/errors.tsv (CUDA 18/20/912 are HIP 912/911/1054) before the call; a HIP-only code passes through; a CUDA-only code (e.g. 911 cudaErrorExternalDevice) is named by its CUDA enumerator (reference §4 row 3)"),
    "cudaGetErrorName": ("shim", "hipGetErrorName", "as cudaGetErrorString (reference §4 row 3)"),
    "cudaGetLastError": ("shim", "hipGetLastError", "returns the sticky error as cudaError_t: hipError_t mapped through shims/hip/tables/errors.tsv (HIP-only codes keep their number, as renamed calls return them)"),
    "cudaPeekAtLastError": ("shim", "hipPeekAtLastError", "as cudaGetLastError"),
    "cudaLaunchKernelExC": ("shim", "hipLaunchKernelExC", "cudaLaunchConfig_t/hipLaunchConfig_t (56 B) and cudaLaunchAttribute/hipLaunchAttribute (72 B) have the same layout and HIP's attribute IDs carry CUDA's numbers (shims/hip/tables/launch.tsv, checked by tests/shim.rs against driver_types.h); a shim because the result needs translating (hipErrorInvalidClusterSize 1054 = cudaErrorInvalidClusterSize 912) and because older HIP releases lack hipLaunchKernelExC (which release added it is not verified; looked up at first call, missing -> cudaErrorNotSupported); in DTK: " + V),
    "cudaDeviceSynchronize": ("shim", "hipDeviceSynchronize", PRINTF_DRAIN + " after the call, emptying the FIFOs (CUDA flushes printf output at device synchronisation)"),
    "cudaThreadSynchronize": ("shim", "hipDeviceSynchronize", "deprecated CUDA alias of cudaDeviceSynchronize; " + PRINTF_DRAIN + " as cudaDeviceSynchronize"),
    "cudaStreamSynchronize": ("shim", "hipStreamSynchronize", PRINTF_DRAIN + " after the call (CUDA flushes printf output at stream synchronisation)"),
    "cudaEventSynchronize": ("shim", "hipEventSynchronize", PRINTF_DRAIN + " after the call (CUDA flushes printf output at event synchronisation)"),
    "cudaMemcpy": ("shim", "hipMemcpy", PRINTF_DRAIN + " after the call (CUDA flushes printf output at blocking copies)"),
    "cudaDeviceReset": ("shim", "hipDeviceReset", PRINTF_DRAIN + " before the reset, emptying the FIFOs (CUDA flushes printf output at context destruction)"),
    "cudaMallocAsync_ptsz": ("shim", "hipMallocAsync", PER_THREAD),
    "cudaFreeAsync_ptsz": ("shim", "hipFreeAsync", PER_THREAD),
    "cudaMemPrefetchAsync_ptsz": ("shim", "hipMemPrefetchAsync", PER_THREAD),
    "cudaThreadGetLimit": ("rename", "hipDeviceGetLimit", "deprecated CUDA alias of cudaDeviceGetLimit (same parameters); cudaLimit 0-2 equal hipLimit_t"),
    "cudaThreadSetLimit": ("rename", "hipDeviceSetLimit", "deprecated CUDA alias of cudaDeviceSetLimit (same parameters)"),
}

CUDART_MUSA = {
    "__cudaRegisterFatBinary": ("shim", "__musaRegisterFatBinary", "the payload must be replaced by MUSA device code; __musaRegisterFatBinary is MUSIFY's name (reference §4 row 9): " + V),
    "__cudaRegisterFatBinaryEnd": ("noop", "-", "no-op shim, as on HIP; whether libmusart exports __musaRegisterFatBinaryEnd is unverified"),
    "__cudaGetKernel": ("shim", "-", "kernel-handle lookup; shim maps the host stub to the registered MUSA function"),
    "__cudaLaunchKernel": ("shim", "musaLaunchKernel", "launch through a kernel handle from __cudaGetKernel"),
    "__cudaLaunchKernel_ptsz": ("shim", "musaLaunchKernel_ptsz", "per-thread default stream form of __cudaLaunchKernel: " + V),
    "cudaGetDeviceProperties_v2": ("shim", "musaGetDeviceProperties", "musaDeviceProp prefix order matches CUDA (third-party header copy); sizeof " + V + " (reference §4 row 1)"),
    "cudaGetDeviceProperties": ("shim", "musaGetDeviceProperties", "legacy pre-12 cudaDeviceProp layout; musaDeviceProp size " + V),
    "cudaGetDriverEntryPoint": ("shim", "musaGetDriverEntryPoint", "looked up by string: the string must be translated cu* -> mu* (reference §4 row 11)"),
    "cudaGetDriverEntryPoint_ptsz": ("shim", "musaGetDriverEntryPoint", "as cudaGetDriverEntryPoint"),
    "cudaGetDriverEntryPointByVersion": ("shim", "musaGetDriverEntryPoint", "as cudaGetDriverEntryPoint; musaGetDriverEntryPointByVersion " + V),
    "cudaGetDriverEntryPointByVersion_ptsz": ("shim", "musaGetDriverEntryPoint", "as cudaGetDriverEntryPointByVersion"),
    "cudaGetExportTable": ("unsupported", "-", "NVIDIA's undocumented export-table (dark) API"),
    "cudaLibraryLoadData": ("unsupported", "-", RUNTIME_MODULE),
    "cudaLibraryLoadFromFile": ("unsupported", "-", RUNTIME_MODULE),
}
MUSA_UNSUPPORTED_RE = re.compile(r"^cuda(GL|EGL|VDPAU|Graphics(GL|EGL|VDPAU)|EventCreateFromEGLSync|DeviceGetNvSciSyncAttributes)")
# Renamed calls whose HIP function can answer a code HIP numbers differently from CUDA
# (hipErrorInvalidChannelDescriptor 911 = CUDA 20, hipErrorInvalidTexture 912 = CUDA 18,
# hipErrorInvalidClusterSize 1054 = CUDA 912; shims/hip/tables/errors.tsv).
CODE_GAP_RE = re.compile(r"Texture|Surface|Array|ChannelDesc|Mipmapped|Cluster")
CODE_GAP_NOTE = "; same parameters as the HIP function, but HIP may answer 911/912/1054, which CUDA numbers 20/18/912 (shims/hip/tables/errors.tsv): a code thunk of the shim (shims/hip/tables/code_thunks.tsv) calls it and translates the result"
HIP_GRAPHICS_RE = re.compile(r"^cuda(GL|EGL|VDPAU|Graphics(GL|EGL|VDPAU)|Graphics.*Egl|EventCreateFromEGLSync|DeviceGetNvSciSyncAttributes)")



def shim_name(sym):
    """The shim library's name for CUDA symbol `sym`: the same length as `sym` (so that
    renaming an import to it never grows .dynstr), with the first 'cuda' replaced by 'wpcu'
    or, failing that, the first 'cu' by 'wp'. Mangled C++ names stay valid because every
    identifier keeps its length."""
    if "cuda" in sym:
        return sym.replace("cuda", "wpcu", 1)
    if "cu" in sym:
        return sym.replace("cu", "wp", 1)
    raise ValueError(f"no 'cu' in shim symbol {sym}")

def sh(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def find_wheel(folder, prefix):
    for n in sorted(os.listdir(folder)):
        if n.startswith(prefix) and n.endswith(".whl"):
            return os.path.join(folder, n)
    sys.exit(f"gen_relink_tables: no {prefix}*.whl in {folder}")


def member(wheel, suffix):
    with zipfile.ZipFile(wheel) as z:
        for n in z.namelist():
            if n.endswith(suffix):
                return n, z.read(n)
    sys.exit(f"gen_relink_tables: {wheel} has no member ending {suffix}")


def count_params(params):
    params = re.sub(r"/\*.*?\*/", "", params).strip()
    if params in ("", "void"):
        return 0
    depth, n = 0, 1
    for ch in params:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            n += 1
    return n


def cudart_inputs(inputs, tmp):
    wheel = find_wheel(inputs, CUDART_WHEEL)
    name, data = member(wheel, "lib/libcudart.so.12")
    so = os.path.join(tmp, "libcudart.so.12")
    with open(so, "wb") as f:
        f.write(data)
    exports = []
    for line in sh(["nm", "-D", "--defined-only", "--with-symbol-versions", so]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("T", "W"):
            sym, _, ver = parts[2].partition("@@")
            if ver != "libcudart.so.12":
                sys.exit(f"unexpected version node on {parts[2]}")
            exports.append(sym)
    exports.sort()
    protos = {}
    with zipfile.ZipFile(wheel) as z:
        for n in z.namelist():
            if "/include/" in n and n.endswith(".h"):
                text = z.read(n).decode("utf-8", "replace")
                for m in re.finditer(r"CUDARTAPI\s+(\w+)\s*\(([^;{]*?)\)\s*;", text, re.S):
                    protos.setdefault(m.group(1), count_params(m.group(2)))
    return exports, protos


def hip_inputs(inputs):
    _, data = member(find_wheel(inputs, HIP_BINDINGS_WHEEL), "rocm/bindings/cyhip.pxd")
    decl = {}
    for m in re.finditer(r"^cdef [^\n(]*?\b(hip\w+)\(([^)]*)\)", data.decode(), re.M):
        decl.setdefault(m.group(1), count_params(m.group(2)))
    _, data = member(find_wheel(inputs, HIP_INTEROP_WHEEL), "cuda/bindings/cyruntime.pxd")
    amap = {}
    for m in re.finditer(r"^from rocm\.bindings\.cyhip cimport (hip\w+) as (cuda\w+)$", data.decode(), re.M):
        amap.setdefault(m.group(2), m.group(1))
    return decl, amap


def corpus_imports(corpus, tmp):
    """(symbol -> set of module names) for unversioned imports of the corpus .so files,
    and the same for imports versioned libcudart.so.12."""
    plain, cudart = collections.defaultdict(set), collections.defaultdict(set)
    modules = []
    for prefix in CORPUS_PREFIXES:
        wheel = find_wheel(corpus, prefix)
        with zipfile.ZipFile(wheel) as z:
            for n in z.namelist():
                if not re.search(r"\.so(\.|$)", n):
                    continue
                p = os.path.join(tmp, "corpus.so")
                with z.open(n) as src, open(p, "wb") as dst:
                    while True:
                        chunk = src.read(1 << 22)
                        if not chunk:
                            break
                        dst.write(chunk)
                mod = os.path.basename(n).split(".")[0]
                modules.append(mod)
                out = sh(["nm", "-D", "--undefined-only", "--with-symbol-versions", p])
                for line in out.splitlines():
                    parts = line.split()
                    if len(parts) != 2:
                        continue
                    sym, _, ver = parts[1].partition("@")
                    if ver == "libcudart.so.12":
                        cudart[sym].add(mod)
                    elif ver == "":
                        plain[sym].add(mod)
                os.unlink(p)
    return plain, cudart, modules


# --------------------------------------------------------------------------------
# Itanium C++ mangled names: rename identifiers, recomputing the length prefixes.
# Tokenises the subset of the grammar the torch imports use (nested names, builtin
# types, qualifiers, substitutions S_/S<n>_/St.., template params, literals L..E);
# every <length><identifier> source name is passed through `rename`. Substitution
# indices stay valid because the component structure is unchanged.
# --------------------------------------------------------------------------------
def remangle(name, rename):
    if not name.startswith("_Z"):
        raise ValueError(f"not a mangled name: {name}")
    out, i = ["_Z"], 2
    while i < len(name):
        c = name[i]
        if c.isdigit():
            j = i
            while name[j].isdigit():
                j += 1
            n = int(name[i:j])
            ident = name[j:j + n]
            new = rename(ident)
            out.append(f"{len(new)}{new}")
            i = j + n
        elif c == "S":
            j = i + 1
            if name[j] in "tabsiod":
                out.append(name[i:j + 1])
                i = j + 1
            else:
                k = name.index("_", j)
                out.append(name[i:k + 1])
                i = k + 1
        elif c == "T" and (name[i + 1] == "_" or name[i + 1].isdigit()):
            k = name.index("_", i + 1)
            out.append(name[i:k + 1])
            i = k + 1
        elif c == "L" and name[i + 1] != "_":
            k = name.index("E", i)
            out.append(name[i:k + 1])
            i = k + 1
        elif c in "CD" and i + 1 < len(name) and name[i + 1].isdigit():
            out.append(name[i:i + 2])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def demangle(names):
    if not names:
        return []
    res = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    return res.stdout.splitlines()


def word_rename(pairs):
    def f(ident):
        for a, b in pairs:
            ident = ident.replace(a, b)
        return ident
    return f


HIP_WORDS = word_rename([("CUDA", "HIP"), ("Cuda", "Hip"), ("cuda", "hip")])
MUSA_WORDS = word_rename([("CUDA", "MUSA"), ("Cuda", "Musa"), ("cuda", "musa")])

# torch rows: classification by the demangled CUDA name (reference §3 table).
TORCH_HIP_SHIM = {
    "c10::cuda::getCurrentCUDAStream": "the returned HIPStream carries DeviceType::HIP (6); inline CUDAStream code checks == CUDA: shim flips the type byte as getCurrentHIPStreamMasqueradingAsCUDA does (reference §3)",
    "c10::cuda::getDefaultCUDAStream": "as getCurrentCUDAStream: DeviceType HIP vs CUDA (reference §3)",
    "c10::cuda::getStreamFromPool": "as getCurrentCUDAStream: DeviceType HIP vs CUDA (reference §3)",
    "c10::cuda::setCurrentCUDAStream": "the CUDA-typed stream must be flipped back to HIP before the call (reference §3)",
    "at::cuda::getCurrentDeviceProperties": "returns hipDeviceProp_t*: shim returns a cached CUDA-layout copy (reference §3, §4 row 1)",
}
TORCH_MUSA_UNSUPPORTED = {
    "c10::cuda::getCurrentCUDAStream": "on MUSA the stream's device type is PrivateUse1 (20); inlined CUDA stream checks fail and a rename cannot fix it (reference §3, §4 row 15)",
    "c10::cuda::getDefaultCUDAStream": "PrivateUse1 vs CUDA device type (reference §3)",
    "c10::cuda::getStreamFromPool": "PrivateUse1 vs CUDA device type (reference §3)",
    "c10::cuda::setCurrentCUDAStream": "PrivateUse1 vs CUDA device type (reference §3)",
}
# Unmangled stable-ABI C names (reference does not cover them).
TORCH_C_NAMES = {
    "aoti_torch_device_type_cuda": ("libtorch_cpu.so", "returns the CUDA DeviceType value; defined in torch's generic AOTI shim, so every build has it (defining library inferred: VERIFY)"),
    "aoti_torch_get_current_cuda_stream": ("libtorch_cuda.so", "AOTI CUDA shim (pytorch torch/csrc/inductor/aoti_torch/shim_cuda.cpp, in build_variables.bzl libtorch_cuda_core_sources, which caffe2/CMakeLists.txt builds under if(USE_CUDA OR USE_ROCM)): a ROCm build exports it under the same name (extern \"C\", hipify leaves the identifier), returning the raw hipStream_t of the masquerading current stream"),
    "torch_c10_cuda_check_msg": ("libtorch_cuda.so", "stable-ABI CUDA error check (declared in torch/csrc/stable/c/shim.h under USE_CUDA, torch >= 2.10); the ROCm build keeps the name and calls c10::hip::c10_hip_check_implementation (#ifdef USE_ROCM in its definition), which reads the code as hipError_t"),
    "torch_c10_cuda_free_error_msg": ("libtorch_cuda.so", "frees the message of torch_c10_cuda_check_msg (delete[]); same file and same name in the ROCm build"),
}


def is_torch_cuda(sym):
    return bool(re.match(r"_ZN?K?(N)?(3c104cuda|2at4cuda|2at17CUDAGeneratorImpl)", sym)) or bool(
        re.match(r"_ZNK?(3c104cuda|2at4cuda|2at17CUDAGeneratorImpl)", sym))


def header(target, domain, schema, provenance, date, extra, directives=()):
    lines = [
        f"#% schema: {schema}",
        f"#% target: {target}",
        f"#% domain: {domain}",
        f"#% provenance: {provenance}",
        f"#% date: {date}",
    ] + [f"#% {d}" for d in directives] + [
        "# Generated by relink-tables/tools/gen_relink_tables.py; do not edit by hand (a user",
        "# table given with --relink-table FILE overrides rows instead).",
    ]
    if schema == "wheelport-relink-symbols/1":
        lines += [
            "# Columns (tab-separated; '-' = none):",
            "#   cuda_name       exact ELF symbol name imported by CUDA binaries (mangled for C++)",
            "#   cuda_library    soname that defines it on the CUDA side",
            "#   kind            rename | shim | noop | unsupported",
            "#   target_name     rename: the target symbol; shim/noop: the shim library's symbol,",
            "#                   the CUDA name with its first 'cuda' (else 'cu') replaced by 'wpcu'",
            "#                   (else 'wp'): same length, so the rewrite fits in the original",
            "#                   .dynstr; unsupported: best candidate or '-'",
            "#   target_library  rename: target soname; shim/noop: @shim (wheelport's shim library)",
            "#   via             shim: the target function the shim calls; otherwise '-'",
            "#   notes           why, and what is unverified (VERIFY)",
        ]
    else:
        lines += [
            "# Columns (tab-separated; '-' = none):",
            "#   cuda_soname     DT_NEEDED name on the CUDA side",
            "#   sdk             target SDK major version the row is for ('*' = any)",
            "#   target_soname   replacement DT_NEEDED name (unsupported: candidate or '-')",
            "#   kind            rename | unsupported",
            "#   notes           why, and what is unverified (VERIFY)",
        ]
    lines += ["# " + e for e in extra]
    return "\n".join(lines) + "\n"


def clean(s):
    assert "\t" not in s and "\n" not in s, s
    return s


def write(path, head, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(head)
        for r in rows:
            f.write("\t".join(clean(c) for c in r) + "\n")


def cudart_rows_hip(exports, protos, decl, amap, corpus_cudart, target):
    lib = RUNTIME_LIB[target]
    rows = []
    dtk_note = "; present in DTK's libgalaxyhip.so.5: VERIFY" if target == "dtk" else ""

    def hip_base(name):
        """(hip name, note) for a cudaX base name, or (None, reason)."""
        cand = amap.get(name)
        note = "hip-python-interop map"
        if cand is None:
            cand, note = "hip" + name[4:], "name rule cudaX->hipX (not in hip-python-interop's map)"
        if cand not in decl:
            return None, f"no HIP declaration for {cand} in rocm-bindings-hip"
        cp, hp = protos.get(name), decl[cand]
        if cp is not None and cp != hp:
            direct = "hip" + name[4:]
            if direct != cand and direct in decl and decl[direct] == cp:
                return direct, f"{cand} takes {hp} parameters vs {cp}; {direct} matches"
            return None, f"parameter count differs: {name} {cp}, {cand} {hp}"
        if cp is None:
            note += "; parameter count not checked (no CUDARTAPI prototype)"
        return cand, note

    for sym in exports:
        used = corpus_cudart.get(sym)
        usage = f"; imported by {len(used)} corpus module(s)" if used else ""
        if sym in CUDART_HIP:
            kind, via, note = CUDART_HIP[sym]
        elif HIP_GRAPHICS_RE.match(sym):
            kind, via, note = "unsupported", "-", "graphics/EGL/VDPAU/NvSci interop: out of scope for relinking"
        elif sym.startswith("__cuda"):
            kind, via, note = "unsupported", "-", "internal entry point without a known HIP counterpart"
        else:
            m = re.match(r"^(cuda\w+?)_(ptsz|ptds)$", sym)
            if m:
                base = m.group(1)
                hb, why = hip_base(base)
                if hb and (hb + "_spt") in decl:
                    kind, via, note = "rename", hb + "_spt", f"per-thread default stream: HIP {hb}_spt ({why})"
                elif hb:
                    kind, via, note = "unsupported", "-", f"no {hb}_spt in HIP; a shim could call {hb} with hipStreamPerThread"
                else:
                    kind, via, note = "unsupported", "-", f"per-thread form of {base}: {why}"
            else:
                hb, why = hip_base(sym)
                if hb:
                    kind, via, note = "rename", hb, why
                else:
                    kind, via, note = "unsupported", "-", why
        if kind == "rename" and CODE_GAP_RE.search(sym) and sym != "cudaCreateChannelDesc":
            # the shim's code thunk calls the same HIP function and translates its result
            kind, note = "shim", note + CODE_GAP_NOTE
        if kind == "rename":
            tname, tlib, v = via, lib, "-"
        elif kind in ("shim", "noop"):
            tname, tlib, v = shim_name(sym), SHIM_LIB, via
        else:
            tname, tlib, v = "-", "-", "-"
        verify = kind == "rename" or (kind == "shim" and via != "-")
        rows.append((sym, "libcudart.so.12", kind, tname, tlib, v, note + usage + (dtk_note if verify else "")))
    return rows


def cudart_rows_musa(exports, corpus_cudart):
    lib = RUNTIME_LIB["musa"]
    rows = []
    for sym in exports:
        used = corpus_cudart.get(sym)
        usage = f"; imported by {len(used)} corpus module(s)" if used else ""
        if sym in CUDART_MUSA:
            kind, via, note = CUDART_MUSA[sym]
        elif MUSA_UNSUPPORTED_RE.match(sym):
            kind, via, note = "unsupported", "-", "graphics/EGL/VDPAU/NvSci interop: no MUSA counterpart recorded"
        else:
            via = sym.replace("__cuda", "__musa", 1) if sym.startswith("__cuda") else "musa" + sym[4:]
            kind = "rename"
            note = "MUSA mirrors the CUDA runtime one-for-one with the musa prefix (reference §5, MUSIFY); existence in libmusart.so.4: VERIFY"
        if kind == "rename":
            tname, tlib, v = via, lib, "-"
        elif kind in ("shim", "noop"):
            tname, tlib, v = shim_name(sym), SHIM_LIB, via
        else:
            tname, tlib, v = "-", "-", "-"
        rows.append((sym, "libcudart.so.12", kind, tname, tlib, v, note + usage))
    return rows


def torch_rows(plain):
    syms = sorted(s for s in plain if is_torch_cuda(s))
    cnames = sorted(s for s in plain if s in TORCH_C_NAMES)
    extra = sorted(s for s in plain if not s.startswith("_Z") and "cuda" in s.lower()
                   and not s.startswith(("cuda", "__cuda", "cublas")) and s not in TORCH_C_NAMES)
    if extra:
        sys.exit(f"unclassified unmangled CUDA-related torch imports: {extra}")
    src = demangle(syms)
    rows = {t: [] for t in TARGETS}
    checks = []
    for sym, dem in zip(syms, src):
        n = len(plain[sym])
        usage = f"; imported by {n} corpus module(s)"
        qual = dem.split("(")[0]
        is_c10 = dem.startswith("c10::cuda::")
        cuda_lib = "libc10_cuda.so" if is_c10 else "libtorch_cuda.so"
        obj = "(" not in dem
        # ROCm / DTK: c10::cuda -> c10::hip with CUDA->HIP in identifiers; at:: keeps names.
        if is_c10:
            hip_sym = remangle(sym, HIP_WORDS)
            hip_lib = "libc10_hip.so"
            hip_expect = dem.replace("CUDA", "HIP").replace("cuda", "hip")
        else:
            hip_sym, hip_lib, hip_expect = sym, "libtorch_hip.so", dem
        musa_sym = remangle(sym, MUSA_WORDS)
        musa_lib = "libmusa_python.so" if is_c10 else "libmusa_kernels.so"
        musa_expect = dem.replace("CUDA", "MUSA").replace("cuda", "musa")
        checks.append((hip_sym, hip_expect))
        checks.append((musa_sym, musa_expect))
        key = next((k for k in TORCH_HIP_SHIM if qual.startswith(k)), None)
        for t in ("dtk", "rocm"):
            das = "; DAS torch export: VERIFY" if t == "dtk" else ""
            kind_note = "data object (OBJECT): rename only; " if obj else ""
            if key:
                rows[t].append((sym, cuda_lib, "shim", shim_name(sym), SHIM_LIB, hip_sym, TORCH_HIP_SHIM[key] + f"; target {hip_expect} in {hip_lib}" + usage + das))
            else:
                note = ("c10::cuda -> c10::hip, CUDA -> HIP in identifiers (reference §0.5)" if is_c10
                        else "at::cuda / at::CUDAGeneratorImpl keep their names in libtorch_hip.so (reference §0.5)")
                if "allocator" in qual:
                    note += "; allocate() returns a DataPtr with device HIP (no masquerading)"
                if "BlasHandle" in qual:
                    note += "; returns hipblasHandle_t (older torch: rocblas_handle): only valid with the BLAS shim"
                rows[t].append((sym, cuda_lib, "rename", hip_sym, hip_lib, "-", kind_note + note + f"; {hip_expect}" + usage + das))
        mkey = next((k for k in TORCH_MUSA_UNSUPPORTED if qual.startswith(k)), None)
        if qual.startswith("at::cuda::getCurrentDeviceProperties"):
            rows["musa"].append((sym, cuda_lib, "shim", shim_name(sym), SHIM_LIB, musa_sym,
                                 "returns musaDeviceProp*: its size is unverified, so the shim returns a cached CUDA-layout copy (reference §3, §4 row 1)"
                                 f"; target {musa_expect} in {musa_lib}" + usage))
        elif mkey:
            rows["musa"].append((sym, cuda_lib, "unsupported", musa_sym, musa_lib, "-", TORCH_MUSA_UNSUPPORTED[mkey] + f"; candidate {musa_expect}" + usage))
        else:
            rows["musa"].append((sym, cuda_lib, "rename", musa_sym, musa_lib, "-",
                                 "torch_musa renames CUDA -> MUSA, same-length names (reference §0.5); "
                                 "gated by the DeviceType PrivateUse1 refusal (reference §4 row 15); "
                                 f"{musa_expect}; export: VERIFY" + usage))
    # verify: every target name demangles to the expected text
    got = demangle([c[0] for c in checks])
    for (m, want), have in zip(checks, got):
        if have != want:
            sys.exit(f"remangle check failed: {m} demangles to {have!r}, expected {want!r}")
    for s in cnames:
        lib, note = TORCH_C_NAMES[s]
        usage = f"; imported by {len(plain[s])} corpus module(s)"
        tlib = {"libtorch_cuda.so": "libtorch_hip.so", "libtorch_cpu.so": "libtorch_cpu.so"}[lib]
        for t in ("dtk", "rocm"):
            if s == "aoti_torch_device_type_cuda":
                rows[t].append((s, lib, "rename", s, tlib, "-", note + "; ROCm torch masquerades HIP as CUDA (1)" + usage))
            elif s == "torch_c10_cuda_check_msg":
                rows[t].append((s, lib, "shim", shim_name(s), SHIM_LIB, s, note + ": the shim translates the cudaError_t to hipError_t (shims/hip/tables/errors.tsv) and calls it in " + tlib + usage))
            else:
                rows[t].append((s, lib, "rename", s, tlib, "-", note + usage))
        if s in TORCHADA_ADOPTED:
            tname, tlib, why = TORCHADA_ADOPTED[s]
            rows["musa"].append((s, lib, "rename", tname, tlib, "-", note + "; " + why + usage))
        else:
            rows["musa"].append((s, lib, "unsupported", "-", "-", "-", note + "; torch_musa tensors are PrivateUse1" + usage))
    return rows, len(syms) + len(cnames)


def cublas_rows(plain):
    syms = sorted(s for s in plain if s.startswith("cublas"))
    rows = {t: [] for t in TARGETS}
    for s in syms:
        usage = f"imported by {len(plain[s])} corpus module(s), unversioned and without DT_NEEDED (resolved through libtorch_cuda's dependencies)"
        base = s[len("cublas"):]
        legacy = ""
        if not s.endswith("_v2") and s not in ("cublasHgemm",):
            legacy = "; un-suffixed name: may be the legacy handle-less API (HIPIFY HIP_SUPPORTED_V2_ONLY): check before use"
        hip = "hipblas" + base
        for t in ("dtk", "rocm"):
            lib = "libhipblas.so.2" if t == "rocm" else "libhipblas.so"
            dtk = "; DTK hipBLAS soname VERIFY" if t == "dtk" else ""
            rows[t].append((s, "libcublas.so.12", "shim", shim_name(s), SHIM_LIB, hip,
                            f"cuBLAS enums differ from hipBLAS (OP_N 0 vs 111) and status values differ: translate arguments and status (reference §4 row 4); target {hip} in {lib}; {usage}{legacy}{dtk}"))
        mu = "mublas" + base
        rows["musa"].append((s, "libcublas.so.12", "shim", shim_name(s), SHIM_LIB, mu,
                             f"muBLAS enum values (rocBLAS-like numbering) VERIFY (reference §4 row 4); target {mu} in libmublas.so.1; {usage}{legacy}"))
    return rows, syms


# ---------------------------------------------------------------------------------
# torchada cross-check of the musa rows (issue 17). torchada ports CUDA *source* to
# MUSA by text replacement; its rules are read from the wheel and applied to each
# row's CUDA name (the demangled name for C++ rows, the part before ".so" for
# sonames). The result is compared with the row's MUSA name: the target of a rename,
# the `via` of a shim.
# ---------------------------------------------------------------------------------
TORCHADA_WHEEL = "torchada-0.1.103"
TORCHADA = "torchada@0.1.103"
TORCH_MUSA_GEN_H = "MooreThreads/torch_musa torch_musa/csrc/aten/musa/MUSAGeneratorImpl.h@73c9f5ba"
DEVICE_TYPE_NOTE = (f"kept unsupported: torchada's own device.py maps c10::DeviceType::CUDA -> PrivateUse1 and "
                    f"flashinfer.py .is_cuda() -> .is_privateuseone(), i.e. it fixes the device-type checks in source; "
                    f"a prebuilt binary keeps the inlined CUDA (1) checks, which a rename cannot change (reference §4 row 15)")
# cuda name -> ("resolved" | "verify", evidence). Every disagreement needs one; an entry
# that is no longer a disagreement stops the script too.
TORCHADA_DECISIONS = {
    "cudaGetDeviceProperties_v2": ("resolved", "ours: the nvidia-cuda-runtime-cu12 12.9.79 cuda_runtime_api.h #defines cudaGetDeviceProperties to cudaGetDeviceProperties_v2, so this export is what torchada's exact entry cudaGetDeviceProperties -> musaGetDeviceProperties compiles from; torchada's _v2 name is its substring rule applied to the macro's expansion"),
    "cudaEventCreateFromEGLSync": ("resolved", "ours (unsupported, EGL interop out of scope): torchada has no entry for this function; its name comes from the cudaEventCreate substring rule"),
    "libcudnn.so.9": ("verify", "ours unsupported with candidate libmudnn.so.3 (muDNN's documented API is C++, musa::dnn::Handle); torchada maps cudnn* -> mudnn* (cudnnCreate -> mudnnCreate), and torch_musa's handle code calls mudnnCreate under TORCH_MUSA_USE_MUDNN_C_API, so some muDNN releases have a C API: whether it is cuDNN-shaped (same arguments and enum values) is unverified"),
    "_ZN2at17CUDAGeneratorImpl17philox_cuda_stateEm": ("resolved", f"ours: {TORCH_MUSA_GEN_H} declares struct at::MUSAGeneratorImpl with philox_musa_state(uint64_t); torchada renames only the method (its '->philox_cuda_state' rule) and has no rule for the class name"),
    "_ZN2at4cuda6detail23getDefaultCUDAGeneratorEa": ("resolved", f"ours: {TORCH_MUSA_GEN_H} declares at::musa::detail::getDefaultMUSAGenerator(DeviceIndex); torchada renames only the namespace (at::cuda)"),
    "_ZN3c104cuda20CUDACachingAllocator9allocatorE": ("resolved", "ours: torch_musa's MUSACachingAllocator.h/.cpp open namespace c10::musa::MUSACachingAllocator (torchada's own c10.py maps the header c10/cuda/CUDACachingAllocator.h to c10/musa/MUSACachingAllocator.h); torchada renames only the c10::cuda namespace in code"),
    "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib": ("resolved", "ours: torch_musa's MUSAException.cpp defines c10::musa::c10_musa_check_implementation(int32_t, const char*, const char*, int, bool), which its C10_MUSA_CHECK macro calls (torchada maps C10_CUDA_CHECK -> C10_MUSA_CHECK); torchada renames only the namespace"),
    "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb": ("resolved", "ours, as for the `int line` form above (torch 2.11 made `line` a uint32_t): torch_musa's C10_MUSA_CHECK calls c10::musa::c10_musa_check_implementation; torchada renames only the namespace"),
    "_ZN3c104cuda17getStreamFromPoolEba": ("resolved", DEVICE_TYPE_NOTE),
    "_ZN3c104cuda17getStreamFromPoolEia": ("resolved", DEVICE_TYPE_NOTE),
    "_ZN3c104cuda20getCurrentCUDAStreamEa": ("resolved", DEVICE_TYPE_NOTE),
    "_ZN3c104cuda20getDefaultCUDAStreamEa": ("resolved", DEVICE_TYPE_NOTE),
    "_ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE": ("resolved", DEVICE_TYPE_NOTE),
}
# Rows changed to torchada's name (torchada was right): cuda name -> (target, library, note).
TORCHADA_ADOPTED = {
    "aoti_torch_get_current_cuda_stream": (
        "aoti_torch_get_current_musa_stream", "libmusa_python.so",
        "torch_musa's AOTI shim exports aoti_torch_get_current_musa_stream(int32_t device_index, void** ret_stream) "
        "(AOTI_TORCH_EXPORT; it stores c10::musa::getCurrentMUSAStream(device_index) as a raw musaStream_t) and torchada's "
        "csrc/stable_compat/torchada_stable_box.h forwards the CUDA name to it (\"torch_musa's AOTI C-shim exposes "
        "aoti_torch_get_current_musa_stream, not the upstream _cuda_ spelling\"): same parameters, the stream is returned "
        "as a raw pointer (no DeviceType), so a rename; changed from unsupported after the torchada cross-check; "
        "library (torch_musa's csrc is built into libmusa_python.so) and the torch_musa versions that have it: VERIFY"),
}
# cublas_v2.h (CUDA 12.x, NVIDIA; read through the search index) #defines each of these
# names to <name>_v2: the export a binary imports is the _v2 name, so torchada's entry
# for the plain name is not a name-for-name mapping of an export. (The Blas1/2 names of
# the same header are left out: torchada has no entry for them.)
CUBLAS_V2_MACROS = set("""
cublasCreate cublasDestroy cublasGetVersion cublasSetWorkspace cublasSetStream cublasGetStream
cublasGetPointerMode cublasSetPointerMode cublasSgemm cublasDgemm cublasCgemm cublasZgemm
cublasSsyrk cublasDsyrk cublasCsyrk cublasZsyrk cublasCherk cublasZherk cublasSsyr2k cublasDsyr2k
cublasCsyr2k cublasZsyr2k cublasCher2k cublasZher2k cublasSsymm cublasDsymm cublasCsymm cublasZsymm
cublasChemm cublasZhemm cublasStrsm cublasDtrsm cublasCtrsm cublasZtrsm cublasStrmm cublasDtrmm
cublasCtrmm cublasZtrmm
""".split())
CUBLAS_FN_RE = re.compile(r"^cublas(Lt)?[A-Z][A-Za-z0-9]*$")
DRIVER_FN_RE = re.compile(r"^cu[A-Z][A-Za-z0-9]*$")


def torchada_rules(inputs):
    """torchada's MAPPING_RULE as (key, value) pairs in the order its porting applies
    them: longest key first (sorted() is stable, so ties keep the merge order)."""
    wheel = find_wheel(inputs, TORCHADA_WHEEL)
    with zipfile.ZipFile(wheel) as z:
        init = z.read("torchada/_mappings/__init__.py").decode()
        order = re.findall(r"^\s*\*\*_(\w+)\.MAPPING,", init, re.M)
        if not order:
            sys.exit("torchada: no **_x.MAPPING merge in _mappings/__init__.py")
        merged = {}
        for mod in order:
            tree = ast.parse(z.read(f"torchada/_mappings/{mod}.py").decode())
            m = [ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["MAPPING"]]
            if len(m) != 1:
                sys.exit(f"torchada: _mappings/{mod}.py has no single MAPPING literal")
            for k, v in m[0].items():
                merged[k] = v
    return sorted(merged.items(), key=lambda kv: len(kv[0]), reverse=True), merged


def torchada_port(rules, text, cxx=False):
    """Apply the rules as torchada's porting does. For a demangled C++ name a member
    rule ('->name' -> '->new') also applies to '::name' (the same member)."""
    for k, v in rules:
        if k == v:
            continue
        text = text.replace(k, v)
        if cxx and k.startswith("->") and v.startswith("->"):
            text = text.replace("::" + k[2:], "::" + v[2:])
    return text


def torchada_note(rules, cuda, kind, ours, cxx_pair=None):
    """The cross-check note for one row, and its class (agree, none, resolved, verify)."""
    if cxx_pair:
        src, ours = cxx_pair
        got = torchada_port(rules, src, cxx=True)
    else:
        src = cuda
        got = torchada_port(rules, cuda)
    if got == src:
        if cuda in TORCHADA_DECISIONS:
            sys.exit(f"stale TORCHADA_DECISIONS entry {cuda}: torchada has no entry")
        return f"{TORCHADA}: no entry", "none"
    if kind in ("rename", "shim") and got == ours:
        if cuda in TORCHADA_DECISIONS:
            sys.exit(f"stale TORCHADA_DECISIONS entry {cuda}: torchada agrees")
        return f"{TORCHADA}: agrees", "agree"
    if cuda not in TORCHADA_DECISIONS:
        sys.exit(f"torchada disagreement without a decision: {cuda} ({kind} {ours}), torchada {got}")
    how, why = TORCHADA_DECISIONS[cuda]
    if how == "verify":
        return f"{TORCHADA}: maps it to {got}; VERIFY: ours {ours if kind != 'unsupported' else 'unsupported'}, torchada {got}: {why}", "verify"
    return f"{TORCHADA}: maps it to {got}; resolved: {why}", "resolved"


def crosscheck_symbols(rules, rows, counts):
    """Append the torchada note to each musa symbol row."""
    out = []
    mangled = [r[0] for r in rows if r[0].startswith("_Z")]
    targets = [r[3] if r[2] == "rename" else r[5] if r[2] == "shim" else r[3] for r in rows if r[0].startswith("_Z")]
    dem = dict(zip(mangled, zip(demangle(mangled), demangle([t if t != "-" else "_" for t in targets]))))
    for r in rows:
        cuda, kind = r[0], r[2]
        ours = r[3] if kind in ("rename", "unsupported") else r[5] if kind == "shim" else "-"
        note, cls = torchada_note(rules, cuda, kind, ours, dem.get(cuda))
        counts[cls] += 1
        out.append(r[:6] + (r[6] + "; " + note,))
    return out


def crosscheck_sonames(rules, rows, counts):
    out = []
    for r in rows:
        cuda, kind = r[0], r[3]
        stem = lambda s: s.split(".so")[0]
        note, cls = torchada_note(rules, cuda, kind, stem(r[2]), (stem(cuda), stem(r[2])))
        counts[cls] += 1
        out.append(r[:4] + (r[4] + "; " + note,))
    return out


def torchada_added(rules_map, cuda_h):
    """Rows for torchada entries that map an exported CUDA symbol name for name and
    that the musa tables lack: cuBLAS / cuBLASLt function names (not cublas_v2.h macros)
    and driver functions cuda.h declares under their own name. Returns
    ({file: rows}, {file: [(name, why not added)]})."""
    decl = set(re.findall(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(", cuda_h))
    macro = dict(re.findall(r"^#define\s+(cu[A-Za-z0-9]+)\s+(cu\w+_v\d+)\s*$", cuda_h, re.M))
    add = {"cublas": [], "cublasLt": [], "driver": []}
    skip = {"cublas": [], "cublasLt": [], "driver": []}
    src = f"added from {TORCHADA} (a name-for-name entry of its _mappings for an exported symbol)"
    for k, v in sorted(rules_map.items()):
        if CUBLAS_FN_RE.match(k):
            f = "cublasLt" if k.startswith("cublasLt") else "cublas"
            lib, tlib = ("libcublasLt.so.12", "libmublasLt.so.1") if f == "cublasLt" else ("libcublas.so.12", "libmublas.so.1")
            if k in CUBLAS_V2_MACROS:
                skip[f].append((k, f"cublas_v2.h #defines it to {k}_v2, the name binaries import"))
                continue
            add[f].append((k, lib, "shim", shim_name(k), SHIM_LIB, v,
                           f"{src}; muBLAS status and enum values (rocBLAS-like numbering) VERIFY (reference §4 row 4): "
                           f"a shim that translates them, calling {v} in {tlib}; export in {lib} by this name: cublas_v2.h has no "
                           f"macro for it"))
        elif DRIVER_FN_RE.match(k):
            if k in macro:
                skip["driver"].append((k, f"cuda.h #defines it to {macro[k]}, the name binaries import"))
                continue
            if k not in decl:
                skip["driver"].append((k, "not declared as a function in the nvidia-cuda-runtime-cu12 12.9.79 cuda.h"))
                continue
            add["driver"].append((k, "libcuda.so.1", "rename", v, "libmusa.so.1", "-",
                                  f"{src}; declared in cuda.h 12.9 under this name (no version macro); MUresult numbering, "
                                  f"struct layouts and the export in libmusa.so.1: VERIFY"))
    return add, skip


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inputs", required=True, help="folder with the four pip-downloaded wheels")
    ap.add_argument("--corpus", required=True, help="folder with the corpus wheels")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exports, protos = cudart_inputs(a.inputs, tmp)
        decl, amap = hip_inputs(a.inputs)
        plain, corpus_cudart, modules = corpus_imports(a.corpus, tmp)
    rules, rules_map = torchada_rules(a.inputs)
    cuda_h = member(find_wheel(a.inputs, CUDART_WHEEL), "include/cuda.h")[1].decode("utf-8", "replace")
    rt_h = member(find_wheel(a.inputs, CUDART_WHEEL), "include/cuda_runtime_api.h")[1].decode("utf-8", "replace")
    if not re.search(r"^#define cudaGetDeviceProperties cudaGetDeviceProperties_v2$", rt_h, re.M):
        sys.exit("cuda_runtime_api.h: the cudaGetDeviceProperties -> _v2 macro (a TORCHADA_DECISIONS fact) is gone")
    added, not_added = torchada_added(rules_map, cuda_h)
    tprov = f"{TORCHADA} (PyPI {TORCHADA_WHEEL}-py3-none-any.whl, torchada/_mappings/*.py, {len(rules)} rules)"

    def cross(counts):
        c = collections.Counter(counts)
        return (f"crosscheck: {tprov}: {c['agree']} agree, {c['none']} no entry, "
                f"{c['resolved'] + c['verify']} differ ({c['resolved']} resolved, {c['verify']} VERIFY)")

    def skipped(f):
        return [f"torchada-not-added: {n}: {why}" for n, why in not_added.get(f, [])]
    missing = sorted(set(corpus_cudart) - set(exports))
    if missing:
        sys.exit(f"corpus imports not exported by libcudart 12.9.79: {missing}")
    corpus_prov = ", ".join(CORPUS_PREFIXES) + f" ({len(modules)} .so modules, nm -D --undefined-only)"
    summary = {}
    for t in TARGETS:
        if t == "musa":
            counts = collections.Counter()
            rows = crosscheck_symbols(rules, cudart_rows_musa(exports, corpus_cudart), counts)
            prov = f"nvidia-cuda-runtime-cu12 12.9.79 (PyPI; nm -D --defined-only on libcudart.so.12: {len(exports)} exports); musa names by the prefix rule of reference §5"
        else:
            rows = cudart_rows_hip(exports, protos, decl, amap, corpus_cudart, t)
            prov = (f"nvidia-cuda-runtime-cu12 12.9.79 (PyPI; nm -D --defined-only on libcudart.so.12: {len(exports)} exports; "
                    f"parameter counts from its headers); hip-python-interop 10.0.0.0.1.2 (PyPI, AMD: cudaX->hipX name pairs); "
                    f"rocm-bindings-hip 10.0.0.0.1.2 (PyPI, AMD: declared HIP functions); ABI exceptions from shared/reference/relink-tables.md §3-§4")
        extra = [f"target runtime library: {RUNTIME_LIB[t]}; rows: one per libcudart.so.12 12.9.79 export, sorted by name"]
        write(os.path.join(a.out, t, "cudart12.tsv"),
              header(t, "libcudart.so.12", "wheelport-relink-symbols/1", prov, a.date, extra,
                     [cross(counts)] if t == "musa" else []), rows)
        summary[(t, "cudart12")] = collections.Counter(r[2] for r in rows)
    trows, ntorch = torch_rows(plain)
    crows, csyms = cublas_rows(plain)
    musa_counts = {}
    for f, rows in (("torch", trows), ("cublas", crows)):
        musa_counts[f] = collections.Counter()
        have = {r[0] for r in rows["musa"]}
        added[f] = [r for r in added.get(f, []) if r[0] not in have]
        rows["musa"] = crosscheck_symbols(rules, sorted(rows["musa"] + added.get(f, [])), musa_counts[f])
    for t in TARGETS:
        mdir = (lambda f: [cross(musa_counts[f])] + skipped(f)) if t == "musa" else (lambda f: [])
        style = ("torch_musa: c10::musa in libmusa_python.so, at::musa in libmusa_kernels.so" if t == "musa"
                 else "ROCm-style PyTorch: c10::hip in libc10_hip.so, at::cuda kept in libtorch_hip.so")
        write(os.path.join(a.out, t, "torch.tsv"),
              header(t, "torch", "wheelport-relink-symbols/1",
                     f"imports of {corpus_prov}; target names computed by remangle() in this script and checked with c++filt; naming rules from shared/reference/relink-tables.md §0.5, §3; stable-ABI C names in ROCm builds: pytorch/pytorch torch/csrc/inductor/aoti_torch/shim_cuda.cpp@199ba7d7, torch/csrc/stable/c/shim.h@7da82b84, caffe2/CMakeLists.txt@a9bce336 (read through the search index, 2026-11-29)",
                     a.date, [style, "C++ rows are valid for the torch versions the corpus wheels were built against; mangled names drift between torch minor versions"],
                     mdir("torch")),
              trows[t])
        summary[(t, "torch")] = collections.Counter(r[2] for r in trows[t])
        write(os.path.join(a.out, t, "cublas.tsv"),
              header(t, "libcublas.so.12", "wheelport-relink-symbols/1",
                     f"cuBLAS imports of {corpus_prov}; enum facts from shared/reference/relink-tables.md §4 row 4"
                     + (f"; added rows: {TORCHADA} name-for-name entries, cublas_v2.h (CUDA 12.x, read through the search index) for which names are macros" if t == "musa" else ""),
                     a.date, [], mdir("cublas")),
              crows[t])
        summary[(t, "cublas")] = collections.Counter(r[2] for r in crows[t])
        srows = SONAMES[t]
        sdir = []
        if t == "musa":
            sc = collections.Counter()
            srows = crosscheck_sonames(rules, srows, sc)
            sdir = [cross(sc) + "; a soname is compared by its part before '.so' (torchada maps names, not versions)"]
        write(os.path.join(a.out, t, "sonames.tsv"),
              header(t, "sonames", "wheelport-relink-sonames/1",
                     "shared/reference/relink-tables.md §0 and §2 (ROCm 6.2.1 torch ldd, ZLUDA's soname lists, torch_musa CMake, DTK and MUSA public scripts)",
                     a.date, [], sdir),
              srows)
        summary[(t, "sonames")] = collections.Counter(r[3] for r in srows)
    for f, domain, prov in (
            ("cublasLt", "libcublasLt.so.12", f"{TORCHADA} name-for-name entries of its cublas.py _mappings for cuBLASLt functions (cublasLt.h has no version macros)"),
            ("driver", "libcuda.so.1", f"{TORCHADA} name-for-name entries of its cuda_driver.py _mappings for driver functions that the nvidia-cuda-runtime-cu12 12.9.79 cuda.h declares under their own name")):
        c = collections.Counter()
        rows = crosscheck_symbols(rules, added[f], c)
        write(os.path.join(a.out, "musa", f + ".tsv"),
              header("musa", domain, "wheelport-relink-symbols/1", prov, a.date,
                     ["musa only: the rows torchada gives and the other targets' tables do not have"], [cross(c)] + skipped(f)),
              rows)
        summary[("musa", f)] = collections.Counter(r[2] for r in rows)
    for (t, d), c in sorted(summary.items()):
        print(f"{t:5} {d:9} {sum(c.values()):4}  " + " ".join(f"{k}={v}" for k, v in sorted(c.items())))
    print(f"corpus: {len(modules)} modules; libcudart imports {len(corpus_cudart)}; torch rows {ntorch}; cublas {csyms}")


if __name__ == "__main__":
    main()
