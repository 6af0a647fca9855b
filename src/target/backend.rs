//! Code-family backends: what differs between `amdgcn`, `nvptx` and `none` in code rather
//! than data. Everything else of the pipeline sees a target only through its [`Profile`]
//! and this trait.

use super::Profile;
use crate::error::{Error, ErrorKind, Result};
use crate::lower::KernelResult;

/// One code family's device build steps, container, registration magic and checks.
pub trait Backend: Sync {
    /// The family's name (`amdgcn`, `nvptx`, `none`).
    fn name(&self) -> &'static str;

    /// The LLVM back end `llc --version` must list for this family (`amdgcn`, `nvptx64`);
    /// `None` when the family has no LLVM back end here.
    fn llvm_backend(&self) -> Option<&'static str>;

    /// Why `profile` has no device build here, when it has none (one line).
    fn no_device_build(&self, _profile: &Profile) -> Option<String> {
        None
    }

    /// Whether the device build links `llc`'s object with `ld.lld` into the device code.
    fn links_objects(&self) -> bool;

    /// Whether a large module may be split by `llvm-split` and its partitions built in
    /// parallel (see [`crate::build`]).
    fn splits_modules(&self) -> bool;

    /// File extension of one built object (`co`, `ptx`).
    fn object_extension(&self) -> &'static str;

    /// Extra `llc` arguments for `arch` of `profile` (its `llc_flags`, and the target
    /// features: the arch's `mattr`, else the profile's `llc_mattr`), given the module's IR.
    fn llc_args(&self, profile: &Profile, arch: &str, ir: &str) -> Vec<String>;

    /// Check one built object of `module` for `arch` against the lowering's kernel results:
    /// every lowered kernel present with the expected parameter layout.
    ///
    /// # Errors
    /// [`ErrorKind::Build`] naming the module, arch, kernel and field.
    fn check(&self, bytes: &[u8], module: &str, arch: &str, kernels: &[KernelResult])
        -> Result<()>;

    /// The container that carries `objects` (arch, bytes) of one module in the host `.so`:
    /// a clang offload bundle (`amdgcn`) or a CUDA fatbin (`nvptx`).
    ///
    /// # Errors
    /// [`ErrorKind::Build`] naming `module` when the objects cannot be put in the container.
    fn container(
        &self,
        profile: &Profile,
        objects: &[(&str, &[u8])],
        module: &str,
    ) -> Result<Vec<u8>>;

    /// The magic a registration wrapper (`__fatBinC_Wrapper_t`) pointing at that container
    /// carries.
    fn wrapper_magic(&self) -> u32;

    /// The file `wheelport ptx lower --emit obj` writes for one object of module `stem`;
    /// `several` when the module was built for more than one arch.
    fn object_file_name(&self, stem: &str, arch: &str, several: bool) -> String {
        let _ = several;
        format!("{stem}-{arch}.{}", self.object_extension())
    }
}

/// AMD GCN/CDNA/RDNA through LLVM's AMDGPU back end: HSA code objects (`ld.lld`), in a
/// clang offload bundle registered with the HIPF wrapper magic.
#[derive(Debug, Clone, Copy)]
pub struct Amdgcn;

impl Backend for Amdgcn {
    fn name(&self) -> &'static str {
        "amdgcn"
    }

    fn llvm_backend(&self) -> Option<&'static str> {
        Some("amdgcn")
    }

    fn links_objects(&self) -> bool {
        true
    }

    fn splits_modules(&self) -> bool {
        true
    }

    fn object_extension(&self) -> &'static str {
        "co"
    }

    fn llc_args(&self, profile: &Profile, arch: &str, _ir: &str) -> Vec<String> {
        let mut v = vec!["-filetype=obj".to_string()];
        v.extend(profile.llc_flags.iter().cloned());
        if let Some(m) = profile.mattr_for(arch).or(profile.llc_mattr.as_deref()) {
            v.push(format!("-mattr={m}"));
        }
        v
    }

    fn check(
        &self,
        bytes: &[u8],
        module: &str,
        arch: &str,
        kernels: &[KernelResult],
    ) -> Result<()> {
        crate::build::check::code_object(bytes, module, arch, kernels)
    }

    fn container(
        &self,
        profile: &Profile,
        objects: &[(&str, &[u8])],
        _module: &str,
    ) -> Result<Vec<u8>> {
        Ok(crate::bundle::write_with_prefix(
            &profile.bundle_entry_prefix,
            objects,
        ))
    }

    fn wrapper_magic(&self) -> u32 {
        crate::rewrite::HIP_WRAPPER_MAGIC
    }
}

