//! Instruction-set vocabulary shared by the decoder, the printer and the executor: the
//! microcode formats of the gfx9 ISA (AMD "Vega 7nm Instruction Set Architecture", ch. 12
//! "Microcode Formats"; "AMD Instinct MI300 ISA", ch. 10, same formats) and of gfx11 (AMD
//! "RDNA3 Instruction Set Architecture", ch. 16, the same families with other layouts), and
//! the rows of the opcode tables in [`crate::tables`].

pub use crate::tables::Op;

/// A microcode format (an encoding family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fmt {
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar ALU with a 16-bit immediate.
    Sopk,
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar compare.
    Sopc,
    /// Scalar program control (branches, waits, barriers).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, two sources (32-bit encoding).
    Vop2,
    /// Vector ALU, one source (32-bit encoding).
    Vop1,
    /// Vector compare (32-bit encoding, writes VCC).
    Vopc,
    /// Vector ALU, 64-bit encoding (VOP3a and VOP3b).
    Vop3,
    /// Vector ALU on packed operands (VOP3P).
    Vop3p,
    /// Local data share.
    Ds,
    /// Flat memory (segment 0).
    Flat,
    /// Scratch memory (flat encoding, segment 1).
    Scratch,
    /// Global memory (flat encoding, segment 2).
    Global,
    /// Untyped buffer memory.
    Mubuf,
}

/// The instruction field an operand of a table row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Vector (or, by its [`Reg`], scalar) destination.
    Vdst,
    /// Scalar destination of a VOP3b instruction (carry out, `v_div_scale`).
    Sdst,
    /// First source.
    Src0,
    /// Second source.
    Src1,
    /// Third source.
    Src2,
    /// DS / FLAT address VGPR(s).
    Addr,
    /// DS first data VGPR(s).
    Data0,
    /// DS second data VGPR(s).
    Data1,
    /// FLAT data VGPR(s).
    Data,
    /// FLAT scalar base address (global, scratch).
    Saddr,
    /// MUBUF address VGPR(s).
    Vaddr,
    /// MUBUF data VGPR(s).
    Vdata,
    /// MUBUF buffer resource (4 SGPRs).
    Srsrc,
    /// MUBUF scalar offset.
    Soffset,
    /// SMEM base address SGPRs.
    Sbase,
    /// SMEM data SGPRs.
    Sdata,
    /// The 32-bit literal that follows the instruction word.
    Literal,
    /// The implicit VCC operand (printed as `vcc`).
    Vcc,
}

/// Register file of a table operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reg {
    /// Vector registers.
    V,
    /// Scalar registers (or any 9-bit source).
    S,
    /// Accumulation registers (gfx90a and later).
    A,
}

/// One opcode of one format, as LLVM 19's disassembler names it.
#[derive(Debug)]
pub struct OpRow {
    /// The format.
    pub fmt: Fmt,
    /// The opcode field's value.
    pub op: u16,
    /// 0, or 1 for the FLAT global/scratch forms with a scalar base (`saddr`).
    pub var: u8,
    /// LLVM's mnemonic, with its encoding suffix (`v_add_f32_e64`).
    pub name: &'static str,
    /// The operation (mnemonic without suffix).
    pub base: Op,
    /// The printed operands in order: field, width in dwords, register file.
    pub ops: &'static [(Role, u8, Reg)],
}

impl OpRow {
    /// Width in dwords of the operand taken from `role` (1 when the row has none).
    pub fn width(&self, role: Role) -> u8 {
        self.ops
            .iter()
            .find(|o| o.0 == role)
            .map(|o| o.1)
            .unwrap_or(1)
    }

    /// Register file of the operand taken from `role`.
    pub fn reg(&self, role: Role) -> Reg {
        self.ops
            .iter()
            .find(|o| o.0 == role)
            .map(|o| o.2)
            .unwrap_or(Reg::V)
    }

    /// Whether the row prints an operand from `role`.
    pub fn has(&self, role: Role) -> bool {
        self.ops.iter().any(|o| o.0 == role)
    }
}

/// A processor the interpreter executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// gfx906 (Vega 20; Hygon DCU's ISA): wave64, MUBUF scratch.
    Gfx906,
    /// gfx942 (MI300): wave64, architected flat scratch, packed work-item IDs.
    Gfx942,
    /// gfx1100 (RDNA3) in wave64 mode (the only mode wheelport builds): gfx11 encodings,
    /// flat scratch set up by the hardware, packed work-item IDs, NULL and M0 at SGPR codes
    /// 124 and 125.
    Gfx1100,
}

impl Arch {
    /// The processor named `name` (`gfx906`, `gfx942`, `gfx1100`), if supported.
    pub fn from_name(name: &str) -> Option<Arch> {
        match name {
            "gfx906" => Some(Arch::Gfx906),
            "gfx942" => Some(Arch::Gfx942),
            "gfx1100" => Some(Arch::Gfx1100),
            _ => None,
        }
    }

    /// The processor's name.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Gfx906 => "gfx906",
            Arch::Gfx942 => "gfx942",
            Arch::Gfx1100 => "gfx1100",
        }
    }

    /// The opcode table of the processor.
    pub fn table(self) -> &'static [OpRow] {
        match self {
            Arch::Gfx906 => crate::tables::GFX906,
            Arch::Gfx942 => crate::tables::GFX942,
            Arch::Gfx1100 => crate::tables::GFX1100,
        }
    }

    /// Whether the processor is in the gfx940 family (sc0/sc1/nt cache bits, flat scratch).
    pub fn is_gfx940(self) -> bool {
        matches!(self, Arch::Gfx942)
    }

    /// Whether the processor is gfx11 (RDNA3 encodings and semantics).
    pub fn is_gfx11(self) -> bool {
        matches!(self, Arch::Gfx1100)
    }

    /// Whether the hardware sets up the wave's scratch (no private segment buffer or flat
    /// scratch init in the prologue; SCRATCH instructions say with SVE whether a VGPR
    /// address is present).
    pub fn hw_flat_scratch(self) -> bool {
        matches!(self, Arch::Gfx942 | Arch::Gfx1100)
    }

    /// Whether the work-item IDs arrive packed in v0 (x | y << 10 | z << 20).
    pub fn packed_tid(self) -> bool {
        matches!(self, Arch::Gfx942 | Arch::Gfx1100)
    }

    /// Number of architectural VGPRs (with AGPRs numbered after them on gfx90a+).
    pub fn vgprs(self) -> usize {
        if self.is_gfx940() {
            512
        } else {
            256
        }
    }
}
