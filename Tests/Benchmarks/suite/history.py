"""History that goes, and backups, under load (issue 64).

- backlog, on SQLite and on PostgreSQL (a cluster of the benchmark's own): a database with a backlog of finished
  tasks past keeping (each with its `task.created` and `task.completed` events), made by copying one real task's
  rows with the database itself (creating them through the API would take hours); `GET …/tasks/{n}` under wrk and one `POST` of a task every 10 ms, first while the
  backlog is kept (a history retention longer than its age), then while it is removed: the API's p99 and rate, the
  creations' p99 and failures, how long the removal takes and the file's size before and after.
- backup: a database grown to --backup-mib with the same copies, and `transferd backup` taken while one `POST` of a
  task goes every 10 ms: the backup's seconds and size, and the creations' p99 and failures beside it.
"""
import http.client
import json
import os
import sqlite3
import subprocess
import threading
import time
import urllib.request

from .common import API_KEY, NO_LIMITS, Client, start_transferd, stop_transferd, wrk
from .scaleout import PostgresCluster

DESCRIPTION = "x" * 1000


def history_benchmark(binary, workdir, backlog, backup_mib, seconds):
    removals = {"SQLite": _backlog(binary, os.path.join(workdir, "history-backlog"), backlog, seconds)}
    cluster = PostgresCluster(workdir, "history-postgres")
    try:
        database = _PostgresDatabase(cluster, cluster.create_database("history"))
        removals["PostgreSQL"] = _backlog(binary, os.path.join(workdir, "history-backlog-postgres"), backlog, seconds, database)
    finally:
        cluster.stop()
    backup = _backup(binary, os.path.join(workdir, "history-backup"), backup_mib)
    for store, removal in removals.items():
        print(f"\nHistory: {backlog:,} finished tasks past keeping removed while the API is loaded ({store})")
        print(f"{'':<26} {'GET task req/s':>15} {'GET p99 ms':>11} {'POST p99 ms':>12} {'POST failed':>12}")
        for name in ("kept", "being removed"):
            rate, p99, post_p99, failed = removal[name]
            print(f"{name:<26} {rate:15.0f} {p99:11.2f} {post_p99:12.2f} {failed:12d}")
        kept, removed = removal["kept"], removal["being removed"]
        print(f"{'ratio':<26} {removed[0] / kept[0]:15.2f} {removed[1] / kept[1]:11.2f} {removed[2] / kept[2]:12.2f}")
        print(f"removed in {removal['seconds']:.0f} s; the database {removal['before'] / 2**20:.0f} MiB before, {removal['after'] / 2**20:.0f} MiB after")
    print(f"\nBackup of a {backup['size'] / 2**30:.2f} GiB database while a task is created every 10 ms")
    print(f"{'':<26} {'seconds':>8} {'POST p99 ms':>12} {'POST failed':>12} {'creations':>10}")
    print(f"{'no backup':<26} {'':>8} {backup['idle'][0]:12.2f} {backup['idle'][1]:12d} {backup['idle'][2]:10d}")
    print(f"{'transferd backup':<26} {backup['seconds']:8.1f} {backup['during'][0]:12.2f} {backup['during'][1]:12d} {backup['during'][2]:10d}")
    return removals, backup


def _backlog(binary, workdir, count, seconds, postgres=None):
    """The removal of `count` finished tasks on SQLite, or on `postgres` (a `_PostgresDatabase`)."""
    os.makedirs(workdir)
    data = os.path.join(workdir, "transferd-data")
    options = [*NO_LIMITS] + (["--database-url", postgres.url] if postgres else [])
    process, port = start_transferd(binary, workdir, *options, authenticated=True)
    client = Client(port)
    client.call("PUT", "/v1/sessions/backlog", {"configuration": {"retentionPeriod": 60}})
    client.call("PUT", "/v1/sessions/live", {})
    client.call("POST", "/v1/sessions/live/tasks", {"kind": "download", "url": "http://127.0.0.1:9/x", "start": False})
    _finished_task(client, "backlog")
    client.close()
    stop_transferd(process)
    database = os.path.join(data, "transferd.sqlite")
    if postgres:
        postgres.copy_finished_tasks("backlog", count, finished="2020-01-01 00:00:00.000")
        size = postgres.size
    else:
        _copy_finished_tasks(database, "backlog", count, finished="2020-01-01 00:00:00.000")
        size = lambda: _file_size(database)  # noqa: E731
    before = size()
    # Kept: the backlog finished about seven years ago, within ten years' retention.
    process, port = start_transferd(binary, workdir, *options, "--history-retention", "315360000", authenticated=True, fresh=False)
    try:
        kept = _loaded(port, seconds)
    finally:
        stop_transferd(process)
    process, port = start_transferd(binary, workdir, *options, "--history-retention", "86400", authenticated=True, fresh=False)
    began = time.monotonic()
    try:
        removing = _loaded(port, seconds)
        # Done once the tasks and their events are gone (and on SQLite the file has given back its free pages; 15
        # minutes at most: what is left then shows in the size after).
        while (_backlog_left(port) or (not postgres and size() > before / 4)) and time.monotonic() - began < 900:
            time.sleep(0.5)
        took = time.monotonic() - began
    finally:
        stop_transferd(process)
    return {"kept": kept, "being removed": removing, "seconds": took, "before": before, "after": size()}


