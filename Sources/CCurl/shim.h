#ifndef FEEDCTL_CCURL_SHIM_H
#define FEEDCTL_CCURL_SHIM_H
#include <curl/curl.h>
// curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic: Swift cannot call them.
static inline CURLcode feedctl_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*feedctl_curl_data_cb)(char *, size_t, size_t, void *);
static inline CURLcode feedctl_curl_setopt_datacb(CURL *h, CURLoption o, feedctl_curl_data_cb v) { return curl_easy_setopt(h, o, v); }
typedef int (*feedctl_curl_xferinfo_cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode feedctl_curl_setopt_xferinfo(CURL *h, CURLoption o, feedctl_curl_xferinfo_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode feedctl_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
#endif
