#!/usr/bin/env python3
"""Helper of Scripts/make-app-fixtures: the fixtures' contents, in one place.

Subcommands (the bash script calls them; see its header for the whole flow):

  taskwarrior DIR         write DIR/taskchampion.sqlite3 with TaskChampion's own library
                          (the `taskchampion` module of PyPI's taskchampion3-py-dev)
  todoman-vdir DIR        write a vdir of VTODO .ics files (one subfolder per list) for todoman
  expected APP FILE       write APP's EXPECTED.md (from the specification below, not from a database)
  check APP DB EXPECTED   run APP's query.sql on DB and compare each published row, and the
                          rows that must not be published, with the table in EXPECTED; exit 1
                          on a difference

APP is one of taskwarrior, todoman, uuid-app. Every task below is written once: the values
an app stores (what the generator writes) and the values a correct reader publishes (what
EXPECTED.md lists and `check` compares). Dates are fixed; nothing here reads the clock.
"""

import datetime as dt
import pathlib
import sqlite3
import sys

UTC = dt.UTC


def at(text):
    """'2025-03-03 09:00' (UTC) -> aware datetime."""
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def epoch(text):
    return int(at(text).timestamp())


# --------------------------------------------------------------------------------------------
# Taskwarrior 3 (TaskChampion). Each entry is one Taskwarrior command: (when, uuid, kind,
# {property: value or None}). kind "add" is UndoPoint + Create + Updates, "modify" is
# UndoPoint + Updates, "purge" is UndoPoint + Delete (what `task purge` does). Every command
# also sets `modified` to its own time, as Taskwarrior does; `task done` removes `start`.
# Date properties are epoch seconds as decimal strings, as Taskwarrior writes them.

TW = {
    "post": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c01",
    "footer": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c02",
    "seeds": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c03",
    "leaves": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c04",
    "shed": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c05",
    "domain": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c06",
    "hose": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c07",
    "beds": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c08",
    "idea": "6b0f8b5e-1c1d-4a1e-9a57-0c2f3a4b5c09",
}


def tw_add(when, key, description, **props):
    values = {"description": description, "entry": str(epoch(when)), "status": "pending"}
    values.update(props)
    return (when, TW[key], "add", values)


def tw_mod(when, key, **props):
    return (when, TW[key], "modify", props)


TW_COMMANDS = [
    tw_add("2025-03-01 08:00", "seeds", "Order seeds", project="garden", priority="L",
           due=str(epoch("2025-03-15 00:00"))),
    tw_add("2025-03-02 10:15", "leaves", "Rake the leaves", project="garden"),
    tw_add("2025-03-03 09:00", "post", "Draft the launch post", project="website", priority="M"),
    tw_add("2025-03-04 14:30", "footer", "Fix the broken footer link", project="website",
           priority="M", tag_bug=""),
    tw_add("2025-03-05 11:00", "shed", "Repaint the shed", project="garden", priority="M",
           wait=str(epoch("2030-01-01 00:00"))),
    tw_mod("2025-03-05 16:20", "post", description="Write the launch post", priority="H"),
    tw_add("2025-03-06 09:45", "domain", "Renew the domain", project="website", priority="H",
           due=str(epoch("2025-04-01 00:00"))),
    tw_mod("2025-03-06 13:00", "footer", start=str(epoch("2025-03-06 13:00"))),
    tw_add("2025-03-07 18:05", "hose", "Buy a new hose"),
    tw_mod("2025-03-07 18:30", "post", due=str(epoch("2025-03-20 00:00"))),
    tw_add("2025-03-08 07:50", "beds", "Plan the summer beds \u2014 \u00c6r\u00f8 trip",
           project="garden", priority="L", due=str(epoch("2025-05-01 00:00")),
           tag_planning="", **{"annotation_" + str(epoch("2025-03-08 07:51")): "ask about the soil"}),
    tw_mod("2025-03-08 17:10", "footer", status="completed", start=None,
           end=str(epoch("2025-03-08 17:10"))),
    tw_add("2025-03-09 12:00", "idea", "Old idea for the blog", project="website"),
    tw_mod("2025-03-09 20:00", "leaves", status="deleted", end=str(epoch("2025-03-09 20:00"))),
    tw_mod("2025-03-10 08:30", "post", start=str(epoch("2025-03-10 08:30"))),
    tw_mod("2025-03-10 21:00", "idea", status="deleted", end=str(epoch("2025-03-10 21:00"))),
    ("2025-03-11 09:00", TW["idea"], "purge", {}),
    tw_mod("2025-03-14 19:40", "seeds", status="completed", end=str(epoch("2025-03-14 19:40"))),
]


