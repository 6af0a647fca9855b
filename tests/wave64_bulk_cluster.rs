//! The sm_100 bulk-copy and cluster forms of CUB's compute_120 `DeviceScanKernel`
//! (`cp.async.bulk` `.ignore_oob` and `.cp_mask`, `clusterlaunchcontrol`, `barrier.cluster`;
//! src/lower/emit/mbarrier.rs, kernels-ir/mbarrier.py) on a simulated wave64 CTA, executed on
//! the CPU.
//!
//! One PTX kernel written here (ptxas 13.5 accepts it for sm_100 when found) is lowered for
//! `dtk`, made host IR, linked with the portable and mbarrier sections cut out of
//! `kernels-ir/amdgcn.ll` (the shipped text) and run by `tests/wave64/sim.c` with 64 threads:
//! thread 0 copies 64 bytes global→shared with `.ignore_oob` (3 bytes left, 5 right), stores
//! them shared→global with `.cp_mask` over bytes the host filled, and asks `try_cancel` for a
//! response; every thread waits at `barrier.cluster` pairs and then copies the shared buffer
//! out. Every output byte is compared with the PTX ISA 9.x semantics (§9.7.9.25.4.1: the bytes
//! in [ignoreBytesLeft, size - ignoreBytesRight) are copied, byte i of each 16-byte chunk is
//! stored when bit i of byteMask is set; §9.7.13.17: a request may fail) and the lowering's
//! documented choices (ignored bytes keep their values; a request never cancels, its response
//! is 16 zero bytes, `get_first_ctaid` gives 0). On the H200 the same library, built for the
//! `cuda` twin, runs the 16 compute_120 scan kernels of `fixtures/gpu/cub_fixtures.so` with the
//! original's results (`fixtures/gpu/results/libraries.json`).

mod common;
#[allow(dead_code)] // the fixture-suite helpers (harness inputs, H200 hashes) are not used here
mod wave64_support;

use common::*;
use wave64_support::*;

const PTX: &str = r#".version 9.2
.target sm_100
.address_size 64

.visible .entry bulk_cluster(.param .u64 pin, .param .u64 pout, .param .u32 n)
{
	.reg .pred %p<8>;
	.reg .b16 %h<4>;
	.reg .b32 %r<16>;
	.reg .b64 %d<12>;
	.reg .b128 %q<2>;
	.shared .align 16 .b8 buf[80];
	.shared .align 16 .b8 resp[16];
	.shared .align 8 .b64 mbar[2];

	ld.param.u64 %d0, [pin];
	ld.param.u64 %d1, [pout];
	cvta.to.global.u64 %d0, %d0;
	cvta.to.global.u64 %d1, %d1;
	mov.u32 %r0, %tid.x;
	setp.ne.u32 %p0, %r0, 0;
	setp.lt.u32 %p1, %r0, 20;
	mov.u32 %r1, buf;
	shl.b32 %r2, %r0, 2;
	add.u32 %r3, %r1, %r2;
	mov.u32 %r10, -1431655766;
	@%p1 st.shared.u32 [%r3], %r10;
	mov.u32 %r4, mbar;
	add.u32 %r5, %r4, 8;
	@%p0 bra SKIPINIT;
	mbarrier.init.shared::cta.b64 [%r4], 1;
	mbarrier.init.shared::cta.b64 [%r5], 1;
SKIPINIT:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p0 bra DONE0;
	add.u32 %r6, %r1, 16;
	add.u64 %d2, %d0, 16;
	mbarrier.arrive.expect_tx.shared::cta.b64 %d3, [%r4], 64;
	cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [%r6], [%d2], 64, 3, 5, [%r4];
W1:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], 0;
	@!%p2 bra W1;
	add.u64 %d4, %d1, 128;
	mov.b16 %h0, 0x0F3C;
	cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%d4], [%r1], 64, %h0;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
	mov.u32 %r7, resp;
	mbarrier.arrive.expect_tx.shared::cta.b64 %d5, [%r5], 16;
	clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r7], [%r5];
