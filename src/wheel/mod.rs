//! Reading wheels (binary distribution archives, PEP 427 / the "Binary distribution
//! format" specification): the shared-object members and the `.dist-info` metadata.
//!
//! Members are read one at a time from the zip archive; nothing is extracted to a
//! destination directory. A member whose name could escape an extraction root (`../`,
//! an absolute path, a drive letter) makes the whole wheel an error, as does a member whose
//! data expands past its declared size (decompression bomb). [`audit`] adds the checks a
//! conversion needs (duplicate names, impossible sizes, RECORD), [`repack`] writes the
//! converted wheel and [`splice`] re-uses the input's deflate stream for a member that
//! changed only in places.

pub mod archive;
pub mod audit;
pub mod metadata;
pub mod repack;
pub mod requirements;
pub mod splice;

pub use archive::{
    is_elf_object_name, is_shared_object_name, opens, SharedObjectMember, WheelBytes, WheelCursor,
    WheelReader,
};
pub use metadata::{parse_headers, WheelInfo};