def make_taskwarrior(folder):
    import taskchampion as tc  # PyPI taskchampion3-py-dev, in the venv the bash script makes

    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "taskchampion.sqlite3").unlink(missing_ok=True)
    replica = tc.Replica.new_on_disk(str(folder), True)
    current = {}  # uuid -> {property: value}, to give each Update its old_value
    for when, uuid, kind, values in TW_COMMANDS:
        stamp = at(when)
        ops = tc.Operations()
        ops.append(tc.Operation.UndoPoint())
        if kind == "purge":
            ops.append(tc.Operation.Delete(uuid, current.pop(uuid)))
            replica.commit_operations(ops)
            continue
        if kind == "add":
            ops.append(tc.Operation.Create(uuid))
            current[uuid] = {}
        task = current[uuid]
        values = dict(values, modified=str(int(stamp.timestamp())))
        for prop in sorted(values):
            old, new = task.get(prop), values[prop]
            ops.append(tc.Operation.Update(uuid, prop, stamp, old, new))
            if new is None:
                task.pop(prop, None)
            else:
                task[prop] = new
        replica.commit_operations(ops)
    replica.rebuild_working_set(True)
    for uuid, task in current.items():
        stored = replica.get_task_data(uuid)
        if stored is None or dict(stored.items()) != task:
            sys.exit(f"error: task {uuid} as stored differs from what was written")
    print(f"{folder}/taskchampion.sqlite3: {len(current)} tasks, "
          f"{replica.num_local_operations()} operations, {replica.num_undo_points()} undo points")


def tw_row(key, text, state, priority, group, due, created, started, completed):
    return {"key": TW[key], "text": text, "state": state, "priority": priority, "group": group,
            "due": due, "created": created, "started": started, "completed": completed}


TW_EXPECTED = [
    tw_row("post", "Write the launch post", "doing", "1 High", "website", "2025-03-20",
           "2025-03-03", "2025-03-10", ""),
    tw_row("footer", "Fix the broken footer link", "done", "2 Medium", "website", "",
           "2025-03-04", "", "2025-03-08"),
    tw_row("seeds", "Order seeds", "done", "3 Low", "garden", "2025-03-15",
           "2025-03-01", "", "2025-03-14"),
    tw_row("leaves", "Rake the leaves", "not published", "", "garden", "",
           "2025-03-02", "", ""),
    tw_row("shed", "Repaint the shed", "todo", "2 Medium", "garden", "",
           "2025-03-05", "", ""),
    tw_row("domain", "Renew the domain", "todo", "1 High", "website", "2025-04-01",
           "2025-03-06", "", ""),
    tw_row("hose", "Buy a new hose", "todo", "", "", "", "2025-03-07", "", ""),
    tw_row("beds", "Plan the summer beds \u2014 \u00c6r\u00f8 trip", "todo", "3 Low", "garden",
           "2025-05-01", "2025-03-08", "", ""),
    tw_row("idea", "Old idea for the blog", "not published", "", "website", "",
           "2025-03-09", "", ""),
]

TW_NOTES = """\
- "Rake the leaves" has status `deleted`: in `tasks`, not published.
- "Old idea for the blog" was deleted, then purged: it is in no table but `operations` (Create … Delete).
- "Repaint the shed" is what Taskwarrior 3 writes for a waiting task: status `pending` and a `wait` date
  (2030-01-01); the old `waiting` status is not written by Taskwarrior 3 (TaskChampion's `Status`
  has no such value).
- "Fix the broken footer link" was started on 2025-03-06 13:00 and completed on 2025-03-08: `task done` removes
  `start`, so its start is only in `operations` (an Update of `start` to 1741266000, later to
  null). Cycle time 2025-03-06 13:00 → 2025-03-08 17:10 needs the operations.
- "Write the launch post" has the history: added 2025-03-03 (description "Draft the launch post", priority M),
  modified 2025-03-05 (description, priority H), 2025-03-07 (due), started 2025-03-10.
- The store is in WAL mode (TaskChampion sets `journal_mode=WAL`): even a read-only
  connection creates `taskchampion.sqlite3-wal` and `-shm` beside it and leaves them.
- Operation timestamps are the commands' times above (2025-03-01 08:00 to 2025-03-14 19:40
  UTC): 18 undo points, one per command.
"""

