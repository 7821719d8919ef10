#!/usr/bin/env python3
"""Checks the PostgreSQL library schema on a real server: every trigger, counter and constraint.

    Tests/postgres/schema_check.py [--feedctl PATH] [-k NAME]

Starts its own PostgreSQL 15 (initdb in a temp dir as the `postgres` user, a Unix socket only,
fsync off) and stops it at the end, or uses the one whose socket directory FEEDCTL_TEST_PG names
(then only its own databases are made and dropped). The schema is applied once, from
Sources/LibraryPostgres/PostgresSchema.swift (scripts/pg-apply-schema.py), to a template; each
check gets a fresh database made from it.

The parity check compares the schema with a SQLite library made by feedctl (`--feedctl`, default
.build/debug/feedctl): the same tables, columns, types, nullability, indexes and triggers, but for
the differences listed in KNOWN below, so a SQLite migration without its PostgreSQL one fails here.
Exits non-zero when any check fails, naming each failure on one line.
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import traceback
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_BIN = "/usr/lib/postgresql/15/bin"
APPLY = os.path.join(ROOT, "scripts", "pg-apply-schema.py")
FIELD, RECORD = "\x1f", "\x1e"


class SQLError(Exception):
    pass


class Server:
    """A private server (own=True) or the test run's (FEEDCTL_TEST_PG)."""

    def __init__(self):
        shared = os.environ.get("FEEDCTL_TEST_PG")
        self.own = not shared
        if shared:
            self.socket_dir = shared
            return
        if not os.path.exists(os.path.join(PG_BIN, "initdb")):
            sys.exit(f"schema_check: no PostgreSQL 15 at {PG_BIN} (apt-get install postgresql)")
        self.socket_dir = tempfile.mkdtemp(prefix="feedctl-pgcheck-")
        shutil.chown(self.socket_dir, "postgres")
        data = os.path.join(self.socket_dir, "data")
        self._as_postgres([f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "feedctl"])
        self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-l", os.path.join(self.socket_dir, "log"), "-w", "-t", "60", "start",
                           "-o", f"-k {self.socket_dir} -c listen_addresses='' -c fsync=off"])

    @staticmethod
    def _as_postgres(command):
        runner = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
        result = subprocess.run(runner + command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            sys.exit(f"schema_check: {' '.join(command[:1])} failed: {result.stderr.strip() or result.stdout.strip()}")

    def conninfo(self, database):
        return f"host={self.socket_dir} dbname={database} user=feedctl"

    def stop(self):
        if self.own:
            self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", os.path.join(self.socket_dir, "data"), "-w", "-m", "fast", "stop"])
            shutil.rmtree(self.socket_dir, ignore_errors=True)


class DB:
    def __init__(self, conninfo):
        self.conninfo = conninfo

    def psql(self, script, env=None):
        result = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", FIELD, "-R", RECORD, "-v", "ON_ERROR_STOP=1",
                                 "-d", self.conninfo, "-f", "-"],
                                input=script, capture_output=True, text=True, timeout=120, env=env)
        if result.returncode != 0:
            raise SQLError(result.stderr.strip())
        return result.stdout

    def rows(self, script):
        """The rows the script's statements print, as tuples of strings (NULL is '')."""
        out = self.psql(script).rstrip("\n")
        return [tuple(record.lstrip("\n").split(FIELD)) for record in out.split(RECORD) if record.strip("\n")]

    def value(self, script):
        rows = self.rows(script)
        return rows[0][0] if rows else None

    def run(self, script):
        self.psql(script)

    def error(self, script):
        """The error the script fails with ('' when it does not fail)."""
        try:
            self.psql(script)
            return ""
        except SQLError as failure:
            return str(failure)


failures = []


def expect(actual, expected, what):
    if actual != expected:
        failures.append(f"{what}: expected {expected!r}, got {actual!r}")


def expect_error(db, script, fragment, what):
    message = db.error(script)
    if fragment not in message:
        failures.append(f"{what}: expected an error containing {fragment!r}, got {message or 'no error'!r}")


CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


# A library: users 1 (the owner) and 2 (bob), one channel 'Show' (id 1); SETUP adds its items a, b.
USERS_AND_CHANNEL = """
INSERT INTO users (name, created_at) VALUES ('bob', 1);
INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('podcast', 'https://e/f', 'https://e/f', 'Show', 1);
"""
SETUP = USERS_AND_CHANNEL + "INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'a', 'A', 1), (1, 'b', 'B', 1);\n"


def changes_after(db, seq):
    return [(int(user), kind, payload) for user, kind, payload in
            db.rows(f"SELECT user_id, kind, payload FROM changes WHERE seq > {seq} ORDER BY seq")]


def latest(db):
    return int(db.value("SELECT coalesce(max(seq), 0) FROM changes"))


def counts(db):
    """{(user, channel): items} and {user: feed_items}."""
    subscriptions = {(int(u), int(c)): int(n) for u, c, n in db.rows("SELECT user_id, channel_id, items FROM subscriptions")}
    users = {int(u): int(n) for u, n in db.rows("SELECT id, feed_items FROM users")}
    return subscriptions, users


@check
def owner_is_user_one(db, server):
    expect(db.rows("SELECT id, name, is_admin, password_hash FROM users"), [("1", "alice", "1", "")],
           "the owner, named from feedctl.owner_name")
    expect(db.value("SELECT count(*) FROM sync_clock WHERE id = 1 AND last > 1700000000"), "1", "the sync clock's one row")


