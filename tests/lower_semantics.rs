//! The target-independent part of the device support library (bfe, bfi, bfind, prmt, ftz;
//! the "portable" section of kernels-ir/*.ll) executed on the host with `lli-19`, against the
//! PTX ISA 9.x pseudo-code of each instruction (§9.7.1.14 bfe, §9.7.1.15 bfi, §9.7.1.16 bfind,
//! §9.7.9.17 prmt) transcribed below, on a grid of edge-case inputs.

#[path = "lower_common.rs"]
mod lower_common;

use std::fmt::Write;
use std::process::Command;

use lower_common::*;

/// PTX ISA bfe pseudo-code.
fn bfe(a: u64, b: u32, c: u32, w: u32, signed: bool) -> u64 {
    let msb = w - 1;
    let pos = b & 0xff;
    let len = c & 0xff;
    let bit = |i: u32| (a >> i) & 1;
    let sbit = if !signed || len == 0 {
        0
    } else {
        bit((pos + len - 1).min(msb))
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let v = if i < len && pos + i <= msb {
            bit(pos + i)
        } else {
            sbit
        };
        d |= v << i;
    }
    d
}

/// PTX ISA bfi pseudo-code.
fn bfi(a: u64, b: u64, c: u32, d: u32, w: u32) -> u64 {
    let msb = w - 1;
    let pos = c & 0xff;
    let len = d & 0xff;
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

/// PTX ISA bfind pseudo-code (without .shiftamt).
fn bfind(a: u64, w: u32, signed: bool) -> u32 {
    let msb = w - 1;
    let neg = signed && (a >> msb) & 1 == 1;
    let x = if neg { !a } else { a };
    let x = if w == 32 { x & 0xffff_ffff } else { x };
    for i in (0..=msb).rev() {
        if (x >> i) & 1 == 1 {
            return i;
        }
    }
    0xffff_ffff
}

/// PTX ISA prmt pseudo-code, default mode.
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let tmp = ((b as u64) << 32) | a as u64;
    let mut d = 0u32;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = ((tmp >> ((sel & 7) * 8)) & 0xff) as u32;
        let v = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d |= v << (8 * i);
    }
    d
}

#[test]
fn portable_library_matches_the_isa_pseudocode() {
    let Some(lli) = llvm19("lli") else { return };
    let lib = std::fs::read_to_string(root().join("kernels-ir/amdgcn.ll")).unwrap();
    let nv = std::fs::read_to_string(root().join("kernels-ir/nvptx.ll")).unwrap();
    let section = |s: &str| -> String {
        let a = s.find("; ---- portable").unwrap();
        let b = s.find("; ---- end portable").unwrap();
        s[a..b].to_string()
    };
    let portable = section(&lib);
    assert_eq!(portable, section(&nv), "portable sections differ");
    let vals32: [u64; 6] = [0, 1, 0x8000_0000, 0xdead_beef, 0xffff_ffff, 0x1234_5678];
    let vals64: [u64; 4] = [0, 0x8000_0000_0000_0000, 0xdead_beef_0123_4567, u64::MAX];
    let pos: [u32; 8] = [0, 1, 7, 31, 32, 63, 64, 300];
    let lens: [u32; 7] = [0, 1, 8, 31, 32, 64, 257];
    let mut main = String::new();
    let mut want = String::new();
    let mut n = 0;
    let mut line = |call: String, ty: &str, expect: u64, main: &mut String| {
        n += 1;
        let _ = writeln!(main, "  %v{n} = call {ty} {call}");
        let v = if ty == "i32" {
            let _ = writeln!(main, "  %x{n} = zext i32 %v{n} to i64");
            format!("%x{n}")
        } else {
            format!("%v{n}")
        };
        let _ = writeln!(main, "  call i32 (ptr, ...) @printf(ptr @fmt, i64 {v})");
        let _ = writeln!(want, "{expect:x}");
    };
    for &a in &vals32 {
        for &p in &pos {
            for &l in &lens {
                for s in [false, true] {
                    let f = if s { "s" } else { "u" };
                    line(
                        format!("@__wp_bfe_{f}32(i32 {}, i32 {p}, i32 {l})", a as u32 as i32),
                        "i32",
                        bfe(a, p, l, 32, s) & 0xffff_ffff,
                        &mut main,
                    );
                }
                line(
                    format!(
                        "@__wp_bfi_b32(i32 {}, i32 {}, i32 {p}, i32 {l})",
                        a as u32 as i32, 0x5555_5555u32 as i32
                    ),
                    "i32",
                    bfi(a, 0x5555_5555, p, l, 32),
                    &mut main,
                );
            }
        }
        for s in [false, true] {
            let f = if s { "s" } else { "u" };
            line(
                format!("@__wp_bfind_{f}32(i32 {})", a as u32 as i32),
                "i32",
                bfind(a, 32, s) as u64,
                &mut main,
            );
        }
        for &c in &[0x3210u32, 0x7654, 0x0000, 0x8888, 0xf1e2, 0x4567] {
            line(
                format!(
                    "@__wp_prmt(i32 {}, i32 {}, i32 {c})",
                    a as u32 as i32, 0x89ab_cdefu32 as i32
                ),
                "i32",
                prmt(a as u32, 0x89ab_cdef, c) as u64,
                &mut main,
            );
        }
    }
    for &a in &vals64 {
        for &p in &pos {
            for &l in &lens {
                for s in [false, true] {
                    let f = if s { "s" } else { "u" };
                    line(
                        format!("@__wp_bfe_{f}64(i64 {}, i32 {p}, i32 {l})", a as i64),
                        "i64",
                        bfe(a, p, l, 64, s),
                        &mut main,
                    );
                }
                line(
                    format!(
                        "@__wp_bfi_b64(i64 {}, i64 12345, i32 {p}, i32 {l})",
                        a as i64
                    ),
                    "i64",
                    bfi(a, 12345, p, l, 64),
                    &mut main,
                );
            }
        }
        for s in [false, true] {
            let f = if s { "s" } else { "u" };
            line(
                format!("@__wp_bfind_{f}64(i64 {})", a as i64),
                "i64",
                bfind(a, 64, s) as u64,
                &mut main,
            );
        }
    }
    let module = format!(
        "{portable}\n\
         declare float @llvm.fabs.f32(float)\n\
         declare float @llvm.copysign.f32(float, float)\n\
         declare i32 @llvm.umin.i32(i32, i32)\n\
         declare i32 @llvm.ctlz.i32(i32, i1)\n\
         declare i64 @llvm.ctlz.i64(i64, i1)\n\
         declare i32 @printf(ptr, ...)\n\
         @fmt = private constant [6 x i8] c\"%lx\\0A\\00\\00\"\n\
         define i32 @main() {{\n{main}  ret i32 0\n}}\n"
    );
    let dir = scratch("lower-semantics");
    let f = dir.join("portable.ll");
    std::fs::write(&f, module).unwrap();
    let got = tool(Command::new(lli).arg(&f)).unwrap();
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    assert_eq!(g.len(), w.len());
    let bad: Vec<String> = g
        .iter()
        .zip(&w)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(k, (a, b))| format!("case {}: lli {a} != ISA {b}", k + 1))
        .take(20)
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    eprintln!("{} cases agree with the PTX ISA pseudo-code", g.len());
}