# --------------------------------------------------------------------------------------------
# todoman: a vdir, one folder per list. `personal` has no displayname (the list is named by
# its folder); the work list's folder is named like a CalDAV collection and its displayname
# file names it "Work". Times are UTC unless the entry says floating or date.

TODOMAN_LISTS = {"personal": None, "3f2a9c0e-work-collection": "Work"}

TODOMAN_TODOS = [
    # folder, uid, properties (iCalendar lines without the BEGIN/END), expected row
    ("personal", "todoman-fixture-01@taskpress", [
        "SUMMARY:Call the plumber", "STATUS:NEEDS-ACTION", "PRIORITY:1",
        "DUE;VALUE=DATE:20250320", "CREATED:20250302T080000Z"],
     ("Call the plumber", "todo", "1 High", "personal", "2025-03-20", "2025-03-02", "", "")),
    ("3f2a9c0e-work-collection", "todoman-fixture-02@taskpress", [
        "SUMMARY:Prepare the quarterly report", "STATUS:IN-PROCESS", "PRIORITY:5",
        "DTSTART:20250310T090000Z", "DUE:20250325T170000Z", "CREATED:20250303T093000Z",
        "PERCENT-COMPLETE:40"],
     ("Prepare the quarterly report", "doing", "2 Medium", "Work", "2025-03-25", "2025-03-03",
      "", "")),
    ("3f2a9c0e-work-collection", "todoman-fixture-03@taskpress", [
        "SUMMARY:Submit expense claims", "STATUS:COMPLETED", "PRIORITY:9",
        "DUE:20250314T120000Z", "CREATED:20250304T100000Z", "COMPLETED:20250312T164500Z",
        "PERCENT-COMPLETE:100"],
     ("Submit expense claims", "done", "3 Low", "Work", "2025-03-14", "2025-03-04", "",
      "2025-03-12")),
    ("personal", "todoman-fixture-04@taskpress", [
        "SUMMARY:Book the venue", "STATUS:CANCELLED", "PRIORITY:0",
        "CREATED:20250305T120000Z"],
     ("Book the venue", "cancelled", "", "personal", "", "2025-03-05", "", "")),
    ("personal", "todoman-fixture-05@taskpress", [
        "SUMMARY:Renew passport", "CREATED:20250306T073000Z"],
     ("Renew passport", "todo", "", "personal", "", "2025-03-06", "", "")),
    ("3f2a9c0e-work-collection", "todoman-fixture-06@taskpress", [
        "SUMMARY:Review pull requests", "STATUS:NEEDS-ACTION", "PRIORITY:3",
        "DUE:20250318T090000", "CREATED:20250307T150000Z"],
     ("Review pull requests", "todo", "1 High", "Work", "2025-03-18", "2025-03-07", "", "")),
    ("personal", "todoman-fixture-07@taskpress", [
        "SUMMARY:Water the plants \u2618", "STATUS:COMPLETED", "PRIORITY:6",
        "DUE;VALUE=DATE:20250309", "CREATED:20250301T180000Z",
        "COMPLETED:20250309T190000Z"],
     ("Water the plants \u2618", "done", "3 Low", "personal", "2025-03-09", "2025-03-01", "",
      "2025-03-09")),
    ("3f2a9c0e-work-collection", "todoman-fixture-08@taskpress", [
        "SUMMARY:Archive old mail", "STATUS:NEEDS-ACTION", "PRIORITY:7",
        "CREATED:20250308T110000Z"],
     ("Archive old mail", "todo", "3 Low", "Work", "", "2025-03-08", "", "")),
]