@check
def feed_counts_follow_items_and_subscriptions(db, server):
    db.run(SETUP)
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1), (2, 1, 1)")
    expect(counts(db), ({(1, 1): 2, (2, 1): 2}, {1: 2, 2: 2}), "a new subscription counts its channel's items once")
    # The ingest: new items, then each subscription's count set once per changed feed (v17).
    db.run("""
        INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'c', 'C', 2), (1, 'd', 'D', 2);
        UPDATE subscriptions SET items = (SELECT count(*) FROM items WHERE channel_id = 1) WHERE channel_id = 1;
        """)
    expect(counts(db), ({(1, 1): 4, (2, 1): 4}, {1: 4, 2: 4}), "the ingest's count moves the users' totals")
    db.run("UPDATE subscriptions SET items = items WHERE channel_id = 1")
    expect(counts(db)[1], {1: 4, 2: 4}, "a count written unchanged")
    db.run("DELETE FROM items WHERE item_id IN ('c', 'd')")
    expect(counts(db), ({(1, 1): 2, (2, 1): 2}, {1: 2, 2: 2}), "deleted items count down, per statement")
    db.run("""
        INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('youtube', 'https://y/c', 'https://y/c', 'Tube', 1);
        INSERT INTO items (channel_id, item_id, title, discovered_at) SELECT 2, 'v' || n, 'V' || n, 3 FROM generate_series(1, 5) n;
        INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 2, 3);
        """)
    expect(counts(db), ({(1, 1): 2, (2, 1): 2, (2, 2): 5}, {1: 2, 2: 7}), "a second subscription adds to its user's total only")
    db.run("DELETE FROM subscriptions WHERE user_id = 2 AND channel_id = 1")
    expect(counts(db), ({(1, 1): 2, (2, 2): 5}, {1: 2, 2: 5}), "an unsubscription takes its count off")
    db.run("DELETE FROM channels WHERE id = 2")
    expect(counts(db), ({(1, 1): 2}, {1: 2, 2: 0}), "a channel's cascade takes its items off its followers' totals once")
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 1, 4); DELETE FROM channels WHERE id = 1")
    expect(counts(db), ({}, {1: 0, 2: 0}), "a channel followed by two users goes")
    expect_error(db, "UPDATE users SET feed_items = -1 WHERE id = 1", "users_feed_items_check", "feed_items >= 0")


def watched_counts(db):
    """{(user, channel): watched} and {user: feed_watched}."""
    subscriptions = {(int(u), int(c)): int(n) for u, c, n in db.rows("SELECT user_id, channel_id, watched FROM subscriptions")}
    users = {int(u): int(n) for u, n in db.rows("SELECT id, feed_watched FROM users")}
    return subscriptions, users


@check
def watched_counts_follow_watch_rows_subscriptions_and_cascades(db, server):
    db.run(SETUP)
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1)")
    db.run("""
        INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) SELECT 1, id, 1, 5, 5 FROM items WHERE item_id = 'a';
        INSERT INTO watch_state (user_id, item, watched, progress_seconds, updated_at) SELECT 2, id, 0, 30, 5 FROM items WHERE item_id = 'a';
        """)
    expect(watched_counts(db), ({(1, 1): 1}, {1: 1, 2: 0}), "a watched row counts on its user's subscription; a row not watched does not")
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 1, 1)")
    db.run("UPDATE watch_state SET watched = 1, progress_seconds = 0, watched_at = 6 WHERE user_id = 2")
    expect(watched_counts(db), ({(1, 1): 1, (2, 1): 1}, {1: 1, 2: 1}), "marked watched later, it counts")
    db.run("UPDATE watch_state SET watched = 0, watched_at = NULL WHERE user_id = 1")
    expect(watched_counts(db), ({(1, 1): 0, (2, 1): 1}, {1: 0, 2: 1}), "unmarked, it does not")
    db.run("DELETE FROM watch_state WHERE user_id = 2")
    expect(watched_counts(db), ({(1, 1): 0, (2, 1): 0}, {1: 0, 2: 0}), "a watched row deleted counts down")
    db.run("""
        INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) SELECT u, id, 1, 7, 7 FROM items, (VALUES (1), (2)) v(u)
            ON CONFLICT (user_id, item) DO UPDATE SET watched = 1, watched_at = 7;
        DELETE FROM subscriptions WHERE user_id = 2;
        """)
    expect(watched_counts(db), ({(1, 1): 2}, {1: 2, 2: 0}), "an unsubscription takes its count off")
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 1, 8)")
    expect(watched_counts(db), ({(1, 1): 2, (2, 1): 2}, {1: 2, 2: 2}), "a new subscription counts its user's watched rows once")
    db.run("DELETE FROM items WHERE item_id = 'a'")
    expect(watched_counts(db), ({(1, 1): 1, (2, 1): 1}, {1: 1, 2: 1}), "an item that goes takes its watched rows off once (its cascade)")
    db.run("DELETE FROM channels WHERE id = 1")
    expect(watched_counts(db), ({}, {1: 0, 2: 0}), "a channel's cascade takes everything off once")
    expect_error(db, "UPDATE users SET feed_watched = -1 WHERE id = 1", "users_feed_watched_check", "feed_watched >= 0")


