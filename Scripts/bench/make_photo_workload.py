#!/usr/bin/env python3
"""Makes the phone-photo workload of Scripts/bench-photos, seeded: COUNT possessions whose photos
are like a phone's (4032 x 3024 JPEGs of about 3 MB with EXIF GPS, camera and orientation
tags; 10% PNG with alpha at 2016 x 1512; 5% HEIC and 5% TIFF at 4032 x 3024), as
possessions.sqlite for taskpress and as page bundles of a Hugo site (Hugo cannot read HEIC, so
its bundles have no HEIC photos; their pages show none).

Usage: make_photo_workload.py FOLDER COUNT     (needs Pillow and the `vips` command for HEIC)
"""
import io
import pathlib
import random
import sqlite3
import subprocess
import sys
import tempfile

from PIL import Image, ImageChops, ImageDraw

folder = pathlib.Path(sys.argv[1])
count = int(sys.argv[2])
rng = random.Random(18)


def picture(width, height):
    small = Image.new("RGB", (width // 16, height // 16))
    small.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256))
                   for _ in range(small.width * small.height)])
    image = small.resize((width, height), Image.BICUBIC)
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x, y = rng.randrange(width), rng.randrange(height)
        r = rng.randrange(50, 600)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=tuple(rng.randrange(256) for _ in range(3)))
    grain = Image.effect_noise((width, height), 6).convert("RGB")
    return ImageChops.add(image, grain, 1.0, -128)


def exif(orientation):
    data = Image.Exif()
    data[0x0112] = orientation
    data[0x010F] = "BenchPhoneMaker"
    data[0x0110] = "BenchPhone 15"
    data[0x8825] = {1: "N", 2: (35.0, 39.0, rng.random() * 60), 3: "E", 4: (139.0, 44.0, 1.5)}
    return data


folder.mkdir(parents=True, exist_ok=True)
database = folder / "possessions.sqlite"
if database.exists():
    database.unlink()
connection = sqlite3.connect(database)
connection.execute(
    "CREATE TABLE possessions(id INTEGER PRIMARY KEY, name TEXT, description TEXT, photo BLOB)")
hugo = folder / "hugo"
(hugo / "content" / "possessions").mkdir(parents=True, exist_ok=True)
(hugo / "layouts" / "_default").mkdir(parents=True, exist_ok=True)
(hugo / "config.toml").write_text(
    'baseURL = "http://localhost/"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n'
    '[imaging]\nquality = 80\nresampleFilter = "Lanczos"\n')
(hugo / "layouts" / "_default" / "single.html").write_text(
    '<h1>{{ .Title }}</h1>{{ with .Resources.GetMatch "photo.*" }}{{ $img := . }}'
    '{{ range slice 240 640 1024 1600 }}{{ if lt . $img.Width }}'
    '{{ $r := $img.Resize (printf "%dx webp q80" .) }}<img src="{{ $r.RelPermalink }}" '
    'width="{{ $r.Width }}" height="{{ $r.Height }}">{{ end }}{{ end }}{{ end }}\n')
(hugo / "layouts" / "_default" / "list.html").write_text(
    "<ul>{{ range .Pages }}<li>{{ .Title }}</li>{{ end }}</ul>\n")
total = 0
for id in range(1, count + 1):
    kind = "jpeg"
    if id % 10 == 0:
        kind = "png"
    elif id % 20 == 3:
        kind = "heic"
    elif id % 20 == 7:
        kind = "tiff"
    out = io.BytesIO()
    if kind == "png":
        image = picture(2016, 1512).convert("RGBA")
        image.putalpha(Image.linear_gradient("L").resize(image.size))
        image.save(out, "PNG", compress_level=6)
        extension = "png"
    elif kind == "tiff":
        picture(4032, 3024).save(out, "TIFF", compression="tiff_lzw")
        extension = "tif"
    elif kind == "heic":
        with tempfile.TemporaryDirectory() as scratch:
            source = pathlib.Path(scratch) / "in.jpg"
            picture(4032, 3024).save(source, "JPEG", quality=92, exif=exif(1))
            target = pathlib.Path(scratch) / "out.heic"
            subprocess.run(["vips", "heifsave", str(source), str(target), "--Q", "60"], check=True)
            out.write(target.read_bytes())
        extension = "heic"
    else:
        orientation = rng.choice([1, 1, 1, 6, 6, 3, 8])
        image = picture(4032, 3024)
        if orientation in (6, 8):
            image = image.transpose(Image.Transpose.ROTATE_90)
        image.save(out, "JPEG", quality=88, exif=exif(orientation))
        extension = "jpg"
    photo = out.getvalue()
    total += len(photo)
    connection.execute("INSERT INTO possessions VALUES (?, ?, ?, ?)",
                       (id, f"Thing {id}", f"A {kind} photo", photo))
    bundle = hugo / "content" / "possessions" / str(id)
    bundle.mkdir(parents=True, exist_ok=True)
    (bundle / "index.md").write_text(f'---\ntitle: "Thing {id}"\n---\nA {kind} photo\n')
    if kind != "heic":
        (bundle / f"photo.{extension}").write_bytes(photo)
connection.commit()
connection.close()
print(f"{count} photos, {total / 1e6:.0f} MB", file=sys.stderr)
