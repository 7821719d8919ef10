#ifndef FEEDCTL_CLIBCRYPTO_SHIM_H
#define FEEDCTL_CLIBCRYPTO_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// OpenSSL's libcrypto for the two digests feedctl needs (SHA-256 of session tokens, SHA-1 of
// Podcast Index's request signature). It is on every machine feedctl runs on (libcurl4-openssl
// depends on it). Loaded with dlopen on first use, like libcurl, so a command that never hashes
// does not map it at start-up; its three functions are declared here (EVP_Digest's documented
// signature, OpenSSL 1.1 and 3) rather than taken from <openssl/evp.h>, so building needs no
// libssl-dev. Loaded once and never unloaded.
struct feedctl_crypto_api {
    int loaded;
    const void *(*sha1)(void);
    const void *(*sha256)(void);
    int (*digest)(const void *data, size_t count, unsigned char *md, unsigned int *size, const void *type, void *engine);
};

// Function-local statics: Swift's importer emits the inline functions it calls, with their
// statics, but not file-scope variables of a header.
static inline struct feedctl_crypto_api *feedctl_crypto_slot(void) {
    static struct feedctl_crypto_api api;
    return &api;
}

static inline void feedctl_crypto_load(void) {
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    struct feedctl_crypto_api *t = feedctl_crypto_slot();
    if (!(*(void **)&t->sha1 = dlsym(h, "EVP_sha1"))) return;
    if (!(*(void **)&t->sha256 = dlsym(h, "EVP_sha256"))) return;
    if (!(*(void **)&t->digest = dlsym(h, "EVP_Digest"))) return;
    t->loaded = 1;
}

#define FEEDCTL_DIGEST_SHA1 1
#define FEEDCTL_DIGEST_SHA256 2
#define FEEDCTL_DIGEST_MAX 64

// The digest of `count` bytes at `data` into `out` (FEEDCTL_DIGEST_MAX bytes); returns its
// length, or 0 if libcrypto could not be loaded or the digest failed.
static inline unsigned int feedctl_digest(int algorithm, const void *data, size_t count, unsigned char *out) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, feedctl_crypto_load);
    struct feedctl_crypto_api *t = feedctl_crypto_slot();
    if (!t->loaded) return 0;
    const void *type = algorithm == FEEDCTL_DIGEST_SHA1 ? t->sha1() : t->sha256();
    unsigned int size = 0;
    if (!type || t->digest(data, count, out, &size, type, NULL) != 1) return 0;
    return size;
}

#endif
