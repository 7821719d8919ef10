"""bench/search's peer: the same ranked FTS5 SQL as feedctl's search, run through Python's
sqlite3 module (the system SQLite, as feedctl's) on the same file, timed per query.
Usage: python3 bench/search_peer.py LIBRARY RUNS < SQL   (prints one time in ms per line)"""
import sqlite3
import sys
import time

db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
sql = sys.stdin.read()
for _ in range(5):
    db.execute(sql).fetchall()
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    db.execute(sql).fetchall()
    print((time.perf_counter() - start) * 1000)