@check
def item_state_mirrors_the_owners_watch_state(db, server):
    db.run(SETUP)
    state = lambda: dict(db.rows("SELECT item_id, state FROM items ORDER BY id"))
    db.run("INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 1, 30, 5)")
    expect(state(), {"a": "1", "b": "0"}, "the owner's progress: in progress")
    db.run("UPDATE watch_state SET watched = 1, watched_at = 6, progress_seconds = 0 WHERE user_id = 1 AND item = 1")
    expect(state(), {"a": "2", "b": "0"}, "the owner's mark: watched")
    db.run("INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) VALUES (2, 2, 1, 7, 7)")
    expect(state(), {"a": "2", "b": "0"}, "another user's watch state leaves items.state alone")
    db.run("UPDATE watch_state SET item = 2 WHERE user_id = 1 AND item = 1")
    expect(state(), {"a": "0", "b": "2"}, "a row moved to another item")
    db.run("UPDATE watch_state SET user_id = 2, item = 1 WHERE user_id = 1 AND item = 2")
    expect(state(), {"a": "0", "b": "0"}, "a row moved to another user")
    db.run("INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 2, 9, 8); DELETE FROM watch_state WHERE user_id = 1")
    expect(state(), {"a": "0", "b": "0"}, "the owner's row deleted: untouched")


@check
def a_channel_reaches_private_addresses_only_while_every_follower_may(db, server):
    db.run(SETUP)
    reach = lambda: db.value("SELECT private_addresses FROM channels WHERE id = 1")
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at, private_addresses) VALUES (1, 1, 1, 1)")
    expect(reach(), "1", "its one follower may")
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at, private_addresses) VALUES (2, 1, 1, 0)")
    expect(reach(), "0", "a follower who may not")
    db.run("UPDATE subscriptions SET private_addresses = 1 WHERE user_id = 2")
    expect(reach(), "1", "that follower's subscription changed")
    db.run("UPDATE subscriptions SET private_addresses = 0 WHERE user_id = 1")
    expect(reach(), "0", "the other's changed")
    db.run("DELETE FROM subscriptions WHERE user_id = 1")
    expect(reach(), "1", "the one who may not left")


@check
def the_sync_clock_stamps_subscriptions_and_watch_state_at_commit(db, server):
    db.run(SETUP)
    clock = lambda: int(db.value("SELECT last FROM sync_clock"))
    subs = lambda: {(int(u), url): (int(s), int(c)) for u, url, s, c in db.rows("SELECT user_id, url, subscribed, changed FROM sync_subscription_changes")}
    # Behind the wall clock (the template was made earlier): a stamp is the time now.
    wall = lambda: int(db.value("SELECT floor(extract(epoch FROM clock_timestamp()))"))
    before = wall()
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1)")
    expect(before <= clock() <= wall(), True, "a stamp is the wall clock's second when the clock is behind it")
    # Ahead of the wall clock (two changes in a second do that): the last reading plus one.
    db.run("DELETE FROM subscriptions; DELETE FROM sync_subscription_changes; UPDATE sync_clock SET last = 4000000000")
    start = clock()
    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1), (2, 1, 1)")
    stamps = subs()
    expect(sorted(s for s, _ in stamps.values()), [1, 1], "both subscribed")
    expect(sorted(c for _, c in stamps.values()), [start + 1, start + 2], "two changes in one second: two stamps past the last")
    expect(clock(), start + 2, "the clock reads the last stamp")
    db.run("DELETE FROM subscriptions WHERE user_id = 2")
    expect(subs()[(2, "https://e/f")], (0, start + 3), "unsubscribed, stamped again")
    db.run("UPDATE channels SET feed_url = 'https://e/moved' WHERE id = 1")
    expect({k: v for k, v in subs().items() if k[0] == 1}, {(1, "https://e/f"): (0, start + 4), (1, "https://e/moved"): (1, start + 5)},
           "a moved feed: the old URL dropped, the new taken")
    db.run("UPDATE channels SET feed_url = 'https://e/moved' WHERE id = 1")
    expect(clock(), start + 5, "the same URL again: no tick")

    episodes = lambda: {(int(u), int(i)): int(c) for u, i, c in db.rows("SELECT user_id, item, changed FROM sync_episode_changes")}
    db.run("INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (2, 1, 10, 1)")
    expect(episodes(), {(2, 1): start + 6}, "a watch state stamped")
    db.run("UPDATE watch_state SET updated_at = 2 WHERE user_id = 2")
    db.run("UPDATE watch_state SET progress_seconds = 10 WHERE user_id = 2")
    expect(episodes(), {(2, 1): start + 6}, "no stamp when neither mark nor progress moved")
    db.run("BEGIN; UPDATE watch_state SET progress_seconds = 20 WHERE user_id = 2; UPDATE watch_state SET progress_seconds = 30 WHERE user_id = 2; COMMIT")
    expect(episodes(), {(2, 1): start + 7}, "two changes in one transaction: the row stamped once, at commit")
    db.run("BEGIN; UPDATE watch_state SET progress_seconds = 40 WHERE user_id = 2; ROLLBACK")
    expect((episodes(), clock()), ({(2, 1): start + 7}, start + 7), "a rolled-back change takes no stamp")
    expect(db.value("SELECT count(*) FROM sync_subscription_changes WHERE changed IS NULL") + "/" +
           db.value("SELECT count(*) FROM sync_episode_changes WHERE changed IS NULL"), "0/0", "no row is left unstamped")
    db.run("INSERT INTO sync_episode_changes (user_id, item, changed) VALUES (1, 2, 42)")
    expect(episodes()[(1, 2)], 42, "a row written with its stamp (db copy) keeps it")
    db.run("DELETE FROM users WHERE id = 2")
    expect(db.value("SELECT count(*) FROM sync_subscription_changes WHERE user_id = 2"), "0", "a removed user's sync rows go with them")


