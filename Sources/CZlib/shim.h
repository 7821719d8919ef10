#ifndef FEEDCTL_CZLIB_SHIM_H
#define FEEDCTL_CZLIB_SHIM_H
#include <string.h>
#include <zlib.h>

/// `in` compressed as a gzip member (zlib's `level`, 1-9) into `out` (`cap` bytes); 0 and
/// `*written` on success, -1 when it does not fit or zlib refuses (deflateInit2 is a macro Swift
/// cannot call).
static inline int feedctl_gzip(const unsigned char *in, size_t count, unsigned char *out, size_t cap, size_t *written, int level) {
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    s.next_in = (Bytef *)in;
    s.avail_in = (uInt)count;
    s.next_out = out;
    s.avail_out = (uInt)cap;
    int result = deflate(&s, Z_FINISH);
    *written = s.total_out;
    deflateEnd(&s);
    return result == Z_STREAM_END ? 0 : -1;
}
#endif
