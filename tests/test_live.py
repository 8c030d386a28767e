"""Live streams: the push API, incremental stdin, TCP input/output, wall clock, Spark streaming.

Sockets are loopback only (127.0.0.1), every process and wait is bounded in time, and
every process started here is stopped by its own handle at the end of its test.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ticker_py import Reasoner, run
from ticker_py.errors import StreamError, TickerWarning, UsageError
from ticker_py.live import LiveInput, LiveReasoner, TcpSink, parse_address, parse_line
from ticker_py.streams import Record, StreamChecker

ROOT = Path(__file__).resolve().parents[1]
ENGINE = "clingo"
PROGRAM = "x :- a [1].\ny(V) :- p(V) [2].\nz :- b always [1].\n"
WAIT = 20.0  # upper bound for any single wait on another process


def _cli():
    return [sys.executable, "-m", "ticker_py.cli"]


def _show(results):
    return [(r.t, r.c, [m.sorted_atoms() for m in r.models]) for r in results]


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.lars"
    path.write_text(PROGRAM)
    return path


def offline(program, stream_path, *extra):
    """Output lines of an offline ``ticker run`` on a stream file."""
    out = subprocess.run(
        _cli()[:2] + ["ticker_py.cli", "run", str(program), "--engine", ENGINE, "--stream", str(stream_path), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


class Proc:
    """A subprocess whose stdout/stderr lines are collected by reader threads (bounded waits)."""

    def __init__(self, args, stdin=False):
        self.p = subprocess.Popen(
            args,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
        )
        self.out, self.err = queue.Queue(), []
        self.err_lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.p.stdout, self.out), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.p.stderr, self.err_lines, self.err), daemon=True).start()

    @staticmethod
    def _pump(f, q, keep=None):
        for line in f:
            q.put(line.rstrip("\n"))
            if keep is not None:
                keep.append(line.rstrip("\n"))
        q.put(None)

    def line(self, timeout=WAIT):
        return self.out.get(timeout=timeout)

    def rest(self, timeout=WAIT):
        """Every remaining stdout line up to EOF."""
        lines, deadline = [], time.monotonic() + timeout
        while (line := self.out.get(timeout=max(0.01, deadline - time.monotonic()))) is not None:
            lines.append(line)
        return lines

    def addresses(self, n=2):
        """``{"listening on": port, "results on": port}`` from the announcements on stderr."""
        found, deadline = {}, time.monotonic() + WAIT
        while len(found) < n:
            line = self.err_lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, "\n".join(self.err)
            m = re.match(r"ticker: (listening on|results on) tcp:127\.0\.0\.1:(\d+)$", line)
            if m:
                found[m.group(1)] = int(m.group(2))
        return found

    def send(self, text):
        self.p.stdin.write(text)
        self.p.stdin.flush()

    def wait(self, timeout=WAIT):
        return self.p.wait(timeout=timeout)

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(timeout=WAIT)


@pytest.fixture
def procs():
    started = []
    yield lambda *a, **k: started.append(Proc(*a, **k)) or started[-1]
    for proc in started:
        proc.stop()


# ---------------------------------------------------------------- the push API

STREAM = [(0, ["a", "p(1)"]), (1, ["b"]), (1, ["b", "p(2)"]), (2, ["b"]), (4, ["a"]), (5, [])]


@pytest.mark.parametrize("engine", ["clingo", "incremental", "native"])
def test_push_api_matches_offline_run(engine):
    try:
        live = LiveReasoner(PROGRAM, engine=engine, on_result=lambda r: got.append(r))
    except ImportError:
        pytest.skip(f"no {engine} engine yet")
    expected = _show(run(PROGRAM, STREAM, engine=ENGINE))
    got = []
    returned = []
    for t, atoms in STREAM:
        returned += live.push(t, atoms)
        assert all(r.t < t for r in returned)  # only complete time points
    returned += live.close()
    assert _show(got) == _show(returned) == expected


def test_close_time_evaluates_at_once_and_refuses_the_past():
    live = LiveReasoner(PROGRAM, engine=ENGINE)
    live.push(0, ["a"])
    assert [r.t for r in live.close_time(2)] == [0, 1, 2]
    assert live.close_time(1) == []  # already closed: nothing to do
    with pytest.raises(StreamError, match="already closed"):
        live.push(2, ["a"])
    with pytest.raises(StreamError, match="bad atom"):
        live.push(3, ["a("])
    with pytest.raises(StreamError, match="intensional"):
        live.push(3, ["x"])
    assert live.open == 3 and live.push(3, ["a"]) == []  # a refused push changes nothing
    assert [(r.t, r.models[0].sorted_atoms()) for r in live.close()] == [(3, ["x"])]
    with pytest.raises(StreamError, match="closed"):
        live.push(9, [])


def test_signal_mode_and_iterator_interface():
    records = [Record(0, (("a",),)), Record(0, (("p", 1),)), Record(2, ())]
    expected = _show(Reasoner(PROGRAM, engine=ENGINE).feed(iter(records), every="signal"))
    live = LiveReasoner(PROGRAM, engine=ENGINE, every="signal")
    assert _show(live.run(records)) == expected
    assert [r.c for r in LiveReasoner(PROGRAM, engine=ENGINE).run([(0, ["a", "a", "b"])])] == [2]


def test_pushes_from_several_threads_come_out_in_order():
    got = []
    live = LiveReasoner(PROGRAM, engine=ENGINE, on_result=got.append)
    barrier = threading.Barrier(4)

    def worker(k):
        barrier.wait(timeout=WAIT)
        for t in range(k, 40, 4):
            try:
                live.push(t, [f"p({t})"])
            except StreamError:
                pass  # a later time overtook us: refused

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=WAIT)
    live.close()
    assert [r.t for r in got] == list(range(len(got))) and len(got) >= 10


# ---------------------------------------------------------------- lines and addresses


def test_parse_line_locates_errors():
    source = "tcp:127.0.0.1:9"
    assert parse_line("3: a(1), b", source, 7) == Record(3, (("a", 1), ("b",)), source, 7)
    assert parse_line("  % a comment", "s", 1) is None
    with pytest.raises(StreamError, match=r"^tcp:127\.0\.0\.1:9:7:9-10: error: expected ','"):
        parse_line("3: a(1) b", "tcp:127.0.0.1:9", 7)
    assert parse_line("5: a", "s", 2, stamp=9).t == 9
    assert parse_line("a, b", "s", 2, stamp=9).atoms == (("a",), ("b",))
    with pytest.raises(StreamError, match=r"^s:2:6-7: error"):
        parse_line("a(1) b", "s", 2, stamp=0)


def test_parse_address():
    assert parse_address("tcp:127.0.0.1:7000") == ("127.0.0.1", 7000)
    assert parse_address("tcp::0") == parse_address("tcp:0") == ("127.0.0.1", 0)
    assert parse_address("tcp:[::1]:80") == ("::1", 80)
    for bad in ("127.0.0.1:80", "tcp:host:port", "tcp:1.2.3.4:70000"):
        with pytest.raises(UsageError):
            parse_address(bad)


def test_live_options_refuse_bad_arguments():
    from ticker_py.live.options import live_output, live_records
    from ticker_py.spec import RunSpec

    assert live_records(RunSpec(), "-") is None and live_output(RunSpec()) is None
    for refused in (
        lambda: live_records(RunSpec(input="127.0.0.1:1"), "-"),
        lambda: live_records(RunSpec(input="tcp::1"), "f.stream"),
        lambda: live_records(RunSpec(wall_clock=True, clock="0s"), "-"),
        lambda: live_records(RunSpec(save_input="/nonexistent/dir/f"), "-"),
        lambda: live_output(RunSpec(output="tcp::0", out="f")),
    ):
        with pytest.raises(UsageError):
            refused()


# ---------------------------------------------------------------- TCP input, in process


def _connect(address):
    host, port = parse_address(address)
    return socket.create_connection((host, port), timeout=WAIT)


def _take(it, n):
    return [next(it) for _ in range(n)]


def test_merge_waits_for_every_producer_and_skips_late_records():
    errors = []
    src = LiveInput(listen_on="tcp:127.0.0.1:0", grace=0.2, report=errors.append)
    it = iter(src)
    a, b = _connect(src.address), _connect(src.address)
    a.sendall(b"0: p(1)\n3: p(2)\n")
    b.sendall(b"1: b\n")
    assert [(r.t, r.atoms) for r in _take(it, 2)] == [(0, (("p", 1),)), (1, (("b",),))]
    b.sendall(b"2: b\n4: b\n")  # releases a's 3 (b has passed it)
    assert [r.t for r in _take(it, 2)] == [2, 3]
    b.close()  # a (at 3) now holds b's 4
    c = _connect(src.address)  # a newcomer starts at the current time, 3
    c.sendall(b"2: b\n4: a\n")  # 2 is closed: late, skipped
    a.close()
    c.close()
    assert [(r.t, r.atoms, r.line) for r in it] == [(4, (("b",),), 3), (4, (("a",),), 2)]
    assert len(errors) == 1 and re.match(r"tcp:127\.0\.0\.1:\d+:1:1-2: error: time 2 is already closed", str(errors[0]))


def test_bad_lines_are_reported_and_skipped():
    errors = []
    checker = StreamChecker({"a": 0, "x": 0}, {"x"})
    src = LiveInput(listen_on="tcp:127.0.0.1:0", grace=0.1, checker=checker, report=errors.append)
    it = iter(src)
    s = _connect(src.address)
    port = s.getsockname()[1]
    s.sendall(b"0: a\nnonsense\n1: x\n\xff\xfe\n3: a\n2: a\n1: a(X)\n4: a, a(1)\n5: a\n6: a(")
    s.close()
    with pytest.warns(TickerWarning, match="'a/1' in the stream, but the program uses a/0"):
        # a/1 is another predicate than the program's a/0: a warning, the line counts
        assert [(r.t, r.line) for r in it] == [(0, 1), (3, 5), (4, 8), (5, 9)]
    messages = [str(e).splitlines()[0] for e in errors]
    assert [m.split(": error: ")[0].split(":")[2:4] for m in messages] == [
        [str(port), n] for n in ("2", "3", "4", "6", "7", "10")
    ]
    assert "intensional predicate 'x/0'" in messages[1] and "after time 3" in messages[3]
    assert "middle of a line" in messages[5]


def test_hostile_lines_are_isolated():
    """Garbage, invalid UTF-8, deep nesting and over-long lines are reported; the line after each counts."""
    errors = []
    src = LiveInput(listen_on="tcp:127.0.0.1:0", grace=0.1, report=errors.append)
    it = iter(src)
    s = _connect(src.address)
    deep = b"f(" * 100_000 + b"a" + b")" * 100_000
    s.sendall(
        b"0: a\n\x00\x01garbage\n1: p("
        + deep
        + b")\n2: b\xc3(\n3: b\n"
        + b"x" * (2 << 20)
        + b"\n4: a\n5: q("
        + b"[" * 5000
        + b"\n6: a\n"
    )
    s.close()
    assert [(r.t, r.line) for r in it] == [(0, 1), (3, 5), (4, 7), (6, 9)]
    lines = [str(e).splitlines()[0] for e in errors]
    assert [m.split(": error: ")[0].split(":")[3] for m in lines] == ["2", "3", "4", "6", "8"]
    assert "term nested more than 100 levels deep" in lines[1]
    assert "invalid UTF-8 (byte 0xc3)" in lines[2] and lines[2].split(":")[4].startswith("5")
    assert "longer than" in lines[3]
    assert src.accepted == 4 and src.rejected == 5


def test_idle_producer_stops_holding_the_time_back():
    errors, notes = [], []
    src = LiveInput(listen_on="tcp:127.0.0.1:0", grace=0.1, idle_timeout=0.3, report=errors.append, log=notes.append)
    it = iter(src)
    silent, chatty = _connect(src.address), _connect(src.address)
    start = time.monotonic()
    chatty.sendall(b"0: a\n1: b\n2: a\n")
    assert [r.t for r in _take(it, 2)] == [0, 1]  # released once `silent` is idle
    assert time.monotonic() - start >= 0.25
    name = f"tcp:127.0.0.1:{silent.getsockname()[1]}"
    assert f"{name}: nothing received for 0.3 s: no longer holds the time back" in notes[0]
    silent.sendall(b"0: b\n3: b\n")  # 0 is closed by now: late; 3 is fine
    chatty.sendall(b"4: a\n")
    assert [r.t for r in _take(it, 2)] == [2, 3]
    assert f"{name}: sending again; records for closed time points are late" in notes
    silent.close()
    chatty.close()
    assert [r.t for r in it] == [4]
    assert len(errors) == 1 and "time 0 is already closed" in str(errors[0])


def test_merge_buffer_is_bounded_and_loses_nothing():
    """A producer far ahead is paused (TCP back-pressure) while the slow one holds the time back."""
    src = LiveInput(listen_on="tcp:127.0.0.1:0", grace=0.1, idle_timeout=None, max_buffered=50)
    results, peak = [], []
    slow, fast = _connect(src.address), _connect(src.address)
    slow.sendall(b"0: a\n")
    consumer = threading.Thread(target=lambda: results.extend(src), daemon=True)
    consumer.start()
    n = 30_000
    payload = "".join(f"{t}: p({t}, {'x' * 80})\n" for t in range(1, n + 1)).encode()
    sender = threading.Thread(target=fast.sendall, args=(payload,), daemon=True)
    sender.start()
    # the merge fills up to its bound (plus at most one read), then stays: the rest waits unread in
    # the kernel's socket buffers, TCP makes the producer wait. Sampled until the buffer has held
    # still for half a second (however long the filling takes on a loaded machine; WAIT bounds failure).
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and (len(peak) < 5 or len(set(peak[-5:])) > 1 or peak[-1] < 50):
        time.sleep(0.1)
        peak.append(len(src._heap))
    assert 50 <= max(peak) <= 50 + 65536 // 90 + 1 and len(set(peak[-5:])) == 1
    slow.sendall(f"{n + 1}:\n".encode())
    sender.join(WAIT)
    fast.close()
    slow.close()
    consumer.join(WAIT * 6)  # 30,000 records: slow on a loaded machine, never lost
    assert not consumer.is_alive(), f"the consumer is still reading after {WAIT * 6:.0f} s"
    assert [r.t for r in results] == list(range(n + 2))


def test_wall_clock_over_tcp_ignores_given_times():
    src = LiveInput(listen_on="tcp:127.0.0.1:0", wall_clock=True, clock=50, grace=0.1)
    it = iter(src)
    s = _connect(src.address)
    s.sendall(b"99: a\n")
    first = next(it)
    while not first.atoms:  # heartbeats may come first
        first = next(it)
    assert first.t < 10 and first.atoms == (("a",),)
    time.sleep(0.2)
    s.sendall(b"b\n")
    s.close()
    records = list(it)
    with_atoms = [r for r in records if r.atoms]
    assert len(with_atoms) == 1 and with_atoms[0].t >= first.t + 3
    assert [r.t for r in records] == sorted(r.t for r in records)
    beats = [r.t for r in records if not r.atoms]  # one heartbeat closes every point before it
    assert beats and beats[0] > first.t and len(set(beats)) == len(beats)


def test_docstring_example():
    import doctest

    import ticker_py.live.reasoner as module

    assert doctest.testmod(module).failed == 0


def test_tcp_sink_broadcasts_and_drops_failed_clients():
    notes = []
    sink = TcpSink("tcp:127.0.0.1:0", send_timeout=2, log=notes.append)
    c1, c2 = _connect(sink.address), _connect(sink.address)
    sink.write("one\n")
    sink.flush()
    c2.close()
    for k in range(50):  # c2's reset shows after a write or two
        sink.write(f"line {k}\n")
        sink.flush()
    sink.close()
    data = b""
    while chunk := c1.recv(65536):
        data += chunk
    assert data.decode().splitlines() == ["one"] + [f"line {k}" for k in range(50)]
    assert len(notes) == 1 and "dropped" in notes[0]


# ---------------------------------------------------------------- the command line, end to end


def test_stdin_is_evaluated_line_by_line(program, procs):
    ticker = procs(_cli() + ["run", str(program), "--engine", ENGINE, "--stream", "-"], stdin=True)
    ticker.send("0: a, p(1)\n")
    ticker.send("1: b\n")
    first = json.loads(ticker.line())  # t=0 is out before t=2 is sent
    assert first == {"t": 0, "c": 2, "models": [["x", "y(1)"]]}
    ticker.send("2: b\n")
    assert json.loads(ticker.line())["t"] == 1
    ticker.send("5:\n")  # a heartbeat closes 2, 3 and 4
    assert [json.loads(ticker.line())["t"] for _ in range(3)] == [2, 3, 4]
    ticker.p.stdin.close()
    assert [json.loads(line)["t"] for line in ticker.rest()] == [5]
    assert ticker.wait() == 0


PRODUCER = textwrap.dedent("""
    import json, socket, sys, time
    port, steps = int(sys.argv[1]), json.loads(sys.argv[2])
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    print("connected", flush=True)
    sys.stdin.readline()                             # the go signal
    for step in steps:
        if isinstance(step, str):
            s.sendall(step.encode("utf-8", "surrogateescape"))
        else:
            time.sleep(step)
    s.close()
