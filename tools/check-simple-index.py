#!/usr/bin/env python3
"""Independent checker for a PEP 503 / PEP 691 / PEP 658 simple-index tree on disk.

Written against the PEPs with the standard library only (html.parser, hashlib, json, urllib)
and shares no code with wheelport, so that it can check wheelport's `batch` output.

Usage: check-simple-index.py SIMPLE_DIR
Checks, for the root page and every project page it links:
  * PEP 503: each file link's `#sha256=` matches the file it points to; project names are
    normalized; the page declares `pypi:repository-version` (PEP 629);
  * PEP 658/714: `data-core-metadata` and `data-dist-info-metadata` are equal and match the
    sha256 of `<file>.metadata`, which must equal the wheel's own `*.dist-info/METADATA`;
  * PEP 691/700: `index.json` next to each page lists the same files with the same hashes,
    sizes equal to the file sizes, `versions`, and api-version 1.1.
Prints one line per problem and exits 1 if there was any; prints a summary otherwise.
"""
import hashlib
import html.parser
import json
import os
import re
import sys
import urllib.parse
import zipfile


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
        self.meta = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a":
            self.links.append(a)
        elif tag == "meta" and "name" in a:
            self.meta[a["name"]] = a.get("content")


def parse(path):
    p = Links()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def main(simple):
    problems = []
    files_checked = 0
    root = parse(os.path.join(simple, "index.html"))
    if root.meta.get("pypi:repository-version") != "1.1":
        problems.append("root: missing pypi:repository-version 1.1")
    with open(os.path.join(simple, "index.json"), encoding="utf-8") as f:
        rootj = json.load(f)
    if rootj["meta"]["api-version"] != "1.1":
        problems.append("root index.json: api-version")
    json_projects = sorted(p["name"] for p in rootj["projects"])
    html_projects = sorted(a.get("href", "").rstrip("/") for a in root.links)
    if [urllib.parse.unquote(p) for p in html_projects] != json_projects:
        problems.append(f"root: HTML projects {html_projects} != JSON {json_projects}")
    for proj in json_projects:
        if normalize(proj) != proj:
            problems.append(f"{proj}: not a normalized name")
        pdir = os.path.join(simple, proj)
        page = parse(os.path.join(pdir, "index.html"))
        with open(os.path.join(pdir, "index.json"), encoding="utf-8") as f:
            pj = json.load(f)
        if pj["meta"]["api-version"] != "1.1" or pj["name"] != proj:
            problems.append(f"{proj}/index.json: meta or name wrong")
        jfiles = {f["filename"]: f for f in pj["files"]}
        seen = set()
        for a in page.links:
            href = a["href"]
            url, _, frag = href.partition("#")
            target = os.path.normpath(os.path.join(pdir, urllib.parse.unquote(url)))
            name = os.path.basename(target)
            seen.add(name)
            if not frag.startswith("sha256="):
                problems.append(f"{proj}: {name}: no #sha256= fragment")
                continue
            digest = sha256(target)
            files_checked += 1
            if frag[7:] != digest:
                problems.append(f"{proj}: {name}: index sha256 {frag[7:]} != file {digest}")
            core = a.get("data-core-metadata")
            dist = a.get("data-dist-info-metadata")
            if core != dist:
                problems.append(f"{proj}: {name}: data-core-metadata {core} != data-dist-info-metadata {dist}")
            if name.endswith(".whl"):
                if not core or not core.startswith("sha256="):
                    problems.append(f"{proj}: {name}: wheel without data-core-metadata")
                else:
                    md = target + ".metadata"
                    if sha256(md) != core[7:]:
                        problems.append(f"{proj}: {name}: .metadata hash mismatch")
                    with zipfile.ZipFile(target) as z:
                        inner = [n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
                        if len(inner) != 1 or z.read(inner[0]) != open(md, "rb").read():
                            problems.append(f"{proj}: {name}: .metadata differs from the wheel's METADATA")
            j = jfiles.get(name)
            if j is None:
                problems.append(f"{proj}: {name}: missing from index.json")
                continue
            if j["hashes"].get("sha256") != digest:
                problems.append(f"{proj}: {name}: index.json sha256 wrong")
            if j.get("size") != os.path.getsize(target):
                problems.append(f"{proj}: {name}: index.json size {j.get('size')} wrong")
            jcore = j.get("core-metadata")
            if (core and jcore != {"sha256": core[7:]}) or (not core and jcore not in (False, None)):
                problems.append(f"{proj}: {name}: index.json core-metadata {jcore} != HTML {core}")
            if a.get("data-requires-python") != j.get("requires-python"):
                problems.append(f"{proj}: {name}: requires-python differs between HTML and JSON")
            y = a.get("data-yanked")
            jy = j.get("yanked", False)
            if (y is None and jy is not False) or (y is not None and jy != (y if y else True)):
                problems.append(f"{proj}: {name}: yanked differs between HTML ({y!r}) and JSON ({jy!r})")
        if seen != set(jfiles):
            problems.append(f"{proj}: HTML files {sorted(seen)} != JSON files {sorted(jfiles)}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok: {len(json_projects)} projects, {files_checked} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