/// NVIDIA PTX through LLVM's NVPTX back end (the cuda twin): PTX text in a CUDA fatbin,
/// registered with the CUDA wrapper magic.
#[derive(Debug, Clone, Copy)]
pub struct Nvptx;

impl Backend for Nvptx {
    fn name(&self) -> &'static str {
        "nvptx"
    }

    fn llvm_backend(&self) -> Option<&'static str> {
        Some("nvptx64")
    }

    fn links_objects(&self) -> bool {
        false
    }

    fn splits_modules(&self) -> bool {
        false
    }

    fn object_extension(&self) -> &'static str {
        "ptx"
    }

    fn llc_args(&self, profile: &Profile, arch: &str, ir: &str) -> Vec<String> {
        let mut v = profile.llc_flags.clone();
        if let Some(f) = profile
            .mattr_for(arch)
            .or_else(|| crate::lower::nvptx_llc_features(ir))
        {
            v.push(format!("-mattr={f}"));
        }
        v
    }

    fn check(
        &self,
        bytes: &[u8],
        module: &str,
        arch: &str,
        kernels: &[KernelResult],
    ) -> Result<()> {
        let text = std::str::from_utf8(bytes).map_err(|_| {
            Error::new(
                ErrorKind::Build,
                module,
                format!("{arch}: llc's PTX is not UTF-8"),
            )
        })?;
        crate::build::check::ptx(text, module, arch, kernels)?;
        if let Some(l) = text.lines().find(|l| {
            l.trim_start().starts_with(".extern .func")
                && !crate::build::CUDA_SYSTEM_FUNCTIONS
                    .iter()
                    .any(|f| l.trim_end().trim_end_matches(['(', ';']).ends_with(f))
        }) {
            return Err(Error::new(
                ErrorKind::Build,
                module,
                format!(
                    "{arch}: the PTX calls a function nothing defines (missing from the support library?): `{}`",
                    l.trim()
                ),
            ));
        }
        Ok(())
    }

    fn container(
        &self,
        _profile: &Profile,
        objects: &[(&str, &[u8])],
        module: &str,
    ) -> Result<Vec<u8>> {
        let texts = objects
            .iter()
            .map(|(arch, b)| {
                std::str::from_utf8(b).map_err(|_| {
                    Error::new(
                        ErrorKind::Build,
                        module,
                        format!("{arch}: llc's PTX is not UTF-8"),
                    )
                })
            })
            .collect::<Result<Vec<&str>>>()?;
        crate::fatbin::write::ptx_container(&texts, module)
    }

    fn wrapper_magic(&self) -> u32 {
        crate::rewrite::CUDA_WRAPPER_MAGIC
    }

    fn object_file_name(&self, stem: &str, arch: &str, several: bool) -> String {
        if several {
            format!("{stem}-{arch}.ptx")
        } else {
            format!("{stem}.ptx")
        }
    }
}

/// No device compiler here (the `none` family, e.g. MUSA without `mcc`): nothing is built,
/// every kernel is reported with [`Backend::no_device_build`]'s reason.
#[derive(Debug, Clone, Copy)]
pub struct NoDevice;

impl Backend for NoDevice {
    fn name(&self) -> &'static str {
        "none"
    }

    fn llvm_backend(&self) -> Option<&'static str> {
        None
    }

    fn no_device_build(&self, profile: &Profile) -> Option<String> {
        Some(format!(
            "target `{}` has no device build here (needs the vendor compiler {})",
            profile.name,
            if profile.tools.is_empty() {
                "of the target".to_string()
            } else {
                profile.tools.join(", ")
            }
        ))
    }

    fn links_objects(&self) -> bool {
        false
    }

    fn splits_modules(&self) -> bool {
        false
    }

    fn object_extension(&self) -> &'static str {
        "bin"
    }

    fn llc_args(&self, _profile: &Profile, _arch: &str, _ir: &str) -> Vec<String> {
        Vec::new()
    }

    fn check(&self, _: &[u8], module: &str, _: &str, _: &[KernelResult]) -> Result<()> {
        Err(Error::new(
            ErrorKind::Build,
            module,
            "this target has no device build",
        ))
    }

    fn container(&self, profile: &Profile, _: &[(&str, &[u8])], module: &str) -> Result<Vec<u8>> {
        Err(Error::new(
            ErrorKind::Build,
            module,
            self.no_device_build(profile).unwrap_or_default(),
        ))
    }

    fn wrapper_magic(&self) -> u32 {
        crate::rewrite::CUDA_WRAPPER_MAGIC
    }
}
