// Host simulator of 64-lane wavefronts for tests/wave64_exec.rs (docs/warp-model.md).
//
// The lowered amdgcn kernels (turned into host IR) and the wave64 warp model section of
// kernels-ir/amdgcn.ll are compiled for the host and linked with this file, which provides
// what amdgcn.ll implements with llvm.amdgcn.* intrinsics: the five wave primitives
// (__wp_wave_lane, __wp_wave_ballot, __wp_wave_bpermute, __wp_wave_xor, __wp_wave_sync), the
// work-item registers, bar.sync, the spin pause of bounded waits (__wp_spin_pause), and
// ds_swizzle_b32 (__wp_sim_ds_swizzle: the lowering writes constant shuffles as
// llvm.amdgcn.ds.swizzle).
//
// Execution model. Every thread of a block is a fiber (ucontext) with its own stack; fibers
// run one at a time. A fiber runs until it calls a wave primitive (or bar.sync) or returns.
// When no lane of a wavefront can run, the lanes of that wavefront waiting at a primitive
// are grouped by the primitive's call site (its return address: each PTX instruction of the
// kernel inlines its own calls), and the group of the lowest-numbered waiting lane executes
// the primitive together: that group is the EXEC mask, as in a structurized wavefront where
// the lanes of one side of a branch run while the others are masked off. Lanes that
// returned are inactive. bar.sync releases the block when every live lane waits at it.
//
// Usage: sim JOBFILE. The job file (written by the test):
//   kernel K            index into __wp_host_kernels (launch wrappers the test generates)
//   grid X Y Z / block X Y Z
//   buffers N, then N lines "in|out BYTES PATH" (every buffer is read from PATH; out buffers are
//   written back to it)
//   params BYTES, then lines "ptr OFFSET BUF" or "i32 OFFSET VALUE"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

enum { RUN, PRIM, BAR, DONE };
enum { OP_BALLOT = 1, OP_BPERM, OP_SYNC, OP_SWIZZLE };

typedef struct {
    ucontext_t ctx;
    char *stack;
    int tid[3], linear, wave, lane, state, op;
    const void *site;
    int32_t a0, a1, r32;
    uint64_t r64;
} Lane;

#define STACK (256 * 1024)
extern void (*const __wp_host_kernels[])(const void *);

static Lane *lanes, *cur;
static ucontext_t sched;
static int ntid[3], nctaid[3], ctaid[3], kernel_index;
static const void *param_blob;

static void block_at(int state, int op, const void *site) {
    cur->state = state;
    cur->op = op;
    cur->site = site;
    swapcontext(&cur->ctx, &sched);
}

int32_t __wp_wave_lane(void) { return cur->lane; }
uint64_t __wp_wave_ballot(bool p) {
    cur->a0 = p;
    block_at(PRIM, OP_BALLOT, __builtin_return_address(0));
    return cur->r64;
}
int32_t __wp_wave_bpermute(int32_t l, int32_t v) {
    cur->a0 = l;
    cur->a1 = v;
    block_at(PRIM, OP_BPERM, __builtin_return_address(0));
    return cur->r32;
}
void __wp_wave_sync(void) { block_at(PRIM, OP_SYNC, __builtin_return_address(0)); }
// ds_swizzle_b32 v, offset: offset[15] clear, bit-mask mode (AMD Vega ISA, DS_SWIZZLE_B32):
// within each 32 lanes, lane l reads lane ((l & and) | or) ^ xor, and = offset[4:0],
// or = offset[9:5], xor = offset[14:10]; offset[15] set, quad mode: lane l reads lane
// (l & ~3) | offset[2(l&3)+1 : 2(l&3)].
int32_t __wp_wave_xor(int32_t k, int32_t v) {
    cur->a0 = (cur->lane ^ (k & 31));
    cur->a1 = v;
    block_at(PRIM, OP_BPERM, __builtin_return_address(0));
    return cur->r32;
}
int32_t __wp_sim_ds_swizzle(int32_t v, int32_t offset) {
    cur->a0 = offset;
    cur->a1 = v;
    block_at(PRIM, OP_SWIZZLE, __builtin_return_address(0));
    return cur->r32;
}
// @__wp_spin_pause (kernels-ir/mbarrier.py: each iteration of a bounded mbarrier wait): the
// lane yields to the scheduler and stays runnable, so it runs again after the other fibers.
void __wp_spin_pause(void) { block_at(RUN, 0, 0); }
void __wp_bar_sync(int32_t id) {
    (void)id;
    block_at(BAR, 0, 0);
}