@check
def every_kind_of_change_is_logged_with_sqlites_payload(db, server):
    db.run(USERS_AND_CHANNEL)
    seen = 0

    def nxt():
        nonlocal seen
        found = changes_after(db, seen)
        seen = latest(db)
        return found

    db.run("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 10)")
    expect(nxt(), [(1, "subscription", '{"channel_id":1,"action":"added"}')], "subscription added (no items yet: no sync)")
    db.run("""
        INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'a', 'A', 20), (1, 'b', 'B', 20);
        UPDATE subscriptions SET items = 2 WHERE channel_id = 1;
        """)
    expect(nxt(), [(1, "sync", '{"channel_id":1,"new_items":2,"error":null}')], "a poll's new items")
    db.run("UPDATE subscriptions SET items = 2 WHERE channel_id = 1; UPDATE channels SET last_synced = 30")
    expect(nxt(), [], "a poll that changed nothing")
    db.run("UPDATE channels SET last_error = 'https://e/f: 503'")
    expect(nxt(), [(1, "sync", '{"channel_id":1,"new_items":0,"error":"https://e/f: 503"}')], "an error")
    db.run("UPDATE channels SET last_error = 'https://e/f: 503'")
    expect(nxt(), [], "the same error again")
    db.run("UPDATE channels SET last_error = NULL")
    expect(nxt(), [(1, "sync", '{"channel_id":1,"new_items":0,"error":null}')], "recovered")
    db.run("UPDATE channels SET last_error = E'quote \" backslash \\\\ newline \\n tab \\t é'")
    expect(nxt(), [(1, "sync", '{"channel_id":1,"new_items":0,"error":"quote \\" backslash \\\\ newline \\n tab \\t é"}')],
           "an error's text escaped as SQLite's json_object escapes it")

    db.run("""
        INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) VALUES (1, 1, 1, 70, 70);
        INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 2, 30, 71);
        UPDATE watch_state SET progress_seconds = 30, updated_at = 72 WHERE item = 2;
        UPDATE watch_state SET watched = 0, watched_at = NULL WHERE item = 1;
        """)
    expect(nxt(), [(1, "watch", '{"item_id":1,"watched":true,"progress_seconds":0}'),
                   (1, "watch", '{"item_id":2,"watched":false,"progress_seconds":30}'),
                   (1, "watch", '{"item_id":1,"watched":false,"progress_seconds":0}')], "watch: a mark, a progress, unwatched")

    db.run("""
        INSERT INTO saved_items (user_id, item, saved_at, updated_at) VALUES (1, 1, 80, 80);
        UPDATE saved_items SET notes = 'good', updated_at = 81;
        UPDATE saved_items SET updated_at = 81;
        UPDATE saved_items SET notes = 'quiet';
        DELETE FROM saved_items;
        INSERT INTO saved_items (user_id, platform, video_id, video_url, title, saved_at, updated_at)
            VALUES (1, 'youtube', 'v', 'https://y/v', 'V', 82, 82);
        """)
    expect(nxt(), [(1, "saved", '{"saved_id":1,"item_id":1,"action":"added"}'),
                   (1, "saved", '{"saved_id":1,"item_id":1,"action":"updated"}'),
                   (1, "saved", '{"saved_id":1,"item_id":1,"action":"updated"}'),
                   (1, "saved", '{"saved_id":1,"item_id":1,"action":"removed"}'),
                   (1, "saved", '{"saved_id":2,"item_id":null,"action":"added"}')],
           "saved: added, updated (each write of updated_at), removed; a page saved by URL")

    db.run("""
        INSERT INTO collections (user_id, name, created_at) VALUES (1, 'Mix', 90);
        INSERT INTO collection_items (collection, item, position, added_at) VALUES (1, 1, 1, 91);
        INSERT INTO collection_items (collection, item, position, added_at) VALUES (1, 2, 2, 92);
        UPDATE collection_items SET position = -position WHERE collection = 1;
        UPDATE collection_items SET position = CASE item WHEN 2 THEN 1 ELSE 2 END WHERE collection = 1;
        UPDATE collections SET name = 'Mixed', updated_at = 94;
        UPDATE collections SET name = 'Mixed', updated_at = 95;
        DELETE FROM collections;
        """)
    expect(nxt(), [(1, "collection", f'{{"collection_id":1,"action":"{a}"}}') for a in ["created", "items", "items", "items", "updated", "deleted"]],
           "collection: created, items added and reordered, renamed, deleted without a row per item")

    db.run("""
        UPDATE subscriptions SET active = 0;
        UPDATE subscriptions SET active = 0;
        UPDATE subscriptions SET speed = 1.5, speed_set = 1;
        DELETE FROM subscriptions;
        """)
    expect(nxt(), [(1, "subscription", '{"channel_id":1,"action":"updated"}'),
                   (1, "subscription", '{"channel_id":1,"action":"updated"}'),
                   (1, "subscription", '{"channel_id":1,"action":"removed"}')], "subscription paused, re-speeded, removed")

    db.run("""
        INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 1, 100);
        INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (2, 1, 5, 101);
        """)
    expect(nxt(), [(2, "subscription", '{"channel_id":1,"action":"added"}'),
                   (2, "sync", '{"channel_id":1,"new_items":2,"error":null}'),
                   (2, "watch", '{"item_id":1,"watched":false,"progress_seconds":5}')],
           "a new subscription to a channel with items: added, then its first count as a sync (SQLite's order)")
    db.run("DELETE FROM users WHERE id = 2")
    expect(nxt(), [], "a removed user's cascade logs nothing (v5-account-deletion; SQLite's store deletes what its cascade logged)")
    expect_error(db, "INSERT INTO changes (seq, user_id, kind, payload) VALUES (999, 1, 'other', '{}')", "changes_kind_check", "kinds")
    expect_error(db, "INSERT INTO changes (seq, user_id, kind, payload) VALUES (999, 1, 'sync', '{')", "invalid input syntax for type json",
                 "payload is JSON")


