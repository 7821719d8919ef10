#ifndef FEEDCTL_CFFMPEG_SHIM_H
#define FEEDCTL_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libavutil/dict.h>
#include <errno.h>
// Macros that do not import into Swift.
static inline int feedctl_AVERROR(int e) { return AVERROR(e); }
static inline int feedctl_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int feedctl_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int feedctl_AVERROR_EXIT(void) { return AVERROR_EXIT; }
static inline int64_t feedctl_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline AVRational feedctl_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }
static inline int feedctl_av_strerror(int e, char *buf, size_t size) { return av_strerror(e, buf, size); }
#endif