""")

CONSUMER = textwrap.dedent("""
    import socket, sys
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
    print("connected", flush=True)
    f = s.makefile("r")
    for line in f:
        print(line, end="", flush=True)
""")


def _start_tcp(program, tmp_path, procs, *extra):
    saved = tmp_path / "accepted.stream"
    ticker = procs(
        _cli()
        + [
            "run",
            str(program),
            "--engine",
            ENGINE,
            "--input",
            "tcp:127.0.0.1:0",
            "--output",
            "tcp:127.0.0.1:0",
            "--grace",
            "0.5",
            "--save-input",
            str(saved),
            *extra,
        ]
    )
    ports = ticker.addresses()
    consumer = procs([sys.executable, "-c", CONSUMER, str(ports["results on"])])
    assert consumer.line() == "connected"
    return ticker, consumer, ports["listening on"], saved


def _producers(procs, port, scripts):
    ps = [procs([sys.executable, "-c", PRODUCER, str(port), json.dumps(s)], stdin=True) for s in scripts]
    for p in ps:
        assert p.line() == "connected"
    for p in ps:
        p.send("go\n")
    return ps


def test_tcp_producers_merge_garbage_and_cut_lines(program, tmp_path, procs):
    ticker, consumer, port, saved = _start_tcp(program, tmp_path, procs)
    good_a = [f"{t}: p({t})\n" for t in range(0, 12, 2)] + ["12:\n"]
    good_b = ["0: a\n", 0.05, "1: b\n", "3: b, a\n", 0.05, "7: b\n", "11: a\n", "12:\n"]
    garbage = [
        "0: p(0)\n",
        "zz zz\n",
        "1: x\n",
        "2: p(",
        0.05,
        "21)\n",
        "\udcff\udcfe\n",
        "4: p(4), p(x,y)\n",
        "1: p(1)\n",
        "5: p(X)\n",
        "6: p(6)\n",
    ]
    cut = ["1: b\n", 0.05, "2: b\n", "5: a, b"]  # disconnects in the middle of a line
    producers = _producers(procs, port, [good_a, good_b, garbage, cut])
    for p in producers:
        assert p.wait() == 0
    lines = consumer.rest()
    assert ticker.wait() == 0 and consumer.wait() == 0
    errors = [e for e in ticker.err if ": error: " in e]
    assert len(errors) == 6, ticker.err
    assert all(re.match(r"tcp:127\.0\.0\.1:\d+:\d+:\d+-\d+: error: ", e) for e in errors)
    assert sum("middle of a line" in e for e in errors) == 1
    assert sum("warning: 'p/2' in the stream, but the program uses p/1" in e for e in ticker.err) == 1
    good = [x.strip() for x in good_a + good_b if isinstance(x, str)]
    expected = good + ["0: p(0)", "2: p(21)", "4: p(4), p(x,y)", "6: p(6)", "1: b", "2: b"]
    assert sorted(saved.read_text().splitlines()) == sorted(expected)
    assert [json.loads(line)["t"] for line in lines] == list(range(13))
    assert lines == offline(program, saved)


def test_hostile_producers_do_not_stop_a_good_one(program, tmp_path, procs):
    """Garbage, deep nesting, invalid UTF-8 and a connection that never sends, next to a good producer."""
    ticker, consumer, port, saved = _start_tcp(program, tmp_path, procs, "--idle-timeout", "0.5")
    deep = "0: p(" + "f(" * 20_000 + "a" + ")" * 20_000 + ")\n"
    good = [f"{t}: p({t}), b\n" for t in range(6)] + [30.0]  # stays connected
    hostile = ["\x00\x01\x02\n", deep, "1: \udcff\udcfe\n", "2: " + "(" * 3000 + "\n", "zz\n", 30.0]
    silent = [30.0]
    _producers(procs, port, [good, hostile, silent])
    got = [json.loads(consumer.line()) for _ in range(5)]  # time 5 stays open
    assert [r["t"] for r in got] == [0, 1, 2, 3, 4]
    assert got[2]["models"] == [["y(0)", "y(1)", "y(2)", "z"]]
    ticker.p.send_signal(signal.SIGTERM)
    assert ticker.wait() == 0
    lines = consumer.rest()
    assert [json.loads(line)["t"] for line in lines] == [5]
    assert saved.read_text().splitlines() == [x.strip() for x in good if isinstance(x, str)]
    errors = [e for e in ticker.err if ": error: " in e]
    assert len(errors) == 5, ticker.err
    assert all(re.match(r"tcp:127\.0\.0\.1:\d+:\d+:\d+-\d+: error: ", e) for e in errors)
    assert sum("no longer holds the time back" in e for e in ticker.err) >= 2  # hostile and silent
    assert [json.loads(x) for x in offline(program, saved)] == got + [json.loads(x) for x in lines]


def test_sigterm_loses_nothing_accepted(program, tmp_path, procs):
    ticker, consumer, port, saved = _start_tcp(program, tmp_path, procs)
    # fast sends in one piece (one read takes it whole), then idles, connected
    fast = ["".join(f"{t}: p({t})\n" for t in range(6)), 30.0]
    slow = ["0: a\n", "1: b\n", "2: b\n", "3: a\n", 30.0]  # holds the merge at time 3
    _producers(procs, port, [fast, slow])
    got = [json.loads(consumer.line())["t"] for _ in range(3)]
    # time 2 is closed once fast has sent a later time: its 4 and 5, read with it, are buffered
    assert got == [0, 1, 2]  # time 3 is still open
    ticker.p.send_signal(signal.SIGTERM)
    assert ticker.wait() == 0
    lines = consumer.rest()
    assert [json.loads(line)["t"] for line in lines] == [3, 4, 5]  # the buffered 4 and 5 too
    assert saved.read_text().count("p(") == 6
    assert [json.loads(line) for line in offline(program, saved)][3:] == [json.loads(x) for x in lines]


def test_wall_clock_stamps_on_arrival(program, tmp_path, procs):
    saved = tmp_path / "stamped.stream"
    ticker = procs(
        _cli()
        + [
            "run",
            str(program),
            "--engine",
            ENGINE,
            "--wall-clock",
            "--clock",
            "100ms",
            "--stream",
            "-",
            "--save-input",
            str(saved),
        ],
        stdin=True,
    )
    ticker.send("a\n")  # the first time point it is in gets x
    first = json.loads(ticker.line())
    start = time.monotonic()
    assert first["models"] == [["x"]]
    later = [json.loads(ticker.line()) for _ in range(3)]  # time moves on without input
    assert [r["t"] for r in later] == [first["t"] + k for k in (1, 2, 3)]
    assert time.monotonic() - start > 0.15
    ticker.send("7: p(1), b\n")  # a given time is ignored
    ticker.p.stdin.close()
    lines = ticker.rest()
    assert ticker.wait() == 0
    stamped = [line for line in saved.read_text().splitlines() if "p(1)" in line]
    assert len(stamped) == 1 and int(stamped[0].split(":")[0]) > first["t"] + 3
    replay = [json.loads(x) for x in offline(program, saved)]
    assert [first, *later] + [json.loads(x) for x in lines] == replay


# A run whose input ends does not wait for its time point to pass: a long clock costs nothing, and no
# time point passes while a loaded machine starts the run (that would print a second time point).
LONG_CLOCK = "10s"


def test_wall_clock_reads_dev_null_as_an_empty_pipe(program):
    args = _cli() + ["run", str(program), "--engine", ENGINE, "--wall-clock", "--clock", LONG_CLOCK, "--stream"]
    device = subprocess.run(args + [os.devnull], capture_output=True, text=True, timeout=60)
    pipe = subprocess.run(args + ["-"], input="", capture_output=True, text=True, timeout=60)
    assert (device.returncode, device.stderr) == (pipe.returncode, pipe.stderr) == (0, "")
    assert device.stdout == pipe.stdout and json.loads(device.stdout)["t"] == 0


@pytest.mark.parametrize("how", ["--stream FILE", "stdin from FILE"])
def test_wall_clock_reads_a_regular_file(program, tmp_path, how):
    """A file (named, or redirected to stdin) is read at once and stamped on arrival: every atom lands
    in the first time point, as if all lines had arrived together (epoll refuses regular files)."""
    data = tmp_path / "in.stream"
    data.write_text("a\n5: p(1), b\n")
    args = _cli() + ["run", str(program), "--engine", ENGINE, "--wall-clock", "--clock", LONG_CLOCK, "--stream"]
    if how == "--stream FILE":
        proc = subprocess.run(args + [str(data)], capture_output=True, text=True, timeout=60)
    else:
        with open(data) as f:
            proc = subprocess.run(args + ["-"], stdin=f, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    together = tmp_path / "together.stream"
    together.write_text("0: a, p(1), b\n")
    assert proc.stdout.splitlines() == offline(program, together)


# ---------------------------------------------------------------- Spark Structured Streaming


@pytest.mark.spark
@pytest.mark.slow
def test_spark_structured_streaming(tmp_path):
    pytest.importorskip("pyspark")
    from ticker_py.live.spark_stream import folder_atoms, rate_atoms, run_stream
    from ticker_py.spark.session import get_spark

    spark = get_spark("local[2]")
    try:
        folder = tmp_path / "in"
        folder.mkdir()
        stream = [(0, ["a"]), (1, ["p(1)", "b"]), (3, []), (4, ["a"])]
        lines = [json.dumps({"t": t, "atoms": a} if a else {"t": t}) for t, a in stream]
        (folder / "part1.jsonl").write_text(
            "\n".join(lines[:2] + ['{"t": 2, "atom": "b", "seq": 9}', '{"t": 2.5}'] + lines[2:]) + "\n"
        )
        errors = []
        got = run_stream(
            folder_atoms(spark, str(folder)),
            PROGRAM,
            engine=ENGINE,
            timeout=120,
            checkpoint=str(tmp_path / "ck1"),
            report=errors.append,
        )
        assert _show(got) == _show(run(PROGRAM, stream, engine=ENGINE))
        assert len(errors) == 2 and "'atom'" in str(errors[0]) and "part1.jsonl" in str(errors[0])

        cooling = (ROOT / "encodings" / "cooling.lars").read_text()
        got = run_stream(
            rate_atoms(spark, rows_per_second=100, atoms_per_time_point=10),
            cooling,
            engine=ENGINE,
            until_time=4,
            timeout=120,
            checkpoint=str(tmp_path / "ck2"),
        )
        assert [r.t for r in got] == [0, 1, 2, 3, 4] and [r.c for r in got] == [10, 20, 30, 40, 50]
        temps = [(t, [f"temp({v * 7919 % 201})" for v in range(10 * t, 10 * t + 10)]) for t in range(5)]
        assert _show(got) == _show(run(cooling, temps, engine=ENGINE))
    finally:
        spark.stop()


# ---------------------------------------------------------------- warnings of a stream that goes on

TYPO = "alarm(S) :- temprature(S,V) in [3], V > 90.\n"

HOLDING = textwrap.dedent("""
    import socket, sys
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
    s.sendall(sys.argv[2].encode())
    print("sent", flush=True)
    sys.stdin.readline()                             # the connection stays open until told
    s.close()