@check
def seqs_and_stamps_follow_commit_order(db, server):
    """Two sessions: the one that wrote first but commits last gets the later seq and stamp."""
    db.run(SETUP + "INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1), (2, 1, 1); CREATE EXTENSION dblink")
    before = latest(db)
    conn = db.conninfo
    db.run(f"""
        SELECT dblink_connect('early', '{conn}');
        SELECT dblink_connect('late', '{conn}');
        -- Were the late writer to wait for the early one (a lock taken before commit), it fails here, not hangs.
        SELECT dblink_exec('late', 'SET lock_timeout = ''5s''');
        SELECT dblink_exec('early', 'BEGIN');
        SELECT dblink_exec('early', 'INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 1, 11, 1)');
        SELECT dblink_exec('late', 'INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (2, 1, 22, 1)');
        SELECT dblink_exec('early', 'COMMIT');
        SELECT dblink_disconnect('early'); SELECT dblink_disconnect('late');
        """)
    rows = db.rows(f"SELECT seq, user_id FROM changes WHERE seq > {before} ORDER BY seq")
    expect([u for _, u in rows], ["2", "1"], "the change committed first has the smaller seq")
    expect([int(s) for s, _ in rows], [before + 1, before + 2], "no holes")
    stamps = dict(db.rows("SELECT user_id, changed FROM sync_episode_changes"))
    expect(int(stamps["2"]) < int(stamps["1"]), True, "the stamp committed first is the smaller")


@check
def a_rolled_back_change_takes_no_seq_and_the_log_is_pruned(db, server):
    db.run(SETUP + "INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1)")
    start = latest(db)
    db.run("BEGIN; INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 1, 1, 1); ROLLBACK")
    db.run("INSERT INTO watch_state (user_id, item, progress_seconds, updated_at) VALUES (1, 1, 2, 1)")
    expect(latest(db), start + 1, "a rolled-back write takes its number back")
    expect(db.value("SELECT count(*) FROM changes_pending"), "0", "nothing left pending")
    total = 10000 + 2 * 1000
    db.run(f"DO $$ BEGIN FOR n IN 3..{total + 2} LOOP UPDATE watch_state SET progress_seconds = n WHERE item = 1; END LOOP; END $$")
    last = latest(db)
    expect(last, start + 1 + total, "one change per update, in one transaction")
    kept = int(db.value("SELECT count(*) FROM changes"))
    expect(10000 <= kept < 11000, True, f"pruned to ChangeFeedRule.kept (kept {kept})")
    expect(int(db.value("SELECT min(seq) FROM changes")), last - kept + 1, "the oldest kept follows on to the latest")
    expect(db.value(f"SELECT payload FROM changes WHERE seq = {last}"), f'{{"item_id":1,"watched":false,"progress_seconds":{total + 2}}}',
           "the latest")


@check
def changes_are_announced_at_commit(db, server):
    db.run(SETUP + "CREATE EXTENSION dblink")
    conn = db.conninfo
    # psql prints each notification it has received after the command that received it.
    out = subprocess.run(["psql", "-X", "-d", db.conninfo, "-v", "ON_ERROR_STOP=1", "-f", "-"], capture_output=True, text=True, timeout=60,
                         input=f"""
        LISTEN feedctl_changes;
        SELECT dblink_connect('writer', '{conn}');
        SELECT dblink_exec('writer', 'BEGIN');
        SELECT dblink_exec('writer', 'INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (2, 1, 1)');
        SELECT 'before commit';
        SELECT dblink_exec('writer', 'COMMIT');
        SELECT 'after commit';
        SELECT dblink_exec('writer', 'BEGIN');
        SELECT dblink_exec('writer', 'DELETE FROM subscriptions');
        SELECT dblink_exec('writer', 'ROLLBACK');
        SELECT 'after rollback';
        """)
    if out.returncode != 0:
        failures.append(f"LISTEN: psql failed: {out.stderr.strip()}")
        return
    text = out.stdout
    heard = re.findall(r'notification "feedctl_changes" with payload "(\d+)"', text)
    expect(heard, ["1", "2"], "one notification per change published, its seq as the payload")
    first = text.find('notification "feedctl_changes"')
    expect(text.find("before commit") < first < text.find("after commit") if first >= 0 else False, True,
           "heard after the commit, not before")
    expect(text.count('notification "feedctl_changes"'), 2, "nothing for a rolled-back change")


