#!/usr/bin/env python3
"""Probe `vmad` (PTX ISA 9.x §9.7.18.1) on an NVIDIA GPU through the driver's PTX JIT.

Stdlib + libcuda.so.1 only (no toolkit): builds one sm_90 PTX kernel with 290 vmad forms (every
type triple x .sat x {none, .shr7, .shr15} x {no negation, -a, -b, -a -b, -c, .po}, and two with
selectors), runs it on 1014 (a, b, c) triples crossing the u32 edge values (1280 threads, the
rest zero), and writes $OUT/ins.txt (the instructions, %r1 = a, %r2 = b, %r3 = c) and
$OUT/out.bin (u32 little-endian, word [thread*K + j] = instruction j on triple `thread`). The
triples are X below, in order. Prints the CUDA driver return codes (all 0 on success).

Run on the device (`run` tool): python3 tools/gpu/vmad_probe.py. On the H200 (2026-11-29) every
word equalled the model of tests/wave64_video.rs (`vmad`) and src/lower/emit/video.rs (`Fx::vmad`).
This is the driver JIT; the fixture video_fixtures.so (kernel v_vmad) checks offline ptxas.
"""
import ctypes as C,itertools as I,struct,os
Z=C.c_size_t
T=['u32','s32'];L=[]
for d,a,b in I.product(T,T,T):
 for s in['','.sat']:
  for c in['','.shr7','.shr15']:
   for n in['   ','-  ',' - ','-- ','  -']:L.append(f'vmad.{d}.{a}.{b}{s}{c} %r4, {n[0]}%r1, {n[1]}%r2, {n[2]}%r3;')
   L.append(f'vmad.{d}.{a}.{b}.po{s}{c} %r4, %r1, %r2, %r3;')
L+=['vmad.s32.u32.s32.sat %r4, -%r1.h0, %r2.b2, %r3;','vmad.u32.s32.s32.sat.shr7 %r4, %r1.h1, %r2.b1, -%r3;']
K=len(L);E=[0,1,2,127,128,255,32767,32768,65535,2**31-1,2**31,2**32-1,0xdeadbeef]
X=[(a,b,c) for a in E for b in E for c in[0,1,2**31-1,2**31,2**32-1,0x1234]];N=1280;X+=[(0,0,0)]*(N-len(X))
P='.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p,.param .u64 q){.reg .b32 %r<7>;.reg .b64 %rd<6>;mov.u32 %r5,%tid.x;mov.u32 %r6,%ctaid.x;mad.lo.u32 %r5,%r6,256,%r5;mul.wide.u32 %rd1,%r5,12;ld.param.u64 %rd2,[p];add.s64 %rd2,%rd2,%rd1;ld.global.u32 %r1,[%rd2];ld.global.u32 %r2,[%rd2+4];ld.global.u32 %r3,[%rd2+8];mul.wide.u32 %rd3,%r5,'+str(4*K)+';ld.param.u64 %rd4,[q];add.s64 %rd4,%rd4,%rd3;\n'
P+=''.join(f'{s}\nst.global.u32 [%rd4+{4*j}],%r4;\n' for j,s in enumerate(L))+'ret;}\n'
o=os.environ['OUT'];open(o+'/ins.txt','w').write('\n'.join(L))
D=C.CDLL('libcuda.so.1');v=C.c_void_p;u=C.c_uint64;r=[]
r+=[D.cuInit(0)];dev=C.c_int();r+=[D.cuDeviceGet(C.byref(dev),0)];cx=v();r+=[D.cuDevicePrimaryCtxRetain(C.byref(cx),dev),D.cuCtxSetCurrent(cx)]
m=v();r+=[D.cuModuleLoadData(C.byref(m),C.c_char_p(P.encode()))];f=v();r+=[D.cuModuleGetFunction(C.byref(f),m,b'k')]
ib=struct.pack(f'<{3*N}I',*[x for t in X for x in t]);pi=u();po=u();r+=[D.cuMemAlloc_v2(C.byref(pi),Z(len(ib))),D.cuMemAlloc_v2(C.byref(po),Z(4*K*N)),D.cuMemcpyHtoD_v2(pi,ib,Z(len(ib)))]
A=(v*2)(C.cast(C.byref(pi),v),C.cast(C.byref(po),v));r+=[D.cuLaunchKernel(f,N//256,1,1,256,1,1,0,None,A,None),D.cuCtxSynchronize()]
ob=C.create_string_buffer(4*K*N);r+=[D.cuMemcpyDtoH_v2(ob,po,Z(4*K*N))];open(o+'/out.bin','wb').write(ob.raw);print(r)
