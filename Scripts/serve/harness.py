"""Shared parts of the serve scripts: tools, a taskpress serve process of a scratch copy of the
demo, and bounded waits. Traffic goes to 127.0.0.1 only."""
import os
import pathlib
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ensure_browser():
    """Installs Debian's chromium and chromium-driver and PyPI's selenium when missing."""
    missing = [p for p in ("chromium", "chromium-driver")
               if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        print(f"installing {' '.join(missing)}", file=sys.stderr)
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq"] + missing, check=True,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    try:
        import selenium  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "selenium"], check=True)


def build_taskpress(configuration="debug"):
    subprocess.run(["swift", "build", "-c", configuration, "--product", "taskpress"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return ROOT / ".build" / configuration / "taskpress"


class Workspace:
    """A scratch folder with the demo databases (to-dos in WAL mode), a copy of the theme and a
    site folder."""

    def __init__(self, todos=None):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="taskpress-serve-"))
        self.templates = self.folder / "templates"
        shutil.copytree(ROOT / "Templates", self.templates)
        (self.templates / "README.md").unlink(missing_ok=True)
        self.site = self.folder / "site"
        if todos is None:
            subprocess.run([str(ROOT / "Scripts" / "make-demo-dbs")], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            for name in ("todos", "possessions", "contacts"):
                shutil.copy(ROOT / "Demo" / "build" / f"{name}.sqlite", self.folder / f"{name}.sqlite")
        else:
            shutil.copy(todos, self.folder / "todos.sqlite")
        self.todos = self.folder / "todos.sqlite"
        with sqlite3.connect(self.todos) as db:
            db.execute("PRAGMA journal_mode=WAL")

    def build_arguments(self):
        arguments = ["--todos", str(self.todos), "--templates", str(self.templates)]
        for name in ("possessions", "contacts"):
            if (self.folder / f"{name}.sqlite").exists():
                arguments += [f"--{name}", str(self.folder / f"{name}.sqlite")]
        return arguments

    def replace_by_rename(self, name, text):
        """Saves as vim and sed -i do: a temporary file, renamed over the original."""
        temporary = self.templates / f".{name}.tmp"
        temporary.write_text(text)
        os.rename(temporary, self.templates / name)

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


class Serve:
    """A running `taskpress serve`; its stdout and stderr are kept and echoed."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen([str(binary), "serve", "--port", "0"] + arguments,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.output = []
        self.lock = threading.Lock()
        self.url = None
        ready = threading.Event()

        def pump(stream, label):
            for line in stream:
                with self.lock:
                    self.output.append(line)
                print(f"  [serve {label}] {line}", end="", file=sys.stderr)
                match = re.search(r"at (http://127\.0\.0\.1:\d+/[^\s;]*)", line)
                if match and self.url is None:
                    self.url = match.group(1)
                    ready.set()

        for stream, label in ((self.process.stdout, "out"), (self.process.stderr, "err")):
            threading.Thread(target=pump, args=(stream, label), daemon=True).start()
        if not ready.wait(300):
            self.process.kill()
            fail("taskpress serve did not print its URL within 300 s")

    def text(self):
        with self.lock:
            return "".join(self.output)

    def rss_kib(self):
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def interrupt(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(120)


def wait_for(description, condition, cap=60.0):
    """Waits until `condition()` is true, up to a generous cap; fails loudly at the cap."""
    deadline = time.monotonic() + cap
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:  # a page in the middle of reloading
            pass
        time.sleep(0.02)
    fail(f"{description}: not seen within {cap:.0f} s")


def tree(folder):
    """Every file under `folder` (but the build's state) with its bytes."""
    files = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        relative = path.relative_to(folder)
        if relative.parts[0] == ".taskpress" or not path.is_file():
            continue
        files[str(relative)] = path.read_bytes()
    return files