int32_t __wp_sreg_tid_x(void) { return cur->tid[0]; }
int32_t __wp_sreg_tid_y(void) { return cur->tid[1]; }
int32_t __wp_sreg_tid_z(void) { return cur->tid[2]; }
int32_t __wp_sreg_ntid_x(void) { return ntid[0]; }
int32_t __wp_sreg_ntid_y(void) { return ntid[1]; }
int32_t __wp_sreg_ntid_z(void) { return ntid[2]; }
int32_t __wp_sreg_ctaid_x(void) { return ctaid[0]; }
int32_t __wp_sreg_ctaid_y(void) { return ctaid[1]; }
int32_t __wp_sreg_ctaid_z(void) { return ctaid[2]; }
int32_t __wp_sreg_nctaid_x(void) { return nctaid[0]; }
int32_t __wp_sreg_nctaid_y(void) { return nctaid[1]; }
int32_t __wp_sreg_nctaid_z(void) { return nctaid[2]; }
int32_t __wp_linear_tid(void) { return cur->linear; }

static void lane_main(void) {
    __wp_host_kernels[kernel_index](param_blob);
    cur->state = DONE;
    swapcontext(&cur->ctx, &sched);
}

static void die(const char *m) {
    fprintf(stderr, "sim: %s\n", m);
    exit(3);
}

// Execute the primitive of one group (the lanes of wave w waiting at `site`).
static void run_group(Lane *wl, int nl, const void *site) {
    uint64_t group = 0, ballot = 0;
    int op = 0;
    for (int i = 0; i < nl; i++) {
        if (wl[i].state != PRIM || wl[i].site != site) continue;
        if (op && wl[i].op != op) die("lanes at one site run different primitives");
        op = wl[i].op;
        group |= 1ull << i;
        if (wl[i].op == OP_BALLOT && wl[i].a0) ballot |= 1ull << i;
    }
    for (int i = 0; i < nl; i++) {
        if (!(group >> i & 1)) continue;
        Lane *l = &wl[i];
        if (op == OP_BALLOT) l->r64 = ballot;
        if (op == OP_BPERM) {
            int s = l->a0 & 63;  // ds_bpermute uses address bits [7:2]
            // An inactive (or absent) source lane reads 0.
            l->r32 = (s < nl && (group >> s & 1)) ? wl[s].a1 : 0;
        }
        if (op == OP_SWIZZLE) {
            unsigned o = (unsigned)l->a0;
            int s = (o & 0x8000) ? (i & ~3) | (int)((o >> (2 * (i & 3))) & 3)
                                 : (i & ~31) | (int)((((unsigned)i & 31 & (o & 31)) | ((o >> 5) & 31)) ^
                                                     ((o >> 10) & 31));
            // An inactive (or absent) source lane reads 0.
            l->r32 = (s < nl && (group >> s & 1)) ? wl[s].a1 : 0;
        }
        l->state = RUN;
    }
}

