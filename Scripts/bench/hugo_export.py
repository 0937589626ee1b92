#!/usr/bin/env python3
"""Export the benchmark databases as a Hugo site source, for comparing taskpress with Hugo.

  hugo_export.py TODOS.sqlite POSSESSIONS.sqlite SITE_DIR --hugo-version X.Y.Z [--page-size N]

SITE_DIR must not exist. It receives:
  config.toml                       Scripts/bench/hugo/config.toml + the pagination setting in
                                    the form this Hugo version understands
  layouts/, static/assets/          copied from Scripts/bench/hugo/
  content/_index.md                 the paginated index (home page)
  content/todos/<pk>.md             one page per to-do; JSON front matter with `weight` = its
                                    position in index order (priority 1, 2, 3, other numbers,
                                    none; then pk), so Hugo's default order is the index order
                                    and PrevInSection/NextInSection follow it
  content/board.md                  the task board (reads data/todos.json)
  content/possessions/_index.md, content/possessions/<id>.md
  static/photos/<sha256>.<ext>      every photo BLOB, sniffed by its first bytes, stored once
  data/todos.json                   every to-do in index order, for the board

Prints the seconds the export took (without copying the theme) as `seconds=S files=N`.
"""

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
THEME = os.path.join(HERE, "hugo")