@check
def search_finds_every_word_prefixes_and_accents_best_match_first(db, server):
    db.run("""
        INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES
            ('podcast', 'https://e/c', 'https://e/c', 'Cooking Show', 1),
            ('youtube', 'https://y/c', 'https://y/c', 'Café Engine', 1);
        INSERT INTO items (channel_id, item_id, title, description, discovered_at) VALUES
            (1, 'bread', 'Sourdough bread', 'Patience and a long rise.', 1),
            (1, 'notes', 'Weekly show', 'Why sourdough helps nutrition. Visit example.com/deal, 3.14% off; mail me@host.org', 2),
            (1, 'creme', 'Crème brûlée', 'A café classic.', 3),
            (2, 'engine', 'Bread machine review', NULL, 4);
        """)

    def query(text):
        """search_query over the words SearchTerms (LibraryStore) cuts from `text`: runs of
        letters, digits and marks, the last one a prefix."""
        words, word = [], ""
        for ch in text:
            if unicodedata.category(ch)[0] in "LNM":
                word += ch
            elif word:
                words.append(word)
                word = ""
        if word:
            words.append(word)
        # Words hold no '$' (not a letter), so dollar quoting needs no escaping.
        quoted = ", ".join(f"$w${w}$w$" for w in words)
        prefixes = ", ".join("true" if n == len(words) - 1 else "false" for n in range(len(words)))
        return f"search_query(ARRAY[{quoted}]::text[], ARRAY[{prefixes}]::boolean[])"

    def ids(text):
        # ts_rank with the weights scaled to the title's checks the document's parts (A, B, D);
        # the store ranks by bm25 (PostgresLibrary+Search.swift).
        rows = db.rows(f"""
            SELECT i.item_id FROM items_search s JOIN items i ON i.id = s.item
            WHERE s.document @@ {query(text)}
            ORDER BY ts_rank('{{0.1, 0, 0.5, 1}}', s.document, {query(text)}) DESC, i.id DESC""")
        return [r[0] for r in rows]

    expect(ids("sourdough"), ["bread", "notes"], "a title match first")
    expect(ids("sour"), ["bread", "notes"], "prefix")
    expect(ids("nutri"), ["notes"], "a prefix in the notes")
    expect(ids("sourdough patience"), ["bread"], "every word must match")
    expect(ids("sourdough nutri"), ["notes"], "the last word is a prefix")
    expect(ids("sour nutrition"), [], "earlier words match whole")
    expect(ids("creme brulee"), ["creme"], "accents ignored")
    expect(ids("CRÈME"), ["creme"], "case and accents ignored")
    expect(ids("cre\u0300me"), ["creme"], "a combining accent typed separately")
    expect(set(ids("cafe")), {"creme", "engine"}, "in the notes or the channel's name")
    expect(ids("cafe")[-1], "creme", "the channel's name weighs more than the notes")
    expect(ids("example"), ["notes"], "a word inside a URL, as FTS5 cuts it")
    expect(ids("example deal 14"), ["notes"], "URL parts and a decimal's digits are words")
    expect(ids("host org"), ["notes"], "an e-mail address's parts are words")
    expect(ids("\"sourdough"), ["bread", "notes"], "quotes are separators")
    expect(ids("-sourdough"), ["bread", "notes"], "'-' is not NOT")
    expect(ids("sourdough OR zzz"), [], "OR is a word that must match too")
    expect(ids("sourdough & !bread"), ["bread"], "tsquery operators are separators")
    expect(db.value("SELECT search_query('{}', '{}') IS NULL"), "t", "no word: NULL")
    expect(db.value(f"SELECT {query('Привет мир')}::text"), "'привет' & 'мир':*", "non-Latin words lowered, whatever the locale")
    expect(db.value(f"SELECT {query('x½ a')}::text"), "'x1' <-> '2' & 'a':*", "a word unaccent makes into several is a phrase")
    expect(db.value("SELECT search_term(E'\\u0300', false) IS NULL"), "t", "a lone accent: nothing to find")
    expect(db.value(f"SELECT {query('sourdough ' + chr(0x300))} IS NULL"), "t", "a word that can match nothing: the search matches nothing")
    long_word = subprocess.run(["psql", "-X", "-A", "-t", "-d", db.conninfo, "-c", "SELECT search_term(repeat('a', 3000), true) IS NULL"],
                               capture_output=True, text=True, timeout=60)
    expect((long_word.stdout.strip(), long_word.stderr.strip()), ("t", ""),
           "a word longer than the index keeps: nothing to find, and no NOTICE for the client to print")

    db.run("UPDATE channels SET name = 'Kitchen' WHERE id = 1")
    expect(ids("cooking"), [], "a renamed channel's items forget the old name")
    expect(ids("kitchen"), ["creme", "notes", "bread"], "and know the new one")
    db.run("UPDATE items SET title = 'Rye loaf' WHERE item_id = 'bread'")
    expect(ids("rye"), ["bread"], "a changed title is indexed again")
    expect(ids("sourdough"), ["notes"], "and the old title forgotten")
    db.run("""INSERT INTO items (channel_id, item_id, title, description, discovered_at) VALUES
                  (1, 'bread', 'Rye bloomer', 'Patience and a long rise.', 1), (1, 'fresh', 'Fresh zebra', NULL, 5)
              ON CONFLICT (channel_id, item_id) DO UPDATE SET title = excluded.title, description = excluded.description""")
    expect((ids("bloomer"), ids("loaf"), ids("zebra")), (["bread"], [], ["fresh"]), "the ingest's upsert: a row rewritten, a row added")
    db.run("UPDATE items SET channel_id = 2 WHERE item_id = 'bread'")
    expect(ids("engine rye"), ["bread"], "an item moved to another channel takes its name")
    db.run("DELETE FROM channels WHERE id = 2")
    expect(db.value("SELECT count(*) FROM items_search"), "3", "a channel's items leave the index with it")
    expect(db.value("SELECT count(*) FROM items"), db.value("SELECT count(*) FROM items_search"), "one document per item")