def _loaded(port, seconds):
    """wrk on a task read for `seconds`, with a creation every 10 ms beside it: (rate, p99, creations' p99,
    creations failed)."""
    creations = _Creations(port, "live")
    creations.start()
    try:
        rate, p99 = wrk(f"http://127.0.0.1:{port}/v1/sessions/live/tasks/1", seconds)
    finally:
        creations.stop()
    return rate, p99, creations.p99(), creations.failed


def _backlog_left(port):
    """Whether the backlog session still holds finished tasks, or events (all of them are past keeping)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/sessions/backlog", headers={"Authorization": f"Bearer {API_KEY}"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        session = json.loads(response.read())
    return session["taskCounts"]["completed"] > 0 or session["earliestSequence"] <= session["lastEventSequence"]


def _backup(binary, workdir, size_mib):
    os.makedirs(workdir)
    data = os.path.join(workdir, "transferd-data")
    process, port = start_transferd(binary, workdir, *NO_LIMITS, authenticated=True)
    client = Client(port)
    client.call("PUT", "/v1/sessions/big", {})
    client.call("PUT", "/v1/sessions/live", {})
    _finished_task(client, "big")
    client.close()
    stop_transferd(process)
    database = os.path.join(data, "transferd.sqlite")
    # About 1.4 KiB a task with its two events.
    _copy_finished_tasks(database, "big", size_mib * 2**20 // 1400, finished="2026-01-01 00:00:00.000")
    process, port = start_transferd(binary, workdir, *NO_LIMITS, authenticated=True, fresh=False)
    try:
        creations = _Creations(port, "live")
        creations.start()
        time.sleep(10)
        creations.stop()
        idle = (creations.p99(), creations.failed, creations.count)
        target = os.path.join(workdir, "backup.sqlite")
        creations = _Creations(port, "live")
        creations.start()
        began = time.monotonic()
        subprocess.run([binary, "backup", "--data-dir", data, "--to", target], check=True, capture_output=True)
        took = time.monotonic() - began
        creations.stop()
        during = (creations.p99(), creations.failed, creations.count)
    finally:
        stop_transferd(process)
    return {"size": _file_size(database), "seconds": took, "idle": idle, "during": during}


def _finished_task(client, session):
    """One task of `session`, created and cancelled: a finished task with its events, the template of the copies."""
    client.call(
        "POST",
        f"/v1/sessions/{session}/tasks",
        {"kind": "download", "url": "http://127.0.0.1:9/x", "start": False, "taskDescription": DESCRIPTION},
    )
    client.call("POST", f"/v1/sessions/{session}/tasks/1/cancel")


def _copy_finished_tasks(database, session, count, finished):
    """Copies the session's one finished task and its events `count` times, with task identifiers and sequences
    after its own, finished at `finished`; the session's counters follow (the tasks' triggers, and its last
    sequence and task identifier)."""
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA foreign_keys = ON")
    session_id, last_sequence = connection.execute(
        "SELECT id, last_sequence FROM sessions WHERE identifier = ?", (session,)
    ).fetchone()
    columns = [row[1] for row in connection.execute("PRAGMA table_info(tasks)") if row[1] not in ("id", "task_identifier", "completed_at")]
    event_columns = [row[1] for row in connection.execute("PRAGMA table_info(events)") if row[1] not in ("id", "sequence", "task_identifier")]
    copies = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
    with connection:
        connection.execute(
            f"{copies} INSERT INTO tasks (task_identifier, completed_at, {', '.join(columns)}) "
            f"SELECT 1 + i, ?, {', '.join(columns)} FROM n, tasks WHERE tasks.session_id = ? AND tasks.task_identifier = 1",
            (count, finished, session_id),
        )
        connection.execute(
            f"{copies} INSERT INTO events (sequence, task_identifier, {', '.join(event_columns)}) "
            f"SELECT ? + (i - 1) * ? + e.sequence, CASE WHEN e.task_identifier IS NULL THEN NULL ELSE 1 + i END, "
            f"{', '.join('e.' + c for c in event_columns)} FROM n, events e WHERE e.session_id = ? AND e.sequence <= ?",
            (count, last_sequence, last_sequence, session_id, last_sequence),
        )
        connection.execute(
            "UPDATE events SET created_at = ? WHERE session_id = ?", (finished, session_id)
        )
        connection.execute(
            "UPDATE tasks SET completed_at = ? WHERE session_id = ?", (finished, session_id)
        )
        connection.execute(
            "UPDATE sessions SET last_sequence = ?, last_task_identifier = ? WHERE id = ?",
            (last_sequence * (count + 1), count + 1, session_id),
        )
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def _file_size(database):
    return os.path.getsize(database) + (os.path.getsize(database + "-wal") if os.path.exists(database + "-wal") else 0)


class _Creations(threading.Thread):
    """One task created every 10 ms (100 a second) over a keep-alive connection, each timed; a failure is any
    answer but 201, or none."""

    def __init__(self, port, session):
        super().__init__(daemon=True)
        self.port, self.session = port, session
        self.latencies, self.failed, self.count = [], 0, 0
        self.stopping = threading.Event()

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        body = json.dumps({"kind": "download", "url": "http://127.0.0.1:9/y", "start": False})
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
        next_at = time.monotonic()
        while not self.stopping.is_set():
            began = time.monotonic()
            try:
                connection.request("POST", f"/v1/sessions/{self.session}/tasks", body, headers)
                response = connection.getresponse()
                response.read()
                if response.status != 201:
                    self.failed += 1
            except OSError:
                self.failed += 1
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self.latencies.append((time.monotonic() - began) * 1000)
            self.count += 1
            next_at += 0.01
            time.sleep(max(0, next_at - time.monotonic()))
        connection.close()

    def stop(self):
        self.stopping.set()
        self.join()

    def p99(self):
        ordered = sorted(self.latencies)
        return ordered[int(len(ordered) * 0.99)] if ordered else 0.0


class _PostgresDatabase:
    """A database of a `PostgresCluster`, written with its own psql."""

    def __init__(self, cluster, url):
        self.cluster, self.url = cluster, url
        self.name = url.rsplit("/", 1)[1].split("?")[0]

    def psql(self, sql):
        argv = [f"{self.cluster.bin}/psql", "-h", "127.0.0.1", "-p", str(self.cluster.port), "-U", "postgres", "-d", self.name,
                "-v", "ON_ERROR_STOP=1", "-Atc", sql]
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()

    def size(self):
        return int(self.psql("SELECT pg_database_size(current_database())"))

    def copy_finished_tasks(self, session, count, finished):
        """What `_copy_finished_tasks` does on SQLite; the copied events take a commit position, as the events of a
        transaction do."""
        def columns(table, left_out):
            return self.psql(
                f"SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns "
                f"WHERE table_schema = current_schema() AND table_name = '{table}' AND column_name NOT IN ({left_out})"
            )
        task_columns = columns("tasks", "'id', 'task_identifier', 'completed_at'")
        event_columns = columns("events", "'id', 'sequence', 'task_identifier', 'created_at', 'transaction_id'")
        prefixed = ", ".join("e." + c.strip() for c in event_columns.split(","))
        self.psql(f"""
            DO $$
            DECLARE sid BIGINT; last BIGINT;
            BEGIN
                SELECT id, last_sequence INTO sid, last FROM sessions WHERE identifier = '{session}' AND deleted_at IS NULL;
                INSERT INTO tasks (task_identifier, completed_at, {task_columns})
                SELECT 1 + i, '{finished}', {task_columns} FROM generate_series(1, {count}) AS n(i), tasks
                WHERE tasks.session_id = sid AND tasks.task_identifier = 1;
                UPDATE tasks SET completed_at = '{finished}' WHERE session_id = sid AND task_identifier = 1;
                INSERT INTO events (sequence, task_identifier, created_at, {event_columns})
                SELECT last + (i - 1) * last + e.sequence, CASE WHEN e.task_identifier IS NULL THEN NULL ELSE 1 + i END,
                    '{finished}', {prefixed}
                FROM generate_series(1, {count}) AS n(i), events e WHERE e.session_id = sid AND e.sequence <= last;
                UPDATE events SET created_at = '{finished}' WHERE session_id = sid AND sequence <= last;
                UPDATE sessions SET last_sequence = last * ({count} + 1), last_task_identifier = {count} + 1 WHERE id = sid;
                WITH head AS (UPDATE event_log_head SET position = position + 1 RETURNING position)
                INSERT INTO event_commits (position, transaction_id) SELECT position, pg_current_xact_id() FROM head;
            END $$""")
        # Written out before the measurement, whose first phase would otherwise run beside the checkpoint of the
        # copies (a creation's p99 of 560-620 ms against about 110 ms).
        self.psql("VACUUM ANALYZE")
        self.psql("CHECKPOINT")
