#ifndef FLOWHOST_CSQLITE_SHIM_H
#define FLOWHOST_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift
   cannot import: these binders tell SQLite to copy the bytes. */
static inline int fh_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int fh_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

/* sqlite3_config is variadic. Memory statistics off: each allocation and
   free then skips a global mutex (about 460 lock pairs a login and logoff).
   Only before SQLite initialises (the first open); later it is refused. */
static inline int fh_sqlite3_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* No bulk page-cache block per connection: SQLite otherwise allocates room
   for 20 pages (87 KB) at a connection's first read and writes a header
   into each, so every one of its pages is dirty before a page is cached.
   Pages are then allocated as they are first read. Same rule as above. */
static inline int fh_sqlite3_config_no_page_cache_bulk(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

#endif
