"""Write a wheel with one member of SIZE zero bytes, with Python's zipfile (an independent,
ZIP64-correct writer), for tests/zip64.rs.

usage: big_wheel.py OUT_DIR SIZE stored|deflated|small HASH

HASH is the RECORD hash field of SIZE zero bytes (the caller computes it once).

* stored: `bigpkg/big.bin` is stored; the all-zero data is written as holes, so the
  wheel is a sparse file that takes a few KiB of disk;
* deflated: `bigpkg/big.bin` is deflated (level 1; about 19 MB for 4.1 GiB);
* small: `bigpkg/big.bin` is a one-byte placeholder (for a test that replaces it).

Prints the wheel's path.
"""
import base64
import hashlib
import io
import os
import sys
import zipfile

out_dir, size, method, big_hash = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


class Sparse(io.RawIOBase):
    """A file whose all-zero writes of whole blocks become holes."""

    def __init__(self, path):
        self.f = open(path, "wb")

    def writable(self):
        return True

    def seekable(self):
        return True

    def write(self, b):
        b = bytes(b)
        if len(b) >= 4096 and b.count(0) == len(b):
            self.f.seek(len(b), 1)
        else:
            self.f.write(b)
        return len(b)

    def seek(self, offset, whence=0):
        return self.f.seek(offset, whence)

    def tell(self):
        return self.f.tell()

    def flush(self):
        self.f.flush()

    def close(self):
        if not self.f.closed:
            self.f.truncate()
            self.f.close()
        super().close()


def b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


when = (1980, 1, 1, 0, 0, 0)
dist = "bigpkg-1.0.dist-info"
path = os.path.join(out_dir, "bigpkg-1.0-py3-none-any.whl")
rows = []
with zipfile.ZipFile(Sparse(path), "w", compresslevel=1) as z:

    def add(name, data):
        z.writestr(zipfile.ZipInfo(name, when), data, compress_type=zipfile.ZIP_DEFLATED)
        rows.append(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}")

    add("bigpkg/__init__.py", b"")
    if method == "small":
        add("bigpkg/big.bin", b"\0")
    else:
        info = zipfile.ZipInfo("bigpkg/big.bin", when)
        info.compress_type = zipfile.ZIP_STORED if method == "stored" else zipfile.ZIP_DEFLATED
        info.file_size = size
        chunk = bytes(1 << 24)
        with z.open(info, "w", force_zip64=True) as w:
            left = size
            while left:
                c = chunk[: min(left, len(chunk))]
                w.write(c)
                left -= len(c)
        rows.append(f"bigpkg/big.bin,{big_hash},{size}")
    add(f"{dist}/METADATA", b"Metadata-Version: 2.1\nName: bigpkg\nVersion: 1.0\n")
    add(
        f"{dist}/WHEEL",
        b"Wheel-Version: 1.0\nGenerator: big_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    )
    rows.append(f"{dist}/RECORD,,")
    z.writestr(zipfile.ZipInfo(f"{dist}/RECORD", when), "\n".join(rows) + "\n")
print(path)
