#!/usr/bin/python3
"""The tree a screen reader sees: runs qkv-studio under Xvfb on a private D-Bus session with the
accessibility bus, and reads its accessible tree over AT-SPI as Orca does (the same D-Bus calls
pyatspi makes, through Gio). Passes when the Heads map is a table whose column headers are the
session's key tokens and whose cells name their head, query, key and weight, and when an arrow
key pressed in the map (xdotool, through the X server) sends the focus event of the new cell.

    read_heatmap_tree.py QKV_STUDIO SESSION.qkv.json

Exit 0 passed, 1 failed (says what), 77 skipped (a tool is missing; names its Debian package).
Everything it starts runs in its own process group and is killed at the end, whatever happens.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEADLINE_SECONDS = 50  # a ceiling (about 3 s alone; other builds on two cores slow the start), below CTest's 90
SKIP = 77


def skip(message):
    print("SKIP: " + message + " (scripts/install-dependencies.sh --tests installs it)")
    sys.exit(SKIP)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


try:
    from gi.repository import Gio, GLib
except ImportError:
    skip("python3-gi (Gio, to speak D-Bus) is missing")

LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
for tool, package in (("Xvfb", "xvfb"), ("dbus-daemon", "dbus-daemon"), ("xdotool", "xdotool")):
    if not shutil.which(tool):
        skip(tool + " is missing: install " + package)
if not os.path.exists(LAUNCHER):
    skip("at-spi-bus-launcher is missing: install at-spi2-core")

ACCESSIBLE = "org.a11y.atspi.Accessible"
TABLE = "org.a11y.atspi.Table"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/registry")
ATSPI_STATE_FOCUSED, ATSPI_STATE_SELECTED = 12, 23


def call(bus, name, path, interface, method, args=None, reply="(v)"):
    return bus.call_sync(name, path, interface, method, args, GLib.VariantType(reply) if reply else None,
                         Gio.DBusCallFlags.NONE, 2000, None).unpack()


def prop(bus, name, path, interface, key):
    return call(bus, name, path, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", (interface, key)))[0]


def children(bus, node):
    return call(bus, node[0], node[1], ACCESSIBLE, "GetChildren", None, "(a(so))")[0]


def role_name(bus, node):
    return call(bus, node[0], node[1], ACCESSIBLE, "GetRoleName", None, "(s)")[0]


def name_of(bus, node):
    return prop(bus, node[0], node[1], ACCESSIBLE, "Name")


def find_application(bus, deadline):
    """The registry's child named QKV Studio, once the app has registered."""
    root = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
    while time.monotonic() < deadline:
        try:
            for app in children(bus, root):
                if name_of(bus, app) == "QKV Studio":
                    return app
        except GLib.Error:
            pass
        time.sleep(0.3)
    return None


def find_heads_table(bus, app, deadline):
    """Breadth first, not into tables (their children are every cell): the table named Head …."""
    while time.monotonic() < deadline:
        queue, seen = [app], 0
        while queue and seen < 4000 and time.monotonic() < deadline:
            node = queue.pop(0)
            seen += 1
            try:
                role = role_name(bus, node)
                if role == "table" and name_of(bus, node).startswith("Head "):
                    return node
                if role != "table":
                    queue.extend(children(bus, node))
            except GLib.Error:
                continue
        time.sleep(0.5)  # the window may still be computing its first result
    return None


