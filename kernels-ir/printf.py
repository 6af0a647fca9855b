"""Device printf on amdgcn: CUDA's `vprintf(fmt, args)`, imported by gen.py.

CUDA's device printf (CUDA C++ Programming Guide, "Formatted Output") writes its output into
a FIFO in device memory that the host prints at synchronisation points; `printf` returns the
number of arguments it parsed, -1 for a null format. The PTX a CUDA compiler writes calls

    call.uni (retval0), vprintf, (param0, param1);   // .b64 format, .b64 argument buffer

where the argument buffer holds the arguments in order, each at the next multiple of its size
(4: int, unsigned, char and short promoted; 8: long, long long, size_t, pointers, and double,
to which float is promoted). This is wheelport's implementation on amdgcn; nvptx keeps the
real vprintf. The lowering calls

    i32 @__wp_vprintf(i64 %fmt, i64 %args)     generic addresses; returns the argument count

and defines, in every module that calls it, the FIFO (src/lower/module.rs):

    @__wp_printf_fifo = addrspace(1) externally_initialized global [FIFO_BYTES x i8]

    bytes  0..8    bytes of records reserved so far (atomic add; no record reaches past the end)
    bytes  8..16   records dropped because the FIFO was full
    bytes 16..     records, back to back, each a multiple of 8 bytes:

        u32  size of the record in bytes, written last (0: not complete yet)
        u32  number of argument slots
        the format string with its NUL, padded to a multiple of 8
        one u64 slot per argument the format consumes, in order (`*` widths and precisions
            included): the argument's 4 or 8 bytes, zero-extended
        the bytes of each `%s` argument with its NUL, in order (a null pointer: an empty
            string; its slot stays 0), padded to a multiple of 8

Records are self-contained: the host reads them with one copy, without reading device memory
again. shims/hip/wp_printf.h (used by the shim library and by tools/amdgpu-exec's runner)
prints them. The conversion grammar both sides walk: `%`, flags `-+ #0`, a width (digits or
`*`), a precision (`.` then digits or `*`), length modifiers (`h`/`hh`: 4 bytes; `l`, `ll`,
`L`, `q`, `j`, `z`, `t`: 8 bytes), then the conversion: `diouxXc` an integer of the length's
size, `fFeEgGaA` a double, `s` a string, `p` and `n` a pointer; `%` and any other character
take no argument.
"""

# The FIFO's size in bytes (header included); shims/hip/wp_printf.h and src/lower/module.rs
# hold the same number (tests/kernels_ir.rs checks).
FIFO_BYTES = 1 << 20
HEADER = 16

ATTR = "alwaysinline nounwind"


def skip_digits(label, done, k):
    """IR blocks `label`/`label_next` of __wp_printf_walk: step the format index past decimal
    digits, then branch to `done` (value names numbered `k`)."""
    return f"""{label}:
  %i{k} = load i64, ptr addrspace(5) %ip, align 8
  %c{k}p = getelementptr i8, ptr %fmt, i64 %i{k}
  %c{k} = load i8, ptr %c{k}p, align 1
  %d{k} = sub i8 %c{k}, 48
  %isd{k} = icmp ult i8 %d{k}, 10
  br i1 %isd{k}, label %{label}_next, label %{done}
{label}_next:
  %i{k}n = add i64 %i{k}, 1
  store i64 %i{k}n, ptr addrspace(5) %ip, align 8
  br label %{label}
"""