static void run_block(int nthreads) {
    for (int t = 0; t < nthreads; t++) {
        Lane *l = &lanes[t];
        l->linear = t;
        l->tid[0] = t % ntid[0];
        l->tid[1] = t / ntid[0] % ntid[1];
        l->tid[2] = t / (ntid[0] * ntid[1]);
        l->wave = t / 64;
        l->lane = t % 64;
        l->state = RUN;
        getcontext(&l->ctx);
        l->ctx.uc_stack.ss_sp = l->stack;
        l->ctx.uc_stack.ss_size = STACK;
        l->ctx.uc_link = 0;
        makecontext(&l->ctx, lane_main, 0);
    }
    int nwaves = (nthreads + 63) / 64;
    for (;;) {
        int progress = 0;
        for (int t = 0; t < nthreads; t++) {
            if (lanes[t].state != RUN) continue;
            cur = &lanes[t];
            swapcontext(&sched, &cur->ctx);
            progress = 1;
        }
        for (int w = 0; w < nwaves; w++) {
            Lane *wl = &lanes[w * 64];
            int nl = nthreads - w * 64 < 64 ? nthreads - w * 64 : 64;
            int first = -1;
            for (int i = 0; i < nl && first < 0; i++)
                if (wl[i].state == PRIM) first = i;
            if (first < 0) continue;
            run_group(wl, nl, wl[first].site);
            progress = 1;
        }
        if (progress) continue;
        int done = 0, bar = 0;
        for (int t = 0; t < nthreads; t++) {
            done += lanes[t].state == DONE;
            bar += lanes[t].state == BAR;
        }
        if (done == nthreads) return;
        if (done + bar != nthreads) die("deadlock");
        for (int t = 0; t < nthreads; t++)
            if (lanes[t].state == BAR) lanes[t].state = RUN;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) die("usage: sim JOBFILE");
    FILE *f = fopen(argv[1], "r");
    if (!f) die("cannot open the job file");
    int grid[3], nbuf, pbytes;
    if (fscanf(f, " kernel %d grid %d %d %d block %d %d %d buffers %d", &kernel_index, &grid[0],
               &grid[1], &grid[2], &ntid[0], &ntid[1], &ntid[2], &nbuf) != 8)
        die("bad job header");
    char **bufs = calloc(nbuf, sizeof *bufs);
    char (*paths)[4096] = calloc(nbuf, sizeof *paths);
    long *sizes = calloc(nbuf, sizeof *sizes);
    int *is_out = calloc(nbuf, sizeof *is_out);
    for (int b = 0; b < nbuf; b++) {
        char role[8];
        if (fscanf(f, " %7s %ld %4095s", role, &sizes[b], paths[b]) != 3) die("bad buffer line");
        is_out[b] = strcmp(role, "out") == 0;
        bufs[b] = calloc(1, sizes[b] + 64);
        FILE *in = fopen(paths[b], "rb");  // inputs, and the initial contents of outputs
        if (!in || fread(bufs[b], 1, sizes[b], in) != (size_t)sizes[b]) die("cannot read a buffer");
        fclose(in);
    }
    if (fscanf(f, " params %d", &pbytes) != 1) die("bad params line");
    char *blob = calloc(1, pbytes + 8);
    char kind[8];
    long off, val;
    while (fscanf(f, " %7s %ld %ld", kind, &off, &val) == 3) {
        if (!strcmp(kind, "ptr")) {
            uint64_t p = (uint64_t)(uintptr_t)bufs[val];
            memcpy(blob + off, &p, 8);
        } else {
            int32_t v = (int32_t)val;
            memcpy(blob + off, &v, 4);
        }
    }
    fclose(f);
    param_blob = blob;
    int nthreads = ntid[0] * ntid[1] * ntid[2];
    lanes = calloc(nthreads, sizeof *lanes);
    for (int t = 0; t < nthreads; t++) lanes[t].stack = malloc(STACK);
    memcpy(nctaid, grid, sizeof grid);
    for (ctaid[2] = 0; ctaid[2] < grid[2]; ctaid[2]++)
        for (ctaid[1] = 0; ctaid[1] < grid[1]; ctaid[1]++)
            for (ctaid[0] = 0; ctaid[0] < grid[0]; ctaid[0]++) run_block(nthreads);
    for (int b = 0; b < nbuf; b++) {
        if (!is_out[b]) continue;
        FILE *o = fopen(paths[b], "wb");
        if (!o || fwrite(bufs[b], 1, sizes[b], o) != (size_t)sizes[b]) die("cannot write an output");
        fclose(o);
    }
    return 0;
}
