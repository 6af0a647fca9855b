/* The shim library's device printf formatter (shims/hip/wp_printf.h), exported for the Rust
 * side of amdgpu-exec (src/printf.rs). */
#include "wp_printf.h"

size_t amdgpu_exec_printf_records(const unsigned char *data, size_t used, wp_printf_emit_fn emit,
                                  void *ctx) {
    return wp_printf_records(data, used, emit, ctx);
}
