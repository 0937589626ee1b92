#!/usr/bin/env python3
"""Generate the reference benchmark workload for taskpress (DESIGN.md section 7).

Writes two SQLite databases into OUTDIR:

  todos.sqlite        todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER,
                      complete BOOLEAN) -- N to-dos (default 100,000) with realistic texts of
                      10-80 characters, priorities mostly 1-3 (a few other numbers and NULLs),
                      about a third complete.
  possessions.sqlite  possessions(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT,
                      description TEXT, photo BLOB) -- M possessions (default 10,000); 10% have
                      no photo (NULL), the others carry a distinct image of about 26 KB:
                      ~85% JPEG, ~5% each PNG, GIF and WebP.

Everything is derived from --seed, so the same Pillow build produces the same bytes (checked:
two runs give identical databases). Images are
made cheaply: a few hundred base pictures are rendered once per process, and every row pastes
its own random noise patch and a bar code of its id into a copy of one of them, so every blob
is different while encoding stays the only real cost. Work is spread over all cores.

Usage: make_workload.py OUTDIR [--todos N] [--possessions M] [--seed S] [--no-possessions]

--no-possessions writes todos.sqlite only (the scale workloads of Scripts/benchmark reuse the
reference workload's possessions.sqlite, which the same seed and M would make again).
"""

import argparse
import hashlib
import io
import multiprocessing
import os
import random
import sqlite3
import sys
import time

from PIL import Image, ImageDraw, ImageFilter

# MARK: - To-do texts

VERBS = [
    "Buy", "Call", "Email", "Fix", "Clean", "Book", "Pay", "Return", "Order", "Schedule",
    "Review", "Write", "Update", "Cancel", "Renew", "Pick up", "Drop off", "Organize", "Plan",
    "Check", "Replace", "Repair", "Sort", "Print", "Send", "Prepare", "Finish", "Paint",
    "Water", "Walk", "Feed", "Wash", "Back up", "Install", "Read", "Practice", "Research",
]
OBJECTS = [
    "milk", "eggs", "bread", "the car", "the dishwasher", "the gutters", "flights to Lisbon",
    "the electricity bill", "library books", "a birthday present", "the dentist appointment",
    "the quarterly report", "tax documents", "the garage", "winter tires", "the bike chain",
    "passport photos", "the lawn", "the plants", "the dog", "the cat", "the kitchen sink",
    "the laptop", "the router firmware", "photos from the trip", "the guest room",
    "a new phone case", "the insurance policy", "the gym membership", "groceries for Sunday",
    "the leaking tap", "the fence", "the smoke detector batteries", "the spare keys",
    "the presentation slides", "the budget spreadsheet", "the recycling", "concert tickets",
    "the piano lesson", "invoices for March", "the wedding RSVP", "curtains for the office",
]
PEOPLE = [
    "Alice", "Bob", "Mom", "Dad", "Grandma", "the landlord", "the plumber", "Dr. Patel",
    "José", "Zoë", "Chloé", "Mikko", "Søren", "Ana", "Kenji", "Priya", "the bank", "HR",
    "the school", "Aunt Mary", "Sam & Jo", "the vet", "customer support",
]
TOPICS = [
    "the lease", "next week's dinner", "the refund", "the holiday plans", "the contract",
    "the broken heater", "the school trip", "the new schedule", "the delivery", "the invoice",
    "Saturday", "the move", "the estimate", "project \"Apollo\"", "the 3 o'clock meeting",
]
PLACES = [
    "the post office", "the pharmacy", "IKEA", "the dry cleaner", "the hardware store",
    "school", "the office", "Costco", "the farmers' market", "the station",
]
QUALIFIERS = [
    "before Friday", "today", "tomorrow morning", "this weekend", "by the 15th", "ASAP",
    "after work", "if it rains", "before the trip", "(again)", "- ask about discount",
    "#home", "#work", "for the kids", "at 10:30", "on the way home", "with coupon 20% off",
    "<before noon>", "*urgent*", "and keep the receipt", "before it closes", "next month",
]
NON_ASCII = [
    "牛乳を買う", "歯医者の予約", "レポートを書く", "Café au lait für Jürgen", "Réserver l'hôtel à Nîmes",
    "Купить хлеб", "Llamar a la señora Muñoz", "🎂 Order the cake", "Ελέγξτε το email",
]


def todo_text(rng):
    r = rng.random()
    if r < 0.03:
        text = rng.choice(NON_ASCII)
        if rng.random() < 0.5:
            text += " " + rng.choice(QUALIFIERS)
    elif r < 0.20:
        text = f"Call {rng.choice(PEOPLE)} about {rng.choice(TOPICS)}"
    elif r < 0.30:
        text = f"{rng.choice(['Pick up', 'Drop off', 'Return'])} {rng.choice(OBJECTS)} at {rng.choice(PLACES)}"
    elif r < 0.36:
        text = f"Email {rng.choice(PEOPLE)} re: {rng.choice(TOPICS)}"
    else:
        text = f"{rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    while rng.random() < 0.45:
        text += " " + rng.choice(QUALIFIERS)
    if len(text) > 80:
        text = text[:80].rstrip()
    while len(text) < 10:
        text += " " + rng.choice(QUALIFIERS)
        text = text[:80].rstrip()
    return text


