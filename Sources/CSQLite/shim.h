#ifndef FEEDCTL_CSQLITE_SHIM_H
#define FEEDCTL_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Process-wide SQLite settings for a program whose every connection is used by one thread at a
/// time (GRDB serializes each one): no per-call connection mutex (multi-thread mode) and no
/// global memory statistics (whose mutex every allocation takes). sqlite3_config is variadic,
/// so Swift cannot call it; it only works before SQLite initializes, so call this before opening
/// anything. Returns SQLITE_OK, or SQLITE_MISUSE when SQLite was already initialized (harmless:
/// the defaults stay).
static inline int feedctl_sqlite3_configure(void) {
    int threading = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    int memstatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return threading != SQLITE_OK ? threading : memstatus;
}
#endif