@check
def constraints_and_foreign_keys_refuse_what_sqlites_refuse(db, server):
    db.run(SETUP)
    cases = [
        ("INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('vimeo', 'u', 'x', 'n', 1)", "channels_platform_check"),
        ("INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('podcast', 'u', 'https://e/f', 'n', 1)", "channels_feed_url_key"),
        ("UPDATE channels SET warnings = '{\"a\": 1}'", "channels_warnings_check"),
        ("UPDATE channels SET warnings = 'nope'", "invalid input syntax for type json"),
        ("UPDATE items SET persons = '{}'", "items_persons_check"),
        ("INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'a', 'dup', 1)", "items_channel_id_item_id_key"),
        ("INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (9, 'z', 'no channel', 1)", "items_channel_id_fkey"),
        ("INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) VALUES (1, 1, 0, 5, 5)", "watch_state_check"),
        ("INSERT INTO subscriptions (user_id, channel_id, added_at, speed) VALUES (1, 1, 1, 3.5)", "subscriptions_speed_check"),
        ("INSERT INTO player_state (user_id, volume, updated_at) VALUES (1, 1.5, 1)", "player_state_volume_check"),
        ("INSERT INTO player_state (user_id, last_item, last_url, updated_at) VALUES (1, 1, 'https://x', 1)", "player_state_check"),
        ("INSERT INTO up_next (user_id, position, title, added_at) VALUES (1, 1, 'nothing', 1)", "up_next_check"),
        ("INSERT INTO up_next (user_id, position, item, url, title, added_at) VALUES (1, 1, 1, 'https://x', 'both', 1)", "up_next_check"),
        ("INSERT INTO saved_items (user_id, platform, video_id, saved_at, updated_at) VALUES (1, 'youtube', 'v', 1, 1)", "saved_items_check"),
        ("INSERT INTO episode_actions (user_id, uploaded, podcast, episode, action, timestamp, position) VALUES (1, 1, 'p', 'e', 'download', 1, 5)",
         "episode_actions_check"),
        ("INSERT INTO sync_devices (user_id, device, type, created_at, updated_at) VALUES (1, 'd', 'phone', 1, 1)", "sync_devices_type_check"),
        ("INSERT INTO users (name, created_at) VALUES ('', 1)", "users_name_check"),
        ("INSERT INTO sync_clock (id, last) VALUES (2, 1)", "sync_clock_id_check"),
    ]
    for script, fragment in cases:
        expect_error(db, script, fragment, script[:70])
    db.run("""
        INSERT INTO saved_items (user_id, platform, video_id, video_url, title, saved_at, updated_at) VALUES (1, 'youtube', 'v', 'https://y/v', 'V', 1, 1);
        INSERT INTO up_next (user_id, position, item, title, added_at) VALUES (1, 1, 1, 'A', 1);
        INSERT INTO play_history (user_id, item, title, channel_name, played_at) VALUES (1, 1, 'A', 'Show', 1);
        INSERT INTO player_state (user_id, last_item, updated_at) VALUES (1, 1, 1);
        INSERT INTO episode_actions (user_id, uploaded, podcast, episode, action, timestamp, item) VALUES (1, 1, 'https://e/f', 'https://e/a.mp3', 'play', 1, 1);
        INSERT INTO chapters_cache (item, url, body, fetched_at) VALUES (1, 'https://e/c.json', '{}', 1);
        INSERT INTO collections (user_id, name, created_at) VALUES (1, 'Mix', 1);
        INSERT INTO collection_items (collection, item, position, added_at) VALUES (1, 1, 1, 1);
        """)
    expect_error(db, "INSERT INTO saved_items (user_id, platform, video_id, video_url, title, saved_at, updated_at) VALUES (1, 'youtube', 'v', 'https://y/w', 'W', 1, 1)",
                 "saved_items_page", "a page saved twice")
    db.run("DELETE FROM items WHERE item_id = 'a'")
    expect(db.rows("""SELECT (SELECT count(*) FROM up_next), (SELECT count(*) FROM play_history WHERE item IS NULL),
                             (SELECT count(*) FROM player_state WHERE last_item IS NULL), (SELECT count(*) FROM episode_actions WHERE item IS NULL),
                             (SELECT count(*) FROM chapters_cache), (SELECT count(*) FROM collection_items)"""),
           [("0", "1", "1", "1", "0", "0")], "an item's delete: cascades and SET NULLs as in SQLite")
    db.run("""INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('podcast', 'u', 'https://e/g', 'G', 1);
              INSERT INTO items (channel_id, item_id, title, discovered_at) SELECT id, 'g', 'G', 1 FROM channels WHERE name = 'G'""")
    largest = db.rows("SELECT (SELECT max(id) FROM channels), (SELECT max(id) FROM items)")[0]
    db.run("""DELETE FROM channels; INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('podcast', 'u', 'https://e/h', 'H', 1);
              INSERT INTO items (channel_id, item_id, title, discovered_at) SELECT id, 'h', 'H', 1 FROM channels""")
    again = db.rows("SELECT (SELECT id FROM channels), (SELECT id FROM items)")[0]
    expect(all(int(new) > int(old) for new, old in zip(again, largest)), True, f"ids are never handed out twice ({largest} then {again})")


# What differs from SQLite on purpose (docs/postgresql.md, "Schema").
KNOWN = {
    "tables only in SQLite": {"grdb_migrations", "sqlite_sequence", "search_state", "items_search_data", "items_search_idx",
                              "items_search_docsize", "items_search_config"},
    "tables only in PostgreSQL": {"changes_pending"},
    # SQLite's items_search is an FTS5 table over a view; here it is a table of documents.
    "tables of another shape": {"items_search"},
    "nullable only in PostgreSQL": {("sync_subscription_changes", "changed"), ("sync_episode_changes", "changed")},
    "indexes only in PostgreSQL": {"items_search_document", "channels_due"},
    # A new subscription's counts: SQLite's two triggers (kept apart for their firing order) are one here.
    "triggers only in SQLite": {"items_search_deleted", "channels_search_deleted", "subscriptions_counted",
                                "subscriptions_watched_counted"},
    "triggers only in PostgreSQL": {"subscriptions_tallied", "items_search_inserted", "changes_notified", "changes_published",
                                    "sync_subscription_changes_stamped", "sync_episode_changes_stamped"},
}
TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text"}


