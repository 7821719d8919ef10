#ifndef FEEDCTL_CCURL_SHIM_H
#define FEEDCTL_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>

// libcurl is loaded with dlopen on first use, not linked: linking maps it and the ~30
// libraries only it needs (GnuTLS, OpenSSL, Kerberos, LDAP, libssh2...) and runs their
// constructors in every feedctl process, ~12 ms of start-up that `feedctl parse FILE` and the
// player commands never use. The headers stay for the types and constants. Loaded once and
// never unloaded, so the pointers stay valid; if it is missing, init calls fail (global_init
// returns CURLE_FAILED_INIT, the *_init calls NULL) and the fetcher reports libcurl missing.
// (Static inline in a header: each Swift file that calls these may get its own table and
// once-guard; dlopen hands all of them the same library.)
struct feedctl_curl_api {
    int loaded;
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLcode (*easy_pause)(CURL *, int);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

// Function-local statics: Swift's importer emits the inline functions it calls, with their
// statics, but not file-scope variables of a header.
static inline struct feedctl_curl_api *feedctl_curl_slot(void) {
    static struct feedctl_curl_api api;
    return &api;
}

static inline void feedctl_curl_load(void) {
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    struct feedctl_curl_api *t = feedctl_curl_slot();
#define FEEDCTL_CURL_SYM(field, name) if (!(*(void **)&t->field = dlsym(h, name))) return;
    FEEDCTL_CURL_SYM(global_init, "curl_global_init")
    FEEDCTL_CURL_SYM(easy_init, "curl_easy_init")
    FEEDCTL_CURL_SYM(easy_cleanup, "curl_easy_cleanup")
    FEEDCTL_CURL_SYM(easy_setopt, "curl_easy_setopt")
    FEEDCTL_CURL_SYM(easy_getinfo, "curl_easy_getinfo")
    FEEDCTL_CURL_SYM(easy_strerror, "curl_easy_strerror")
    FEEDCTL_CURL_SYM(multi_init, "curl_multi_init")
    FEEDCTL_CURL_SYM(easy_pause, "curl_easy_pause")
    FEEDCTL_CURL_SYM(multi_cleanup, "curl_multi_cleanup")
    FEEDCTL_CURL_SYM(multi_setopt, "curl_multi_setopt")
    FEEDCTL_CURL_SYM(multi_add_handle, "curl_multi_add_handle")
    FEEDCTL_CURL_SYM(multi_remove_handle, "curl_multi_remove_handle")
    FEEDCTL_CURL_SYM(multi_perform, "curl_multi_perform")
    FEEDCTL_CURL_SYM(multi_poll, "curl_multi_poll")
    FEEDCTL_CURL_SYM(multi_wakeup, "curl_multi_wakeup")
    FEEDCTL_CURL_SYM(multi_info_read, "curl_multi_info_read")
    FEEDCTL_CURL_SYM(slist_append, "curl_slist_append")
    FEEDCTL_CURL_SYM(slist_free_all, "curl_slist_free_all")
#undef FEEDCTL_CURL_SYM
    t->loaded = 1;
}

static inline const struct feedctl_curl_api *feedctl_curl(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, feedctl_curl_load);
    return feedctl_curl_slot();
}

// Only the init calls can come first: the others take a handle one of them returned.
static inline CURLcode feedctl_curl_global_init(long flags) {
    return feedctl_curl()->loaded ? feedctl_curl()->global_init(flags) : CURLE_FAILED_INIT;
}
static inline CURL *feedctl_curl_easy_init(void) { return feedctl_curl()->loaded ? feedctl_curl()->easy_init() : NULL; }
static inline CURLM *feedctl_curl_multi_init(void) { return feedctl_curl()->loaded ? feedctl_curl()->multi_init() : NULL; }
static inline const char *feedctl_curl_easy_strerror(CURLcode c) {
    return feedctl_curl()->loaded ? feedctl_curl()->easy_strerror(c) : "libcurl is not available";
}
static inline void feedctl_curl_easy_cleanup(CURL *h) { feedctl_curl()->easy_cleanup(h); }
// A streamed body's reader caught up: libcurl delivers what it held back and reads on.
static inline CURLcode feedctl_curl_easy_unpause(CURL *h) { return feedctl_curl()->easy_pause(h, CURLPAUSE_CONT); }
// What a write callback returns to hold a body back until the reader catches up.
static inline size_t feedctl_curl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline CURLMcode feedctl_curl_multi_cleanup(CURLM *m) { return feedctl_curl()->multi_cleanup(m); }
static inline CURLMcode feedctl_curl_multi_add_handle(CURLM *m, CURL *h) { return feedctl_curl()->multi_add_handle(m, h); }
static inline CURLMcode feedctl_curl_multi_remove_handle(CURLM *m, CURL *h) { return feedctl_curl()->multi_remove_handle(m, h); }
static inline CURLMcode feedctl_curl_multi_perform(CURLM *m, int *running) { return feedctl_curl()->multi_perform(m, running); }
static inline CURLMcode feedctl_curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout, int *ret) {
    return feedctl_curl()->multi_poll(m, extra, n, timeout, ret);
}
static inline CURLMcode feedctl_curl_multi_wakeup(CURLM *m) { return feedctl_curl()->multi_wakeup(m); }
static inline CURLMsg *feedctl_curl_multi_info_read(CURLM *m, int *left) { return feedctl_curl()->multi_info_read(m, left); }
static inline struct curl_slist *feedctl_curl_slist_append(struct curl_slist *l, const char *s) {
    return feedctl_curl()->slist_append(l, s);
}
static inline void feedctl_curl_slist_free_all(struct curl_slist *l) { feedctl_curl()->slist_free_all(l); }

// curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic: Swift cannot call them.
static inline CURLcode feedctl_curl_setopt_long(CURL *h, CURLoption o, long v) { return feedctl_curl()->easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return feedctl_curl()->easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_str(CURL *h, CURLoption o, const char *v) { return feedctl_curl()->easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_ptr(CURL *h, CURLoption o, void *v) { return feedctl_curl()->easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return feedctl_curl()->easy_setopt(h, o, v); }
typedef size_t (*feedctl_curl_data_cb)(char *, size_t, size_t, void *);
static inline CURLcode feedctl_curl_setopt_datacb(CURL *h, CURLoption o, feedctl_curl_data_cb v) { return feedctl_curl()->easy_setopt(h, o, v); }
typedef curl_socket_t (*feedctl_curl_opensocket_cb)(void *, curlsocktype, struct curl_sockaddr *);
static inline CURLcode feedctl_curl_setopt_opensocket(CURL *h, feedctl_curl_opensocket_cb v) { return feedctl_curl()->easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v); }
typedef int (*feedctl_curl_xferinfo_cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode feedctl_curl_setopt_xferinfo(CURL *h, CURLoption o, feedctl_curl_xferinfo_cb v) { return feedctl_curl()->easy_setopt(h, o, v); }
static inline CURLcode feedctl_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return feedctl_curl()->easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return feedctl_curl()->easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return feedctl_curl()->easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_str(CURL *h, CURLINFO i, char **v) { return feedctl_curl()->easy_getinfo(h, i, v); }
static inline CURLcode feedctl_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return feedctl_curl()->easy_getinfo(h, i, v); }
static inline CURLMcode feedctl_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return feedctl_curl()->multi_setopt(m, o, v); }
#endif
