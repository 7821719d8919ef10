#include "ffmpeg_log.h"
#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char error_line[240];

static void keep_error_line(void *context, int level, const char *format, va_list args) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(error_line, sizeof error_line, format, args);
}

void feedctl_ffmpeg_keep_error_lines(void) {
    av_log_set_level(AV_LOG_ERROR);
    av_log_set_callback(keep_error_line);
}

void feedctl_ffmpeg_error_line_clear(void) { error_line[0] = 0; }

const char *feedctl_ffmpeg_error_line(void) { return error_line; }