def amdgcn_section():
    cap = FIFO_BYTES - HEADER
    return f"""; ---- device printf (kernels-ir/printf.py) ----
@__wp_printf_fifo = external addrspace(1) global [{FIFO_BYTES} x i8], align 16
; The next argument of `size` (4 or 8) bytes at the next multiple of its size in the argument
; buffer: its value, zero-extended; stored in slot *%np of %slots unless %slots is null.
define linkonce_odr i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 %size) {ATTR} {{
entry:
  %a = load i64, ptr addrspace(5) %ap, align 8
  %m = sub i64 %size, 1
  %a1 = add i64 %a, %m
  %nm = xor i64 %m, -1
  %al = and i64 %a1, %nm
  %p = getelementptr i8, ptr %args, i64 %al
  %is8 = icmp eq i64 %size, 8
  br i1 %is8, label %l8, label %l4
l8:
  %v8 = load i64, ptr %p, align 4
  br label %join
l4:
  %v4 = load i32, ptr %p, align 4
  %v4z = zext i32 %v4 to i64
  br label %join
join:
  %v = phi i64 [ %v8, %l8 ], [ %v4z, %l4 ]
  %a2 = add i64 %al, %size
  store i64 %a2, ptr addrspace(5) %ap, align 8
  %n = load i32, ptr addrspace(5) %np, align 4
  %w = icmp ne ptr addrspace(1) %slots, null
  br i1 %w, label %st, label %fin
st:
  %sp = getelementptr i64, ptr addrspace(1) %slots, i32 %n
  store i64 %v, ptr addrspace(1) %sp, align 8
  br label %fin
fin:
  %n1 = add i32 %n, 1
  store i32 %n1, ptr addrspace(5) %np, align 4
  ret i64 %v
}}
; The bytes of the string at generic address %sv with its NUL (none: an empty string), counted
; in *%sp and, when %write, stored at %strs + *%sp while *%sp < %limit.
define linkonce_odr void @__wp_printf_str(i64 %sv, ptr addrspace(5) %sp, ptr addrspace(1) %strs, i1 %write, i64 %limit) {ATTR} {{
entry:
  %s = inttoptr i64 %sv to ptr
  %null = icmp eq i64 %sv, 0
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %next ]
  br i1 %null, label %have, label %ld
ld:
  %cp = getelementptr i8, ptr %s, i64 %k
  %cl = load i8, ptr %cp, align 1
  br label %have
have:
  %c = phi i8 [ 0, %loop ], [ %cl, %ld ]
  %o = load i64, ptr addrspace(5) %sp, align 8
  %room = icmp ult i64 %o, %limit
  %doit = and i1 %write, %room
  br i1 %doit, label %put, label %next
put:
  %dp = getelementptr i8, ptr addrspace(1) %strs, i64 %o
  store i8 %c, ptr addrspace(1) %dp, align 1
  br label %next
next:
  %o1 = add i64 %o, 1
  store i64 %o1, ptr addrspace(5) %sp, align 8
  %k1 = add i64 %k, 1
  %end = icmp eq i8 %c, 0
  br i1 %end, label %out, label %loop
out:
  ret void
}}
; One walk of the format (the grammar in kernels-ir/printf.py): {{ argument slots, format bytes
; with the NUL, string bytes }}. With %slots null it only measures; otherwise it stores the
; slots at %slots and the strings at %strs (at most %slimit bytes).
define linkonce_odr {{ i32, i64, i64 }} @__wp_printf_walk(ptr %fmt, ptr %args, ptr addrspace(1) %slots, ptr addrspace(1) %strs, i64 %slimit) {ATTR} {{
entry:
  %ip = alloca i64, align 8, addrspace(5)
  %ap = alloca i64, align 8, addrspace(5)
  %np = alloca i32, align 4, addrspace(5)
  %sp = alloca i64, align 8, addrspace(5)
  %lp = alloca i1, align 1, addrspace(5)
  store i64 0, ptr addrspace(5) %ip, align 8
  store i64 0, ptr addrspace(5) %ap, align 8
  store i32 0, ptr addrspace(5) %np, align 4
  store i64 0, ptr addrspace(5) %sp, align 8
  %write = icmp ne ptr addrspace(1) %slots, null
  br label %text
text:
  %i0 = load i64, ptr addrspace(5) %ip, align 8
  %c0p = getelementptr i8, ptr %fmt, i64 %i0
  %c0 = load i8, ptr %c0p, align 1
  %end0 = icmp eq i8 %c0, 0
  br i1 %end0, label %done, label %text1
text1:
  %i0n = add i64 %i0, 1
  store i64 %i0n, ptr addrspace(5) %ip, align 8
  %pct = icmp eq i8 %c0, 37
  br i1 %pct, label %flags, label %text
flags:
  %i1 = load i64, ptr addrspace(5) %ip, align 8
  %c1p = getelementptr i8, ptr %fmt, i64 %i1
  %c1 = load i8, ptr %c1p, align 1
  switch i8 %c1, label %width [
    i8 45, label %flag_next
    i8 43, label %flag_next
    i8 32, label %flag_next
    i8 35, label %flag_next
    i8 48, label %flag_next
  ]
flag_next:
  %i1n = add i64 %i1, 1
  store i64 %i1n, ptr addrspace(5) %ip, align 8
  br label %flags
width:
  %wstar = icmp eq i8 %c1, 42
  br i1 %wstar, label %wstar_arg, label %wdig
wstar_arg:
  %wv = call i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 4)
  %i2 = load i64, ptr addrspace(5) %ip, align 8
  %i2n = add i64 %i2, 1
  store i64 %i2n, ptr addrspace(5) %ip, align 8
  br label %prec
{skip_digits("wdig", "prec", 3)}prec:
  %i4 = load i64, ptr addrspace(5) %ip, align 8
  %c4p = getelementptr i8, ptr %fmt, i64 %i4
  %c4 = load i8, ptr %c4p, align 1
  %dot = icmp eq i8 %c4, 46
  br i1 %dot, label %prec1, label %len_init
prec1:
  %i4n = add i64 %i4, 1
  store i64 %i4n, ptr addrspace(5) %ip, align 8
  %c5p = getelementptr i8, ptr %fmt, i64 %i4n
  %c5 = load i8, ptr %c5p, align 1
  %pstar = icmp eq i8 %c5, 42
  br i1 %pstar, label %pstar_arg, label %pdig
pstar_arg:
  %pv = call i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 4)
  %i5n = add i64 %i4n, 1
  store i64 %i5n, ptr addrspace(5) %ip, align 8
  br label %len_init
{skip_digits("pdig", "len_init", 6)}len_init:
  store i1 false, ptr addrspace(5) %lp, align 1
  br label %len
len:
  %i7 = load i64, ptr addrspace(5) %ip, align 8
  %c7p = getelementptr i8, ptr %fmt, i64 %i7
  %c7 = load i8, ptr %c7p, align 1
  %i7n = add i64 %i7, 1
  switch i8 %c7, label %conv [
    i8 104, label %len_next
    i8 108, label %len_long
    i8 76, label %len_long
    i8 113, label %len_long
    i8 106, label %len_long
    i8 122, label %len_long
    i8 116, label %len_long
  ]
len_long:
  store i1 true, ptr addrspace(5) %lp, align 1
  br label %len_next
len_next:
  store i64 %i7n, ptr addrspace(5) %ip, align 8
  br label %len
conv:
  %end1 = icmp eq i8 %c7, 0
  br i1 %end1, label %done, label %conv1
conv1:
  store i64 %i7n, ptr addrspace(5) %ip, align 8
  %long = load i1, ptr addrspace(5) %lp, align 1
  %isz = select i1 %long, i64 8, i64 4
  switch i8 %c7, label %text [
    i8 100, label %int
    i8 105, label %int
    i8 111, label %int
    i8 117, label %int
    i8 120, label %int
    i8 88, label %int
    i8 99, label %int
    i8 102, label %wide
    i8 70, label %wide
    i8 101, label %wide
    i8 69, label %wide
    i8 103, label %wide
    i8 71, label %wide
    i8 97, label %wide
    i8 65, label %wide
    i8 112, label %wide
    i8 110, label %wide
    i8 115, label %str
  ]
int:
  %iv = call i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 %isz)
  br label %text
wide:
  %dv = call i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 8)
  br label %text
str:
  %sv = call i64 @__wp_printf_arg(ptr %args, ptr addrspace(5) %ap, ptr addrspace(5) %np, ptr addrspace(1) %slots, i64 8)
  call void @__wp_printf_str(i64 %sv, ptr addrspace(5) %sp, ptr addrspace(1) %strs, i1 %write, i64 %slimit)
  br label %text
done:
  %fi = load i64, ptr addrspace(5) %ip, align 8
  %flen = add i64 %fi, 1
  %n = load i32, ptr addrspace(5) %np, align 4
  %sb = load i64, ptr addrspace(5) %sp, align 8
  %r0 = insertvalue {{ i32, i64, i64 }} poison, i32 %n, 0
  %r1 = insertvalue {{ i32, i64, i64 }} %r0, i64 %flen, 1
  %r2 = insertvalue {{ i32, i64, i64 }} %r1, i64 %sb, 2
  ret {{ i32, i64, i64 }} %r2
}}
; vprintf(format, arguments): one record in @__wp_printf_fifo (layout in kernels-ir/printf.py);
; returns the number of arguments (-1 for a null format). A record that does not fit is
; counted in the header's dropped count.
define linkonce_odr i32 @__wp_vprintf(i64 %fmt, i64 %args) nounwind {{
entry:
  %nofmt = icmp eq i64 %fmt, 0
  br i1 %nofmt, label %null, label %go
null:
  ret i32 -1
go:
  %f = inttoptr i64 %fmt to ptr
  %a = inttoptr i64 %args to ptr
  %m = call {{ i32, i64, i64 }} @__wp_printf_walk(ptr %f, ptr %a, ptr addrspace(1) null, ptr addrspace(1) null, i64 -1)
  %n = extractvalue {{ i32, i64, i64 }} %m, 0
  %flen = extractvalue {{ i32, i64, i64 }} %m, 1
  %slen = extractvalue {{ i32, i64, i64 }} %m, 2
  %flen7 = add i64 %flen, 7
  %flen8 = and i64 %flen7, -8
  %slen7 = add i64 %slen, 7
  %slen8 = and i64 %slen7, -8
  %n64 = zext i32 %n to i64
  %slotb = shl i64 %n64, 3
  %so = add i64 %flen8, 8
  %to = add i64 %so, %slotb
  %size = add i64 %to, %slen8
  %off = atomicrmw add ptr addrspace(1) @__wp_printf_fifo, i64 %size syncscope("agent") monotonic, align 8
  %endo = add i64 %off, %size
  %fits = icmp ule i64 %endo, {cap}
  br i1 %fits, label %write, label %drop
drop:
  %dcp = getelementptr i8, ptr addrspace(1) @__wp_printf_fifo, i64 8
  %dold = atomicrmw add ptr addrspace(1) %dcp, i64 1 syncscope("agent") monotonic, align 8
  ret i32 %n
write:
  %o16 = add i64 %off, {HEADER}
  %rec = getelementptr i8, ptr addrspace(1) @__wp_printf_fifo, i64 %o16
  br label %copy
copy:
  %k = phi i64 [ 0, %write ], [ %k1, %copy ]
  %fp = getelementptr i8, ptr %f, i64 %k
  %c = load i8, ptr %fp, align 1
  %k8 = add i64 %k, 8
  %rp = getelementptr i8, ptr addrspace(1) %rec, i64 %k8
  store i8 %c, ptr addrspace(1) %rp, align 1
  %k1 = add i64 %k, 1
  %more = icmp ult i64 %k1, %flen
  br i1 %more, label %copy, label %fill
fill:
  %slots = getelementptr i8, ptr addrspace(1) %rec, i64 %so
  %strs = getelementptr i8, ptr addrspace(1) %rec, i64 %to
  %m2 = call {{ i32, i64, i64 }} @__wp_printf_walk(ptr %f, ptr %a, ptr addrspace(1) %slots, ptr addrspace(1) %strs, i64 %slen)
  %np = getelementptr i8, ptr addrspace(1) %rec, i64 4
  store i32 %n, ptr addrspace(1) %np, align 4
  %sz = trunc i64 %size to i32
  store atomic i32 %sz, ptr addrspace(1) %rec syncscope("agent") release, align 8
  ret i32 %n
}}
; ---- end device printf ----
"""
