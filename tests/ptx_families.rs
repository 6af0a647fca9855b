//! One test per PTX ISA instruction family: each hand-written snippet in
//! `fixtures/ptx/families/` must (1) be accepted by `ptxas` for its `.target` (so the snippet
//! itself is valid PTX), (2) parse with 0 errors, (3) round-trip parse → print → parse to an
//! equal AST, (4) print PTX that `ptxas` accepts, and (5) have the AST facts asserted below.
//! A final test checks that together the snippets use every opcode of PTX ISA 9.x.

mod common;
mod ptx_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ptx_support::*;
use wheelport::ptx::{self, Address, Directive, Init, Instruction, Module, Opcode, Operand};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ptx/families")
}

/// Run checks (1)-(4) on `fixtures/ptx/families/<name>`, then `facts` on the parsed module.
fn family(name: &str, facts: impl FnOnce(&Module<'_>)) {
    let path = fixture_dir().join(name);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let printed = round_trip(&src, name);
    let parsed = ptx::parse(&src, name);
    assert_eq!(parsed.error_count(), 0);
    if let Some(p) = ptxas_or_skip(name) {
        let arch = arch_of(&parsed.module);
        ptxas(&p, &src, &arch, &format!("orig-{name}")).unwrap_or_else(|e| panic!("{e}"));
        ptxas(&p, &printed, &arch, &format!("printed-{name}")).unwrap_or_else(|e| panic!("{e}"));
    }
    facts(&parsed.module);
}

/// Every instruction of the module, in order.
fn instructions<'m, 'a>(m: &'m Module<'a>) -> Vec<&'m Instruction<'a>> {
    let mut v = Vec::new();
    for f in m.functions() {
        if let Some(b) = &f.body {
            b.for_each_instruction(&mut |i| v.push(i));
        }
    }
    v
}

/// The first instruction whose full opcode text (opcode + modifiers) is `head`.
fn instr<'m, 'a>(m: &'m Module<'a>, head: &str) -> &'m Instruction<'a> {
    instructions(m)
        .into_iter()
        .find(|i| i.full_opcode() == head)
        .unwrap_or_else(|| panic!("no instruction `{head}`"))
}

fn kinds(i: &Instruction<'_>) -> Vec<&'static str> {
    i.operands.iter().map(|o| o.kind_name()).collect()
}

#[test]
fn integer() {
    family("integer.ptx", |m| {
        let i = instr(m, "mad.wide.u32");
        assert_eq!(i.opcode, Opcode::Mad);
        assert_eq!(i.modifiers.iter().collect::<Vec<_>>(), [".wide", ".u32"]);
        assert_eq!(kinds(i), ["reg", "reg", "reg", "reg"]);
        let i = instr(m, "add.sat.s32");
        match &i.operands[2] {
            Operand::Imm(imm) => assert_eq!(imm.value(), ptx::ImmValue::Int(-7)),
            o => panic!("{o:?}"),
        }
        let i = instr(m, "add.u64");
        match &i.operands[2] {
            Operand::Imm(imm) => {
                assert_eq!(imm.value(), ptx::ImmValue::UInt(4294967296));
                assert_eq!(imm.text(), "4294967296U");
            }
            o => panic!("{o:?}"),
        }
        // Octal and binary literals.
        let i = instr(m, "add.s32");
        assert_eq!(kinds(i), ["reg", "reg", "imm"]);
        let oct = instructions(m)
            .into_iter()
            .find_map(|i| match i.operands.get(2) {
                Some(Operand::Imm(x)) if x.text() == "017" => Some(x.value()),
                _ => None,
            });
        assert_eq!(oct, Some(ptx::ImmValue::Int(15)));
        assert!(instr(m, "madc.hi.u32").operands.len() == 4);
        assert_eq!(kinds(instr(m, "mov.u32")), ["reg", "sreg"]);
    });
}

#[test]
fn float_and_half() {
    family("float.ptx", |m| {
        match &instr(m, "mov.f32").operands[1] {
            Operand::Imm(x) => assert_eq!(x.value(), ptx::ImmValue::F32Bits(0x3F80_0000)),
            o => panic!("{o:?}"),
        }
        match &instr(m, "mov.f64").operands[1] {
            Operand::Imm(x) => assert_eq!(x.value(), ptx::ImmValue::F64Bits(0x3FF0_0000_0000_0000)),
            o => panic!("{o:?}"),
        }
        assert_eq!(kinds(instr(m, "fma.rn.relu.bf16x2")), ["reg"; 4]);
        assert_eq!(kinds(instr(m, "mov.b32")), ["vector", "reg"]);
        assert!(instr(m, "rcp.approx.ftz.f64").has(".ftz"));
        assert_eq!(kinds(instr(m, "testp.notanumber.f64")), ["reg", "reg"]);
    });
}

#[test]
fn compare_and_logic() {
    family("compare_logic.ptx", |m| {
        let i = instr(m, "setp.gtu.ftz.f32");
        assert_eq!(i.operands[0], Operand::Pair(Box::new(("%p3", "%p4"))));
        let i = instr(m, "setp.eq.or.s32");
        assert_eq!(i.operands[3], Operand::Not("%p2".into()));
        let i = instr(m, "lop3.or.b32");
        assert_eq!(kinds(i), ["pair", "reg", "reg", "reg", "imm", "reg"]);
        let g = instructions(m)
            .into_iter()
            .find(|i| i.guard.is_some_and(|g| g.negated))
            .expect("a @! guard");
        assert_eq!(g.guard.unwrap().reg, "%p6");
        assert_eq!(g.opcode, Opcode::St);
    });
}

#[test]
fn data_movement() {
    family("data.ptx", |m| {
        let i = instr(m, "ld.global.nc.v4.u32");
        assert_eq!(kinds(i), ["vector", "address"]);
        match &i.operands[1] {
            Operand::Address(a) => assert_eq!(
                **a,
                Address::Offset {
                    base: Some(ptx::AddrBase::Reg("%rd3")),
                    offset: 16
                }
            ),
            o => panic!("{o:?}"),
        }
        let i = instr(m, "ld.const.f32");
        match &i.operands[1] {
            Operand::Address(a) => assert_eq!(
                **a,
                Address::Offset {
                    base: Some(ptx::AddrBase::Symbol("ctable")),
                    offset: 4
                }
            ),
            o => panic!("{o:?}"),
        }
        let i = instr(m, "shfl.sync.bfly.b32");
        assert_eq!(kinds(i), ["pair", "reg", "imm", "imm", "imm"]);
        let i = instr(m, "ld.shared::cta.v2.u32");
        match &i.operands[0] {
            Operand::Vector(v) => assert_eq!(v[1], Operand::Sink),
            o => panic!("{o:?}"),
        }
        assert_eq!(kinds(instr(m, "mov.u64")), ["reg", "symbol"]);
        assert_eq!(
            kinds(instr(m, "ld.global.L2::cache_hint.u32")),
            ["reg", "address", "reg"]
        );
        assert_eq!(kinds(instr(m, "cp.async.wait_group")), ["imm"]);
        // The `.ptr` parameter attribute.
        let f = m.function("data_ops").unwrap();
        let p = f.params[1].ptr.expect(".ptr");
        assert_eq!(p.space, Some(ptx::StateSpace::Global));
        assert_eq!(p.align, Some(16));
        // Constant initializer bytes of a .const array (0f literal and decimal floats).
        let bytes = m.variable_bytes("ctable").unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[..4], &1.0f32.to_le_bytes());
        assert_eq!(&bytes[12..], &2.5f32.to_le_bytes());
    });
}

#[test]
fn async_bulk_mbarrier_tensormap_multimem() {
    family("async_bulk.ptx", |m| {
        let i = instr(
            m,
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        );
        assert_eq!(kinds(i), ["address", "address", "address"]);
        match &i.operands[1] {
            Operand::Address(a) => match &**a {
                Address::Tuple(v) => {
                    assert_eq!(v[0], Operand::Reg("%rd2".into()));
                    assert_eq!(
                        v[1],
                        Operand::Vector(Box::new(
                            [Operand::Reg("%r1".into()), Operand::Reg("%r4".into())]
                                .into_iter()
                                .collect()
                        ))
                    );
                }
                a => panic!("{a:?}"),
            },
            o => panic!("{o:?}"),
        }
        assert_eq!(kinds(instr(m, "elect.sync")), ["pair", "imm"]);
        assert_eq!(
            kinds(instr(m, "mbarrier.try_wait.parity.shared::cta.b64")),
            ["reg", "address", "imm"]
        );
        assert_eq!(
            kinds(instr(
                m,
                "mbarrier.arrive.release.cluster.shared::cluster.b64"
            ))[0],
            "sink"
        );
        assert_eq!(kinds(instr(m, "mov.u32")), ["reg", "sreg"]);
        let f = m.function("async_bulk").unwrap();
        let names: Vec<&str> = f.attrs.iter().map(|a| a.name).collect();
        assert_eq!(
            names,
            [".reqntid", ".explicitcluster", ".reqnctapercluster"]
        );
        assert_eq!(f.attrs[2].args, [2, 1, 1]);
        assert_eq!(m.target, ["sm_90a"]);
    });
}

#[test]
fn texture_and_surface() {
    family("texture_surface.ptx", |m| {
        let i = instr(m, "tex.1d.v4.f32.s32");
        match &i.operands[1] {
            Operand::Address(a) => match &**a {
                Address::Tuple(v) => assert_eq!(v[0], Operand::Symbol("tex0".into())),
                a => panic!("{a:?}"),
            },
            o => panic!("{o:?}"),
        }
        assert_eq!(
            kinds(instr(m, "tex.grad.2d.v4.f32.f32")),
            ["vector", "address", "vector", "vector"]
        );
        assert_eq!(kinds(instr(m, "sust.b.1d.b32.trap")), ["address", "vector"]);
        assert_eq!(kinds(instr(m, "istypep.texref")), ["reg", "reg"]);
        let v = m.variables().find(|v| v.decls[0].name == "surf0").unwrap();
        assert_eq!(v.ty, ptx::Type::Surfref);
    });
    family("texture_independent.ptx", |m| {
        assert_eq!(m.target, ["sm_80", "texmode_independent"]);
        let v = m
            .variables()
            .find(|v| v.ty == ptx::Type::Samplerref)
            .unwrap();
        match v.decls[0].init.as_ref().unwrap() {
            Init::List(l) => assert_eq!(
                l[0],
                Init::Field {
                    name: "addr_mode_0",
                    value: "clamp_to_edge"
                }
            ),
            i => panic!("{i:?}"),
        }
        let i = instr(m, "tex.2d.v4.f32.f32");
        match &i.operands[1] {
            Operand::Address(a) => match &**a {
                Address::Tuple(v) => assert_eq!(v.len(), 3),
                a => panic!("{a:?}"),
            },
            o => panic!("{o:?}"),
        }
    });
}

#[test]
fn control_flow_and_calls() {
    family("control.ptx", |m| {
        let k = m.function("control").unwrap();
        assert_eq!(
            k.callees(),
            ["add_one", "%rd2", "%rd2", "reg_abi", "fail", "vprintf"]
        );
        let i = instructions(m)
            .into_iter()
            .find(|i| i.opcode == Opcode::Call && i.operands.len() == 4)
            .unwrap();
        assert_eq!(kinds(i), ["list", "reg", "list", "label"]);
        let i = instr(m, "call.uni");
        assert_eq!(kinds(i), ["list", "func", "list"]);
        assert_eq!(kinds(instr(m, "brx.idx")), ["reg", "label"]);
        assert_eq!(kinds(instr(m, "bra.uni")), ["label"]);
        assert_eq!(kinds(instr(m, "mov.u64")), ["reg", "func"]);
        let fail = m.function("fail").unwrap();
        assert_eq!(fail.attrs[0].name, ".noreturn");
        let vp = m.function("vprintf").unwrap();
        assert!(vp.body.is_none());
        assert_eq!(vp.linkage, Some(ptx::Linkage::Extern));
        assert_eq!(vp.returns.len(), 1);
        let reg_abi = m.function("reg_abi").unwrap();
        assert_eq!(reg_abi.params[0].space, ptx::StateSpace::Reg);
        assert_eq!(kinds(instr(m, "add.s32")), ["reg", "reg", "imm"]);
        assert_eq!(m.variable_bytes("$str").unwrap(), b"hello\0");
        let stmts = ptx::analysis::flat_statements(k);
        assert!(stmts
            .iter()
            .any(|s| matches!(s, ptx::Statement::CallPrototype(_))));
        assert!(stmts.iter().any(
            |s| matches!(s, ptx::Statement::BranchTargets(t) if t.targets == ["$L__a", "$L__b"])
        ));
    });
}

#[test]
fn synchronization_and_atomics() {
    family("sync.ptx", |m| {
        assert_eq!(
            kinds(instr(m, "atom.global.v4.f32.add")),
            ["vector", "address", "vector"]
        );
        assert_eq!(
            kinds(instr(m, "atom.shared.cas.b32")),
            ["reg", "address", "reg", "imm"]
        );
        assert_eq!(kinds(instr(m, "vote.sync.any.pred")), ["reg", "not", "imm"]);
        assert_eq!(
            kinds(instr(m, "match.all.sync.b64")),
            ["pair", "reg", "imm"]
        );
        assert_eq!(kinds(instr(m, "bar.red.popc.u32")), ["reg", "imm", "reg"]);
        assert!(instr(m, "fence.proxy.alias").operands.is_empty());
    });
}

#[test]
fn warp_matrix() {
    family("matrix.ptx", |m| {
        let i = instr(m, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
        assert_eq!(kinds(i), ["vector"; 4]);
        match &i.operands[1] {
            Operand::Vector(v) => assert_eq!(v.len(), 4),
            o => panic!("{o:?}"),
        }
        assert_eq!(
            ptx::analysis::form_of(i),
            "mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32"
        );
        assert_eq!(
            kinds(instr(m, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")),
            ["vector", "address"]
        );
        assert_eq!(
            kinds(instr(
                m,
                "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
            )),
            ["vector", "vector", "vector", "vector", "reg", "imm"]
        );
    });
}

#[test]
fn wgmma() {
    family("wgmma.ptx", |m| {
        let i = instr(m, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16");
        match &i.operands[0] {
            Operand::Vector(v) => assert_eq!(v.len(), 32),
            o => panic!("{o:?}"),
        }
        assert_eq!(&kinds(i)[1..4], ["reg", "reg", "reg"]);
        assert_eq!(kinds(instr(m, "wgmma.wait_group.sync.aligned")), ["imm"]);
    });
}

#[test]
fn tcgen05_and_blackwell() {
    family("tcgen05.ptx", |m| {
        assert_eq!(m.target, ["sm_100a"]);
        assert_eq!(
            kinds(instr(m, "tcgen05.mma.cta_group::1.kind::f16")),
            ["address", "reg", "reg", "reg", "reg"]
        );
        assert!(instr(m, "tcgen05.fence::before_thread_sync")
            .operands
            .is_empty());
        let i = instr(
            m,
            "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128",
        );
        match &i.operands[0] {
            Operand::Vector(v) => assert_eq!(v[3], Operand::Sink),
            o => panic!("{o:?}"),
        }
    });
}

#[test]
fn video() {
    family("video.ptx", |m| {
        let i = instr(m, "vadd.s32.u32.s32.sat.add");
        assert_eq!(i.operands[1], Operand::Reg("%r1.b0".into()));
        assert_eq!(i.operands[2], Operand::Reg("%r2.b1".into()));
        assert_eq!(
            instr(m, "vabsdiff.u32.u32.u32").operands[0],
            Operand::Reg("%r6.b0".into())
        );
        assert_eq!(
            instr(m, "vsub4.s32.s32.s32").operands[1],
            Operand::Reg("%r1.b3210".into())
        );
    });
}

#[test]
fn special_registers() {
    family("sregs.ptx", |m| {
        let names: Vec<&str> = instructions(m)
            .into_iter()
            .filter_map(|i| match i.operands.get(1) {
                Some(Operand::SpecialReg(n)) if i.opcode == Opcode::Mov => Some(n.as_str()),
                _ => None,
            })
            .collect();
        for want in [
            "%tid.x",
            "%envreg3",
            "%globaltimer_lo",
            "%pm1_64",
            "%cluster_ctaid.z",
            "WARP_SZ",
        ] {
            assert!(
                names.contains(&want),
                "{want} not parsed as a special register: {names:?}"
            );
        }
        assert_eq!(names.len(), 41);
    });
}

#[test]
fn module_directives_and_variables() {
    family("directives.ptx", |m| {
        assert_eq!(m.version, Some(ptx::Version { major: 9, minor: 0 }));
        assert_eq!(m.address_size, Some(64));
        assert!(m.items.iter().any(|d| matches!(
            d,
            Directive::Alias {
                alias: "add1_alias",
                aliasee: "add1",
                ..
            }
        )));
        assert!(m
            .items
            .iter()
            .any(|d| matches!(d, Directive::Debug(r) if r.name == ".section")));
        assert!(m
            .items
            .iter()
            .any(|d| matches!(d, Directive::Pragma(p) if p.strings == ["\"nounroll\""])));
        let linkages: Vec<_> = m.variables().filter_map(|v| v.linkage).collect();
        assert_eq!(
            linkages,
            [
                ptx::Linkage::Visible,
                ptx::Linkage::Weak,
                ptx::Linkage::Common,
                ptx::Linkage::Extern
            ]
        );
        let ptrs = m.variables().find(|v| v.decls[0].name == "ptrs").unwrap();
        match ptrs.decls[0].init.as_ref().unwrap() {
            Init::List(l) => {
                assert_eq!(
                    l[0],
                    Init::Symbol {
                        name: "vis",
                        generic: true,
                        offset: 0
                    }
                );
                assert_eq!(
                    l[1],
                    Init::Symbol {
                        name: "vis",
                        generic: false,
                        offset: 4
                    }
                );
            }
            i => panic!("{i:?}"),
        }
        let mat = m.variables().find(|v| v.decls[0].name == "mat").unwrap();
        assert_eq!(mat.decls[0].array, [Some(2), Some(3)]);
        assert_eq!(
            m.variable_bytes("mat").unwrap()[16..20],
            (-5i32).to_le_bytes()
        );
        let cv = m.variables().find(|v| v.decls[0].name == "cv").unwrap();
        assert_eq!(cv.vector, Some(4));
        assert_eq!(
            m.variables()
                .find(|v| v.decls[0].name == "managed_v")
                .unwrap()
                .attribute,
            Some(".managed")
        );
        let k = m.function("directives_kernel").unwrap();
        let names: Vec<&str> = k.attrs.iter().map(|a| a.name).collect();
        assert_eq!(
            names,
            [".maxntid", ".minnctapersm", ".maxnreg", ".maxclusterrank"]
        );
        // Registers declared in nested inline-asm blocks without `%` are registers.
        assert_eq!(kinds(instr(m, "selp.b32")), ["reg", "imm", "imm", "reg"]);
        assert_eq!(instr(m, "mov.f32").operands[0], Operand::Reg("vv.x".into()));
        assert_eq!(kinds(instr(m, "bra")), ["label"]);
        let body = k.body.as_ref().unwrap();
        assert!(body.stmts.iter().any(|s| matches!(s, ptx::Statement::Block(b) if b.stmts.iter().any(|s| matches!(s, ptx::Statement::Block(_))))));
        assert!(body
            .stmts
            .iter()
            .any(|s| matches!(s, ptx::Statement::Debug(r) if r.text == ".loc 1 12 5")));
    });
}

/// All fixture files (families and nvcc output).
fn all_fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ptx");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "ptx") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fixtures_cover_every_opcode() {
    let mut used = BTreeSet::new();
    for f in all_fixtures() {
        let src = std::fs::read_to_string(&f).unwrap();
        let p = ptx::parse(&src, "x");
        for i in instructions(&p.module) {
            used.insert(i.opcode);
        }
    }
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|o| !used.contains(o))
        .map(|o| o.name())
        .collect();
    assert!(missing.is_empty(), "opcodes without a fixture: {missing:?}");
}
