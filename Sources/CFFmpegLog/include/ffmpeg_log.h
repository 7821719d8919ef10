#ifndef FEEDCTL_FFMPEG_LOG_H
#define FEEDCTL_FFMPEG_LOG_H
// FFmpeg tells why an open failed only in its log (an untrusted TLS certificate, say: the return
// code is just EIO). These make it log nothing but keep the calling thread's last error line.
// (A C file, not the CFFmpeg shim header: Swift does not emit a header's static storage.)
void feedctl_ffmpeg_keep_error_lines(void);
void feedctl_ffmpeg_error_line_clear(void);
const char *feedctl_ffmpeg_error_line(void);
#endif
