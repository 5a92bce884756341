#!/usr/bin/env python3
"""Score asky's PDF and EPUB extraction against a reference made outside it.

Usage: score.py ASKY_BIN DOC [DOC ...]

Every document is ingested with `asky corpus ingest` into a throwaway
ASKY_HOME (deep tier off: only extraction and chunking are measured), then
the stored text, sections and chunks are read back from the SQLite store
and compared with a reference extraction:

  PDF   poppler-utils `pdftotext` (reading order), outline from `pdftohtml -xml`
  EPUB  the spine documents through Python's html.parser, titles from toc.ncx
        or the EPUB 3 nav document

Figures per document:
  words     reference words / extracted words
  recall    share of the reference words present in the extraction (multiset)
  order     share of the reference words recovered in order (longest
            matching blocks of difflib, no junk heuristic)
  split     extracted word pairs that are one reference word cut in two
            ("res pect", "classifi cation")
  glued     extracted words that are two reference words run together
            ("licenseperpetuity")
  badch     U+FFFD, private-use, control, ligature and soft-hyphen characters
  runhead   chunks holding a running header/footer line of the reference
            (a line at a page edge that recurs there on most pages)
  toc       share of outline / TOC titles found among the section titles
  secchunk  share of chunks that carry a section title
  secs      number of sections; ingest time and peak memory of the ingest

Nothing here is part of `make test`; it needs Python 3 and, for PDFs,
poppler-utils (apt-get install poppler-utils).
"""
import collections
import difflib
import html.parser
import json
import os
import posixpath
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unicodedata
import xml.etree.ElementTree as ET
import zipfile

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text):
    text = unicodedata.normalize("NFKC", text).lower()
    return WORD.findall(text)


# ---------------------------------------------------------------- references

def pdf_reference(path):
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], check=True, capture_output=True).stdout
    text = out.decode("utf-8", "replace")
    pages = text.split("\f")
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-q", "-stdout", path], capture_output=True).stdout
    titles = [re.sub(r"<[^>]+>", "", m).strip() for m in re.findall(rb"<item[^>]*>(.*?)</item>", xml, re.S) for m in [m.decode("utf-8", "replace")]]
    return text, pages, [t for t in titles if t]


class _Text(html.parser.HTMLParser):
    SKIP = {"script", "style", "head", "nav", "svg", "template", "noscript"}
    BLOCK = {"p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "dt", "dd", "table", "ul", "ol", "blockquote", "section", "article", "figure", "figcaption", "caption", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def epub_reference(path):
    z = zipfile.ZipFile(path)
    ns = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "o": "http://www.idpf.org/2007/opf"}
    opf_path = ET.fromstring(z.read("META-INF/container.xml")).find(".//c:rootfile", ns).get("full-path")
    opf = ET.fromstring(z.read(opf_path))
    base = posixpath.dirname(opf_path)
    items = {i.get("id"): i for i in opf.find("o:manifest", ns)}
    text = []
    for ref in opf.find("o:spine", ns):
        it = items.get(ref.get("idref"))
        if it is None:
            continue
        p = _Text()
        p.feed(z.read(posixpath.normpath(posixpath.join(base, it.get("href")))).decode("utf-8", "replace"))
        text.append("".join(p.parts))
    titles = []
    for it in items.values():
        href = posixpath.normpath(posixpath.join(base, it.get("href")))
        if it.get("media-type") == "application/x-dtbncx+xml":
            root = ET.fromstring(z.read(href))
            titles += [t.text.strip() for t in root.iter("{http://www.daisy.org/z3986/2005/ncx/}text") if t.text]
            titles = titles[1:] if titles else titles  # the first is the book title
        elif "nav" in (it.get("properties") or "").split():
            p = _Text()
            p.feed(z.read(href).decode("utf-8", "replace"))
            titles += [l.strip() for l in "".join(p.parts).splitlines() if l.strip()]
    return "\n".join(text), None, titles


def edge_key(line):
    return re.sub(r"\d+", "#", " ".join(line.split()))


