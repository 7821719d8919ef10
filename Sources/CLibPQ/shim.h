#ifndef FEEDCTL_CLIBPQ_SHIM_H
#define FEEDCTL_CLIBPQ_SHIM_H
// libpq, PostgreSQL's own client library (Debian's libpq-dev): it parses every connection URL
// form (a Unix socket directory in `host=` included) and speaks the protocol; LibraryPostgres
// owns each connection on one queue.
#include <postgresql/libpq-fe.h>
#endif