def todo_priority(rng):
    r = rng.random()
    if r < 0.30:
        return 1
    if r < 0.70:
        return 2
    if r < 0.99:
        return 3
    if r < 0.995:
        return rng.choice([0, 4, 5, 9])
    return None


def write_todos(path, count, seed):
    rng = random.Random(f"todos-{seed}")
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute(
        "CREATE TABLE todo(pk INTEGER PRIMARY KEY, text VARCHAR(25), priority INTEGER, complete BOOLEAN)"
    )

    def rows():
        for pk in range(1, count + 1):
            yield (pk, todo_text(rng), todo_priority(rng), 1 if rng.random() < 0.35 else 0)

    db.executemany("INSERT INTO todo(pk, text, priority, complete) VALUES (?, ?, ?, ?)", rows())
    db.commit()
    db.close()


# MARK: - Possessions

ADJECTIVES = ["Old", "Vintage", "New", "Blue", "Red", "Wooden", "Folding", "Electric", "Small",
              "Large", "Cast-iron", "Leather", "Antique", "Portable", "Spare", "Grandpa's"]
BRANDS = ["Canon", "Bosch", "IKEA", "Sony", "Le Creuset", "Makita", "Apple", "Lego", "Brompton",
          "Yamaha", "Nikon", "Dyson", "Kärcher", "Moleskine", "Fender", "Nintendo"]
ITEMS = ["camera", "drill", "bookshelf", "headphones", "dutch oven", "circular saw", "laptop",
         "castle set", "bicycle", "keyboard", "lens", "vacuum cleaner", "pressure washer",
         "notebook", "guitar", "game console", "armchair", "lamp", "tent", "sewing machine"]
PLACES_BOUGHT = ["a garage sale", "the flea market", "Amazon", "a friend", "the shop downtown",
                 "an auction", "the airport duty-free", "eBay", "a thrift store"]
ROOMS = ["attic", "garage", "living room", "basement", "office", "shed", "kitchen", "bedroom"]


def possession_text(rng):
    name = f"{rng.choice(ADJECTIVES)} {rng.choice(BRANDS)} {rng.choice(ITEMS)}"
    parts = [f"Bought in {rng.randrange(1985, 2025)} from {rng.choice(PLACES_BOUGHT)} "
             f"for ${rng.randrange(5, 2500)}."]
    if rng.random() < 0.6:
        parts.append(f"Kept in the **{rng.choice(ROOMS)}**.")
    if rng.random() < 0.4:
        parts.append(f"Serial no. `{rng.randrange(16**6):06X}-{rng.randrange(1000):03d}`.")
    if rng.random() < 0.3:
        parts.append("Insured: *yes*; receipt in the blue folder.")
    if rng.random() < 0.15:
        parts.append("\n\n- works fine\n- needs new batteries\n- see [manual](https://example.com/manual)")
    if rng.random() < 0.05:
        parts.append("Notes: <3 this one & don't lend it out.")
    return name, " ".join(parts)


# Per format: share of photos, base size (w, h), encoder options. Tuned so the average blob is
# about 26 KB with Pillow 10+ (the generator prints the achieved averages).
FORMATS = {
    "JPEG": dict(share=0.85, size=(580, 435), photo=True, save=dict(quality=80)),
    "PNG": dict(share=0.05, size=(640, 480), photo=False, save=dict(compress_level=6)),
    "GIF": dict(share=0.05, size=(660, 495), photo=False, save=dict(), colors=48),
    "WEBP": dict(share=0.05, size=(640, 480), photo=True, save=dict(quality=82, method=2)),
}
BASES_PER_FORMAT = {"JPEG": 240, "PNG": 40, "GIF": 40, "WEBP": 40}