LABELS = {1: "High", 2: "Medium", 3: "Low"}
MD_PUNCT = set(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def md_escape(text):
    """Backslash-escape ASCII punctuation so Markdown shows the text as written."""
    out = []
    for ch in text:
        if ch in "\n":
            out.append("  \n")
        elif ord(ch) < 128 and ord(ch) in MD_PUNCT:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def sniff(blob):
    """(extension, width, height) from the first bytes, or None."""
    if blob.startswith(b"\x89PNG\r\n\x1a\n") and len(blob) >= 24:
        w, h = struct.unpack(">II", blob[16:24])
        return "png", w, h
    if blob[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", blob[6:10])
        return "gif", w, h
    if blob[:4] == b"RIFF" and blob[8:12] == b"WEBP":
        chunk = blob[12:16]
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", blob[26:30])
            return "webp", w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L":
            b = blob[21:25]
            w = 1 + (((b[1] & 0x3F) << 8) | b[0])
            h = 1 + (((b[3] & 0x0F) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
            return "webp", w, h
        if chunk == b"VP8X":
            w = 1 + int.from_bytes(blob[24:27], "little")
            h = 1 + int.from_bytes(blob[27:30], "little")
            return "webp", w, h
        return "webp", 0, 0
    if blob[:3] == b"\xff\xd8\xff":
        i = 2
        while i + 9 < len(blob):
            if blob[i] != 0xFF:
                i += 1
                continue
            marker = blob[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = struct.unpack(">H", blob[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                h, w = struct.unpack(">HH", blob[i + 5:i + 9])
                return "jpg", w, h
            i += 2 + length
        return "jpg", 0, 0
    return None


def priority_key(priority):
    """Index order (DESIGN.md): High, Medium, Low, then other numbers by value, then none."""
    if isinstance(priority, int) and not isinstance(priority, bool):
        return (0 if priority in LABELS else 1, priority)
    return (2, 0)


def table_name(db, wanted):
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        if name.lower() == wanted:
            return name
    sys.exit(f"hugo_export: no table '{wanted}'")


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def export(todos_db, possessions_db, site):
    files = 0
    content = os.path.join(site, "content")
    for d in ("content/todos", "content/possessions", "static/photos", "data"):
        os.makedirs(os.path.join(site, d), exist_ok=True)

    # MARK: to-dos
    db = sqlite3.connect(f"file:{todos_db}?mode=ro", uri=True)
    db.text_factory = lambda b: b.decode("utf-8", "replace").replace("\x00", "")
    table = table_name(db, "todo")
    rows = db.execute(f'SELECT pk, text, priority, complete FROM "{table}"').fetchall()
    db.close()
    rows.sort(key=lambda r: (priority_key(r[2]), r[0]))
    board = []
    for weight, (pk, text, priority, complete) in enumerate(rows, start=1):
        text = text or ""
        done = bool(complete)
        if isinstance(priority, int) and not isinstance(priority, bool):
            label = LABELS.get(priority, f"Priority {priority}")
        else:
            priority, label = None, "No priority"
        front = {"title": text, "pk": pk, "priority": priority, "priorityLabel": label,
                 "complete": done, "weight": weight}
        write(os.path.join(content, "todos", f"{pk}.md"),
              json.dumps(front, ensure_ascii=False) + "\n\n" + md_escape(text) + "\n")
        files += 1
        board.append({"pk": pk, "text": text, "p": priority or 0, "c": done})
    write(os.path.join(site, "data", "todos.json"),
          json.dumps({"items": board}, ensure_ascii=False, separators=(",", ":")))
    write(os.path.join(content, "_index.md"), '{"title": "To-dos"}\n')
    write(os.path.join(content, "todos", "_index.md"),
          '{"title": "To-dos", "_build": {"render": "never", "list": "always"}}\n')
    write(os.path.join(content, "board.md"), '{"title": "Board", "type": "board"}\n')
    files += 4

    # MARK: possessions
    db = sqlite3.connect(f"file:{possessions_db}?mode=ro", uri=True)
    db.text_factory = lambda b: b.decode("utf-8", "replace").replace("\x00", "")
    table = table_name(db, "possessions")
    seen = set()
    for pid, name, description, photo in db.execute(
            f'SELECT id, name, description, photo FROM "{table}" ORDER BY id'):
        front = {"title": name or "", "id": pid, "weight": pid}
        if photo:
            info = sniff(photo)
            if info:
                ext, w, h = info
                file_name = f"{hashlib.sha256(photo).hexdigest()}.{ext}"
                if file_name not in seen:
                    seen.add(file_name)
                    with open(os.path.join(site, "static", "photos", file_name), "wb") as f:
                        f.write(photo)
                    files += 1
                front.update(photo=f"photos/{file_name}", width=w, height=h)
        write(os.path.join(content, "possessions", f"{pid}.md"),
              json.dumps(front, ensure_ascii=False) + "\n\n" + (description or "") + "\n")
        files += 1
    db.close()
    write(os.path.join(content, "possessions", "_index.md"), '{"title": "Possessions"}\n')
    return files + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("todos")
    parser.add_argument("possessions")
    parser.add_argument("site")
    parser.add_argument("--hugo-version", required=True, help="e.g. 0.111.3")
    parser.add_argument("--page-size", type=int, default=100)
    args = parser.parse_args()
    if os.path.lexists(args.site):
        sys.exit(f"hugo_export: '{args.site}' exists; give a new folder")

    # The theme and config are not part of the timed export.
    shutil.copytree(os.path.join(THEME, "layouts"), os.path.join(args.site, "layouts"))
    shutil.copytree(os.path.join(THEME, "static"), os.path.join(args.site, "static"))
    with open(os.path.join(THEME, "config.toml"), encoding="utf-8") as f:
        config = f.read()
    # Hugo 0.128 replaced the top-level `paginate` with [pagination] pagerSize.
    version = tuple(int(x) for x in args.hugo_version.split(".")[:2])
    if version >= (0, 128):
        config += f"\n[pagination]\n  pagerSize = {args.page_size}\n  path = 'page'\n"
    else:
        config = f"paginate = {args.page_size}\npaginatePath = 'page'\n" + config
    write(os.path.join(args.site, "config.toml"), config)

    start = time.monotonic()
    files = export(args.todos, args.possessions, args.site)
    print(f"seconds={time.monotonic() - start:.6f} files={files}")


if __name__ == "__main__":
    main()