""")


def test_live_warns_of_a_predicate_nothing_gives_after_its_first_time_points(tmp_path, procs):
    """A live stream may not end: the warning comes after LIVE_WARN_AFTER time points, while the
    producer is still connected, once (not again at the end)."""
    from ticker_py.analysis.unused import LIVE_WARN_AFTER

    prog = tmp_path / "typo.lars"
    prog.write_text(TYPO)
    args = ["run", str(prog), "--engine", ENGINE, "--input", "tcp:127.0.0.1:0", "--grace", "0.5"]
    ticker = procs(_cli() + args + ["--idle-timeout", "0", "--format", "text"])
    port = ticker.addresses(1)["listening on"]
    producer = procs(
        [sys.executable, "-c", HOLDING, str(port), f"0: temperature(s1,95)\n{LIVE_WARN_AFTER + 5}:\n"], stdin=True
    )
    assert producer.line() == "sent"
    warning = ticker.err_lines.get(timeout=WAIT)
    while warning is not None and "warning:" not in warning:
        warning = ticker.err_lines.get(timeout=WAIT)
    assert warning == (
        f"{prog}:1:13-28: warning: 'temprature/2' is in no rule head, no fact and no stream atom of the first "
        f"{LIVE_WARN_AFTER} time points: 'temprature(S,V)' has not held"
    )
    assert ticker.err_lines.get(timeout=WAIT) == "  note: did you mean 'temperature/2'?"
    assert ticker.p.poll() is None  # said while the stream goes on
    assert [ticker.line() for _ in range(LIVE_WARN_AFTER)][-1] == f"t={LIVE_WARN_AFTER - 1} c=1: {{}}"
    producer.send("close\n")
    assert ticker.wait() == 0
    assert sum("warning:" in line for line in ticker.err) == 1


def test_the_push_api_warns_after_its_first_time_points():
    live = LiveReasoner(TYPO, engine=ENGINE, warn_after=5)
    with pytest.warns(TickerWarning) as caught:
        for t in range(5):
            live.push(t, ["temperature(s1,95)"])
        assert not ours(caught)  # time points 0..3 are evaluated, 4 is open
        live.push(5, [])
        assert len(ours(caught)) == 1 and "no stream atom of the first 5 time points" in str(ours(caught)[0].message)
        live.close()
    assert len(ours(caught)) == 1


def ours(caught) -> list:
    """The TickerWarnings among the warnings caught (another test's ResourceWarning, collected by the
    garbage collector, may land in the block too)."""
    return [w for w in caught if issubclass(w.category, TickerWarning)]


def test_the_push_api_warns_at_close_before_its_first_time_points():
    live = LiveReasoner(TYPO, engine=ENGINE)
    live.push(0, ["temperature(s1,95)"])
    with pytest.warns(TickerWarning, match="no rule head, no fact and no stream atom: 'temprature"):
        live.close()