def running_lines(pages):
    """Lines among the first or last four lines of a page that recur there on
    three quarters of the pages and hardly ever inside a page."""
    if not pages or len(pages) < 3:
        return set()
    edge, inside = collections.Counter(), collections.Counter()
    for p in pages:
        ls = [l for l in p.splitlines() if l.strip()]
        edge.update({edge_key(l) for l in ls[:4] + ls[-4:]})
        inside.update(edge_key(l) for l in ls[4:-4])
    n = max(3, len(pages) * 3 // 4)
    return {k for k, c in edge.items() if c >= n and inside[k] * 4 < c and words(k.replace("#", ""))}


def body_text(pages, heads):
    """The reference without its running lines: they are not content."""
    return "\n".join(l for p in pages for l in p.splitlines() if edge_key(l) not in heads)


def shingles(ws, n=4):
    return {" ".join(ws[i:i + n]) for i in range(len(ws) - n + 1)}


# ---------------------------------------------------------------- measures

def in_order(ref, got):
    ids = {}
    r = [ids.setdefault(w, len(ids)) for w in ref]
    g = [ids.setdefault(w, len(ids)) for w in got]
    # Without the junk heuristic difflib is quadratic on long books; with
    # it, blocks still grow through frequent words next to a match.
    sm = difflib.SequenceMatcher(None, r, g, autojunk=len(r) > 50000)
    return sum(b.size for b in sm.get_matching_blocks())


def broken(vocab, got):
    split = sum(1 for a, b in zip(got, got[1:]) if (a not in vocab or b not in vocab) and a + b in vocab and len(a + b) > 3)
    glued = 0
    for w in set(got) - vocab:
        if len(w) >= 6 and any(w[:i] in vocab and w[i:] in vocab for i in range(2, len(w) - 1)):
            glued += collections.Counter(got)[w] if len(got) < 50000 else 1
    return split, glued


def bad_chars(text):
    n = 0
    for ch in text:
        o = ord(ch)
        if ch == "\ufffd" or 0xE000 <= o <= 0xF8FF or 0xFB00 <= o <= 0xFB06 or ch == "\u00ad" or (o < 32 and ch not in "\n\t\r\f"):
            n += 1
    return n


def ingest(asky, home, doc):
    env = dict(os.environ, ASKY_HOME=home)
    t0 = time.monotonic()
    p = subprocess.Popen([asky, "corpus", "ingest", doc], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
    out = p.stdout.read().decode()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"ingest {doc} failed: {out}")
    return time.monotonic() - t0, ru.ru_maxrss / 1024


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    asky = os.path.abspath(sys.argv[1])
    docs = sys.argv[2:]
    if any(d.lower().endswith(".pdf") for d in docs) and not (shutil.which("pdftotext") and shutil.which("pdftohtml")):
        sys.exit("eval-extract: pdftotext not found (apt-get install poppler-utils)")
    home = tempfile.mkdtemp(prefix="asky-eval-extract-")
    try:
        subprocess.run([asky, "config", "set", "research.deep.provider", "off"], env=dict(os.environ, ASKY_HOME=home), check=True, capture_output=True)
        hdr = f"{'document':34} {'words ref/got':>15} {'recall':>6} {'order':>6} {'split':>5} {'glued':>5} {'badch':>5} {'runhead':>8} {'toc':>9} {'secchunk':>8} {'secs':>5} {'ingest':>14}"
        print(hdr)
        for doc in docs:
            secs_t, rss = ingest(asky, home, doc)
            db = sqlite3.connect(os.path.join(home, "asky.db"))
            sid, content, sections = db.execute("select id, content, sections from corpus_sources where path = ?", (os.path.abspath(doc),)).fetchone()
            chunks = [r[0] + "\n" + r[1] for r in db.execute("select section, text from corpus_chunks where source_id = ? order by idx", (sid,))]
            with_sec = sum(1 for c in chunks if not c.startswith("\n"))
            db.close()
            sections = json.loads(sections)
            if doc.lower().endswith(".epub"):
                ref_text, pages, titles = epub_reference(doc)
            else:
                ref_text, pages, titles = pdf_reference(doc)
            vocab = set(words(ref_text))
            heads = running_lines(pages)
            if heads:
                ref_text = body_text(pages, heads)
            ref, got = words(ref_text), words(content)
            rc, gc = collections.Counter(ref), collections.Counter(got)
            recall = sum((rc & gc).values()) / max(1, len(ref))
            order = in_order(ref, got) / max(1, len(ref))
            split, glued = broken(vocab, got)
            # A chunk holds a running line when it shares a 4-word shingle
            # with one (word order within a header may differ) that the
            # body of the reference never shows.
            body = shingles([re.sub(r"\d+", "#", w) for w in ref])
            hs = set().union(*(shingles([re.sub(r"\d+", "#", w) for w in words(h)]) for h in heads)) - body if heads else set()
            runhead = sum(1 for c in chunks if shingles([re.sub(r"\d+", "#", w) for w in words(c)]) & hs)
            sec_titles = {" ".join(words(s["title"])) for s in sections}
            tnorm = [" ".join(words(t)) for t in titles]
            found = sum(1 for t in tnorm if t in sec_titles)
            toc = f"{found}/{len(titles)}" if titles else "-"
            name = os.path.basename(doc)[:34]
            print(f"{name:34} {len(ref):>7}/{len(got):<7} {recall:6.3f} {order:6.3f} {split:5d} {glued:5d} {bad_chars(content):5d} {runhead:>4}/{len(chunks):<3} {toc:>9} {with_sec / max(1, len(chunks)):8.2f} {len(sections):5d} {secs_t:6.2f}s {rss:4.0f}MB")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