def render_base(fmt, index, seed):
    """A picture of a gradient and some shapes; photo-like ones are blurred and grainy."""
    spec = FORMATS[fmt]
    rng = random.Random(f"base-{seed}-{fmt}-{index}")
    scale = rng.uniform(0.85, 1.15)
    w, h = int(spec["size"][0] * scale), int(spec["size"][1] * scale)
    c1 = tuple(rng.randrange(256) for _ in range(3))
    c2 = tuple(rng.randrange(256) for _ in range(3))
    mask = Image.linear_gradient("L").rotate(rng.randrange(360)).resize((w, h))
    im = Image.composite(Image.new("RGB", (w, h), c1), Image.new("RGB", (w, h), c2), mask)
    draw = ImageDraw.Draw(im)
    for _ in range(rng.randrange(4, 12)):
        x0, y0 = rng.randrange(w), rng.randrange(h)
        box = (x0, y0, x0 + rng.randrange(20, w // 2), y0 + rng.randrange(20, h // 2))
        color = tuple(rng.randrange(256) for _ in range(3))
        if rng.random() < 0.5:
            draw.ellipse(box, fill=color)
        else:
            draw.rectangle(box, fill=color)
    if spec["photo"]:
        im = im.filter(ImageFilter.GaussianBlur(1.5))
        # Grain from the seeded generator (Image.effect_noise uses C's rand(): not reproducible).
        # Uniform bytes have a standard deviation of ~74; scale the blend to a sigma of 20-40.
        noise = Image.frombytes("L", (w, h), rng.randbytes(w * h)).convert("RGB")
        im = Image.blend(im, noise, 0.12 * rng.uniform(20, 40) / 74)
    return im


_bases = {}


def base_image(fmt, index, seed):
    key = (fmt, index)
    if key not in _bases:
        _bases[key] = render_base(fmt, index, seed)
    return _bases[key]


def photo_plan(rng):
    """None for no photo, else the format name."""
    if rng.random() < 0.10:
        return None
    r = rng.random()
    acc = 0.0
    for fmt, spec in FORMATS.items():
        acc += spec["share"]
        if r < acc:
            return fmt
    return "JPEG"


def make_photo(job):
    """Encode the photo of one row: (row id, format, seed) -> bytes."""
    row, fmt, seed = job
    rng = random.Random(f"photo-{seed}-{row}")
    base = base_image(fmt, rng.randrange(BASES_PER_FORMAT[fmt]), seed)
    im = base.copy()
    w, h = im.size
    # A distinct 12x12 patch of noise somewhere, and the row id as a bar code in a corner:
    # every blob differs from every other one.
    patch = Image.frombytes("RGB", (12, 12), rng.randbytes(12 * 12 * 3))
    im.paste(patch, (rng.randrange(w - 12), rng.randrange(h - 12)))
    draw = ImageDraw.Draw(im)
    for bit in range(20):
        on = (row >> bit) & 1
        draw.rectangle((2 + bit * 3, 2, 4 + bit * 3, 6), fill=(255, 255, 255) if on else (0, 0, 0))
    spec = FORMATS[fmt]
    if fmt == "GIF":
        im = im.quantize(spec["colors"])
    out = io.BytesIO()
    im.save(out, fmt, **spec["save"])
    return out.getvalue()


def write_possessions(path, count, seed, jobs):
    rng = random.Random(f"possessions-{seed}")
    rows = []
    for row in range(1, count + 1):
        name, description = possession_text(rng)
        rows.append((row, name, description, photo_plan(rng)))
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute(
        "CREATE TABLE possessions(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, "
        "description TEXT, photo BLOB)"
    )
    photo_jobs = [(row, fmt, seed) for row, _, _, fmt in rows if fmt is not None]
    stats = {}
    digests = set()
    with multiprocessing.Pool(jobs) as pool:
        photos = pool.imap(make_photo, photo_jobs, chunksize=32)
        for row, name, description, fmt in rows:
            blob = None
            if fmt is not None:
                blob = next(photos)
                digests.add(hashlib.sha256(blob).digest())
                n, total = stats.get(fmt, (0, 0))
                stats[fmt] = (n + 1, total + len(blob))
            db.execute(
                "INSERT INTO possessions(name, description, photo) VALUES (?, ?, ?)",
                (name, description, blob),
            )
    db.commit()
    db.close()
    if len(digests) != len(photo_jobs):
        sys.exit(f"make_workload: only {len(digests)} distinct photos out of {len(photo_jobs)}")
    return stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--todos", type=int, default=100_000)
    parser.add_argument("--possessions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-possessions", action="store_true")
    args = parser.parse_args()

    os.makedirs(args.outdir, exist_ok=True)
    # Build under temporary names and rename at the end: an interrupted run leaves no
    # half-written database behind under the real name.
    todos_tmp = os.path.join(args.outdir, "todos.sqlite.tmp")
    poss_tmp = os.path.join(args.outdir, "possessions.sqlite.tmp")
    for p in (todos_tmp, poss_tmp):
        if os.path.exists(p):
            os.remove(p)

    start = time.monotonic()
    write_todos(todos_tmp, args.todos, args.seed)
    t_todos = time.monotonic() - start
    if args.no_possessions:
        os.replace(todos_tmp, os.path.join(args.outdir, "todos.sqlite"))
        print(f"workload: {args.todos} to-dos in {t_todos:.1f} s (no possessions)")
        return
    stats = write_possessions(poss_tmp, args.possessions, args.seed, args.jobs)
    t_total = time.monotonic() - start
    os.replace(todos_tmp, os.path.join(args.outdir, "todos.sqlite"))
    os.replace(poss_tmp, os.path.join(args.outdir, "possessions.sqlite"))

    photos = sum(n for n, _ in stats.values())
    total = sum(t for _, t in stats.values())
    print(f"workload: {args.todos} to-dos in {t_todos:.1f} s; {args.possessions} possessions, "
          f"{photos} photos, {total / 1e6:.1f} MB, average {total / max(photos, 1) / 1024:.1f} KiB")
    for fmt, (n, t) in sorted(stats.items()):
        print(f"  {fmt:5} {n:5} photos, average {t / n / 1024:.1f} KiB")
    print(f"workload: generated in {t_total:.1f} s")


if __name__ == "__main__":
    main()