W2:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
	@!%p3 bra W2;
	ld.shared.v2.b64 {%d6, %d7}, [%r7];
	mov.b128 %q0, {%d6, %d7};
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p4, %q0;
	selp.u32 %r8, 1, 0, %p4;
	clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r9, %q0;
	st.global.u32 [%d1+192], %r8;
	st.global.u32 [%d1+196], %r9;
	st.global.v2.b64 [%d1+208], {%d6, %d7};
DONE0:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	@!%p1 bra END;
	ld.shared.u32 %r11, [%r3];
	cvt.u64.u32 %d8, %r2;
	add.u64 %d9, %d1, %d8;
	st.global.u32 [%d9], %r11;
END:
	ret;
}
"#;

/// Bytes of `in` (128) and the initial `out` (256: 0x55 where the masked store lands, 0xEE
/// elsewhere).
fn inputs() -> (Vec<u8>, Vec<u8>) {
    let inp: Vec<u8> = (0..128u32).map(|i| (i * 7 + 1) as u8).collect();
    let mut out = vec![0xEEu8; 256];
    out[128..192].fill(0x55);
    (inp, out)
}

/// The ISA's result (with the lowering's choices for the bytes the ISA leaves open).
fn expected(inp: &[u8], out0: &[u8]) -> Vec<u8> {
    let mut buf = [0xAAu8; 80];
    // .ignore_oob: destination bytes 16 + [3, 64 - 5) come from in[16 + k].
    buf[16 + 3..16 + 59].copy_from_slice(&inp[16 + 3..16 + 59]);
    let mut out = out0.to_vec();
    out[..80].copy_from_slice(&buf);
    // .cp_mask 0x0F3C: byte k of each 16-byte chunk when bit k % 16 is set.
    for k in 0..64 {
        if (0x0F3Cu16 >> (k % 16)) & 1 == 1 {
            out[128 + k] = buf[k];
        }
    }
    // try_cancel never cancels: is_canceled 0, get_first_ctaid::x 0, response zeros.
    out[192..200].fill(0);
    out[208..224].fill(0);
    out
}

#[test]
fn bulk_copy_masks_and_cluster_forms_match_the_isa_on_simulated_wave64() {
    const TEST: &str = "wave64_bulk_cluster";
    let Some(tools) = Tools::require(TEST) else {
        return;
    };
    let dir = scratch("wave64-bulk-cluster");
    if let Some(ptxas) = require_tool("ptxas", TEST) {
        let p = dir.join("bulk_cluster.ptx");
        std::fs::write(&p, PTX).unwrap();
        run_ok(
            std::process::Command::new(ptxas)
                .args(["-arch=sm_100", "-o"])
                .arg(dir.join("bulk_cluster.cubin"))
                .arg(&p),
            "ptxas",
        );
    }
    let (mut modules, mut kernels) = (Vec::new(), Vec::new());
    lower_into(PTX, "bulk_cluster.ptx", &mut modules, &mut kernels);
    let libll = format!(
        "{}declare void @__wp_spin_pause()\n",
        library(&["mbarrier"])
    );
    let sim = build_simulator(&dir, &tools, &modules, &libll, &kernels);
    let (inp, out0) = inputs();
    let (pin, pout) = (dir.join("in.bin"), dir.join("out.bin"));
    std::fs::write(&pin, &inp).unwrap();
    std::fs::write(&pout, &out0).unwrap();
    let job = serde_json::json!({
        "case": "bulk_cluster", "entry": "bulk_cluster", "seed": 0, "n": 0,
        "grid": [1, 1, 1], "block": [64, 1, 1], "dyn": 0,
        "bufs": [
            {"name": "in", "role": "in", "bytes": inp.len(), "path": pin.display().to_string()},
            {"name": "out", "role": "out", "bytes": out0.len(), "path": pout.display().to_string()},
        ],
    });
    run_job(&dir, &sim, &job, &kernels);
    let got = std::fs::read(&pout).unwrap();
    let want = expected(&inp, &out0);
    let diffs: Vec<String> = got
        .iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(i, (g, w))| format!("out[{i}] = {g:#04x} want {w:#04x}"))
        .collect();
    assert!(diffs.is_empty(), "{diffs:?}; files in {}", dir.display());
}
