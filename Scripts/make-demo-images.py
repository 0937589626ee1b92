#!/usr/bin/env python3
"""Writes Demo/possessions.sql: the demo possessions, with small photos drawn here with Pillow
as blob literals (a few JPEGs and PNGs of 2-8 KB; two possessions share one photo; one has none).

Run from the repository root:  python3 Scripts/make-demo-images.py
Needs Pillow (pip install pillow). Drawing is deterministic: no randomness, no clock.
"""
import io
import pathlib

from PIL import Image, ImageDraw, ImageFilter

WIDTH, HEIGHT = 240, 180


def canvas(top, bottom, width=WIDTH, height=HEIGHT):
    """A soft diagonal gradient background, like light falling across a table."""
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            t = (y / (height - 1)) * 0.8 + (x / (width - 1)) * 0.2
            pixels[x, y] = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom))
    return image, ImageDraw.Draw(image)


def bicycle():
    image, draw = canvas((190, 225, 250), (250, 245, 230))
    draw.rectangle([0, 150, WIDTH, HEIGHT], fill=(120, 170, 90))
    for cx in (70, 170):
        draw.ellipse([cx - 38, 92, cx + 38, 168], outline=(40, 40, 40), width=6)
        draw.ellipse([cx - 5, 125, cx + 5, 135], fill=(40, 40, 40))
    frame = (200, 40, 50)
    draw.line([(70, 130), (110, 130), (150, 80), (95, 80), (70, 130)], fill=frame, width=6)
    draw.line([(110, 130), (95, 80)], fill=frame, width=6)
    draw.line([(150, 80), (170, 130)], fill=frame, width=6)
    draw.line([(90, 72), (108, 72)], fill=(30, 30, 30), width=7)
    draw.line([(150, 80), (145, 62), (160, 60)], fill=(30, 30, 30), width=5)
    return image


def guitar():
    image, draw = canvas((250, 235, 210), (230, 200, 160))
    body = (190, 120, 50)
    draw.ellipse([60, 95, 150, 170], fill=body)
    draw.ellipse([75, 60, 135, 115], fill=body)
    draw.ellipse([95, 105, 115, 125], fill=(60, 35, 20))
    draw.polygon([(100, 70), (110, 70), (190, 10), (182, 4)], fill=(90, 55, 25))
    draw.rectangle([182, 0, 205, 18], fill=(60, 35, 20))
    for offset in (-4, 0, 4):
        draw.line([(105 + offset, 150), (186 + offset / 2, 8)], fill=(235, 235, 225), width=1)
    return image.filter(ImageFilter.SMOOTH)


def camera():
    image, draw = canvas((245, 240, 250), (205, 200, 225), 160, 120)
    draw.rounded_rectangle([20, 35, 140, 100], radius=10, fill=(50, 50, 60))
    draw.rectangle([30, 25, 60, 36], fill=(50, 50, 60))
    draw.ellipse([55, 40, 105, 90], fill=(200, 200, 210))
    draw.ellipse([65, 50, 95, 80], fill=(30, 60, 110))
    draw.ellipse([72, 55, 80, 63], fill=(220, 230, 255))
    draw.rectangle([115, 42, 132, 52], fill=(250, 210, 60))
    return image.filter(ImageFilter.SMOOTH)


def teapot():
    image, draw = canvas((255, 248, 235), (235, 215, 190), 160, 120)
    pot = (60, 140, 130)
    draw.ellipse([45, 40, 115, 100], fill=pot)
    draw.polygon([(112, 65), (140, 45), (145, 50), (115, 80)], fill=pot)
    draw.arc([32, 50, 62, 90], 90, 270, fill=pot, width=6)
    draw.ellipse([70, 28, 90, 44], fill=pot)
    draw.rectangle([35, 100, 125, 104], fill=(180, 150, 110))
    return image.filter(ImageFilter.SMOOTH)


def plant():
    image, draw = canvas((235, 245, 235), (215, 230, 215))
    draw.polygon([(90, 120), (150, 120), (140, 170), (100, 170)], fill=(200, 110, 70))
    leaf = (40, 130, 70)
    for x, y, w in ((70, 40, 60), (120, 30, 70), (95, 70, 55), (140, 75, 60), (55, 85, 50)):
        draw.ellipse([x, y, x + w, y + w * 0.7], fill=leaf, outline=(25, 90, 45), width=2)
        draw.line([(120, 120), (x + w / 2, y + w * 0.35)], fill=(25, 90, 45), width=3)
    return image.filter(ImageFilter.SMOOTH_MORE)


def mug():
    image, draw = canvas((250, 250, 250), (200, 215, 235), 160, 120)
    blue = (40, 90, 180)
    draw.rounded_rectangle([45, 30, 105, 100], radius=6, fill=blue)
    draw.arc([90, 45, 125, 85], 270, 90, fill=blue, width=8)
    draw.ellipse([50, 24, 100, 36], fill=(90, 60, 40))
    for x in (60, 75, 90):
        draw.arc([x, 5, x + 10, 22], 180, 360, fill=(170, 170, 170), width=2)
    return image.filter(ImageFilter.SMOOTH)


def jpeg(image):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=82, optimize=True)
    return buffer.getvalue()


def png(image):
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def sql_text(value):
    return "'" + value.replace("'", "''") + "'"


def main():
    mug_photo = png(mug())
    rows = [
        ("Bicycle", "A red city bike with a **basket** and dynamo lights. Serviced in spring.",
         jpeg(bicycle())),
        ("Acoustic guitar", "Spruce top, six strings; a little out of tune.", jpeg(guitar())),
        ("Film camera", "35 mm rangefinder from a flea market. The light meter still works.",
         png(camera())),
        ("Teapot", "Holds four cups. Handle glued once; careful.", png(teapot())),
        ("Monstera", "Water every Sunday; keep out of direct sun.", jpeg(plant())),
        ("Blue mug", "Bought at the pottery fair.", mug_photo),
        ("Blue mug (spare)", "Its twin, kept for guests.", mug_photo),
        ("Passport", "Expires in 2031. Kept in the top drawer.", None),
    ]
    lines = [
        "-- Generated by Scripts/make-demo-images.py; edit that script, not this file.",
        "CREATE TABLE possessions(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT,",
        "  description TEXT, photo BLOB);",
    ]
    for index, (name, description, photo) in enumerate(rows, start=1):
        blob = "NULL" if photo is None else "X'" + photo.hex().upper() + "'"
        lines.append(
            f"INSERT INTO possessions VALUES ({index}, {sql_text(name)}, "
            f"{sql_text(description)}, {blob});"
        )
        size = 0 if photo is None else len(photo)
        print(f"{name}: {size} bytes")
    pathlib.Path("Demo/possessions.sql").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