def has_state(bus, node, state):
    return bool(call(bus, node[0], node[1], ACCESSIBLE, "GetState", None, "(au)")[0][state // 32] & (1 << state % 32))


def cell_at(bus, table, row, column):
    return call(bus, table[0], table[1], TABLE, "GetAccessibleAt", GLib.Variant("(ii)", (row, column)), "((so))")[0]


def listen_for_focus(bus):
    """Focus events of any object, as a screen reader gets them (paths, in order)."""
    focused = []
    bus.signal_subscribe(None, "org.a11y.atspi.Event.Focus", "Focus", None, None, Gio.DBusSignalFlags.NONE,
                         lambda connection, sender, path, interface, signal, parameters: focused.append(path))
    return focused


def wait_for(condition, seconds):
    end, context = time.monotonic() + seconds, GLib.MainContext.default()
    while time.monotonic() < end and not condition():
        context.iteration(False)
        time.sleep(0.02)
    return condition()


def check_arrow_key_focus(bus, table, focused, environment):
    """The map takes the keyboard focus; → (← on the last column) moves the selected cell and the
    screen reader gets a focus event for the new cell, whose name is that cell's."""
    # No window manager under Xvfb: give the window the X input focus as one would.
    subprocess.run(["xdotool", "search", "--name", "QKV Studio", "windowfocus", "--sync"], env=environment,
                   capture_output=True, timeout=10)
    if not call(bus, table[0], table[1], "org.a11y.atspi.Component", "GrabFocus", None, "(b)")[0]:
        fail("the Heads table refused the keyboard focus")
    if not wait_for(lambda: has_state(bus, table, ATSPI_STATE_FOCUSED), 5):
        fail("the Heads table never had the keyboard focus")
    rows = prop(bus, table[0], table[1], TABLE, "NRows")
    columns = prop(bus, table[0], table[1], TABLE, "NColumns")
    current = next(((r, c) for r in range(rows) for c in range(columns)
                    if has_state(bus, cell_at(bus, table, r, c), ATSPI_STATE_SELECTED)), None)
    if current is None:
        fail("no cell of the Heads table is selected")
    row, column = current
    key, column = ("Right", column + 1) if column + 1 < columns else ("Left", column - 1)
    target = cell_at(bus, table, row, column)
    expected = name_of(bus, target)
    del focused[:]
    subprocess.run(["xdotool", "key", key], env=environment, capture_output=True, timeout=10)
    if not wait_for(lambda: target[1] in focused, 5):
        fail("%s from cell %s sent no focus event for cell (%d, %d) (%s): focus events %s"
             % (key, current, row, column, target[1], focused))
    if not has_state(bus, target, ATSPI_STATE_FOCUSED):
        fail("cell (%d, %d) got the focus event but does not say it is focused" % (row, column))
    print("%s: focus on cell (%d, %d), %r" % (key, row, column, expected))


def session_bus_address(environment):
    reader, writer = os.pipe()
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=%d" % writer],
                              pass_fds=(writer,), env=environment)
    os.close(writer)
    with os.fdopen(reader) as stream:
        address = stream.readline().strip()
    if not address:
        fail("dbus-daemon printed no address")
    return daemon, address


def start_xvfb(environment):
    reader, writer = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(writer), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                              pass_fds=(writer,), env=environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(writer)
    with os.fdopen(reader) as stream:
        display = stream.readline().strip()
    if not display:
        fail("Xvfb gave no display")
    return server, ":" + display


def check_table(bus, table, key_tokens):
    columns = prop(bus, table[0], table[1], TABLE, "NColumns")
    rows = prop(bus, table[0], table[1], TABLE, "NRows")
    headers = [call(bus, table[0], table[1], TABLE, "GetColumnDescription", GLib.Variant("(i)", (c,)), "(s)")[0]
               for c in range(columns)]
    print("table %r: %d x %d, column headers %s" % (name_of(bus, table), rows, columns, headers))
    if headers != key_tokens:
        fail("the column headers are %s, the session's key tokens %s" % (headers, key_tokens))
    row_header = call(bus, table[0], table[1], TABLE, "GetRowDescription", GLib.Variant("(i)", (0,)), "(s)")[0]
    cell = cell_at(bus, table, 0, 1)
    cell_name = name_of(bus, cell)
    print("cell (0, 1): %s, %r" % (role_name(bus, cell), cell_name))
    if role_name(bus, cell) not in ("table cell", "cell"):
        fail("cell (0, 1) has role %r" % role_name(bus, cell))
    for part in ("Head ", "query «%s»" % row_header, "key «%s»" % headers[1], "weight "):
        if part not in cell_name:
            fail("cell (0, 1)'s name %r does not say %r" % (cell_name, part))


def main():
    if len(sys.argv) != 3:
        fail("usage: read_heatmap_tree.py QKV_STUDIO SESSION.qkv.json")
    binary, session = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + DEADLINE_SECONDS
    scratch = tempfile.mkdtemp(prefix="qkv-atspi-%d-" % os.getpid())
    environment = dict(os.environ)
    for key in ("DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        environment.pop(key, None)
    # A home of its own: no autosave or settings of the user's, nor of another test's.
    environment.update(HOME=scratch, XDG_CONFIG_HOME=scratch + "/config", XDG_DATA_HOME=scratch + "/data",
                       XDG_CACHE_HOME=scratch + "/cache", XDG_RUNTIME_DIR=scratch + "/runtime")
    os.makedirs(scratch + "/runtime", mode=0o700)
    started = []
    # This script leads a process group of its own; everything it starts (and what those start:
    # the launcher's bus and registry, D-Bus activations) stays in it and is killed at the end.
    os.setpgrp()
    try:
        daemon, address = session_bus_address(environment)
        started.append(daemon)
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        server, display = start_xvfb(environment)
        started.append(server)
        environment.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", QT_ACCESSIBILITY="1",
                           QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1", NO_AT_BRIDGE="0")
        session_bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        # The accessibility bus, as a desktop session starts it (D-Bus activation of org.a11y.Bus).
        launcher = subprocess.Popen([LAUNCHER, "--launch-immediately"], env=environment,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(launcher)
        a11y_address = None
        while time.monotonic() < deadline and not a11y_address:
            try:
                a11y_address = call(session_bus, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress",
                                    None, "(s)")[0]
            except GLib.Error:
                time.sleep(0.2)
        if not a11y_address:
            fail("the accessibility bus (at-spi-bus-launcher) never answered")
        bus = Gio.DBusConnection.new_for_address_sync(
            a11y_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        # Listeners first: Qt 6.4 reads which events are wanted when it starts.
        focused = listen_for_focus(bus)
        for event in ("object:state-changed:focused", "focus:"):
            call(bus, REGISTRY[0], REGISTRY[1], "org.a11y.atspi.Registry", "RegisterEvent", GLib.Variant("(s)", (event,)),
                 None)
        app_log = open(os.path.join(scratch, "app.log"), "w")
        app = subprocess.Popen([binary, session], env=environment, stdout=app_log, stderr=subprocess.STDOUT)
        started.append(app)
        application = find_application(bus, deadline)
        if not application:
            fail("QKV Studio never appeared on the accessibility bus")
        table = find_heads_table(bus, application, deadline)
        if not table:
            fail("no table named Head … in QKV Studio's accessible tree")
        check_table(bus, table, key_tokens(binary, session, environment, scratch))
        check_arrow_key_focus(bus, table, focused, environment)
        print("PASS: %.1f s" % (DEADLINE_SECONDS - (deadline - time.monotonic())))
    except SystemExit as exit:
        if exit.code == 1 and os.path.exists(os.path.join(scratch, "app.log")):
            with open(os.path.join(scratch, "app.log")) as log:
                print("qkv-studio said:\n" + log.read()[-2000:])
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # not this script: it reports
        os.killpg(os.getpgrp(), signal.SIGTERM)
        time.sleep(0.3)
        for process in started:
            if process.poll() is None:
                process.kill()
            process.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def key_tokens(binary, session, environment, scratch):
    """The session's key tokens, as the app's own export writes them (an independent path)."""
    path = os.path.join(scratch, "export.json")
    out = subprocess.run([binary, "export", "--session", session, "--format", "json", "--out", path],
                         env=environment, capture_output=True, text=True, timeout=15)
    try:
        with open(path) as stream:
            return list(json.load(stream)["tokens"]["key"])
    except (OSError, ValueError, KeyError) as error:
        fail("qkv-studio export gave no key tokens (%s): %s" % (error, out.stderr[:400]))


if __name__ == "__main__":
    main()
