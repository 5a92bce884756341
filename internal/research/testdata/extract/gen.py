#!/usr/bin/env python3
"""Write the small synthetic PDF and EPUB fixtures of extract_docs_test.go.

Each fixture reproduces, in a few hundred bytes, a defect seen on a real
document (see `make eval-extract`): run `python3 gen.py` in this directory
after changing it and commit the outputs. Python 3 standard library only.

  running-lines.pdf  a three-line running footer (bioRxiv) and "Article N"
                     headings that start pages and recur inside them (UDHR)
  glyphs.pdf         ligature glyphs (/fi /fl /ffi), a soft hyphen at a line
                     end and a newline character drawn inside a word (OCR
                     layers such as the UDHR's)
  outline.pdf        a document outline (bookmarks) whose titles are plain
                     lines, one of them wrapped over two lines
  outline-title.pdf  no /Title in the document info, one top outline entry
                     that the first page shows (the UDHR)
  bold-headings.pdf  a paper whose section and subsection titles are set in
                     a bold font, a wrapped one among them, a bold figure
                     caption and a bold table header (the bioRxiv paper)
  toc-ncx.epub       chapter files that all start at h1 under a part named
  toc-nav.epub       in the table of contents: an EPUB 2 NCX, an EPUB 3 nav
                     (the SQLite documentation)
  soft-hyphen.epub   soft hyphens (&shy;) and a ligature in the XHTML text
"""
import zipfile


def pdf_string(b):
    out = bytearray(b"(")
    for c in b:
        if c in b"()\\":
            out += b"\\" + bytes([c])
        elif c == 10:
            out += b"\\n"
        elif c < 32 or c > 126:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return bytes(out + b")")


def write_pdf(path, pages, outline=None, encoding=b"/WinAnsiEncoding"):
    """pages: lists of lines (bytes, or (b"bold", bytes) for Helvetica-Bold;
    a line may be a list of table cells (x, bytes)),
    drawn top-down at 14pt leading. outline: [(title, page index, [children...])]."""
    objs = []

    def add(body):
        objs.append(body)
        return len(objs)

    catalog = add(None)
    pages_id = add(None)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding " + encoding + b" >>")
    bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    page_ids = []
    for lines in pages:
        ops = [b"BT /F1 11 Tf"]
        y = 740
        for line in lines:
            f = b"/F1 11 Tf "
            if isinstance(line, tuple):
                f, line = b"/F2 11 Tf ", line[1]
            if isinstance(line, list):  # table cells: (x, text)
                for x, cell in line:
                    ops.append(b"%s1 0 0 1 %d %d Tm %s Tj" % (f, x, y, pdf_string(cell)))
            elif line:
                ops.append(b"%s1 0 0 1 72 %d Tm %s Tj" % (f, y, pdf_string(line)))
            y -= 14
        ops.append(b"ET")
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        page_ids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>" % (pages_id, font, bold, content)))
    objs[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % p for p in page_ids), len(page_ids))
    cat = b"<< /Type /Catalog /Pages %d 0 R" % pages_id
    if outline:
        root = add(None)

        def items(parent, entries):
            ids = [add(None) for _ in entries]
            for k, (title, page, kids) in enumerate(entries):
                d = b"<< /Title %s /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]" % (pdf_string(title.encode("latin-1")), parent, page_ids[page])
                if k > 0:
                    d += b" /Prev %d 0 R" % ids[k - 1]
                if k + 1 < len(ids):
                    d += b" /Next %d 0 R" % ids[k + 1]
                if kids:
                    first, last = items(ids[k], kids)
                    d += b" /First %d 0 R /Last %d 0 R /Count %d" % (first, last, len(kids))
                objs[ids[k] - 1] = d + b" >>"
            return ids[0], ids[-1]

        first, last = items(root, outline)
        objs[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (first, last, len(outline))
        cat += b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    objs[catalog - 1] = cat + b" >>"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, catalog, xref)
    with open(path, "wb") as f:
        f.write(out)


def running_lines():
    footer = [
        b"perpetuity. It is made available under a CC-BY 4.0 International license.",
        b"preprint (which was not certified by peer review) is the author/funder, who has granted a license.",
        b"bioRxiv preprint doi: 10.1101/2025.11.07.687135; this version posted February 26, 2026.",
    ]
    pages = []
    for p in range(6):
        a, b = 2 * p + 1, 2 * p + 2
        lines = [b"Article %d" % a, b""]
        lines += [b"Everyone has right number %d.%d to rest and leisure in the pager." % (a, i) for i in range(4)]
        lines += [b"", b"Article %d" % b, b""]
        lines += [b"No one shall be held in journal slavery %d.%d by the checkpointer." % (b, i) for i in range(4)]
        lines += [b""] * 3 + footer
        pages.append(lines)
    write_pdf("running-lines.pdf", pages)


def glyphs():
    # Differences: 1 fi, 2 fl, 3 ffi, 4 soft hyphen.
    enc = b"<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl /ffi /sfthyphen] >>"
    page = [
        b"The \x01rst \x02ow of the journal is e\x03cient and re\x02ects every",
        b"page the pager writes; the checkpointer com\x04",
        b"putes the frames to copy back, and it promotes res\npect for locks.",
        b"Speci\x01c pages are never lost.",
    ]
    write_pdf("glyphs.pdf", [page], encoding=enc)


