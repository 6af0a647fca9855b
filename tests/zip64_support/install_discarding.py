"""Install a wheel with `installer` (its WheelFile, validate_record and install), validating
every RECORD row (`--validate-record all`), into DEST; the files named DISCARD... are streamed
through installer's hashing copy to /dev/null instead of being written, so that a 4 GiB member
is checked without 4 GiB of disk writes. Prints `path size hash` for each discarded file.

usage: install_discarding.py WHEEL DEST DISCARD...   (installer on PYTHONPATH)
"""
import os
import sys
import sysconfig

from installer import install
from installer.destinations import SchemeDictionaryDestination
from installer.records import Hash, RecordEntry
from installer.sources import WheelFile
from installer.utils import copyfileobj_with_hashing, get_launcher_kind


class Discarding(SchemeDictionaryDestination):
    def write_to_fs(self, scheme, path, stream, is_executable):
        if path not in discard:
            return super().write_to_fs(scheme, path, stream, is_executable)
        with open(os.devnull, "wb") as f:
            digest, size = copyfileobj_with_hashing(stream, f, self.hash_algorithm)
        print(path, size, f"{self.hash_algorithm}={digest}")
        return RecordEntry(path, Hash(self.hash_algorithm, digest), size)


wheel, dest, discard = sys.argv[1], sys.argv[2], set(sys.argv[3:])
with WheelFile.open(wheel) as source:
    source.validate_record(validate_contents=True)
    paths = sysconfig.get_paths(vars={"base": dest, "platbase": dest})
    paths["headers"] = os.path.join(dest, "include", source.distribution)
    paths["purelib"] = paths["platlib"] = dest
    destination = Discarding(
        scheme_dict=paths,
        interpreter=sys.executable,
        script_kind=get_launcher_kind(),
    )
    install(source, destination, {"INSTALLER": b"installer"})