TODOMAN_NOTES = """\
- Keys are the iCalendar UIDs. todoman's own `id` (the number `todo done 3` takes) is the
  rowid of its cache: assigned in the order `os.listdir` returns files, renumbered when the
  cache is rebuilt or a file's mtime changes. It is not a stable key.
- `Prepare the quarterly report` has a DTSTART (2025-03-10 09:00, the planned start, in
  `todos.start`): not when the work began. todoman records no start: `started` is empty and
  cycle time is lead time (created → completed).
- `Book the venue` says PRIORITY:0 (none): todoman stores NULL (`priority or None`).
- `Review pull requests` has a floating DUE (no zone); `Call the plumber` and `Water the
  plants` have all-day DUE dates: todoman turns both into an epoch at the *local* time of the
  machine that builds the cache (`due_dt` = 1 marks a date). The fixture is built with TZ=UTC.
"""

# --------------------------------------------------------------------------------------------
# The UUID-keyed app: its rows are in Tests/TestFixtures/apps/uuid-app/schema.sql (the
# fixture's source); these are the values a reader must publish from them.

UUID_EXPECTED = [
    ("8f3a2c", "Ship the onboarding flow", "todo", "1 Urgent", "Mobile app", "2025-03-21",
     "2025-03-02", "", ""),
    ("0c6e4d2a-5b7f-4e19-9a3d-1f2e3d4c5b6a", "Fix login on Android 14", "done", "2 High",
     "Mobile app", "2025-03-10", "2025-03-03", "", "2025-03-09"),
    ("1d7f5e3b-6c80-4f2a-8b4e-2a3f4e5d6c7b", "Write release notes", "todo", "3 Medium",
     "Mobile app", "", "2025-03-04", "", ""),
    ("2e8a6f4c-7d91-4a3b-9c5f-3b4a5f6e7d8c", "Buy birthday present \U0001f381", "done",
     "4 Low", "Home", "2025-03-12", "2025-03-05", "", "2025-03-11"),
    ("3f9b7a5d-8ea2-4b4c-8d6a-4c5b6a7f8e9d", "Call grandma", "todo", "", "Home", "",
     "2025-03-06", "", ""),
    ("4a0c8b6e-9fb3-4c5d-9e7b-5d6c7b8a9f0e", "Read \u201cThe Pragmatic Programmer\u201d",
     "todo", "4 Low", "", "2025-04-30", "2025-03-07", "", ""),
    ("5b1d9c7f-a0c4-4d6e-8f8c-6e7d8c9b0a1f", "Renew car insurance", "todo", "2 High", "Home",
     "2025-03-31", "2025-03-08", "", ""),
    ("6C2EAD80-B1D5-4E7F-9A9D-7F8E9DAC1B2A", "Migrate the database", "done", "1 Urgent",
     "Mobile app", "2025-03-14", "2025-03-01", "", "2025-03-13"),
]

UUID_NOTES = """\
- Keys as stored: a short hex id (`8f3a2c`), lower-case UUIDs and one upper-case UUID.
- Dates are INTEGER milliseconds since 1970 (UTC); `completed` is 0/1 and `completed_at` is set
  when it is 1. The app records no start: cycle time is lead time (created → completed).
- Priorities are four text levels, urgent/high/medium/low, NULL for none.
- `Read …` has no project (`project_id` NULL): no group.
"""

FIELDS = ["key", "text", "state", "priority", "group", "due", "created", "started", "completed"]


def expected_rows(app):
    if app == "taskwarrior":
        return [[r[f] for f in FIELDS] for r in TW_EXPECTED]
    if app == "todoman":
        return [[uid, *row] for _, uid, _, row in TODOMAN_TODOS]
    if app == "uuid-app":
        return [list(r) for r in UUID_EXPECTED]
    sys.exit(f"error: unknown app '{app}'")


NOTES = {"taskwarrior": TW_NOTES, "todoman": TODOMAN_NOTES, "uuid-app": UUID_NOTES}
TITLES = {"taskwarrior": "Taskwarrior 3 (TaskChampion)", "todoman": "todoman",
          "uuid-app": "a UUID-keyed app"}