def outline():
    pages = [
        [b"Pager Handbook", b"Preface", b"", b"This handbook explains how the pager keeps pages safe on disk.",
         b"1. Everyone has the right to a st", b"andard journal, said the first maintainer."],
        [b"Rollback journal", b"The rollback journal keeps the original content of changed pages",
         b"so that an interrupted transaction can be undone after a crash."],
        [b"Write-ahead log and", b"checkpoints", b"The write-ahead log appends new frames; a checkpoint copies",
         b"them back into the database file.", b"Index of terms", b"journal, frame, checkpoint, pager."],
    ]
    toc = [("Pager Handbook", 0, [
        ("Preface", 0, []),
        ("Rollback journal", 1, []),
        ("Write-ahead log and checkpoints", 2, []),
    ]), ("Index of terms", 2, [])]
    write_pdf("outline.pdf", pages, outline=toc)


def outline_title():
    pages = [[b"Universal Pager Declaration", b"Preamble", b"Whereas pages are written to disk by the pager,",
              b"Article 1", b"All pages are born equal in dignity and rights."],
             [b"Article 2", b"Everyone is entitled to a journal."]]
    toc = [("Universal Pager Declaration", 0, [("Preamble", 0, []), ("Article 1", 0, []), ("Article 2", 1, [])])]
    write_pdf("outline-title.pdf", pages, outline=toc)


def bold_headings():
    B = lambda t: (b"bold", t)
    body = [b"The pager writes pages to the journal before it changes the database file,",
            b"so that a crash in the middle of a transaction can be rolled back later on."] * 2
    pages = [
        [B(b"Assessment of Pager Function in Databases Using"), B(b"Journals and Write-Ahead Logs"), b"",
         B(b"Abstract"), *body, B(b"Results"),
         B(b"Enhanced durability of journal-based rollback versus"), B(b"checkpoints alone"), *body,
         B(b"Fig. 1. Comparison of journal and log modes across page sizes for"), b"several workloads in the benchmark.", *body],
        [B(b"Methods"), *body, B([(72, b"Metric"), (250, b"Description"), (420, b"Unit")]),
         [(72, b"pages"), (250, b"pages written per second"), (420, b"1/s")], *body,
         B(b"Pager instrumentation"), *body,
         B(b"S1 Fig. Throughput of every pager configuration across the"), *body,
         B(b"References"), b"[1] A. Author. Paging. 2020."],
    ]
    write_pdf("bold-headings.pdf", pages)


def write_epub(name, files):
    with zipfile.ZipFile(name, "w") as z:
        for fname, body in files:
            info = zipfile.ZipInfo(fname, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if fname == "mimetype" else zipfile.ZIP_DEFLATED
            z.writestr(info, body.encode("utf-8"))


def toc_epubs():
    container = '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'
    chapters = [
        ("OEBPS/text/part1.xhtml", "<html><body><h1>Part One</h1></body></html>"),
        ("OEBPS/text/a.xhtml", "<html><body><h1>Chapter A</h1><p>The pager writes pages.</p><h2>Details</h2><p>Frames go to the log.</p></body></html>"),
        ("OEBPS/text/b.xhtml", "<html><body><h1>Chapter B</h1><p>Rollback restores the journal.</p></body></html>"),
    ]
    items = '<item id="p1" href="text/part1.xhtml" media-type="application/xhtml+xml"/><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b.xhtml" media-type="application/xhtml+xml"/>'
    spine = '<itemref idref="p1"/><itemref idref="a"/><itemref idref="b"/>'
    ncx = ('<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><docTitle><text>Pager Book</text></docTitle><navMap>'
           '<navPoint id="n1"><navLabel><text>Part One</text></navLabel><content src="text/part1.xhtml"/>'
           '<navPoint id="n2"><navLabel><text>Chapter A</text></navLabel><content src="text/a.xhtml"/></navPoint>'
           '<navPoint id="n3"><navLabel><text>Details</text></navLabel><content src="text/a.xhtml#details"/></navPoint>'
           '<navPoint id="n4"><navLabel><text>Chapter B</text></navLabel><content src="text/b.xhtml"/></navPoint>'
           '</navPoint></navMap></ncx>')
    nav = ('<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>'
           '<nav epub:type="landmarks"><ol><li><a href="text/b.xhtml">Start</a></li></ol></nav>'
           '<nav epub:type="toc"><ol><li><a href="text/part1.xhtml">Part One</a><ol>'
           '<li><a href="text/a.xhtml">Chapter A</a></li><li><a href="text/b.xhtml">Chapter B</a></li></ol></li></ol></nav></body></html>')
    for name, version, toc_item, spine_attr, toc_file in [
        ("toc-ncx.epub", "2.0", '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>', ' toc="ncx"', ("OEBPS/toc.ncx", ncx)),
        ("toc-nav.epub", "3.0", '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>', "", ("OEBPS/nav.xhtml", nav)),
    ]:
        opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="%s"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
               '<dc:title>Pager Book</dc:title></metadata><manifest>%s%s</manifest><spine%s>%s</spine></package>') % (version, items, toc_item, spine_attr, spine)
        write_epub(name, [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container), ("OEBPS/content.opf", opf), toc_file, *chapters])


def soft_hyphen_epub():
    files = [
        ("mimetype", "application/epub+zip"),
        ("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
        ("content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Hyphenated Book</dc:title></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>'),
        ("c1.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Check&#xAD;points</h1><p>The check&shy;pointer copies frames from the write-ahead log; its e\ufb03&shy;ciency de&shy;pends on the \ufb01le system.</p></body></html>'),
    ]
    write_epub("soft-hyphen.epub", files)


if __name__ == "__main__":
    running_lines()
    glyphs()
    outline()
    outline_title()
    bold_headings()
    toc_epubs()
    soft_hyphen_epub()
