//! Compiles `src/printf.c`, which exposes the shim library's device printf formatter
//! (`shims/hip/wp_printf.h`) to [`amdgpu_exec::printf`]: the runner prints the records of a
//! code object's `__wp_printf_fifo` with the same C code the converted wheel's shim runs.

fn main() {
    let hip = std::path::Path::new("../../shims/hip");
    println!("cargo:rerun-if-changed=src/printf.c");
    println!(
        "cargo:rerun-if-changed={}",
        hip.join("wp_printf.h").display()
    );
    cc::Build::new()
        .file("src/printf.c")
        .include(hip)
        .warnings(true)
        .compile("amdgpu_exec_printf");
}