def write_expected(app, path):
    lines = [
        f"# Expected: {TITLES[app]}",
        "",
        "What a correct reader publishes from this folder's database. Generated by",
        "Scripts/make-app-fixtures from the specification in Scripts/make-app-fixtures.py;",
        "`Scripts/make-app-fixtures --check` compares it with `query.sql` run on the database.",
        "",
        "Dates are UTC days. Priority is the level (1 is the most urgent) and its label; empty is",
        "no priority. State is todo/doing/done/cancelled, or `not published`.",
        "",
        "| " + " | ".join(FIELDS) + " |",
        "|" + "---|" * len(FIELDS),
    ]
    for row in expected_rows(app):
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## Notes", "", NOTES[app].rstrip(), ""]
    pathlib.Path(path).write_text("\n".join(lines), encoding="utf-8")


def read_expected(path):
    rows = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(FIELDS) and cells[0] != "key":
            rows.append(cells)
    return rows


LEVELS = {
    "taskwarrior": {1: "High", 2: "Medium", 3: "Low"},
    "todoman": {1: "High", 2: "Medium", 3: "Low"},
    "uuid-app": {1: "Urgent", 2: "High", 3: "Medium", 4: "Low"},
}


def day(seconds):
    if seconds is None:
        return ""
    return dt.datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def published_rows(app, db):
    """APP's query.sql on DB, rendered as EXPECTED.md renders a row."""
    query = (pathlib.Path(__file__).resolve().parent.parent / "Tests" / "TestFixtures" / "apps"
             / app / "query.sql").read_text(encoding="utf-8")
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    rows = []
    for r in connection.execute(query):
        level = r["priority"]
        priority = f"{level} {LEVELS[app][level]}" if level is not None else ""
        rows.append([str(r["key"]), r["text"], r["state"], priority, r["group"] or "",
                     day(r["due"]), day(r["created"]), day(r["started"]), day(r["completed"])])
    connection.close()
    return rows


def check(app, db, expected_path):
    expected = read_expected(expected_path)
    want = sorted(r for r in expected if r[2] != "not published")
    hidden = {r[0] for r in expected if r[2] == "not published"}
    got = sorted(published_rows(app, db))
    failures = []
    if not want:
        failures.append(f"{expected_path}: no rows found")
    for row in got:
        if row[0] in hidden:
            failures.append(f"published but must not be: {row}")
    got_by_key = {r[0]: r for r in got}
    for row in want:
        have = got_by_key.get(row[0])
        if have is None:
            failures.append(f"missing: {row}")
        elif have != row:
            diffs = [f"{f} {w!r} != {h!r}" for f, w, h in zip(FIELDS, row, have) if w != h]
            failures.append(f"{row[0]}: " + "; ".join(diffs) + " (expected != found)")
    extra = set(got_by_key) - {r[0] for r in want} - hidden
    for key in sorted(extra):
        failures.append(f"not in EXPECTED: {got_by_key[key]}")
    for failure in failures:
        print(f"  {app}: {failure}", file=sys.stderr)
    print(f"{app}: {db}: {len(got)} published rows, {len(failures)} differences")
    return not failures


def make_todoman_vdir(folder):
    folder = pathlib.Path(folder)
    for name, display in TODOMAN_LISTS.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        if display:  # as vdirsyncer writes a collection's metadata
            (folder / name / "displayname").write_text(display + "\n", encoding="utf-8")
            (folder / name / "color").write_text("#f97316\n", encoding="utf-8")
    for list_folder, uid, props, _ in TODOMAN_TODOS:
        lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//taskpress//app fixtures//EN",
                 "BEGIN:VTODO", f"UID:{uid}", "DTSTAMP:20250315T000000Z", *props,
                 "END:VTODO", "END:VCALENDAR", ""]
        path = folder / list_folder / (uid.split("@")[0] + ".ics")
        path.write_bytes("\r\n".join(lines).encode("utf-8"))
    print(f"{folder}: {len(TODOMAN_TODOS)} VTODO files in {len(TODOMAN_LISTS)} lists")


def main(argv):
    if len(argv) >= 2 and argv[0] == "taskwarrior":
        make_taskwarrior(argv[1])
    elif len(argv) >= 2 and argv[0] == "todoman-vdir":
        make_todoman_vdir(argv[1])
    elif len(argv) >= 3 and argv[0] == "expected":
        write_expected(argv[1], argv[2])
    elif len(argv) >= 4 and argv[0] == "check":
        return 0 if check(argv[1], argv[2], argv[3]) else 1
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