def sqlite_library(feedctl):
    work = tempfile.mkdtemp(prefix="feedctl-pgcheck-sqlite-")
    path = os.path.join(work, "library.sqlite")
    env = dict(os.environ, FEEDCTL_DB=path, HOME=work)
    result = subprocess.run([feedctl, "user", "add", "parity"], capture_output=True, text=True, env=env, timeout=120)
    if result.returncode != 0 or not os.path.exists(path):
        raise RuntimeError(f"{feedctl} user add did not make a library: {result.stderr.strip()}")
    return path


def parity(db, feedctl):
    lite = sqlite3.connect(sqlite_library(feedctl))
    lite_tables = {name for (name,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    pg_tables = {name for (name,) in db.rows("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
    expect(lite_tables - pg_tables, KNOWN["tables only in SQLite"], "tables only in SQLite")
    expect(pg_tables - lite_tables, KNOWN["tables only in PostgreSQL"], "tables only in PostgreSQL")
    pg_columns = {}
    for table, column, data_type, nullable, default in db.rows("""
            SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '') FROM information_schema.columns
            WHERE table_schema = current_schema()"""):
        pg_columns.setdefault(table, {})[column] = (data_type, nullable == "YES", default)
    nullable_here = set()
    for table in sorted(lite_tables & pg_tables - KNOWN["tables of another shape"]):
        lite_columns = {row[1]: row for row in lite.execute(f'PRAGMA table_info("{table}")')}
        expect(sorted(pg_columns[table]), sorted(lite_columns), f"{table}: columns (expected: SQLite's)")
        for name, (_, _, declared, notnull, default, primary) in lite_columns.items():
            if name not in pg_columns[table]:
                continue
            data_type, nullable, pg_default = pg_columns[table][name]
            expect(data_type, TYPES.get(declared, declared), f"{table}.{name}: type")
            lite_nullable = not notnull and not primary
            if nullable and not lite_nullable:
                nullable_here.add((table, name))
            elif nullable != lite_nullable:
                failures.append(f"{table}.{name}: NOT NULL in PostgreSQL only")
            if "epoch" in pg_default:  # unixepoch() in SQLite
                continue
            spelled = re.sub(r"::[a-z ]+$", "", pg_default).strip("'")
            if (default or "").strip("'") != spelled:
                failures.append(f"{table}.{name}: default {pg_default!r}, SQLite's {default!r}")
    expect(nullable_here, KNOWN["nullable only in PostgreSQL"], "columns nullable only in PostgreSQL")
    lite_indexes = {name for (name,) in lite.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'")}
    pg_indexes = {name for (name,) in db.rows(f"""
        SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()
        AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'""")}
    expect(lite_indexes - pg_indexes, set(), "indexes only in SQLite")
    expect(pg_indexes - lite_indexes, KNOWN["indexes only in PostgreSQL"], "indexes only in PostgreSQL")
    lite_triggers = {name for (name,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    pg_triggers = {name for (name,) in db.rows("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")}
    expect(lite_triggers - pg_triggers, KNOWN["triggers only in SQLite"], "triggers only in SQLite")
    expect(pg_triggers - lite_triggers, KNOWN["triggers only in PostgreSQL"], "triggers only in PostgreSQL")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--feedctl", default=os.path.join(ROOT, ".build", "debug", "feedctl"),
                        help="feedctl, to make the SQLite library the parity check compares with")
    parser.add_argument("--skip-parity", action="store_true", help="do not compare with SQLite's schema (reported as skipped)")
    parser.add_argument("-k", dest="only", help="run only the checks whose name contains this")
    args = parser.parse_args()

    server = Server()
    admin = DB(server.conninfo("postgres"))
    prefix = f"schema_check_{os.getpid()}"
    template = f"{prefix}_template"
    made = []
    try:
        admin.run(f"CREATE DATABASE {template}")
        made.append(template)
        with tempfile.TemporaryDirectory() as directory:
            dumped = subprocess.run([sys.executable, APPLY, "--dump", directory], capture_output=True, text=True)
            if dumped.returncode != 0:
                sys.exit(dumped.stderr.strip())
            for path in dumped.stdout.split():
                DB(server.conninfo(template)).psql(open(path).read(), env=dict(os.environ, PGOPTIONS="-c feedctl.owner_name=alice"))
        ran = 0
        for number, function in enumerate(CHECKS):
            if args.only and args.only not in function.__name__:
                continue
            database = f"{prefix}_{number}"
            admin.run(f"CREATE DATABASE {database} TEMPLATE {template}")
            made.append(database)
            before = len(failures)
            try:
                function(DB(server.conninfo(database)), server)
            except Exception as error:  # a check that crashed fails, with where
                failures.append(f"{function.__name__}: {error}\n{traceback.format_exc()}")
            failures[before:] = [f"{function.__name__}: {failure}" for failure in failures[before:]]
            print(f"{'ok  ' if len(failures) == before else 'FAIL'} {function.__name__}")
            ran += 1
        if args.skip_parity or args.only:
            print("SKIPPED parity with SQLite's schema" + (" (--skip-parity)" if args.skip_parity else " (-k)"))
        elif not os.path.exists(args.feedctl):
            failures.append(f"parity: no feedctl at {args.feedctl}: build it first, or pass --feedctl PATH or --skip-parity")
        else:
            before = len(failures)
            parity(DB(server.conninfo(template)), args.feedctl)
            print(f"{'ok  ' if len(failures) == before else 'FAIL'} parity with SQLite's schema")
            ran += 1
    finally:
        for database in made:
            admin.error(f"DROP DATABASE IF EXISTS {database}")
        server.stop()
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    print(f"{ran} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
